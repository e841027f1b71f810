import Foundation
@testable import MAMIntuneFacade
import MAMModel
import MAMPlayedHost
import MAMWire
import Synchronization
import Testing
@testable import MAMKit

extension FacadeTests {
/// Strict Mode in the façade (docs/STRICT.md): each check, against a host played over a socket
/// pair, once with the app's code making the mistake — one finding, naming the check, the SDK
/// call and this file's line — and once doing it right — no finding. Nested in FacadeTests:
/// the façade is bound process-wide, so its tests run one at a time.
@Suite struct StrictModeFacadeTests {
    /// FacadeTests' host, whose enrollment calls leave its state (alice enrolled) as it is.
    static let answer: @Sendable (ServiceRequest, ServiceContext) -> ServiceResult? = { request, context in
        switch request {
        case .enroll: ServiceResult(verdict: .allowed(""), value: .enrollment(100))
        case .unenroll: ServiceResult(verdict: .allowed(""), value: .enrollment(104))
        case .strictFinding: ServiceResult(verdict: .allowed("recorded"))
        case .canOpen: ServiceResult(verdict: .allowed("allowed"))
        default: FacadeTests.answer(request, context)
        }
    }

    /// A delegate that remembers the statuses and, when asked, deregisters from inside its
    /// callback (the mistake) or after it returns (right). `@unchecked Sendable`: `insideLine`
    /// is written in the callback, on the main thread, and read once the test has waited for it.
    final class Delegate: IntuneMAMEnrollmentDelegate, @unchecked Sendable {
        enum Deregister { case never, inside, afterwards }
        let deregister: Deregister
        init(_ deregister: Deregister = .never) { self.deregister = deregister }
        var insideLine: UInt = 0

        func enrollmentRequest(with status: IntuneMAMEnrollmentStatus) {
            switch deregister {
            case .never: break
            case .inside:
                insideLine = #line + 1
                IntuneMAMEnrollmentManager.instance().deRegisterAndUnenrollAccountId(status.accountId, withWipe: false)
            case .afterwards:
                DispatchQueue.global().async { IntuneMAMEnrollmentManager.instance().deRegisterAndUnenrollAccountId(status.accountId, withWipe: false) }
            }
        }
    }

