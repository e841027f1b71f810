import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `signOut`: the account signs out of the app; its data there is wiped selectively.
struct SignOutStep: StepVerb {
    static let name = "signOut"
    static let since = "v1"
    static let summary = "the account signs out of the app (a selective wipe of its data there)"
    static let example = "signOut: {app: mail, account: alice@contoso.com}"
    static let arguments: [VerbArgument] = [.app(extensions: false), .required("account", .account(unmanaged: false), "the account")]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var app: String
    var account: Account

    init(app: String, account: Account) { (self.app, self.account) = (app, account) }
    init(_ a: VerbArgumentReader) { (app, account) = (a.app(extensions: false), a.account("account")) }

    func run(_ run: StepRun) async -> StepOutcome {
        let d = await run.host.signOut(app, account: StepRun.key(account))
        return (Observed(d, allowed: .ok), d.explanation, "\(account) ← \(app)")
    }
}
