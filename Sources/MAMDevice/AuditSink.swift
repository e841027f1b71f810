import MAMDeviceState
public import MAMLoop
public import MAMModel
import MAMWire
public import Foundation

/// `AuditSink`'s state on its loop's thread (`LoopBound`): its fields are read and
/// written through `value` (`AuditSink.value.field`), checked to be on the loop's thread in debug builds.
public struct AuditSinkLoopState {
    /// Filled on every decision, on the loop thread only: the runtime's exclusivity checks
    /// here were 174 of the host's instructions per brokered item, more than `record`'s own.
    var buffer: AuditRecords = AuditRecords()
    /// The scenario step last read from the context, and its generation: read again only
    /// when it moved (the context's lock, taken for every record, was two atomic updates
    /// and a copy of both names per brokered item).
    var step: (generation: UInt64?, scenario: String, step: String) = (nil, "", "")
    /// `commit`, armed when a record is buffered, while a flood's coalesced record waits
    /// for the flood to end, and after a failed write (to try again).
    var commitHook: FlushHook?
}

/// Where the host's decisions go: the device's audit log.
///
/// Records are buffered and written in one journal write per loop iteration (group commit),
/// off the per-share path. The commit runs before the loop sends the iteration's batched
/// writes, so no child is ever told an answer whose audit line is not yet durable: a host
/// killed after an answer left keeps the line.
///
/// Each child has a budget of refused decisions it may put in the log
/// (`HostConfiguration.auditRefusalBudget`, a rate with a burst): a child flooding refused
/// requests is still answered one by one, but what goes beyond its budget is coalesced into
/// one `audit-coalesced` record per flood, so no child can grow the log (and every export and
/// report of it) at its own pace. What was allowed or delivered is always recorded.
public final class AuditSink: LoopBound<AuditSinkLoopState> {
    private struct Budget {
        var tokens: Double
        var refilled: UInt64
        var coalesced = 0
        var verbs: [AuditVerb: Int] = [:]
        var since: UInt64 = 0
        var lastCoalesced: UInt64 = 0
    }

    private let loop: EventLoop
    private let refusalsPerSecond: Double
    private let refusalBurst: Double
    private var budgets: [String: Budget] = [:]
    private let state: DeviceState
    private let context: RunContext
    private let enabled: Bool
    private let onEvent: (HostEvent) -> Void

    private func refreshStep() {
        if let read = context.step(since: self.value.step.generation) { self.value.step = (read.generation, read.scenario, read.step) }
    }

    init(loop: EventLoop, state: DeviceState, context: RunContext, enabled: Bool, refusalBudget: AuditRefusalBudget = AuditRefusalBudget(),
         onEvent: @escaping (HostEvent) -> Void) {
        self.loop = loop
        refusalsPerSecond = Double(refusalBudget.perSecond)
        refusalBurst = Double(refusalBudget.burst)
        self.state = state
        self.context = context
        self.enabled = enabled
        self.onEvent = onEvent
        super.init(AuditSinkLoopState(), loop: loop)
        self.value.commitHook = loop.addBeforeFlushHook(self) { $0.commit() }
    }

    private func commitSoon() {
        if let commitHook = self.value.commitHook { loop.arm(commitHook) }
    }

    /// One line of the audit log, stamped with the simulated time and the scenario step.
    func record(verb: AuditVerb, source: String, sourceIdentity: String = "", destination: String = "",
                destinationIdentity: String = "", owner: String = "", decision: AuditDecision, reason: Reason? = nil,
                explanation: String) {
        guard enabled else { return }
        // (A refusal beyond the budget arms the commit too: its flood's record is written
        // there once the flood ends.)
        commitSoon()
        if decision != .allowed, decision != .delivered, !source.isEmpty, !withinBudget(source, verb: verb) { return }
        refreshStep()
        self.value.buffer.append(
            time: state.nowOnLoop(), scenario: self.value.step.scenario, step: self.value.step.step, verb: verb,
            sourceApp: source, sourceIdentity: sourceIdentity, destinationApp: destination,
            destinationIdentity: destinationIdentity, owner: owner, decision: decision,
            reason: reason, explanation: explanation)
    }

