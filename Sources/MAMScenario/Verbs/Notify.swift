import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `notify`: the app shows a notification carrying an account's data.
struct NotifyStep: StepVerb {
    static let name = "notify"
    static let since = "v1"
    static let summary = "the app shows a notification with the account's data (blocked, generic or full text by policy)"
    static let example = "notify: {app: mail, account: alice@contoso.com, text: New mail from Bob}"
    static let arguments: [VerbArgument] = [
        .app(extensions: false), .required("account", .account(unmanaged: false), "whose data the notification carries"),
        .required("text", .text, "the notification's text"),
    ]
    static let outcomes: [OutcomeForm] = [.shown, .blocked]

    var app: String
    var account: Account
    var text: String

    init(app: String, account: Account, text: String) { (self.app, self.account, self.text) = (app, account, text) }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(extensions: false), account: a.account("account"), text: a.text("text")) }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.call(app, Service.Notify(account: StepRun.identity(account), text: text))
        if let shown = r.allowedAnswer { return (.shown(shown), r.verdict.explanation, "\(app) (\(account))") }
        return (Observed(r.verdict, allowed: .ok), r.verdict.explanation, "\(app) (\(account))")
    }
}
