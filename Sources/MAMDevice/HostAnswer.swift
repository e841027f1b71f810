public import MAMDeviceState
public import MAMModel
public import MAMPolicy
public import MAMWire

/// An answer the host gives through `HostController.run`, which knows how to say that no
/// answer could be had: the device shut down, the app is not installed, the store failed.
/// One mapping from a failure to each answer type, so no call site invents its own.
public protocol HostAnswer {
    static func unanswered(_ failure: HostFailure) -> Self
}

/// Why the host gave no answer, as a reason and a sentence: the store's own reason, or for a
/// host error the operational one (`unknown-app`, `app-not-running` — also for a device
/// shutting down —, `timeout`), never a policy reason the app could have met.
///
/// The error it was made from is kept (`underlying`; equality is by reason and message).
public struct HostFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: Reason
    public let message: String
    /// The host's or the store's error this failure was made from.
    public let underlying: (any Error & Sendable)?

    public static func == (a: HostFailure, b: HostFailure) -> Bool { a.reason == b.reason && a.message == b.message }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(reason)
        hasher.combine(message)
    }

    public init(_ error: any Error) {
        underlying = error
        switch error {
        case let e as DeviceStateError: (reason, message) = (e.reason, e.message)
        case let e as HostError:
            reason = switch e {
            case .unknownApp: .unknownApp
            case .notRunning, .shuttingDown, .exitedDuringHandshake, .exitedBeforeFinishingLaunch, .spawnFailed: .appNotRunning
            case .timedOut: .timeout
            default: .internalError
            }
            message = e.description
        default: (reason, message) = (.internalError, "\(error)")
        }
    }

    public static let shutDown = HostFailure(HostError.shuttingDown)

    public var description: String { message }
}

extension ServiceResult: HostAnswer {
    public static func unanswered(_ f: HostFailure) -> ServiceResult { ServiceResult(.failed(f.reason, f.message)) }
}

extension CommandResult: HostAnswer {
    public static func unanswered(_ f: HostFailure) -> CommandResult { .error(f.reason, f.message) }
}

/// No answer (the device shutting down, a timeout, a crash) is a failure, never a rule's refusal.
extension Verdict: HostAnswer {
    public static func unanswered(_ f: HostFailure) -> Verdict { .failed(f.reason, f.message) }
}

extension IdentityResult: HostAnswer {
    public static func unanswered(_ f: HostFailure) -> IdentityResult { IdentityResult(status: .failed, reason: f.reason, explanation: f.message) }
}

extension TokenDecision: HostAnswer {
    public static func unanswered(_ f: HostFailure) -> TokenDecision { TokenDecision(decision: .unanswered(f), homeAccountID: nil) }
}

/// A failure type a `Result` answer carries: made from why the host gave no answer.
public protocol HostAnswerFailure: Error {
    init(_ failure: HostFailure)
}

extension DeviceStateError: HostAnswerFailure {
    public init(_ failure: HostFailure) { self.init(failure.reason, failure.message) }
}

extension HostFailure: HostAnswerFailure {
    public init(_ failure: HostFailure) { self = failure }
}

extension Result: HostAnswer where Failure: HostAnswerFailure {
    public static func unanswered(_ f: HostFailure) -> Result { .failure(Failure(f)) }
}

extension Optional: HostAnswer {
    public static func unanswered(_ f: HostFailure) -> Optional { nil }
}
