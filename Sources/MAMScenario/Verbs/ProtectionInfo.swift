import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `protectionInfo`: `IntuneMAMFileProtectionManager.protectionInfo(path)`.
struct ProtectionInfoStep: AppFileVerb {
    static let name = "protectionInfo"
    static let since = "v1.1"
    static let summary = "who owns a file (none: not protected, or no such file)"
    static let example = "protectionInfo: {app: mail, path: Documents/q3.txt}"
    static let outcomes: [OutcomeForm] = [.owner, .none]

    var app: String
    var path: String

    init(app: String, path: String) { (self.app, self.path) = (app, path) }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.result({ [app, path] in try $0.services.fileStatus($0.app(app), path: path) }) {
        case .success(let status) where !status.exists:
            // IntuneMAMFileProtectionManager's protectionInfo: "Returns nil if the path does not exist".
            return (.none, "\(path) does not exist in \(app)'s containers: no protection info", "\(app): \(path)")
        case .success(let status):
            guard let owner = status.owner, !owner.isEmpty else { return (.none, "\(path) is not protected", "\(app): \(path)") }
            return (.owner(owner), "\(path) is owned by \(owner)\(status.encryptedOnDisk ? ", encrypted on disk" : "")", "\(app): \(path)")
        case .failure(let e): return StepRun.fileFailed(e, "\(app): \(path)")
        }
    }
}
