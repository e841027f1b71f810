/// What mamsim answers about one question, from the rules to the wire to a scenario's report:
/// allowed, blocked by a rule (a `Reason` and a sentence a person understands, naming the
/// policy setting, its value and the parties), or failed because it could not be done (the
/// device itself, a bad request, a timeout). The enforcer's rules answer `allowed` or
/// `blocked`; a share that is allowed was delivered and acknowledged.
public enum Verdict: Sendable, Hashable, CustomStringConvertible {
    case allowed(String)
    case blocked(Reason, String)
    case failed(Reason, String)

    /// A share's answer when it was delivered and acknowledged (no sentence: the sender knows
    /// what it shared, and the wire stays as short as a bare status). Made where it is used,
    /// not a stored `static let`: each use of that was a lazy-initialisation check and a
    /// copy (a retain, and later a release) of the stored value; the empty literal needs none.
    @inlinable
    public static var delivered: Verdict { .allowed("") }

    /// Whether this is `delivered`, without making one to compare with.
    @inlinable
    public var isDelivered: Bool { if case .allowed(let e) = self { e.isEmpty } else { false } }

    /// A rule's refusal: `reason`, and why.
    public static func blocked(_ reason: Reason, because explanation: String) -> Verdict {
        .blocked(reason, explanation)
    }

    public var isAllowed: Bool { if case .allowed = self { true } else { false } }

    /// `nil` when allowed.
    public var reason: Reason? {
        switch self {
        case .allowed: nil
        case .blocked(let r, _), .failed(let r, _): r
        }
    }

    /// Why it was not allowed (a rule, or a failure); `nil` when allowed.
    public var blockedBy: Reason? { reason }

    public var explanation: String {
        switch self {
        case .allowed(let e), .blocked(_, let e), .failed(_, let e): e
        }
    }

    public var description: String {
        switch self {
        case .allowed(let e): "allowed: \(e)"
        case .blocked(let r, let e): "blocked (\(r)): \(e)"
        case .failed(let r, let e): "failed (\(r)): \(e)"
        }
    }
}
