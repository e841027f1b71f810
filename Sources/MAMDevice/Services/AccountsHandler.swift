import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `accounts`: the app's account directory (the SDK's account lists, and UPN ↔ OID for its
/// delegates' payloads): every account signed in to the app or registered or enrolled by its
/// SDK, and the allowed-accounts list. Only the app's own accounts: never another app's.
enum AccountsHandler: ServiceHandler {
    static func audit(_ call: Service.Accounts) -> AuditPlan { .refusalsOnly(.policyQuery) }

    static func answer(_ call: Service.Accounts, _ c: CallContext) throws -> Answered<AccountDirectory> {
        let signedIn = try c.identities.accounts(of: c.app)
        let records = try c.state.enrollments(app: c.bundle)
        let fleet = try c.fleet()
        var known: [Account] = []
        for a in signedIn + records.map(\.account) where !known.contains(where: { $0.isSame(as: a) }) { known.append(a) }
        let accounts = known.map { a in
            let record = records.first { $0.account.isSame(as: a) }
            return DirectoryAccount(upn: a.upn, oid: a.oid, signedIn: signedIn.contains { $0.isSame(as: a) },
                                    enrolled: record?.state == .enrolled, registered: record?.state == .registered,
                                    managed: fleet.isManaged(a, in: c.bundle))
        }
        let directory = AccountDirectory(accounts: accounts, allowedRestricted: fleet.allowedAccounts != nil, allowed: fleet.allowedAccounts ?? [])
        return Answered(.allowed("\(accounts.count) account\(accounts.count == 1 ? "" : "s") known to \(c.bundle)"), directory)
    }
}