    /// The strict findings the played host received, once `count` arrived or 2 s passed.
    static func findings(_ host: PlayedHost, count: Int) async -> [(check: String, call: String, file: String, line: UInt32)] {
        for _ in 0..<200 {
            let got = host.seen.withLock { $0 }.compactMap { request, _ -> (String, String, String, UInt32)? in
                if case .strictFinding(let f) = request { return (f.check, f.call, f.file, f.line) }
                return nil
            }
            if got.count >= count { return got.map { (check: $0.0, call: $0.1, file: $0.2, line: $0.3) } }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return host.seen.withLock { $0 }.compactMap { request, _ in
            if case .strictFinding(let f) = request { return (check: f.check, call: f.call, file: f.file, line: f.line) }
            return nil
        }
    }

    /// Waits until the played host has seen `n` requests named `name` (the façade's background calls).
    static func waitFor(_ host: PlayedHost, _ name: String, _ n: Int) async {
        for _ in 0..<200 where host.seen.withLock({ $0.filter { $0.0.name == name }.count }) < n {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    static let file = #fileID

    @Test func aUPNWhereTheSDKTakesAnAccountIdIsReportedAtItsLine() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let lines = await Task.detached { () -> [UInt] in
            let enrollment = IntuneMAMEnrollmentManager.instance(), policy = IntuneMAMPolicyManager.instance()
            enrollment.delegate = nil
            let mistakes: [UInt] = [#line + 1, #line + 2]
            _ = policy.policy(forAccountId: "alice@contoso.com")
            enrollment.deRegisterAndUnenrollAccountId("alice@contoso.com", withWipe: false)
            // Right: her OID, and a UPN of an account the app knows by no OID (bob's).
            _ = policy.policy(forAccountId: FacadeTests.aliceOID)
            enrollment.deRegisterAndUnenrollAccountId(FacadeTests.aliceOID, withWipe: false)
            _ = policy.policy(forAccountId: "bob@outlook.com")
            return mistakes
        }.value
        await Self.waitFor(host, "unenroll", 2)
        let found = await Self.findings(host, count: 2)
        #expect(found.map(\.check) == ["account-id-is-upn", "account-id-is-upn"], "\(found)")
        #expect(found.map(\.line) == lines.map(UInt32.init) && found.allSatisfy { $0.file == Self.file }, "\(found)")
        #expect(found.map(\.call) == ["policy(forAccountId:)", "deRegisterAndUnenrollAccountId(_:withWipe:)"])
    }

    /// The location's account passed by its UPN to the policy object's `isSaveToAllowed` /
    /// `isOpenFromAllowed` (issue 87, item 6): the same mistake, at that line; her OID is right.
    @Test func aUPNForALocationsAccountIsReportedAtItsLine() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let lines = await Task.detached { () -> [UInt] in
            guard let policy = IntuneMAMPolicyManager.instance().policy(forAccountId: FacadeTests.aliceOID) else { return [] }
            let mistakes: [UInt] = [#line + 1, #line + 2]
            _ = policy.isSaveToAllowed(for: .oneDriveForBusiness, withAccountId: "alice@contoso.com")
            _ = policy.isOpenFromAllowed(for: .sharePoint, withAccountId: "alice@contoso.com")
            _ = policy.isSaveToAllowed(for: .oneDriveForBusiness, withAccountId: FacadeTests.aliceOID)
            _ = policy.isOpenFromAllowed(for: .sharePoint, withAccountId: FacadeTests.aliceOID)
            return mistakes
        }.value
        let found = await Self.findings(host, count: 2)
        #expect(found.map(\.check) == ["account-id-is-upn", "account-id-is-upn"] && found.map(\.line) == lines.map(UInt32.init), "\(found)")
        #expect(found.map(\.call) == ["isSaveToAllowed(for:withAccountId:)", "isOpenFromAllowed(for:withAccountId:)"], "\(found)")
    }

    @Test func anEnrollmentBeforeTheDelegateIsReportedAtTheEnrollmentCall() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let delegate = Delegate()
        let line = await Task.detached { () -> UInt in
            let enrollment = IntuneMAMEnrollmentManager.instance()
            enrollment.delegate = nil
            let line: UInt = #line + 1
            enrollment.registerAndEnrollAccountId(FacadeTests.aliceOID)
            enrollment.delegate = delegate
            return line
        }.value
        let found = await Self.findings(host, count: 1)
        #expect(found.map(\.check) == ["enrollment-delegate-late"] && found.first?.line == UInt32(line) && found.first?.call == "registerAndEnrollAccountId(_:)", "\(found)")

        // Right: the delegate first (a new process of the app).
        MAMIntuneFacade.connect(app)
        await Task.detached {
            let enrollment = IntuneMAMEnrollmentManager.instance()
            enrollment.delegate = delegate
            enrollment.registerAndEnrollAccountId(FacadeTests.aliceOID)
            enrollment.delegate = delegate
        }.value
        await Self.waitFor(host, "enroll", 2)
        try? await Task.sleep(for: .milliseconds(100))
        #expect(await Self.findings(host, count: 2).count == 1, "no second finding")
    }

    @Test func anEnrollmentRetriedAfterAFinalRefusalIsReported() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let delegate = Delegate()
        IntuneMAMEnrollmentManager.instance().delegate = delegate
        let alice = DirectoryAccount(upn: "alice@contoso.com", oid: FacadeTests.aliceOID, signedIn: true, enrolled: false, managed: true)
        // A refusal a retry may change (no network) first: retrying it is right.
        await MainActor.run { IntuneMAMEnrollmentManager.instance().deliver(.enrollmentStatus, IntuneMAMEnrollmentStatus(account: alice, status: .enrollmentEndPointNetworkFailure)) }
        IntuneMAMEnrollmentManager.instance().registerAndEnrollAccountId(FacadeTests.aliceOID)
        await Self.waitFor(host, "enroll", 1)
        try? await Task.sleep(for: .milliseconds(100))
        #expect(await Self.findings(host, count: 1).isEmpty)
        // 227: a second account in a single-account app; no retry changes it.
        await MainActor.run { IntuneMAMEnrollmentManager.instance().deliver(.enrollmentStatus, IntuneMAMEnrollmentStatus(account: alice, status: .singleManagedAccountMode)) }
        let line: UInt = #line + 1
        IntuneMAMEnrollmentManager.instance().registerAndEnrollAccountId(FacadeTests.aliceOID)
        let found = await Self.findings(host, count: 1)
        #expect(found.map(\.check) == ["enrollment-retried-after-refusal"] && found.first?.line == UInt32(line), "\(found)")
    }

    /// A remediation is reported with its line for the host to judge (the app's capabilities
    /// are the host's: `StrictFindingCallTests`).
    @Test func aRemediationIsReportedForTheHostToJudge() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let line: UInt = #line + 1
        IntuneMAMComplianceManager.instance().remediateCompliance(forAccountId: FacadeTests.aliceOID, silent: false)
        let found = await Self.findings(host, count: 1)
        #expect(found.map(\.check) == ["remediation-without-protapp"] && found.first?.line == UInt32(line)
                && found.first?.call == "remediateCompliance(forAccountId:silent:)", "\(found)")
    }

