import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `launch`: the app starts (a process of its own); conditional launch runs as it does.
struct LaunchStep: AppLifecycleVerb {
    static let name = "launch"
    static let since = "v1"
    static let summary = "starts the app's process; conditional launch runs as it starts (RULES.md §8)"
    static let example = "launch: {app: mail}"

    var app: String


    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.launch(app) {
        case .success(let pid):
            guard let report = await run.host.run({ [app] in try $0.launches.report(of: $0.app(app)) }) else { return (.ok, "\(app) running (pid \(pid))", app) }
            return (StepRun.launched(report), "\(app) running (pid \(pid)): \(StepRun.explained(report))", app)
        case .failure(let e): return (.failed(.appNotRunning), "\(e)", app)
        }
    }
}
