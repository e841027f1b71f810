import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `signIn`: the account signs in to the app (MSAL, then the SDK's registerAndEnroll).
struct SignInStep: StepVerb {
    static let name = "signIn"
    static let since = "v1"
    static let summary = "the account signs in to the app and is enrolled with its policy"
    static let example = "signIn: {app: mail, account: alice@contoso.com}"
    static let arguments: [VerbArgument] = [.app(extensions: false), .required("account", .account(unmanaged: false), "the account")]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var app: String
    var account: Account

    init(app: String, account: Account) { (self.app, self.account) = (app, account) }
    init(_ a: VerbArgumentReader) { (app, account) = (a.app(extensions: false), a.account("account")) }

    func run(_ run: StepRun) async -> StepOutcome {
        let d = await run.host.signIn(app, account: StepRun.key(account))
        return (Observed(d, allowed: .ok), d.explanation, "\(account) → \(app)")
    }
}
