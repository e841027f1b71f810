import MAMDeviceState
import MAMLoop
import MAMModel
import MAMWire

/// Where the host's decisions go: the device's audit log.
///
/// Records are buffered and written in one transaction per loop iteration (group commit),
/// off the per-share path. The commit runs before the loop sends the iteration's batched
/// writes, so no child is ever told an answer whose audit line is not yet durable: a host
/// killed after an answer left keeps the line.
final class AuditSink {
    private let state: DeviceState
    private let context: RunContext
    private let enabled: Bool
    private let onEvent: (HostEvent) -> Void
    private var buffer: [AuditEvent] = []

    init(loop: EventLoop, state: DeviceState, context: RunContext, enabled: Bool, onEvent: @escaping (HostEvent) -> Void) {
        self.state = state
        self.context = context
        self.enabled = enabled
        self.onEvent = onEvent
        loop.addBeforeFlushHook { [weak self] in self?.commit() }
    }

    /// One line of the audit log, stamped with the simulated time and the scenario step.
    func record(verb: String, source: String, sourceIdentity: String = "", destination: String = "",
                destinationIdentity: String = "", owner: String = "", decision: String, reason: Reason? = nil,
                explanation: String) {
        guard enabled else { return }
        let (scenario, step) = context.step
        buffer.append(AuditEvent(
            time: state.now, scenario: scenario, step: step, verb: verb,
            sourceApp: source, sourceIdentity: sourceIdentity, destinationApp: destination,
            destinationIdentity: destinationIdentity, owner: owner, decision: decision,
            reason: reason?.rawValue ?? "", explanation: explanation))
    }

    func record(verb: String, source: String, sourceIdentity: String = "", owner: String = "", _ d: Decision) {
        record(verb: verb, source: source, sourceIdentity: sourceIdentity, owner: owner,
               decision: d.isAllowed ? "allowed" : "blocked", reason: d.blockedBy, explanation: d.explanation)
    }

    func record(verb: String, source: String, sourceIdentity: String = "", destination: String = "",
                destinationIdentity: String = "", owner: String = "", _ v: Verdict) {
        let decision = switch v {
        case .allowed: "allowed"
        case .blocked: "blocked"
        case .failed: "failed"
        }
        record(verb: verb, source: source, sourceIdentity: sourceIdentity, destination: destination,
               destinationIdentity: destinationIdentity, owner: owner, decision: decision, reason: v.reason,
               explanation: v.explanation)
    }

    func record(_ share: ShareRecord) {
        let decision = switch share.outcome {
        case .delivered: "delivered"
        case .blocked: "blocked"
        case .failed: "failed"
        }
        record(verb: "share", source: share.from, sourceIdentity: share.identity, destination: share.to,
               destinationIdentity: share.receivedAs, owner: share.owner?.upn ?? "", decision: decision,
               reason: share.outcome.reason, explanation: share.outcome.explanation)
    }

    /// Writes every buffered record in one transaction. A failed write keeps the records for
    /// the next attempt and says so once per failure.
    func commit() {
        guard !buffer.isEmpty else { return }
        do {
            try state.appendAudit(buffer)
            buffer.removeAll(keepingCapacity: true)
        } catch {
            onEvent(.note("could not write \(buffer.count) audit records (kept for the next attempt): \(error)"))
        }
    }
}
