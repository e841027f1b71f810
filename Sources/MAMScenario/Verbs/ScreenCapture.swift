import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `screenCapture`: the user takes a screenshot or records the screen in the app.
struct ScreenCaptureStep: StepVerb {
    static let name = "screenCapture"
    static let since = "v1.1"
    static let summary = "a screenshot or recording of what the app shows"
    static let example = "screenCapture: {app: mail}"
    static let arguments: [VerbArgument] = [.app(), .window]
    static let outcomes: [OutcomeForm] = [.allowed, .blocked]

    var app: String
    var window: String?

    init(app: String, window: String?) { (self.app, self.window) = (app, window) }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(), window: a.optionalText("window")) }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.service(app, .screenCapture, context: ServiceContext(window: window ?? ""))
        return (Observed(r.verdict, allowed: .allowed), r.verdict.explanation, app)
    }
}
