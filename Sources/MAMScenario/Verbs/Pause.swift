import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `pause`: the app goes to the background.
struct PauseStep: AppLifecycleVerb {
    static let name = "pause"
    static let since = "v1.1"
    static let summary = "the app goes to the background"
    static let example = "pause: {app: mail}"

    var app: String


    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.run({ [app] in try $0.launches.pause($0.app(app)) }) {
        case .success: return (.ok, "\(app) went to the background", app)
        case .failure(let e): return (.failed(.appNotRunning), "\(e)", app)
        }
    }
}
