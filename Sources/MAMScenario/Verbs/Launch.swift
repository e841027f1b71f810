import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `launch`: the app starts (a process of its own); conditional launch runs as it does.
struct LaunchStep: AppLifecycleVerb {
    static let name = "launch"
    static let since = "v1"
    static let summary = "starts the app's process (or an AutoFill extension's, v1.4); conditional launch runs as it starts (RULES.md §8)"
    static let example = "launch: {app: mail}"
    // An AutoFill credential provider is launched on its own too: conditional launch runs for
    // it (SDK 22.2, SCENARIOS v1.4); the run refuses other extensions.
    static let arguments: [VerbArgument] = [.app(extensions: true)]

    var app: String

    init(app: String) { self.app = app }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(extensions: true)) }


    func run(_ run: StepRun) async -> StepOutcome {
        if let ext = run.scenario.extensions.first(where: { $0.id == app }), ext.descriptor.kind != .autofill {
            return (.failed(.badRequest), "\(app) is a \(ext.descriptor.kind.rawValue) extension: the system starts it when it is used; only an AutoFill extension (kind autofill) is launched on its own", app)
        }
        switch await run.host.launch(app) {
        case .success(let pid):
            guard let report = await run.host.run({ [app] in try $0.launches.report(of: $0.app(app)) }) else { return (.ok, "\(app) running (pid \(pid))", app) }
            return (StepRun.launched(report), "\(app) running (pid \(pid)): \(StepRun.explained(report))", app)
        case .failure(let e): return (.failed(.appNotRunning), "\(e)", app)
        }
    }
}
