import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `resume`: the app comes back to the foreground; it checks in and conditional launch runs.
struct ResumeStep: StepVerb {
    static let name = "resume"
    static let since = "v1.1"
    static let summary = "the app comes back to the foreground: it checks in and conditional launch runs again (after periodOnlineBeforeAccessCheck in the background, with the PIN)"
    static let example = "resume: {app: mail}"
    static let arguments: [VerbArgument] = [
        .app(extensions: false),
        .optional("pin", .text, nullable: false, "the app PIN the user enters if it is asked again after periodOnlineBeforeAccessCheck in the background (v1.2)"),
    ]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var app: String
    var pin: String?

    init(app: String, pin: String? = nil) { (self.app, self.pin) = (app, pin) }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(extensions: false), pin: a.optionalText("pin")) }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.run({ [app, pin] in try $0.launches.resume($0.app(app), pin: pin) }) {
        case .success(let report):
            return (StepRun.launched(report), "\(app) is back in the foreground: \(StepRun.explained(report))", app)
        case .failure(let e): return (.failed(.appNotRunning), "\(e)", app)
        }
    }
}
