import MAMDevice
import MAMDeviceState
import MAMDocument
import MAMModel
import MAMPolicy
import MAMWire

/// `setAllowedAccounts`: the MDM changes the accounts the device allows (IntuneMAMAllowedAccounts).
struct SetAllowedAccountsStep: StepVerb {
    static let name = "setAllowedAccounts"
    static let since = "v1.1"
    static let summary = "changes the allowed accounts; accounts no longer allowed are signed out and wiped, running SDK apps are notified"
    static let example = "setAllowedAccounts: {accounts: [alice@contoso.com]}"
    static let arguments: [VerbArgument] = [.required("accounts", .list, nullable: true, "the allowed accounts; null: the list is not targeted")]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    /// UPNs and OIDs of every account named; `nil` = the list is not targeted.
    var accounts: [String]?

    init(accounts: [String]?) { self.accounts = accounts }
    init(_ a: VerbArgumentReader) {
        let x = a["accounts"]!
        accounts = x.isNull ? nil : (a.loading.readAllowedAccounts(x) ?? [])
    }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.complete({ [accounts] host, done in host.accounts.setAllowedAccounts(accounts, done) }) {
        case .success(let changes):
            let out = changes.flatMap { c in c.signedOut.map { "\($0) signed out of \(c.app)" } }
            let list = accounts.map { $0.isEmpty ? "nobody" : $0.joined(separator: ", ") } ?? "not targeted"
            return (.ok, "allowed accounts: \(list)" + (out.isEmpty ? "" : "; " + out.joined(separator: "; ")), "device")
        case .failure(let e): return (.failed(e.reason), e.message, "device")
        }
    }
}
