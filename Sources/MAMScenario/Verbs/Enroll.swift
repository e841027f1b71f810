import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `enroll`: the app asks the Intune SDK to enroll an account (registerAndEnrollAccountId, or
/// loginAndEnrollAccount when interactive); the enrollment delegate gets the status
/// (SCENARIOS.md v1.3, docs/LIFECYCLE.md).
struct EnrollStep: StepVerb {
    static let name = "enroll"
    static let since = "v1.3"
    static let summary = "the app enrolls an account with the Intune SDK; the outcome is the status its enrollment delegate receives"
    static let example = "enroll: {app: mail, account: alice@contoso.com, interactive: false}"
    static let arguments: [VerbArgument] = [
        .app(),
        .optional("account", .account(unmanaged: false), "the account (absent: none, nilAccount; interactive: the MDM user or a prompt)"),
        .optional("interactive", .bool, "true: loginAndEnrollAccount (the SDK signs the user in); false (default): registerAndEnrollAccountId"),
        .optional("userCancels", .bool, "the user dismisses the sign-in (interactive): loginCanceled"),
        .optional("wait", .bool, "false: the step ends at once (pending); the status arrives later"),
    ]
    static let outcomes: [OutcomeForm] = [.enrollment, .pending, .failedBecause]

    var app: String
    var account: Account?
    var interactive: Bool
    var userCancels: Bool
    var wait: Bool

    init(_ a: VerbArgumentReader) {
        app = a.app()
        account = a.has("account") ? a.optionalAccount("account") : nil
        interactive = a.bool("interactive", default: false)
        userCancels = a.bool("userCancels", default: false)
        wait = a.bool("wait", default: true)
        if userCancels, !interactive { a.error("userCancels needs interactive: true: only loginAndEnrollAccount shows a sign-in", at: "userCancels") }
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let parties = "\(account?.description ?? "no account") → \(app)"
        let name = account.map(StepRun.key)
        if !wait {
            let started = await run.host.result { [app, interactive, userCancels] host in
                host.enrollment.enroll(try host.app(app), account: name, interactive: interactive, userCancels: userCancels)
            }
            switch started {
            case .success(let s): return (.pending, "enrollment asked; the delegate will hear \(s.described)", parties)
            case .failure(let e): return (.failed(e.reason), e.message, parties)
            }
        }
        let r: Result<EnrollmentStatus, HostFailure> = await run.host.complete { [app, interactive, userCancels] host, done in
            let spec = try host.app(app)
            host.enrollment.enroll(spec, account: name, interactive: interactive, userCancels: userCancels) { done(.success($0)) }
        }
        return StepRun.enrollmentOutcome(r, parties: parties, run: run, app: app)
    }
}

extension StepRun {
    /// A status as a step's outcome, with the enrollment desk's words for it.
    static func enrollmentOutcome(_ r: Result<EnrollmentStatus, HostFailure>, parties: String, run: StepRun, app: String) -> StepOutcome {
        switch r {
        case .success(let s): return (.enrollment(s), s.described, parties)
        case .failure(let e): return (.failed(e.reason), e.message, parties)
        }
    }
}
