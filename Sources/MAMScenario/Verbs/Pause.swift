import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `pause`: the app goes to the background.
struct PauseStep: StepVerb {
    static let name = "pause"
    static let since = "v1.1"
    static let summary = "the app goes to the background"
    static let example = "pause: {app: mail}"
    static let arguments: [VerbArgument] = [.app(extensions: false)]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var app: String

    init(app: String) { self.app = app }
    init(_ a: VerbArgumentReader) { app = a.app(extensions: false) }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.pause(app) {
        case .success: return (.ok, "\(app) went to the background", app)
        case .failure(let e): return (.failed(.appNotRunning), "\(e)", app)
        }
    }
}
