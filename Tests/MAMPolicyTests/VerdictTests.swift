import MAMModel
import Testing

/// `delivered` is the one allowed verdict without a sentence; `isDelivered` tells it apart
/// without making one to compare with, as the broker does for every batched answer.
@Suite struct VerdictTests {
    @Test(arguments: [
        (Verdict.delivered, true),
        (Verdict.allowed(""), true),
        (Verdict.allowed("managed to a managed app"), false),
        (Verdict.blocked(.outboundPolicy, ""), false),
        (Verdict.failed(.timeout, ""), false),
        (Verdict.failed(.badRequest, "declined"), false),
    ])
    func isDeliveredIsEqualityWithDelivered(_ verdict: Verdict, _ delivered: Bool) {
        #expect(verdict.isDelivered == delivered)
        #expect((verdict == .delivered) == delivered)
    }

    @Test func deliveredIsAllowedWithoutASentence() {
        #expect(Verdict.delivered.isAllowed && Verdict.delivered.reason == nil && Verdict.delivered.explanation.isEmpty)
        #expect(Verdict.delivered == Verdict.delivered && Verdict.delivered.hashValue == Verdict.allowed("").hashValue)
    }
}
