import Foundation
import MAMIntuneFacade
import MAMModel
import MAMWire
import Synchronization
import Testing
@testable import MAMKit

/// The SDK-shaped façade (unofficial) over MAMKit, against a host played over a socket pair:
/// its getters ask the host synchronously as the account whose policy they read, the
/// location enums carry the SDK's raw values, and enrollment statuses reach the delegate.
@Suite(.serialized) struct FacadeTests {
    /// Saving alice's data to the local drive is blocked; anything else is allowed.
    static let answer: @Sendable (ServiceRequest, ServiceContext) -> ServiceResult? = { request, context in
        switch request {
        case .canSave(let location, _):
            let blocked = context.thread == "alice@contoso.com" && location == .localDrive
            return ServiceResult(verdict: blocked ? .blocked(.saveLocation, "saveAsBlocked") : .allowed("allowed"))
        case .canOpen(let location, _, let receiver):
            let blocked = receiver == "alice@contoso.com" && location == .photos
            return ServiceResult(verdict: blocked ? .blocked(.openLocation, "blocked") : .allowed("allowed"))
        case .enroll, .unenroll: return ServiceResult(verdict: .allowed(""), value: .enrollment(225))
        case .screenCapture:
            let blocked = context.thread == "alice@contoso.com"
            return ServiceResult(verdict: blocked ? .blocked(.screenCaptureBlocked, "policy") : .allowed("allowed"))
        case .policyQuery(let setting, let account, _):
            // alice's policy blocks contact sync and requires file encryption.
            let restricted = account == "alice@contoso.com" && (setting == .contactSync || setting == .fileEncryption)
            return ServiceResult(verdict: restricted ? .blocked(.featureRestricted, "policy") : .allowed("not restricted"))
        default: return nil
        }
    }

    @Test func theLocationsCarryTheSDKsRawValues() {
        #expect(IntuneMAMSaveLocation.allCases.map(\.rawValue) == [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512])
        #expect(IntuneMAMOpenLocation.allCases.map(\.rawValue) == [0, 1, 2, 4, 8, 16, 32, 64, 128, 256])
        #expect(IntuneMAMEnrollmentStatusCode.licensedNotTargeted.rawValue == 225)
    }

    @Test func aPolicyGetterAsksTheHostAsItsAccount() async throws {
        let host = try FakeHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let answers = await Task.detached { () -> [Bool] in
            let alice = IntuneMAMPolicyManager.instance().policy(forAccountId: "alice@contoso.com")!
            let current = IntuneMAMPolicyManager.instance().policy(forAccountId: nil)!
            return [
                alice.isSaveToAllowed(for: .localDrive, withAccountId: "alice@contoso.com"),
                alice.isSaveToAllowed(for: .oneDriveForBusiness, withAccountId: "alice@contoso.com"),
                current.isSaveToAllowed(for: .localDrive, withAccountId: nil),
                alice.isOpenFromAllowed(for: .photos, withAccountId: nil),
                alice.isOpenFromAllowed(for: .camera, withAccountId: nil),
            ]
        }.value
        #expect(answers == [false, true, true, false, true])
        let saves = host.seen.withLock { $0 }.filter { $0.0.name == "can_save" }
        #expect(saves.first?.1.thread == "alice@contoso.com", "the policy's account travels as the thread identity")
        #expect(saves.first?.0 == .canSave(.localDrive, account: "alice@contoso.com"))
        let locations = await Task.detached {
            IntuneMAMPolicyManager.instance().policy(forAccountId: "alice@contoso.com")!.getSaveToLocations(forAccountId: "alice@contoso.com")
        }.value
        #expect(locations.count == IntuneMAMSaveLocation.allCases.count)
        #expect(locations[NSNumber(value: 32)] == NSNumber(value: false))
        #expect(locations[NSNumber(value: 1)] == NSNumber(value: true))
    }

    @Test func theSwitchesAreThePolicysForItsAccount() async throws {
        let host = try FakeHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let switches = await Task.detached { () -> [Bool] in
            let alice = IntuneMAMPolicyManager.instance().policy(forAccountId: "alice@contoso.com")!
            let bob = IntuneMAMPolicyManager.instance().policy(forAccountId: "bob@outlook.com")!
            return [alice.isContactSyncAllowed, alice.isAppSharingAllowed, alice.isFileEncryptionRequired, alice.shouldFileProviderEncryptFiles,
                    bob.isContactSyncAllowed, bob.isFileEncryptionRequired, alice.isScreenCaptureAllowed, bob.isScreenCaptureAllowed]
        }.value
        #expect(switches == [false, true, true, false, true, false, false, true])
        #expect(host.seen.withLock { $0 }.contains { $0.0 == .policyQuery(.contactSync, as: "alice@contoso.com", accounts: []) })
    }

    final class Delegate: IntuneMAMEnrollmentDelegate, Sendable {
        let told = Mutex<[(String, IntuneMAMEnrollmentStatusCode)]>([])
        func enrollmentRequest(with status: IntuneMAMEnrollmentStatus) { told.withLock { $0.append(("enrollment", status.statusCode)) } }
        func unenrollRequest(with status: IntuneMAMEnrollmentStatus) { told.withLock { $0.append(("unenroll", status.statusCode)) } }
    }

    @Test func enrollmentStatusesReachTheDelegate() async throws {
        let host = try FakeHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let delegate = Delegate()
        let manager = IntuneMAMEnrollmentManager.instance()
        manager.delegate = delegate
        manager.registerAndEnrollAccountId("alice@contoso.com")
        try await wait { host.seen.withLock { $0.contains { $0.0 == .enroll(account: "alice@contoso.com", interactive: false, userCancels: false) } } }
        // The host tells the delegate, as it does after an enrollment.
        host.send(Frame(seq: 9, body: .command(.notification(SDKNotification(kind: .enrollmentStatus, account: "alice@contoso.com", detail: "225")))))
        host.send(Frame(seq: 10, body: .command(.notification(SDKNotification(kind: .enrollmentStatus, account: "alice@contoso.com", detail: "100")))))
        try await wait { delegate.told.withLock { $0.count } == 2 }
        #expect(delegate.told.withLock { $0.map(\.1) } == [.licensedNotTargeted, .newPoliciesReceived])
        #expect(manager.enrolledAccountId() == "alice@contoso.com")
        manager.deRegisterAndUnenrollAccountId("alice@contoso.com", withWipe: true)
        try await wait { host.seen.withLock { $0.contains { $0.0 == .unenroll(account: "alice@contoso.com", wipe: true) } } }
        host.send(Frame(seq: 11, body: .command(.notification(SDKNotification(kind: .unenrollmentStatus, account: "alice@contoso.com", detail: "104")))))
        try await wait { delegate.told.withLock { $0.count } == 3 }
        #expect(manager.enrolledAccountId() == nil)
    }

    private func wait(_ condition: @escaping @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { Issue.record("timed out"); return }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
