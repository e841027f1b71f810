public import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// Conditional launch (RULES.md §8): the checks an app runs when it launches or comes back to
/// the foreground — check-in when online, offline grace, wipes, version and device
/// requirements — recorded for the step that asked and in the audit log. A part of the host
/// of its own: it keeps each app's last report.
public final class LaunchDesk {
    private let supervisor: Supervisor
    private let state: DeviceState
    private let audit: AuditSink
    private let emit: (HostEvent) -> Void
    /// What conditional launch decided at each app's last launch or resume.
    private var reports: [AppHandle: LaunchCheckReport] = [:]
    /// When each app went to the background (simulated time), until a resume lets it back in:
    /// inactivity longer than `periodOnlineBeforeAccessCheck` asks for the PIN again.
    private var pausedAt: [AppHandle: Instant] = [:]

    /// A launch or resume that checks in is the SDK's policy request too.
    weak var enrollment: EnrollmentDesk?
    /// Launched apps whose launch check-in waits for their process to be ready.
    private var launchCheckInsWaiting: Set<AppHandle> = []

    init(supervisor: Supervisor, state: DeviceState, audit: AuditSink, onEvent: @escaping (HostEvent) -> Void) {
        self.supervisor = supervisor
        self.state = state
        self.audit = audit
        emit = onEvent
    }

    /// Whether `spec` is in the background (paused and not resumed since).
    func isPaused(_ spec: AppSpec) -> Bool { pausedAt[spec.key] != nil }

    /// The last report of `spec`; `nil` when conditional launch has not run for it.
    public func report(of spec: AppSpec) -> LaunchCheckReport? { reports[spec.key] }

    /// The app comes back to the foreground: it checks in if online and conditional launch
    /// runs again for the managed data it shows; after `periodOnlineBeforeAccessCheck` in the
    /// background the user enters the PIN again (`pin`).
    public func resume(_ spec: AppSpec, pin: String? = nil) -> Result<LaunchCheckReport, HostFailure> {
        guard supervisor.readyChild(spec.key) != nil else { return .failure(HostFailure(HostError.notRunning(spec.handle))) }
        let inactiveFor = pausedAt[spec.key].map { state.now.secondsSince1970 - $0.secondsSince1970 }
        let report = runChecks(spec, verb: .resume, inactiveFor: inactiveFor, pin: pin)
        // Back in: the next inactivity starts at the next pause. Refused: it is asked again.
        if report.decision.isAllowed { pausedAt[spec.key] = nil }
        return .success(report)
    }

    /// The app goes to the background (the user opens another app); its identities and data
    /// stay as they are.
    public func pause(_ spec: AppSpec) -> Result<Void, HostFailure> {
        guard supervisor.readyChild(spec.key) != nil else { return .failure(HostFailure(HostError.notRunning(spec.handle))) }
        if pausedAt[spec.key] == nil { pausedAt[spec.key] = state.now }
        audit.record(verb: .pause, source: spec.handle, decision: .ok, reason: nil, explanation: "\(spec.handle) went to the background")
        return .success(())
    }

    /// Conditional launch for a launch or resume, recorded for the step that asked and the
    /// audit log.
    @discardableResult
    func runChecks(_ spec: AppSpec, verb: AuditVerb, inactiveFor: Double? = nil, pin: String? = nil) -> LaunchCheckReport {
        // A launch is a new process: no inactivity carries over.
        if verb == .launch { pausedAt[spec.key] = nil }
        let report: LaunchCheckReport
        do {
            // An AutoFill extension is judged as itself (its own block); an app's other
            // extensions share their app's identity state.
            report = try state.launchChecks(app: spec.descriptor.kind == .autofill ? spec.bundleID : spec.identityOwner,
                                            inactiveFor: inactiveFor, enteredPin: pin)
        } catch {
            let v = internalFailure(error, doing: "run conditional launch")
            report = LaunchCheckReport(decision: v, warnings: [], wipe: nil, checkedIn: false)
        }
        reports[spec.key] = report
        let identity = ((try? state.processIdentity(app: spec.identityOwner)) ?? nil) ?? ""
        audit.record(verb: verb, source: spec.handle, sourceIdentity: identity, decision: AuditDecision(report.decision),
                     reason: report.decision.blockedBy, explanation: ([report.decision.explanation] + report.warnings).joined(separator: "; "))
        if let wipe = report.wipe { emit(.note("\(spec.handle): conditional launch wiped \(wipe)")) }
        if report.checkedIn {
            // A launch's policy request answers the app's delegate (a wipe it brings included):
            // it is made once the new process can hear it.
            if verb == .launch, supervisor.readyChild(spec.key) == nil {
                launchCheckInsWaiting.insert(spec.key)
            } else {
                enrollment?.launched(spec, via: verb == .launch ? "launch" : "resume")
            }
        }
        return report
    }

    /// The launched app's process is ready: the policy request of its launch is made now.
    func childReady(_ spec: AppSpec) {
        guard launchCheckInsWaiting.remove(spec.key) != nil else { return }
        enrollment?.launched(spec, via: "launch")
    }
}
