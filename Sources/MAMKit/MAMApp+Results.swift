import MAMLoop
public import MAMModel
import MAMWire
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public enum MAMKitError: Error, Sendable, CustomStringConvertible {
    case channelClosed(String)
    public var description: String {
        switch self {
        case .channelClosed(let why): "the host channel closed before the handshake: \(why)"
        }
    }
}

/// What `acquireToken` came to.
public struct TokenResult: Sendable, Hashable {
    /// The access token (a JWT), when issued.
    public let token: String?
    /// Why not, when not.
    public let reason: Reason?
    /// `<oid>.<tid>`, with `protection-policy-required`: the account to remediate.
    public let homeAccountID: String?
    public let explanation: String
}
