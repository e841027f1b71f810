import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `print`: the app prints the data of the identity it shows (RULES.md, printing).
struct PrintStep: StepVerb {
    static let name = "print"
    static let since = "v1"
    static let summary = "the app prints what it shows (the data of its effective UI identity)"
    static let example = "print: {app: mail}"
    static let arguments: [VerbArgument] = [.app(extensions: false), .window]
    static let outcomes: [OutcomeForm] = [.allowed, .blocked]

    var app: String
    var window: String? = nil

    init(app: String, window: String? = nil) { (self.app, self.window) = (app, window) }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(extensions: false), window: a.optionalText("window")) }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.service(app, .print, context: ServiceContext(window: window ?? ""))
        return (Observed(r.verdict, allowed: .allowed), r.verdict.explanation, app)
    }
}
