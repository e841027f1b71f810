/// Why bytes from a peer could not become a `Frame`. Each case is a sentence for logs.
public enum WireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The length prefix announced more than the negotiated maximum; nothing was allocated.
    case frameTooLarge(length: UInt32, maximum: UInt32)
    /// protobuf-c could not parse the message (`unpack` returned NULL).
    case malformed(length: Int)
    /// A field the contract needs was absent.
    case missingField(String)
    /// An enum field held a value the contract does not define.
    case badEnum(field: String, value: Int32)
    /// A field held a value that is not acceptable (e.g. an empty id).
    case invalidField(String, String)
    /// The stream ended inside a frame.
    case truncated(missing: Int)
    /// More repeated elements than a frame may carry (millions would stall the host).
    case tooManyElements(maximum: Int)
    /// A frame body that only the other side may send (a child sending `welcome`).
    case wrongSender(body: String, only: WireParty)

    public var description: String {
        switch self {
        case .frameTooLarge(let n, let max):
            "frame of \(n) bytes exceeds the maximum of \(max) bytes (send large payloads as files)"
        case .malformed(let n):
            "frame of \(n) bytes is not a valid mamsim.v2.Frame"
        case .missingField(let f):
            "required field \(f) is missing"
        case .badEnum(let f, let v):
            "field \(f) has undefined value \(v)"
        case .invalidField(let f, let why):
            "field \(f) is invalid: \(why)"
        case .tooManyElements(let maximum):
            "frame repeats fields more than \(maximum) times; no message of the protocol needs that many"
        case .wrongSender(let body, let only):
            "sent \(body), which only the \(only) may send"
        case .truncated(let missing):
            "stream ended in the middle of a frame (\(missing) bytes missing)"
        }
    }
}

/// A side of the channel.
public enum WireParty: String, Sendable, Hashable, CustomStringConvertible {
    case host, child

    public var description: String { rawValue }
}
