/// What a sender is told about one share — exactly once (DESIGN.md "Delivery semantics").
public enum ShareOutcome: Sendable, Hashable, CustomStringConvertible {
    case delivered
    case blocked(Reason, String)
    case failed(Reason, String)

    public var reason: Reason? {
        switch self {
        case .delivered: nil
        case .blocked(let r, _), .failed(let r, _): r
        }
    }

    public var explanation: String {
        switch self {
        case .delivered: ""
        case .blocked(_, let e), .failed(_, let e): e
        }
    }

    public var description: String {
        switch self {
        case .delivered: "delivered"
        case .blocked(let r, let e): "blocked (\(r)): \(e)"
        case .failed(let r, let e): "failed (\(r)): \(e)"
        }
    }
}
