import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `protect`: `IntuneMAMFilePolicyManager.protect(path, account)`.
struct ProtectStep: StepVerb {
    static let name = "protect"
    static let since = "v1.1"
    static let summary = "the app marks a file as owned by an account (encrypted on disk when the policy says so)"
    static let example = "protect: {app: mail, path: Documents/q3.txt, account: alice@contoso.com}"
    static let arguments: [VerbArgument] = [
        .app(), .required("path", .text, "a path in the app's container"),
        .optional("account", .account(unmanaged: true), "the owner (absent: the app's current file identity)"),
    ]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var app: String
    var path: String
    var account: Account?

    init(app: String, path: String, account: Account?) { (self.app, self.path, self.account) = (app, path, account) }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(), path: a.text("path"), account: a.optionalAccount("account")) }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.result({ [app, path, account] in try $0.services.setFileOwner($0.app(app), path: path, owner: account.map(StepRun.identity)) }) {
        case .success(let info):
            return (.ok, "\(path) is owned by \(info.owner.isEmpty ? "nobody" : info.owner)\(info.isEncrypted ? ", encrypted on disk" : "")", "\(app): \(path)")
        case .failure(let e): return StepRun.fileFailed(e, "\(app): \(path)")
        }
    }
}
