import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `paste`: the app reads the pasteboard; the clipboard rules decide (RULES.md §5).
struct PasteStep: StepVerb {
    static let name = "paste"
    static let since = "v1"
    static let summary = "the app pastes from the pasteboard"
    static let example = "paste: {app: notes}"
    static let arguments: [VerbArgument] = [
        .app(extensions: false),
        .optional("as", .account(unmanaged: true), "the identity the paste runs under"),
        .window,
    ]
    static let outcomes: [OutcomeForm] = [.pasted, .blocked]

    var app: String
    var `as`: Account?
    var window: String? = nil

    init(app: String, as receiver: Account?, window: String? = nil) { (self.app, self.as, self.window) = (app, receiver, window) }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(extensions: false), as: a.optionalAccount("as"), window: a.optionalText("window")) }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.call(app, Service.Paste(as: self.as.map(StepRun.identity)), context: ServiceContext(window: window ?? ""))
        if let text = r.allowedAnswer { return (.pasted(text), r.verdict.explanation, app) }
        return (Observed(r.verdict, allowed: .ok), r.verdict.explanation, app)
    }
}