    /// policy() is reported with its line for the host to judge (multi-identity is the host's
    /// to know); policy(forAccountId:) with an OID is not.
    @Test func theProcessPolicyIsReportedForTheHostToJudge() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let line = await Task.detached { () -> UInt in
            _ = IntuneMAMPolicyManager.instance().policy(forAccountId: FacadeTests.aliceOID)
            let line: UInt = #line + 1
            _ = IntuneMAMPolicyManager.instance().policy()
            return line
        }.value
        let found = await Self.findings(host, count: 1)
        #expect(found.map(\.check) == ["process-policy-in-multi-identity"] && found.first?.line == UInt32(line) && found.first?.call == "policy()", "\(found)")
    }

    @Test func aDeregistrationFromInsideAnEnrollmentCallbackIsReported() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let alice = DirectoryAccount(upn: "alice@contoso.com", oid: FacadeTests.aliceOID, signedIn: true, enrolled: true, managed: true)
        // Right: dispatched to run after the callback returns.
        IntuneMAMEnrollmentManager.instance().delegate = Delegate(.afterwards)
        await MainActor.run { IntuneMAMEnrollmentManager.instance().deliver(.enrollmentStatus, IntuneMAMEnrollmentStatus(account: alice, status: .newPoliciesReceived)) }
        await Self.waitFor(host, "unenroll", 1)
        try? await Task.sleep(for: .milliseconds(100))
        #expect(await Self.findings(host, count: 1).isEmpty)
        // The mistake: from inside the callback.
        let inside = Delegate(.inside)
        IntuneMAMEnrollmentManager.instance().delegate = inside
        await MainActor.run { IntuneMAMEnrollmentManager.instance().deliver(.enrollmentStatus, IntuneMAMEnrollmentStatus(account: alice, status: .newPoliciesReceived)) }
        let found = await Self.findings(host, count: 1)
        #expect(found.map(\.check) == ["deregister-in-callback"] && found.first?.line == UInt32(inside.insideLine) && found.first?.file == Self.file, "\(found)")
    }
    @Test func aLocationOfAnAccountAskedWithNoneIsReportedAtItsLine() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let lines = await Task.detached { () -> [UInt] in
            let policy = IntuneMAMPolicyManager.instance().policy(forAccountId: FacadeTests.aliceOID)!
            let mistakes: [UInt] = [#line + 1, #line + 2]
            _ = policy.isSaveToAllowed(for: .oneDriveForBusiness, withAccountId: nil)
            _ = policy.isOpenFromAllowed(for: .sharePoint, withAccountId: "")
            // Right: the location's account, and nil where a location has none.
            _ = policy.isSaveToAllowed(for: .oneDriveForBusiness, withAccountId: FacadeTests.aliceOID)
            _ = policy.isOpenFromAllowed(for: .accountDocument, withAccountId: FacadeTests.aliceOID)
            _ = policy.isSaveToAllowed(for: .cameraRoll, withAccountId: nil)
            _ = policy.isOpenFromAllowed(for: .camera, withAccountId: nil)
            _ = policy.isSaveToAllowed(for: .other, withAccountId: nil)
            // The masks ask every location for the given account: not the app's call.
            _ = policy.getSaveToLocations(forAccountId: nil)
            return mistakes
        }.value
        try? await Task.sleep(for: .milliseconds(100))
        let found = await Self.findings(host, count: 2)
        #expect(found.map(\.check) == ["location-needs-account", "location-needs-account"], "\(found)")
        #expect(found.map(\.line) == lines.map(UInt32.init) && found.allSatisfy { $0.file == Self.file }, "\(found)")
        #expect(found.map(\.call) == ["isSaveToAllowed(for:withAccountId:)", "isOpenFromAllowed(for:withAccountId:)"])
    }

    /// A team's own conformer (a mock in its tests) is still the one that answers.
    @Test func aTeamsOwnPolicyAnswersThroughTheCheckedCall() async throws {
        final class Mock: IntuneMAMPolicy {
            var isPINRequired: Bool { false }
            func isSaveToAllowed(for location: IntuneMAMSaveLocation, withAccountId accountId: String?) -> Bool { location == .box }
            func isOpenFromAllowed(for location: IntuneMAMOpenLocation, withAccountId accountId: String?) -> Bool { location == .camera }
            func getSaveToLocations(forAccountId toAccountId: String?) -> [NSNumber: NSNumber] { [:] }
            func getOpenFromLocations(forAccountId fromAccountId: String?) -> [NSNumber: NSNumber] { [:] }
            func isDocumentPickerAllowed(_ mode: UIDocumentPickerMode) -> Bool { false }
            var isManagedBrowserRequired: Bool { false }
            var isContactSyncAllowed: Bool { false }
            var isWidgetContentSyncAllowed: Bool { false }
            var isSpotlightIndexingAllowed: Bool { false }
            var areSiriIntentsAllowed: Bool { false }
            var areAppIntentsAllowed: Bool { false }
            var isAppSharingAllowed: Bool { false }
            var shouldFileProviderEncryptFiles: Bool { false }
            var notificationPolicy: IntuneMAMNotificationPolicy { .allow }
            var isFileEncryptionRequired: Bool { false }
            var isScreenCaptureAllowed: Bool { false }
            func isURLAllowed(_ url: URL) -> Bool { false }
            func isURLAllowed(_ url: URL, isKnownManagedAppScheme: Bool) -> Bool { false }
            func isUniversalLinkAllowed(_ url: URL) -> Bool { false }
            func canReceiveSharedItemProvider(_ itemProvider: NSItemProvider) -> Bool { false }
            func canReceiveSharedFile(_ path: String) -> Bool { false }
        }
        let policy: any IntuneMAMPolicy = Mock()
        #expect(policy.isSaveToAllowed(for: .box, withAccountId: nil) && !policy.isSaveToAllowed(for: .dropbox, withAccountId: nil))
        #expect(policy.isOpenFromAllowed(for: .camera, withAccountId: nil) && !policy.isOpenFromAllowed(for: .photos, withAccountId: nil))
    }

    /// A policy read and kept: the admin changes it. Not read again is no finding (an app may
    /// read it later, or never need it: issue 87, item 5); the kept object used after the change
    /// is, at its read.
    @Test func aPolicyKeptAfterAChangeIsReportedAtItsReadOnceUsed() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        final class Holder: @unchecked Sendable { var policy: (any IntuneMAMPolicy)? }
        let holder = Holder()
        let line = await Task.detached { () -> UInt in
            let line: UInt = #line + 1
            holder.policy = IntuneMAMPolicyManager.instance().policy(forAccountId: FacadeTests.aliceOID)
            _ = holder.policy?.isContactSyncAllowed
            return line
        }.value
        await Delegates.deliver(SDKNotification(kind: .policyChanged, account: "alice@contoso.com"))
        try? await Task.sleep(for: .milliseconds(500))
        #expect(await Self.findings(host, count: 1).isEmpty, "not read again: no finding")
        _ = holder.policy?.isPINRequired
        let found = await Self.findings(host, count: 1)
        #expect(found.map(\.check) == ["policy-cached-without-observer"] && found.first?.line == UInt32(line)
                && found.first?.call == "policy(forAccountId:)", "\(found)")
    }

    /// Right: an observer reads the policy again when it changes. Then the mistake of using the
    /// object read before the change is still seen.
    @Test func aPolicyReadAgainOnTheChangeIsNoFindingButTheOldCopyIs() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        // `@unchecked Sendable`: written by the test's task and by the observer on the main
        // queue, one after the other (the delivery waits for its observers), never at once.
        final class Holder: @unchecked Sendable { var policy: (any IntuneMAMPolicy)?; var old: (any IntuneMAMPolicy)? }
        let holder = Holder()
        let line = await Task.detached { () -> UInt in
            let line: UInt = #line + 1
            holder.policy = IntuneMAMPolicyManager.instance().policy(forAccountId: FacadeTests.aliceOID)
            holder.old = holder.policy
            return line
        }.value
        let observer = NotificationCenter.default.addObserver(forName: .IntuneMAMPolicyDidChange, object: nil, queue: .main) { note in
            let id = note.userInfo?[IntuneMAMPolicyDidChangeNotificationAccountId] as? String
            holder.policy = IntuneMAMPolicyManager.instance().policy(forAccountId: id)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        await Delegates.deliver(SDKNotification(kind: .policyChanged, account: "alice@contoso.com"))
        _ = holder.policy?.isPINRequired
        try? await Task.sleep(for: .milliseconds(100))
        #expect(await Self.findings(host, count: 1).isEmpty)
        _ = holder.old?.isPINRequired
        let found = await Self.findings(host, count: 1)
        #expect(found.map(\.check) == ["policy-cached-without-observer"] && found.first?.line == UInt32(line), "\(found)")
    }

    /// The SDK restarts an app showing alice's screen: unhandled, reported at the screen's line
    /// for the host to judge; handled by the delegate, or with no account on screen, not.
    @Test func aRestartNotHandledWhileAScreenIsUpIsReported() async throws {
        // `@unchecked Sendable`: it has no state.
        final class Restarts: IntuneMAMPolicyDelegate, @unchecked Sendable {
            func restartApplication() -> Bool { true }
        }
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        IntuneMAMPolicyManager.instance().delegate = nil
        #expect(await Delegates.restartApplication() == false)
        IntuneMAMPolicyManager.instance().setUIPolicyAccountId(nil)
        #expect(await Delegates.restartApplication() == false)
        IntuneMAMPolicyManager.instance().delegate = Restarts()
        IntuneMAMPolicyManager.instance().setUIPolicyAccountId(FacadeTests.aliceOID)
        for _ in 0..<200 where host.identities.withLock({ $0.count }) < 2 { try? await Task.sleep(for: .milliseconds(10)) }
        try? await Task.sleep(for: .milliseconds(50))
        #expect(await Delegates.restartApplication() == true)
        #expect(host.seen.withLock { $0 }.allSatisfy { if case .strictFinding = $0.0 { false } else { true } })
        IntuneMAMPolicyManager.instance().delegate = nil
        let line: UInt = #line + 1
        IntuneMAMPolicyManager.instance().setUIPolicyAccountId(FacadeTests.aliceOID) { _ in }
        for _ in 0..<200 where host.identities.withLock({ $0.count }) < 3 { try? await Task.sleep(for: .milliseconds(10)) }
        try? await Task.sleep(for: .milliseconds(50))
        // The main window's identity (UI scope), not the process's.
        #expect(host.identities.withLock { $0.map { "\($0.scope) \($0.window) \($0.account)" } } == [
            "ui  ", "ui  \(FacadeTests.aliceOID)", "ui  \(FacadeTests.aliceOID)"])
        #expect(await Delegates.restartApplication() == false)
        // Already received: the finding is sent, and answered, before the restart's answer.
        let found = host.seen.withLock { $0 }.compactMap { request, _ -> (String, UInt32)? in
            if case .strictFinding(let f) = request { return (f.check, f.line) }
            return nil
        }
        #expect(found.map(\.0) == ["restart-unhandled-with-state"] && found.first?.1 == UInt32(line), "\(found)")
    }
}
}
