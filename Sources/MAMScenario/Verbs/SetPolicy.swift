import MAMDevice
import MAMDeviceState
import MAMDocument
import MAMModel
import MAMPolicy
import MAMWire

/// `setPolicy`: the admin targets an account with another policy, or untargets it.
struct SetPolicyStep: StepVerb {
    static let name = "setPolicy"
    static let since = "v1"
    static let summary = "targets the account with a scenario policy (null: untargets it); running apps are notified"
    static let example = "setPolicy: {account: alice@contoso.com, policy: strict}"
    static let arguments: [VerbArgument] = [
        .required("account", .account(unmanaged: false), "the account"),
        .required("policy", .text, nullable: true, "a policy declared under policies:, or null"),
    ]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var account: Account
    /// A scenario policy name, or `nil` to untarget the account.
    var policy: String?

    init(account: Account, policy: String?) { (self.account, self.policy) = (account, policy) }

    init(_ a: VerbArgumentReader) {
        let p = a["policy"]!
        if !p.isNull, let s = a.reader.name(p, what: "policy") {
            if a.loading.policies[s] == nil {
                if !a.loading.brokenPolicies.contains(s) { a.reader.error(p, a.loading.unknownPolicy(s)) }
            } else {
                policy = s
            }
        }
        account = a.account("account")
    }

    func run(_ run: StepRun) async -> StepOutcome {
        let found = policy.flatMap { run.scenario.policies[$0] }
        switch await run.host.complete({ [account] host, done in host.admin.setPolicy(found, for: account, done) }) {
        case .success(true): return (.ok, policy.map { "\(account) is now targeted by \"\($0)\"" } ?? "\(account) is no longer targeted", "\(account)")
        case .success(false):
            return (.ok, "\(account) is targeted by \"\(policy ?? "")\", but another account is the device's managed account: \(account) stays unmanaged in every app (one managed account per device)", "\(account)")
        case .failure(let e): return (.failed(e.reason), e.message, "\(account)")
        }
    }
}
