import Foundation
import MAMActivation
import MAMDocument
import MAMModel
import MAMPolicy
import Yams

/// `conditionalAccess:` (SCENARIOS.md v1.1): Entra CA policies from Graph
/// `conditionalAccessPolicy` files, or inline `{name, users, grant, state?, applications?,
/// operator?, excludeUsers?, tenant?}`.
extension Loading {
    static let conditionalAccessKeys = ["name", "file", "users", "excludeUsers", "groups", "excludeGroups", "applications", "grant", "operator", "state", "tenant"]

    func readConditionalAccess(_ v: Located) {
        guard let items = reader.list(v, what: "conditionalAccess") else { return }
        for item in items {
            guard let f = reader.fields(item, allowed: Self.conditionalAccessKeys, what: "a conditional access policy") else { continue }
            var policies: [ConditionalAccessPolicy] = []
            if let x = f["file"] {
                guard let url = existingPath(x, what: "file") else { continue }
                inputs.append(url)
                let written = x.node.scalar?.string ?? url.lastPathComponent
                do {
                    let (imported, warnings) = try GraphConditionalAccessImporter.importPolicies(Array(try InputFile.contents(of: url)), source: written)
                    // Groups are judged once the accounts say theirs (v1.5): no warning then.
                    let judged = accounts.contains { !$0.groups.isEmpty || !$0.roles.isEmpty }
                    for w in warnings where !(judged && w.kind == .membershipNeedsDeclaredAccounts) {
                        reader.warn(x, w.message)
                    }
                    policies = imported
                } catch let e as PolicyImportError {
                    reader.error(x, e.message)
                    continue
                } catch {
                    reader.error(x, "cannot read \(written) (\(error.localizedDescription))")
                    continue
                }
                if let n = f["name"], let name = reader.name(n, what: "name"), policies.count == 1 { policies[0].name = name }
            } else {
                guard let n = f["name"], let name = reader.name(n, what: "name") else {
                    reader.error(item, "a conditional access policy needs name: (and users: and grant:), or file: (a Graph conditionalAccessPolicy)")
                    continue
                }
                var p = ConditionalAccessPolicy(name: name)
                func accounts(_ key: String) -> [String]? {
                    guard let x = f[key], let list = reader.list(x, what: key) else { return nil }
                    return list.flatMap { entry -> [String] in
                        if entry.node.scalar?.string.lowercased() == "all" { return ["All"] }
                        guard let a = account(entry, what: "each entry of \(key)") else { return [] }
                        return [a.upn, a.oid].filter { !$0.isEmpty }
                    }
                }
                if let x = f["groups"], let g = reader.strings(x, what: "groups") { p.includeGroups = g }
                if let x = f["excludeGroups"], let g = reader.strings(x, what: "excludeGroups") { p.excludeGroups = g }
                // `users:` left out means all users, unless the policy names groups (v1.5).
                p.includeUsers = accounts("users") ?? (p.includeGroups.isEmpty ? ["All"] : [])
                p.excludeUsers = accounts("excludeUsers") ?? []
                if let x = f["applications"], let a = reader.strings(x, what: "applications") { p.includeApplications = a }
                if let x = f["grant"], let g = reader.strings(x, what: "grant") { p.builtInControls = g }
                if let x = f["operator"], let op = reader.string(x, what: "operator") {
                    guard ["OR", "AND"].contains(op.uppercased()) else { reader.error(x, "operator must be OR or AND"); continue }
                    p.requiresAll = op.uppercased() == "AND"
                }
                if let x = f["state"], let s = reader.string(x, what: "state") {
                    switch s {
                    case "enabled": p.state = .enabled
                    case "disabled": p.state = .disabled
                    case "reportOnly", "enabledForReportingButNotEnforced": p.state = .enabledForReportingButNotEnforced
                    default: reader.error(x, "state must be enabled, disabled or reportOnly, but it is \"\(s)\"")
                    }
                }
                policies = [p]
            }
            // The tenant it belongs to: as written, else the organization's — the tenant of the
            // first account declared with a tenant or a policy (RULES.md §10: `All` users are
            // that tenant's users).
            var tenant = ""
            if let x = f["tenant"], let t = reader.string(x, what: "tenant") { tenant = t }
            let organization = accounts.first { !$0.account.tenant.isEmpty || $0.policyName != nil }?.account
            if tenant.isEmpty { tenant = organization?.tenant ?? "" }
            var domains: Set<String> = []
            if let organization, tenant.isEmpty || organization.tenant.lowercased() == tenant.lowercased() {
                domains.insert(ConditionalAccessPolicy.domain(of: organization))
            }
            if !tenant.isEmpty {
                for a in accounts where a.account.tenant.lowercased() == tenant.lowercased() { domains.insert(ConditionalAccessPolicy.domain(of: a.account)) }
            }
            for i in policies.indices {
                policies[i].tenant = tenant
                policies[i].tenantDomains = domains
            }
            for p in policies {
                if conditionalAccess.contains(where: { $0.name == p.name }) {
                    reader.error(item, "two conditional access policies are named \"\(p.name)\"; give each a distinct name")
                } else {
                    conditionalAccess.append(p)
                }
            }
        }
    }
}
