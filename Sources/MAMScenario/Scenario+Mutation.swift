public import MAMPolicy

extension Scenario {
    /// The scenario with its policy `name` replaced by `policy` wherever it is read: the accounts
    /// it targets in the fleet (as the loader adds them), and `setPolicy` steps, which name it.
    /// `mamsim mutate` runs the team's scenario against such a policy.
    public func replacingPolicy(named name: String, with policy: IosManagedAppProtection) -> Scenario {
        var s = self
        s.policies[name] = policy
        for entry in accounts where entry.policyName == name || entry.morePolicyNames.contains(name) {
            if entry.morePolicyNames.isEmpty {
                s.fleet.add(entry.account, policy: policy)
            } else {
                s.fleet.add(entry.account, policies: ([entry.policyName].compactMap { $0 } + entry.morePolicyNames).compactMap { s.policies[$0] })
            }
            if !entry.groups.isEmpty || !entry.roles.isEmpty {
                s.fleet.setMembership(DirectoryMembership(groups: entry.groups, roles: entry.roles), of: entry.account)
            }
        }
        return s
    }
}
