import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `switchIdentity`: a multi-identity app shows another account's data (or personal data).
struct SwitchIdentityStep: StepVerb {
    static let name = "switchIdentity"
    static let since = "v1"
    static let summary = "the app switches the identity it shows (setUIPolicyIdentity); conditional launch may run"
    static let example = "switchIdentity: {app: mail, account: alice@contoso.com}"
    static let arguments: [VerbArgument] = [
        .app(extensions: false),
        .required("account", .account(unmanaged: true), "the account, or \"\" for personal data"),
        .window,
        .optional("pin", .text, "what the user types if a PIN is asked"),
        .optional("mainThread", .account(unmanaged: true), "the thread identity the app's main thread carries as it switches (\"\": unmanaged); another than account is notAllowed (v1.2)"),
        .optional("newPin", .text, "the user changes the app PIN: pin is the current one (asked whatever the recheck window), newPin the new one (v1.2)"),
    ]
    static let outcomes: [OutcomeForm] = [.success, .canceled, .notAllowed, .failed, .failedBecause]

    var app: String
    var account: Account
    var window: String?
    var pin: String?
    var mainThread: Account?
    var newPin: String?

    init(app: String, account: Account, window: String?, pin: String?, mainThread: Account? = nil, newPin: String? = nil) {
        (self.app, self.account, self.window, self.pin, self.mainThread, self.newPin) = (app, account, window, pin, mainThread, newPin)
    }

    init(_ a: VerbArgumentReader) {
        self.init(app: a.app(extensions: false), account: a.account("account", unmanaged: true),
                  window: a.optionalText("window"), pin: a.optionalText("pin"), mainThread: a.optionalAccount("mainThread"),
                  newPin: a.optionalText("newPin"))
        if newPin != nil, pin == nil { a.error("newPin changes the app PIN: give the current one as pin", at: "newPin") }
    }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.host.setIdentity(app, account: StepRun.identity(account), window: window ?? "", pin: pin,
                                           mainThread: mainThread.map(StepRun.identity), newPin: newPin)
        let who = account.isEmpty ? "unmanaged" : account.upn
        let observed: Observed = switch r.status {
        case .success: .success
        case .canceled: .canceled
        case .notAllowed: .notAllowed
        case .failed: .failed(r.reason)
        }
        return (observed, r.explanation, "\(app) → \(who)")
    }
}
