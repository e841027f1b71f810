import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `copy`: the app puts text on the pasteboard, owned by the identity it copies under.
struct CopyStep: StepVerb {
    static let name = "copy"
    static let since = "v1"
    static let summary = "the app copies text to the pasteboard"
    static let example = "copy: {app: mail, text: account number}"
    static let arguments: [VerbArgument] = [
        .app(extensions: false),
        .required("text", .text, "what is copied"),
        .optional("as", .account(unmanaged: true), "the thread identity the copy runs under (v1.1)"),
        .window,
    ]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var app: String
    var text: String
    var `as`: Account? = nil
    var window: String? = nil

    init(app: String, text: String, as thread: Account? = nil, window: String? = nil) {
        (self.app, self.text, self.as, self.window) = (app, text, thread, window)
    }

    init(_ a: VerbArgumentReader) {
        self.init(app: a.app(extensions: false), text: a.text("text"), as: a.optionalAccount("as"), window: a.optionalText("window"))
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let context = ServiceContext(window: window ?? "", thread: self.as.map { $0.isEmpty ? "" : $0.description })
        let r = await run.service(app, .copy(text: text), context: context)
        return (Observed(r.verdict, allowed: .ok), r.verdict.explanation, app)
    }
}
