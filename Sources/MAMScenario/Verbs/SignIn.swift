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
        // MSAL's sign-in, then the SDK's registerAndEnrollAccountId: its status reaches the
        // enrollment delegate before the step ends.
        let d: Verdict = await run.host.complete { [app, account] host, done in
            let spec = try host.app(app)
            let key = StepRun.key(account)
            let signedIn = host.accounts.signIn(spec, account: key)
            guard signedIn.isAllowed else { return done(signedIn) }
            host.enrollment.signedIn(spec, account: key) { done(signedIn) }
        }
        return (Observed(d, allowed: .ok), d.explanation, "\(account) → \(app)")
    }
}
