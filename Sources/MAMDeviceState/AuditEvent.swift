import Foundation
public import MAMModel
public import MAMPolicy

/// One line of the device's audit log: who did what to whose data, and what the device
/// decided, with the reason code and the sentence (RULES.md §5 "every mismatch is logged",
/// §11). Stored in SQLite and exported as JSON Lines.
public struct AuditEvent: Sendable, Hashable, Codable {
    /// Simulated time of the event.
    public var time: Instant
    public var scenario: String
    /// The scenario step (its index or name); `""` outside a scenario.
    public var step: String
    /// What happened: `signIn`, `share`, `paste`, `setIdentity`, `wipe`, …
    public var verb: String
    public var sourceApp: String
    public var sourceIdentity: String
    public var destinationApp: String
    public var destinationIdentity: String
    /// The data's owner; `""` = unowned.
    public var owner: String
    /// `allowed`, `blocked`, `delivered`, `failed`, …
    public var decision: String
    /// A reason code (`outbound-policy`, …); `""` when allowed.
    public var reason: String
    public var explanation: String

    public init(time: Instant, scenario: String = "", step: String = "", verb: String,
                sourceApp: String = "", sourceIdentity: String = "", destinationApp: String = "",
                destinationIdentity: String = "", owner: String = "", decision: String, reason: String = "",
                explanation: String) {
        self.time = time
        self.scenario = scenario
        self.step = step
        self.verb = verb
        self.sourceApp = sourceApp
        self.sourceIdentity = sourceIdentity
        self.destinationApp = destinationApp
        self.destinationIdentity = destinationIdentity
        self.owner = owner
        self.decision = decision
        self.reason = reason
        self.explanation = explanation
    }

    /// An event for an enforcer `Decision`: `allowed`/`blocked`, its reason and sentence.
    public init(time: Instant, scenario: String = "", step: String = "", verb: String,
                sourceApp: String = "", sourceIdentity: String = "", destinationApp: String = "",
                destinationIdentity: String = "", owner: String = "", decision: Decision) {
        self.init(time: time, scenario: scenario, step: step, verb: verb, sourceApp: sourceApp,
                  sourceIdentity: sourceIdentity, destinationApp: destinationApp,
                  destinationIdentity: destinationIdentity, owner: owner,
                  decision: decision.isAllowed ? "allowed" : "blocked",
                  reason: decision.blockedBy?.rawValue ?? "", explanation: decision.explanation)
    }

    enum CodingKeys: String, CodingKey {
        case time, scenario, step, verb, sourceApp, sourceIdentity, destinationApp, destinationIdentity
        case owner, decision, reason, explanation
    }

    /// `time` travels as ISO-8601 text (`2026-01-01T09:00:00Z`), the way scenario files write it.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(time.description, forKey: .time)
        try c.encode(scenario, forKey: .scenario)
        try c.encode(step, forKey: .step)
        try c.encode(verb, forKey: .verb)
        try c.encode(sourceApp, forKey: .sourceApp)
        try c.encode(sourceIdentity, forKey: .sourceIdentity)
        try c.encode(destinationApp, forKey: .destinationApp)
        try c.encode(destinationIdentity, forKey: .destinationIdentity)
        try c.encode(owner, forKey: .owner)
        try c.encode(decision, forKey: .decision)
        try c.encode(reason, forKey: .reason)
        try c.encode(explanation, forKey: .explanation)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let text = try c.decode(String.self, forKey: .time)
        guard let time = Instant(iso8601: text) else {
            throw DecodingError.dataCorruptedError(forKey: .time, in: c, debugDescription: "\"\(text)\" is not an ISO-8601 date-time")
        }
        self.init(time: time, scenario: try c.decode(String.self, forKey: .scenario), step: try c.decode(String.self, forKey: .step),
                  verb: try c.decode(String.self, forKey: .verb), sourceApp: try c.decode(String.self, forKey: .sourceApp),
                  sourceIdentity: try c.decode(String.self, forKey: .sourceIdentity),
                  destinationApp: try c.decode(String.self, forKey: .destinationApp),
                  destinationIdentity: try c.decode(String.self, forKey: .destinationIdentity),
                  owner: try c.decode(String.self, forKey: .owner), decision: try c.decode(String.self, forKey: .decision),
                  reason: try c.decode(String.self, forKey: .reason), explanation: try c.decode(String.self, forKey: .explanation))
    }
}
