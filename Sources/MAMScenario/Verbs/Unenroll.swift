import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `unenroll`: deRegisterAndUnenrollAccountId, with or without a selective wipe of the
/// account's data in the app.
struct UnenrollStep: StepVerb {
    static let name = "unenroll"
    static let since = "v1.3"
    static let summary = "the app unenrolls an account (deRegisterAndUnenrollAccountId), wiping its data when asked"
    static let example = "unenroll: {app: mail, account: alice@contoso.com, wipe: true}"
    static let arguments: [VerbArgument] = [
        .app(), .required("account", .account(unmanaged: false), "the account"),
        .optional("wipe", .bool, "true: the app wipes the account's data and the account is signed out"),
    ]
    static let outcomes: [OutcomeForm] = [.enrollment, .failedBecause]

    var app: String
    var account: Account
    var wipe: Bool

    init(_ a: VerbArgumentReader) {
        (app, account, wipe) = (a.app(), a.account("account"), a.bool("wipe", default: false))
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r: Result<EnrollmentStatus, HostFailure> = await run.host.complete { [app, account, wipe] host, done in
            host.enrollment.unenroll(try host.app(app), account: StepRun.key(account), wipe: wipe) { done(.success($0)) }
        }
        return StepRun.enrollmentOutcome(r, parties: "\(account) in \(app)\(wipe ? " (wipe)" : "")", run: run, app: app)
    }
}
