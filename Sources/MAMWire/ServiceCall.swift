public import MAMModel

/// One service call of an app to the host, typed: its request on the wire and the Swift type
/// of what answers it. `scripts/generate-wire-swift` writes a conformance for every member of
/// `ServiceRequest.call` (`Service.ReadFile`, `Service.PolicyQuery`…) from the `answers=` the
/// `.proto` gives it, so the compiler knows that a `ReadFile` is answered with bytes and no
/// code outside the generated file matches on `ServiceValue` by hand.
public protocol ServiceCall: Sendable {
    /// What a successful call carries (`Void` for calls answered by their verdict alone).
    associatedtype Answer: Sendable
    /// The call as it goes on the wire.
    var request: ServiceRequest { get }
    /// The answer `value` carries for this call, or `nil` when it carries none (a refusal,
    /// or a host that answered nothing: the verdict says why).
    static func answer(from value: ServiceValue) -> Answer?
    /// The answer as `ServiceResult.value` carries it (the host's side of `answer(from:)`).
    static func value(of answer: Answer) -> ServiceValue
}

/// What the host answered a typed call: the verdict (allowed, blocked or failed, and why) and,
/// when the call has one, its answer.
public struct Reply<Answer: Sendable>: Sendable {
    public let verdict: Verdict
    public let answer: Answer?

    public init(verdict: Verdict, answer: Answer?) {
        self.verdict = verdict
        self.answer = answer
    }

    /// `result` read for `call`'s type.
    public init<Call: ServiceCall>(_ result: ServiceResult, for call: Call.Type) where Call.Answer == Answer {
        self.init(verdict: result.verdict, answer: Call.answer(from: result.value))
    }

    public var isAllowed: Bool {
        if case .allowed = verdict { return true }
        return false
    }

    /// The answer when the call was allowed, else `nil`.
    public var allowedAnswer: Answer? { isAllowed ? answer : nil }
}
