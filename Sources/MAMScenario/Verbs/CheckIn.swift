import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `checkIn`: the app checks in with the Intune service now (what it does at launch, resume
/// and on its cadence): a policy change, a wipe or a licence the service holds reaches it.
struct CheckInStep: StepVerb {
    static let name = "checkIn"
    static let since = "v1.3"
    static let summary = "the app checks in with the Intune service; the outcome is the status its policy delegate receives"
    static let example = "checkIn: {app: mail}"
    static let arguments: [VerbArgument] = [
        .app(extensions: false),
        .optional("account", .account(unmanaged: false), "the account the request names (absent: the enrolled one)"),
    ]
    static let outcomes: [OutcomeForm] = [.enrollment, .failedBecause]

    var app: String
    var account: Account?

    init(_ a: VerbArgumentReader) { (app, account) = (a.app(extensions: false), a.has("account") ? a.optionalAccount("account") : nil) }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let name = account.map(StepRun.key)
        let r: Result<EnrollmentStatus, HostFailure> = await run.host.complete { [app] host, done in
            host.enrollment.checkIn(try host.app(app), account: name) { done(.success($0)) }
        }
        return StepRun.enrollmentOutcome(r, parties: app, run: run, app: app)
    }
}
