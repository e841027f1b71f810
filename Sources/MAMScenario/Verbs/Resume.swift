import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `resume`: the app comes back to the foreground; it checks in and conditional launch runs.
struct ResumeStep: AppLifecycleVerb {
    static let name = "resume"
    static let since = "v1.1"
    static let summary = "the app comes back to the foreground: it checks in and conditional launch runs again"
    static let example = "resume: {app: mail}"

    var app: String


    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.run({ [app] in try $0.launches.resume($0.app(app)) }) {
        case .success(let report):
            return (StepRun.launched(report), "\(app) is back in the foreground: \(StepRun.explained(report))", app)
        case .failure(let e): return (.failed(.appNotRunning), "\(e)", app)
        }
    }
}
