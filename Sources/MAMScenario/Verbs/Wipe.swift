import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `wipe`: the admin's selective wipe of one account's data in one app.
struct WipeStep: StepVerb {
    static let name = "wipe"
    static let since = "v1"
    static let summary = "a selective wipe of the account's data in the app"
    static let example = "wipe: {app: mail, account: alice@contoso.com}"
    static let arguments: [VerbArgument] = [.app(extensions: false), .required("account", .account(unmanaged: false), "the account")]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var app: String
    var account: Account

    init(app: String, account: Account) { (self.app, self.account) = (app, account) }
    init(_ a: VerbArgumentReader) { (app, account) = (a.app(extensions: false), a.account("account")) }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.wipe(app, account: StepRun.key(account)) {
        case .success(let report): return (.ok, report.description, "\(account) in \(app)")
        case .failure(let e): return (.failed(e.reason), e.message, "\(account) in \(app)")
        }
    }
}
