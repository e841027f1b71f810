import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `signIn`: the account signs in to the app (MSAL, then the SDK's registerAndEnroll).
struct SignInStep: AppAccountVerb {
    static let name = "signIn"
    static let since = "v1"
    static let summary = "the account signs in to the app and is enrolled with its policy"
    static let example = "signIn: {app: mail, account: alice@contoso.com}"

    var app: String
    var account: Account


    func run(_ run: StepRun) async -> StepOutcome {
        let d = await run.host.run { [app, account] in try $0.accounts.signIn($0.app(app), account: StepRun.key(account)) }
        return (Observed(d, allowed: .ok), d.explanation, "\(account) → \(app)")
    }
}
