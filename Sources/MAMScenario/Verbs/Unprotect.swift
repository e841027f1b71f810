import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `unprotect`: the file is no longer owned by any account.
struct UnprotectStep: AppFileVerb {
    static let name = "unprotect"
    static let since = "v1.1"
    static let summary = "the app removes a file's owner (and its encryption)"
    static let example = "unprotect: {app: mail, path: Documents/q3.txt}"
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var app: String
    var path: String

    init(app: String, path: String) { (self.app, self.path) = (app, path) }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.result({ [app, path] in try $0.services.setFileOwner($0.app(app), path: path, owner: "") }) {
        case .success: return (.ok, "\(path) is no longer protected", "\(app): \(path)")
        case .failure(let e): return StepRun.fileFailed(e, "\(app): \(path)")
        }
    }
}
