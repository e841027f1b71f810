import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy

/// `showAccounts`: a window shows several accounts' data at once — a unified inbox —
/// (`setUIPolicyAccountIds`, `IntuneMAMPolicyManager.h`). Conditional launch runs for the
/// managed account among them; if it blocks or the user cancels, the app is told
/// `blockAccountId` and the window shows the others. With a managed account among several, what
/// the window does is decided under the SDK's standard lock-down policy.
struct ShowAccountsStep: StepVerb {
    static let name = "showAccounts"
    static let since = "v1.2"
    static let summary = "a window shows several accounts' data (setUIPolicyAccountIds): conditional launch for the managed one, blockAccountId for a blocked one, the lock-down policy"
    static let example = "showAccounts: {app: mail, accounts: [alice@contoso.com, bob@outlook.com]}"
    static let arguments: [VerbArgument] = [
        .app(extensions: false),
        .required("accounts", .list, "the accounts the window shows (\"\": the unmanaged identity)"),
        .window,
        .optional("pin", .text, "what the user types if a PIN is asked"),
    ]
    static let outcomes: [OutcomeForm] = [.accounts, .notAllowed, .failedBecause]

    var app: String
    var accounts: [Account]
    var window: String?
    var pin: String?

    init(_ a: VerbArgumentReader) {
        (app, window, pin) = (a.app(extensions: false), a.optionalText("window"), a.optionalText("pin"))
        accounts = a.optionalAccounts("accounts") ?? []
        // An empty list is the header's "nil or empty": the window shows no user.
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let parties = "\(app)\(window.map { " [\($0)]" } ?? "")"
        let r: Result<MergedViewReport, DeviceStateError> = await run.host.complete { [app, window, accounts, pin] host, done in
            host.accounts.showAccounts(try host.app(app), window: window ?? "", accounts: accounts.map(StepRun.identity), pin: pin, done)
        }
        switch r {
        case .success(let report) where report.result == .success:
            let shown = report.shown.map { $0.isEmpty ? Account(upn: "") : (run.scenario.fleet.account(named: $0) ?? Account(upn: $0)) }
            return (.accounts(shown), report.decision.explanation, parties)
        case .success(let report): return (.notAllowed, report.decision.explanation, parties)
        case .failure(let e): return (.failed(e.reason), e.message, parties)
        }
    }
}
