import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `kill`: the app's process is killed (SIGKILL), as iOS ends a suspended app.
struct KillStep: AppLifecycleVerb {
    static let name = "kill"
    static let since = "v1"
    static let summary = "kills the app's (or an extension's) process; the next step finds it gone"
    static let example = "kill: {app: mail}"
    // An extension's process too (an AutoFill extension launched on its own, v1.4).
    static let arguments: [VerbArgument] = [.app(extensions: true)]

    var app: String

    init(app: String) { self.app = app }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(extensions: true)) }


    func run(_ run: StepRun) async -> StepOutcome {
        guard await run.host.run(orElse: false, { [app] in $0.kill(app) }) else { return (.failed(.appNotRunning), "\(app) is not running", app) }
        // Wait until the host has reaped it, so the next step sees it gone.
        for _ in 0..<200 where await run.host.run(orElse: nil, { [app] in $0.pid(of: app) }) != nil { try? await Task.sleep(for: .milliseconds(10)) }
        return (.ok, "\(app) killed", app)
    }
}
