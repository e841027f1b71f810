/// What the enforcer decided about one question, with the reason and a sentence a person
/// understands, naming the policy setting, its value and the parties.
public struct Decision: Sendable, Hashable, CustomStringConvertible {
    /// `nil` when allowed.
    public let blockedBy: Reason?
    public let explanation: String

    public static func allowed(_ explanation: String) -> Decision {
        Decision(blockedBy: nil, explanation: explanation)
    }

    public static func blocked(_ reason: Reason, because explanation: String) -> Decision {
        Decision(blockedBy: reason, explanation: explanation)
    }

    public var isAllowed: Bool { blockedBy == nil }

    public var description: String {
        if let r = blockedBy { return "blocked (\(r)): \(explanation)" }
        return "allowed: \(explanation)"
    }
}
