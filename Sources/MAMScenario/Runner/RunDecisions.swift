public import Foundation
import MAMDeviceState
import MAMModel

/// The host's decisions of one run, as its audit log keeps them (`audit.jsonl`): per step —
/// or the fleet's start — which app asked what of whom, and what the host decided, without
/// times or wording. A mutant whose run decides otherwise where no expectation looked reached
/// the app's code or a step all the same: it survived (docs/MUTATE.md).
public struct RunDecisions: Sendable, Equatable {
    public struct Decision: Hashable, Comparable, Sendable {
        public var verb: String
        public var source: String
        public var sourceIdentity: String
        public var destination: String
        public var destinationIdentity: String
        public var owner: String
        public var decision: String
        public var reason: String

        public static func < (a: Self, b: Self) -> Bool { a.key.lexicographicallyPrecedes(b.key) }
        private var key: [String] { [verb, source, sourceIdentity, destination, destinationIdentity, owner, decision, reason] }

        /// `mail (alice@contoso.com)'s share to word, alice@contoso.com's data: delivered`.
        public var description: String {
            let who = sourceIdentity.isEmpty ? source : "\(source) (\(sourceIdentity))"
            let to = destination.isEmpty ? "" : " to \(destinationIdentity.isEmpty ? destination : "\(destination) (\(destinationIdentity))")"
            let data = owner.isEmpty ? "" : ", \(owner)'s data"
            return UntrustedText.escaped("\(who)'s \(verb)\(to)\(data): \(decision)\(reason.isEmpty ? "" : " (\(reason))")")
        }
    }

    /// Each decision with the label of the step it was made in (its name, `step N`, or `fleet
    /// start`), in the log's order.
    public var records: [(label: String, decision: Decision)] = []

    public static func == (a: Self, b: Self) -> Bool { a.records.map(\.decision).sorted() == b.records.map(\.decision).sorted() }

    /// The decisions of the audit log at `url`, or nil when there is none to read. A source
    /// whose refusals were coalesced (a flood past its audit budget) keeps no refusal here:
    /// how many a flood logs one by one depends on the clock, not on the policy.
    public static func read(_ url: URL?) -> RunDecisions? {
        guard let url, let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        return parse(text)
    }

    /// The decisions of an audit log's JSON lines, each read as the device wrote it
    /// (`AuditEvent`); a line that is not one is passed over.
    public static func parse(_ text: String) -> RunDecisions {
        let decoder = JSONDecoder()
        var all: [(label: String, decision: Decision, done: Bool)] = []
        var flooding: Set<String> = []
        for line in text.split(separator: "\n") {
            guard let e = try? decoder.decode(AuditEvent.self, from: Data(line.utf8)) else { continue }
            if e.verb == .auditCoalesced {
                flooding.insert(e.sourceApp)
                continue
            }
            let decision = Decision(verb: e.verb.rawValue, source: e.sourceApp, sourceIdentity: e.sourceIdentity, destination: e.destinationApp,
                                    destinationIdentity: e.destinationIdentity, owner: e.owner, decision: e.decision.rawValue,
                                    reason: e.reason?.rawValue ?? "")
            all.append((e.step, decision, [.allowed, .delivered, .ok, .success].contains(e.decision)))
        }
        return RunDecisions(records: all.filter { $0.done || !flooding.contains($0.decision.source) }.map { ($0.label, $0.decision) })
    }

    /// The first decision, in the baseline's order, that `other` does not make alike, with the
    /// step it was made in: made otherwise, no longer made, or made anew. The runs are compared
    /// as wholes — an app's own work at launch may fall in the fleet's start in one run and in
    /// the first step in the next — and only the naming uses the steps.
    public func firstDifference(in other: RunDecisions) -> (label: String, what: String)? {
        var left: [Decision: Int] = [:]
        for d in other.records.map(\.decision) { left[d, default: 0] += 1 }
        var gone: [(label: String, decision: Decision)] = []
        for r in records {
            if let n = left[r.decision], n > 0 { left[r.decision] = n - 1 } else { gone.append(r) }
        }
        // What is left of `other`'s decisions after the baseline's took theirs: those it made anew.
        var new: [(label: String, decision: Decision)] = []
        for r in other.records where (left[r.decision] ?? 0) > 0 {
            left[r.decision, default: 0] -= 1
            new.append(r)
        }
        if let was = gone.first {
            if let now = new.first(where: { same($0.decision, was.decision) }) {
                let before = was.decision.decision + (was.decision.reason.isEmpty ? "" : " (\(was.decision.reason))")
                return (was.label, "the host decided \(now.decision.description) (before: \(before))")
            }
            return (was.label, "the host no longer decided \(was.decision.description)")
        }
        if let now = new.first { return (now.label, "the host also decided \(now.decision.description)") }
        return nil
    }

    /// Whether two decisions are the same question (verb and parties), answered or not alike.
    private func same(_ a: Decision, _ b: Decision) -> Bool {
        (a.verb, a.source, a.sourceIdentity, a.destination, a.destinationIdentity, a.owner) == (b.verb, b.source, b.sourceIdentity, b.destination, b.destinationIdentity, b.owner)
    }
}