    /// A verdict's record, mapped by `AuditDecision(_:)`: the one place a verdict becomes a
    /// decision of the log.
    func record(verb: AuditVerb, source: String, sourceIdentity: String = "", destination: String = "",
                destinationIdentity: String = "", owner: String = "", _ v: Verdict) {
        record(verb: verb, source: source, sourceIdentity: sourceIdentity, destination: destination,
               destinationIdentity: destinationIdentity, owner: owner, decision: AuditDecision(v), reason: v.reason,
               explanation: v.explanation)
    }

    func record(_ share: ShareRecord) {
        record(verb: .share, source: share.from, sourceIdentity: share.identity, destination: share.to,
               destinationIdentity: share.receivedAs, owner: share.owner?.upn ?? "", decision: AuditDecision(share.outcome, allowedAs: .delivered),
               reason: share.outcome.reason, explanation: share.outcome.explanation)
    }

    /// Takes one refused record from `source`'s budget, or counts it as coalesced.
    private func withinBudget(_ source: String, verb: AuditVerb) -> Bool {
        let now = loop.now
        var budget = budgets[source] ?? Budget(tokens: refusalBurst, refilled: now)
        budget.tokens = min(refusalBurst, budget.tokens + Double(now &- budget.refilled) * refusalsPerSecond / 1000)
        budget.refilled = now
        defer { budgets[source] = budget }
        if budget.tokens >= 1 {
            budget.tokens -= 1
            return true
        }
        if budget.coalesced == 0 {
            budget.since = now
            onEvent(.hostile(handle: source, what: "floods refused requests beyond \(Int(refusalsPerSecond)) a second; further refusals are coalesced in the audit log", disconnected: false))
        }
        budget.coalesced += 1
        budget.verbs[verb, default: 0] += 1
        budget.lastCoalesced = now
        return false
    }

    /// One record per flood that has ended (a second without a coalesced refusal), or for
    /// every flood when `all`. Whether a flood is still going on.
    private func recordCoalesced(all: Bool) -> Bool {
        let now = loop.now
        var going = false
        for (source, budget) in budgets where budget.coalesced > 0 {
            guard all || now &- budget.lastCoalesced >= 1000 else {
                going = true
                continue
            }
            let verbs = budget.verbs.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ")
            refreshStep()
            self.value.buffer.append(
                time: state.nowOnLoop(), scenario: self.value.step.scenario, step: self.value.step.step, verb: .auditCoalesced, sourceApp: source,
                sourceIdentity: "", destinationApp: "", destinationIdentity: "", owner: "",
                decision: .hostile, reason: .badRequest,
                explanation: "\(source) sent \(budget.coalesced) refused requests (\(verbs)) over \(now &- budget.since) ms beyond its audit budget of \(Int(refusalsPerSecond)) a second; each was refused and answered, and they are logged as this one record")
            budgets[source]?.coalesced = 0
            budgets[source]?.verbs = [:]
        }
        return going
    }

    /// Writes every buffered record in one journal write. A failed write keeps the records for
    /// the next attempt and says so once per failure. `all` also writes the record of a flood
    /// still going on (before an export).
    func commit(all: Bool = false) {
        // A flood still going on is looked at again at every flush until it ends.
        if !budgets.isEmpty, recordCoalesced(all: all) { commitSoon() }
        guard !self.value.buffer.isEmpty else { return }
        do {
            try state.appendAudit(self.value.buffer)
            self.value.buffer.removeAll()
        } catch {
            commitSoon()
            onEvent(.note("could not write \(self.value.buffer.count) audit records (kept for the next attempt): \(error)"))
        }
    }

    /// Commits the log and writes it as JSON Lines; how many records were written.
    @discardableResult
    public func export(to url: URL) throws -> Int {
        commit(all: true)
        return try state.exportAuditJSONLines(to: url)
    }
}
