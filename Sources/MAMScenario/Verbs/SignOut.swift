import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `signOut`: the account signs out of the app; its data there is wiped selectively.
struct SignOutStep: AppAccountVerb {
    static let name = "signOut"
    static let since = "v1"
    static let summary = "the account signs out of the app (a selective wipe of its data there)"
    static let example = "signOut: {app: mail, account: alice@contoso.com}"

    var app: String
    var account: Account


    func run(_ run: StepRun) async -> StepOutcome {
        let d = await run.host.complete { [app, account] host, done in host.accounts.signOut(try host.app(app), account: StepRun.key(account), done) }
        return (Observed(d, allowed: .ok), d.explanation, "\(account) ← \(app)")
    }
}
