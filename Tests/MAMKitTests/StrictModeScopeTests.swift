import Foundation
@testable import MAMIntuneFacade
import MAMModel
import MAMPlayedHost
import MAMWire
import Testing
@testable import MAMKit

extension FacadeTests {
/// Issue 101: Strict Mode as the SDK scopes identity, and the calls it reaches. `policy()` read
/// inside `IntuneMAMSwiftContextManager.setAccountId(_:forScope:)` answers for the scoped
/// account (IntuneMAMPolicyManager.h: the current thread identity) and is no mistake; a UPN
/// is a mistake in every call that takes an account id; protecting a file that is not there
/// protects nothing. Nested in FacadeTests: the façade is bound process-wide.
@Suite struct StrictModeScopeTests {
    typealias S = StrictModeFacadeTests
    static let file = #fileID

    /// The played host: a read of `Documents/missing.txt` is the host's "does not exist".
    static let answer: @Sendable (ServiceRequest, ServiceContext) -> ServiceResult? = { request, context in
        if case .readFile(let call) = request {
            return call.path.hasSuffix("missing.txt")
                ? ServiceResult(verdict: .failed(.badRequest, "com.example asked for \(call.path), which does not exist in its containers"))
                : ServiceResult(verdict: .allowed("read"), value: .data(Array("x".utf8)))
        }
        if case .writeFile = request { return ServiceResult(verdict: .allowed("written")) }
        return S.answer(request, context)
    }

    @Test func policyInsideAThreadScopeIsNoFindingOutsideItIs() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let line = await Task.detached { () -> UInt in
            IntuneMAMSwiftContextManager.setAccountId(FacadeTests.aliceOID) {
                _ = IntuneMAMPolicyManager.instance().policy()
            }
            await IntuneMAMSwiftContextManager.setAccountId(FacadeTests.aliceOID) {
                _ = IntuneMAMPolicyManager.instance().policy()
            }
            let line: UInt = #line + 1
            _ = IntuneMAMPolicyManager.instance().policy()
            return line
        }.value
        let found = await S.findings(host, count: 1)
        #expect(found.map(\.check) == ["process-policy-in-multi-identity"] && found.first?.line == UInt32(line), "\(found)")
    }

    @Test func aUPNIsAMistakeInEveryCallThatTakesAnAccountId() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let lines = await Task.detached { () -> [UInt] in
            let manager = IntuneMAMPolicyManager.instance()
            let first: UInt = #line + 1
            _ = manager.isAccountIdManaged("alice@contoso.com")
            IntuneMAMSwiftContextManager.setAccountId("alice@contoso.com") {}
            IntuneMAMFileProtectionManager.instance().protect("Documents/note.txt", accountId: "alice@contoso.com")
            // Right: her OID; a UPN of an account known by no OID.
            _ = manager.isAccountIdManaged(FacadeTests.aliceOID)
            IntuneMAMSwiftContextManager.setAccountId(FacadeTests.aliceOID) {}
            IntuneMAMFileProtectionManager.instance().protect("Documents/note.txt", accountId: "bob@outlook.com")
            return [first, first + 1, first + 2]
        }.value
        let found = await S.findings(host, count: 3)
        #expect(found.map(\.check) == Array(repeating: "account-id-is-upn", count: 3) && found.map(\.line) == lines.map(UInt32.init), "\(found)")
        #expect(found.map(\.call) == ["isAccountIdManaged(_:)", "IntuneMAMSwiftContextManager.setAccountId(_:forScope:)",
                                      "IntuneMAMFileProtectionManager.protect(_:accountId:)"], "\(found)")
    }

    @Test func protectingAFileThatIsNotThereIsReportedAtTheCall() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let line = await Task.detached { () -> UInt in
            let files = IntuneMAMFileProtectionManager.instance()
            files.protect("Documents/note.txt", accountId: FacadeTests.aliceOID)
            let line: UInt = #line + 1
            files.protect("Documents/missing.txt", accountId: FacadeTests.aliceOID)
            return line
        }.value
        let found = await S.findings(host, count: 1)
        #expect(found.map(\.check) == ["protect-missing-file"] && found.first?.line == UInt32(line) && found.first?.file == Self.file, "\(found)")
    }

    /// Android's INCOMING_IDENTITY_SWITCH on iOS: the delegate's completion handler is called
    /// once; a second call is the finding, named at the delegate method.
    @Test func anIdentitySwitchAnsweredTwiceIsReported() async throws {
        // `@unchecked Sendable`: it has no state.
        final class Twice: IntuneMAMPolicyDelegate, @unchecked Sendable {
            func identitySwitchRequired(forAccountId accountId: String, reason: IntuneMAMIdentitySwitchReason,
                                        completionHandler: @escaping (IntuneMAMSwitchIdentityResult) -> Void) {
                completionHandler(.success)
                completionHandler(.canceled)
            }
        }
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let delegate = Twice()
        IntuneMAMPolicyManager.instance().delegate = delegate
        defer { IntuneMAMPolicyManager.instance().delegate = nil }
        #expect(await Delegates.identitySwitch(FacadeTests.aliceOID, .documentImport) == .success)
        let found = await S.findings(host, count: 1)
        #expect(found.map(\.check) == ["identity-switch-unhandled"] && found.first?.line == 0, "\(found)")
        #expect(found.first?.call == "IntuneMAMPolicyDelegate.identitySwitchRequired(forAccountId:reason:completionHandler:)")
    }
}
}
