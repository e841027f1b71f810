import Foundation
import MAMExtensions
import Testing

/// `delegate-drift`: methods of a delegate type that the SDK never calls, read from the source.
@Suite("Delegate drift (source-level lint)")
struct DelegateLintTests {
    /// A delegate written as real integrations are (an extension adopting the protocol), with
    /// the drift seen in a public integration: a refresh handler under a name the SDK does not
    /// have, while policyRequest(with:) is missing.
    static let source = """
        import IntuneMAMSwift

        extension Handler: IntuneMAMEnrollmentDelegate {
            public func enrollmentRequest(with status: IntuneMAMEnrollmentStatus) {
                log("enrolled") // func enrollmentRequest(with: x, other: y) in a comment is no method
            }

            public func enrollmentRequest(with status: IntuneMAMEnrollmentStatus, andRefreshedPolicies refreshed: Bool) {
                let text = "func unenrollRequest(with status: Bad, extra: Int) in a string is none either"
                if refreshed { print(text) }
            }

            func unenrollRequest(with status: IntuneMAMEnrollmentStatus) {}

            private func helper(_ value: Int) -> Int { value }
        }

        final class Policy: NSObject, IntuneMAMPolicyDelegate, IntuneMAMComplianceDelegate {
            func wipeData(forAccount upn: String) -> Bool { true }
            func restartApplication() -> Bool { false }
            func identitySwitchRequired(forAccountId accountId: String, reason: IntuneMAMIdentitySwitchReason) async -> IntuneMAMSwitchIdentityResult { .success }
            func accountId(_ accountId: String, hasComplianceStatus status: IntuneMAMComplianceStatus,
                           withErrorMessage message: String, andErrorTitle title: String) {}
            func identity(_ upn: String, hasComplianceStatus status: IntuneMAMComplianceStatus, withErrorMessage m: String, andErrorTitle t: String) {}
        }

        struct Unrelated { func enrollmentRequest(with x: Int, y: Int) {} }
        """

    @Test func driftedMethodsAreFoundWithTheirLinesAndNearRequirements() {
        let drifts = DelegateLint.drifts(in: Self.source)
        #expect(drifts.map(\.method) == ["enrollmentRequest(with:andRefreshedPolicies:)", "wipeData(forAccount:)"])
        #expect(drifts.map(\.line) == [8, 19])
        #expect(drifts.first?.type == "Handler" && drifts.first?.near == ["enrollmentRequest(with:)"])
        #expect(drifts.first?.missing == ["policyRequest(with:)", "getAccessToken(forAccountId:resource:completion:)"])
        #expect(drifts.last?.protocols == ["IntuneMAMComplianceDelegate", "IntuneMAMPolicyDelegate"])
        #expect(drifts.last?.near == ["wipeData(forAccountId:)"])
    }

    /// The same source saved with Windows (CR LF) or classic Mac (CR) line ends, as the Swift
    /// compiler reads it: the same drifts at the same lines. Read by characters, a comment's
    /// line never ended at CR LF, and everything after the first `//` was blanked.
    @Test(arguments: ["\r\n", "\r"])
    func lineEndsChangeNothing(_ br: String) {
        let lf = DelegateLint.drifts(in: Self.source)
        let other = DelegateLint.drifts(in: Self.source.replacingOccurrences(of: "\n", with: br))
        #expect(other.map(\.method) == lf.map(\.method) && other.map(\.line) == [8, 19], "\(other.map(\.method)) \(other.map(\.line))")
    }

    /// Issue 96: a drifted method is offered the requirement its type does not implement —
    /// `unenrollmentRequest(with:)` beside the type's own `enrollmentRequest(with:)` is the
    /// SDK's `unenrollRequest(with:)`, never the `enrollmentRequest(with:)` it already has.
    @Test func theSuggestionIsTheRequirementTheTypeLacks() {
        let source = """
            final class Enrollment: NSObject, IntuneMAMEnrollmentDelegate {
                func enrollmentRequest(with status: IntuneMAMEnrollmentStatus) {}
                func policyRequest(with status: IntuneMAMEnrollmentStatus) {}
                func unenrollmentRequest(with status: IntuneMAMEnrollmentStatus) {}
            }
            """
        let drifts = DelegateLint.drifts(in: source)
        #expect(drifts.map(\.method) == ["unenrollmentRequest(with:)"])
        #expect(drifts.first?.near == ["unenrollRequest(with:)"], "\(drifts)")
    }

    /// The importer's async form of a completion-handler requirement is a requirement too; a
    /// helper with a name far from any requirement, a 19.x name with no near requirement
    /// (`identity(_:hasComplianceStatus:…)`) and a type adopting no delegate are not findings.
    @Test func asyncFormsHelpersAndOtherTypesAreNotDrift() {
        let methods = DelegateLint.drifts(in: Self.source).map(\.method)
        #expect(!methods.contains("identitySwitchRequired(forAccountId:reason:)"))
        #expect(!methods.contains("helper(_:)"))
        #expect(!methods.contains { $0.hasPrefix("identity(") })
        #expect(!methods.contains("enrollmentRequest(with:y:)"))
    }
}
