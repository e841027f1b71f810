import Foundation
import MAMIntuneFacade
import MAMModel
import MAMPlayedHost
import MAMWire
import Synchronization
import Testing
@testable import MAMKit

/// The SDK-shaped façade (unofficial) over MAMKit, against a host played over a socket pair:
/// a policy is read whole in one round trip, a location check for another account asks again,
/// the directory turns UPNs into the SDK's account ids (OIDs), the host's commands reach the
/// app's delegates and are answered with what the delegates answered.
@Suite(.serialized) struct FacadeTests {
    static let aliceOID = "5f0c1d2e-7a6b-4c3d-9e8f-0a1b2c3d4e5f"
    /// Whether the played host holds alice enrolled (an unenroll ends it, an enroll starts it).
    static let aliceEnrolled = Mutex(true)

    /// alice is managed (saving only to OneDrive for Business and SharePoint, contact sync
    /// blocked, notifications without org data); anything else is unmanaged.
    static let answer: @Sendable (ServiceRequest, ServiceContext) -> ServiceResult? = { request, context in
        switch request {
        case .policy(let call):
            let who = call.as
            let alice = (who ?? context.thread) == "alice@contoso.com" || (who ?? context.thread) == aliceOID
            let summary = alice
                ? PolicySummary(upn: "alice@contoso.com", oid: aliceOID, managed: true, pinRequired: true, managedBrowserRequired: true,
                                notificationPolicy: 1, contactSyncAllowed: false, widgetContentSyncAllowed: true, spotlightIndexingAllowed: false,
                                siriIntentsAllowed: false, appIntentsAllowed: false, appSharingAllowed: true, documentPickerAllowed: false,
                                fileEncryptionRequired: true, fileProviderEncryptionRequired: false, screenCaptureAllowed: false,
                                saveTo: 1 | 2 | 128, openFrom: 1 | 2 | 4 | 16, saveToOther: false, openFromOther: false)
                : PolicySummary(contactSyncAllowed: true, widgetContentSyncAllowed: true, spotlightIndexingAllowed: true, siriIntentsAllowed: true,
                                appIntentsAllowed: true, appSharingAllowed: true, documentPickerAllowed: true, screenCaptureAllowed: true,
                                saveTo: 1023, openFrom: 511, saveToOther: true, openFromOther: true)
            return ServiceResult(verdict: .allowed(""), value: .policySummary(summary))
        case .canSave(let call):
            let (location, account) = (call.location, call.account)
            let blocked = (context.thread == "alice@contoso.com" || context.thread == aliceOID) && (location == .localDrive || account != "alice@contoso.com")
            return ServiceResult(verdict: blocked ? .blocked(.saveLocation, "saveAsBlocked") : .allowed("allowed"))
        case .accounts:
            return ServiceResult(verdict: .allowed(""), value: .accounts(AccountDirectory(accounts: [
                DirectoryAccount(upn: "alice@contoso.com", oid: aliceOID, signedIn: true, enrolled: aliceEnrolled.withLock { $0 }, managed: true),
                DirectoryAccount(upn: "bob@outlook.com", signedIn: true),
            ], allowedRestricted: true, allowed: ["alice@contoso.com", aliceOID])))
        case .enroll:
            aliceEnrolled.withLock { $0 = true }
            return ServiceResult(verdict: .allowed(""), value: .enrollment(225))
        case .unenroll:
            aliceEnrolled.withLock { $0 = false }
            return ServiceResult(verdict: .allowed(""), value: .enrollment(104))
        case .appConfig:
            return ServiceResult(verdict: .allowed(""), value: .appConfig([["region": "north", "sync": "true"], ["region": "south", "sync": "false"]]))
        case .remediationInProgress: return ServiceResult(verdict: .allowed(""), value: .flag(true))
        case .policyGettersRead: return ServiceResult(verdict: .allowed("recorded"))
        default: return nil
        }
    }

    /// The names and raw values the façade re-declares, from the public headers of the Intune
    /// App SDK for iOS 21.7.1 (the release named in docs/research/sdk-21.7.1-public-names.md;
    /// no 22.x release was published when it was read). Apps OR the location values into masks
    /// and compare status codes by number, so every number is checked.
    @Test func theNamesCarryTheSDKsRawValues() {
        #expect(IntuneMAMSaveLocation.allCases.map { "\($0)=\($0.rawValue)" } == [
            "other=0", "oneDriveForBusiness=1", "sharePoint=2", "box=4", "dropbox=8", "googleDrive=16", "localDrive=32",
            "cameraRoll=64", "accountDocument=128", "iManage=256", "egnyte=512"])
        #expect(IntuneMAMOpenLocation.allCases.map { "\($0)=\($0.rawValue)" } == [
            "other=0", "oneDriveForBusiness=1", "sharePoint=2", "camera=4", "localStorage=8", "photos=16", "accountDocument=32",
            "box=64", "iManage=128", "egnyte=256"])
        #expect(IntuneMAMNotificationPolicy.allCases.map { "\($0)=\($0.rawValue)" } == ["allow=0", "blockOrgData=1", "block=2"])
        #expect(IntuneMAMSwitchIdentityResult.allCases.map { "\($0)=\($0.rawValue)" } == ["success=0", "canceled=1", "notAllowed=2", "failed=3"])
        #expect(IntuneMAMIdentitySwitchReason.allCases.map { "\($0)=\($0.rawValue)" } == ["openURL=0", "cancelConditionalLaunch=1", "documentImport=2"])
        #expect(IntuneMAMAddIdentityResult.allCases.map { "\($0)=\($0.rawValue)" } == ["success=0", "failed=1"])
        #expect(IntuneMAMBlockAccountResult.allCases.map { "\($0)=\($0.rawValue)" } == ["success=0", "failed=1"])
        #expect(IntuneMAMBlockAccountReason.allCases.map { "\($0)=\($0.rawValue)" } == [
            "notBlocked=0", "conditionalLaunchBlocked=1", "conditionalLaunchCanceled=2", "clockedOut=3"])
        #expect(IntuneMAMPolicySource.allCases.map { "\($0)=\($0.rawValue)" } == ["MDM=0", "MAM=1", "other=2"])
        #expect(IntuneMAMComplianceStatus.allCases.map { "\($0)=\($0.rawValue)" } == [
            "compliant=0", "notCompliant=1", "serviceFailure=2", "networkFailure=3", "interactionRequired=4", "userCancelled=5"])
        #expect(IntuneMAMBoolQueryType.allCases.map { "\($0)=\($0.rawValue)" } == ["any=0", "or=1", "and=2"])
        #expect(IntuneMAMNumberQueryType.allCases.map { "\($0)=\($0.rawValue)" } == ["any=0", "min=1", "max=2"])
        #expect(IntuneMAMStringQueryType.allCases.map { "\($0)=\($0.rawValue)" } == ["any=0", "min=1", "max=2"])
        // IntuneMAMEnrollmentStatusCode: every code of the header.
        #expect(IntuneMAMEnrollmentStatusCode.allCases.map { "\($0.name)=\($0.rawValue)" } == [
            "newPoliciesReceived=100", "policiesHaveNotChanged=101", "wipeReceived=102", "noPolicyReceived=103", "unenrollmentSuccess=104",
            "accountNotLicensed=200", "internalError=201", "mamServiceDisabled=202", "authRequired=203", "locationServiceFailure=204",
            "enrollmentEndPointNetworkFailure=205", "parsingFailure=206", "nilAccount=207", "alreadyEnrolled=208", "notEmmAccount=209",
            "mdmEnrolledDifferentUser=210", "notDeviceAccount=211", "policyEndPointNetworkFailure=212", "appNotEnrolled=213",
            "notEnrolledAccount=214", "failedToClearMamData=215", "timeout=216", "adalInternalError=217", "switchExistingAccount=218",
            "loginCanceled=219", "policyRecordGone=220", "reEnrollForUnenrolledUser=221", "tenantMigration=222", "unsupportedAPI=223",
            "adalMethodUnsupported=224", "licensedNotTargeted=225", "deviceBlockedEnrollment=226", "singleManagedAccountMode=227"])
        // The notification names live on NSNotification.Name, their userInfo keys are globals.
        let names: [NSNotification.Name] = [.IntuneMAMPolicyDidChange, .IntuneMAMAppConfigDidChange, .IntuneMAMAllowedAccountsDidChange, .IntuneMAMWipeDidComplete]
        #expect(Set(names).count == 4)
        #expect(Set([IntuneMAMPolicyDidChangeNotificationAccountId, IntuneMAMAppConfigDidChangeNotificationAccountId, IntuneMAMSDKLifecycleEventAccountId]).count == 3)
    }

    @Test func aPolicyIsReadWholeInOneRoundTrip() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let read = await Task.detached { () -> [String] in
            let alice = IntuneMAMPolicyManager.instance().policy(forAccountId: Self.aliceOID)!
            let mask = alice.getSaveToLocations(forAccountId: Self.aliceOID).filter { $0.value.boolValue }.reduce(0) { $0 | $1.key.intValue }
            let open = alice.getOpenFromLocations(forAccountId: Self.aliceOID).filter { $0.value.boolValue }.reduce(0) { $0 | $1.key.intValue }
            return ["\(alice.isPINRequired)", "\(alice.isManagedBrowserRequired)", "\(alice.notificationPolicy)", "\(alice.isContactSyncAllowed)",
                    "\(alice.isWidgetContentSyncAllowed)", "\(alice.areSiriIntentsAllowed)", "\(alice.isFileEncryptionRequired)",
                    "\(alice.isScreenCaptureAllowed)", "\(alice.isSaveToAllowed(for: .localDrive, withAccountId: Self.aliceOID))",
                    "\(alice.isSaveToAllowed(for: .sharePoint, withAccountId: Self.aliceOID))", "\(mask)", "\(open)",
                    "\(alice.isDocumentPickerAllowed(.exportToService))", "\(alice.isDocumentPickerAllowed(.import))"]
        }.value
        #expect(read == ["true", "true", "blockOrgData", "false", "true", "false", "true", "false", "false", "true", "131", "23", "false", "false"])
        // The getters the app read are told to the host one way (policy_getters_read), never asked.
        let asked = host.seen.withLock { $0.map(\.0.name) }.filter { $0 != "policy_getters_read" }
        #expect(asked == ["policy"], "every getter, and the masks for the policy's own account, come from the one answer")
    }

    @Test func aLocationOfAnotherAccountIsAskedOfTheHostAsThePolicysAccount() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let allowed = await Task.detached {
            IntuneMAMPolicyManager.instance().policy(forAccountId: Self.aliceOID)!.isSaveToAllowed(for: .oneDriveForBusiness, withAccountId: "bob@outlook.com")
        }.value
        #expect(!allowed)
        let saves = host.seen.withLock { $0 }.filter { $0.0.name == "can_save" }
        #expect(saves.count == 1)
        #expect(saves.first?.1.thread == Self.aliceOID, "the policy's account travels as the thread identity")
        #expect(saves.first?.0 == .canSave(.oneDriveForBusiness, account: "bob@outlook.com"))
    }

    /// Account ids are OIDs since SDK 20: her UPN, passed where the SDK takes an account id,
    /// is no account it knows, and reads as no account's policy (the mistake the SDK hides from
    /// no one). Her OID reads hers.
    @Test func aUPNWhereAnAccountIdIsRequiredIsNoAccount() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let (byUPN, byOID) = await Task.detached { () -> (Bool, Bool) in
            let m = IntuneMAMPolicyManager.instance()
            return (m.policy(forAccountId: "alice@contoso.com")!.isContactSyncAllowed, m.policy(forAccountId: Self.aliceOID)!.isContactSyncAllowed)
        }.value
        #expect(byUPN && !byOID, "by UPN: \(byUPN), by OID: \(byOID)")
    }

    /// The SDK's version, and a wipe's completion posted after the app's wipe delegate.
    @Test func theVersionIsTheSDKsWhoseNamesAreDeclared() {
        let parts = IntuneMAMVersionInfo.sdkVersion().split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil })
    }

    @Test func theDirectoryAnswersTheAccountQuestionsWithOIDs() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let answers = await Task.detached { () -> [String] in
            let policy = IntuneMAMPolicyManager.instance(), enrollment = IntuneMAMEnrollmentManager.instance()
            return ["\(policy.isAccountIdManaged(Self.aliceOID))", "\(policy.isAccountIdManaged("ALICE@contoso.com"))", "\(policy.isAccountIdManaged("bob@outlook.com"))",
                    "\(policy.isAccountIdManaged(nil))", policy.primaryAccountId ?? "nil", "\(policy.managedAccountIds)", "\(enrollment.enrolledAccountIds())",
                    "\(enrollment.allowedAccounts() as? [String] ?? [])", "\(enrollment.allowedAccountIds() as? [String] ?? [])", "\(policy.isManagementEnabled())"]
        }.value
        #expect(answers == ["true", "true", "false", "false", Self.aliceOID, "[\"\(Self.aliceOID)\"]", "[\"\(Self.aliceOID)\"]",
                            "[\"alice@contoso.com\"]", "[\"\(Self.aliceOID)\"]", "true"])
    }

    @Test func theAppConfigurationIsTypedWithTheSDKsQueryTypes() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let answers = await Task.detached { () -> [String] in
            let config = IntuneMAMAppConfigManager.instance().appConfig(forAccountId: "alice@contoso.com")
            return [config.stringValue(forKey: "region", queryType: .any) ?? "nil", config.stringValue(forKey: "region", queryType: .max) ?? "nil",
                    "\(config.hasConflict("region"))", "\(config.boolValue(forKey: "sync", queryType: .or)?.boolValue ?? false)",
                    "\(config.boolValue(forKey: "sync", queryType: .and)?.boolValue ?? true)", "\(config.allStrings(forKey: "region") ?? [])",
                    "\(config.fullData?.count ?? 0)", "\(config.numberValue(forKey: "missing", queryType: .min) == nil)"]
        }.value
        #expect(answers == ["north", "south", "true", "true", "false", "[\"north\", \"south\"]", "2", "true"])
        #expect(host.seen.withLock { $0 }.contains { $0.0 == .appConfig(account: "alice@contoso.com") })
    }

    /// A policy delegate that records what it was asked, declines identity switches to
    /// bob, wipes alice's data itself and adds accounts.
    final class PolicyDelegate: IntuneMAMPolicyDelegate, IntuneMAMComplianceDelegate, Sendable {
        let told = Mutex<[String]>([])
        func wipeData(forAccountId accountId: String) -> Bool {
            told.withLock { $0.append("wipe \(accountId)") }
            return true
        }
        func identitySwitchRequired(forAccountId accountId: String, reason: IntuneMAMIdentitySwitchReason,
                                    completionHandler: @escaping (IntuneMAMSwitchIdentityResult) -> Void) {
            told.withLock { $0.append("switch \(accountId) \(reason)") }
            // Answered later, from elsewhere, as apps do after showing UI.
            let done = UncheckedBox(completionHandler)
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { done.value(accountId == Self.bob ? .canceled : .success) }
        }
        func addAccountId(_ accountId: String, completionHandler: @escaping (IntuneMAMAddIdentityResult) -> Void) {
            told.withLock { $0.append("add \(accountId)") }
            completionHandler(.success)
        }
        func restartApplication() -> Bool {
            told.withLock { $0.append("restart") }
            return true
        }
        func accountId(_ accountId: String, hasComplianceStatus status: IntuneMAMComplianceStatus, withErrorMessage errMsg: String, andErrorTitle errTitle: String) {
            told.withLock { $0.append("compliance \(accountId) \(status) \(errTitle): \(errMsg)") }
        }
        static let bob = "bob@outlook.com"
    }

    struct UncheckedBox<T>: @unchecked Sendable {
        let value: T
        init(_ value: T) { self.value = value }
    }

    @Test func theHostsCommandsAreAnsweredByTheDelegates() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let delegate = PolicyDelegate()
        IntuneMAMPolicyManager.instance().delegate = delegate
        IntuneMAMComplianceManager.instance().delegate = delegate
        defer { IntuneMAMPolicyManager.instance().delegate = nil }
        host.send(Frame(seq: 20, body: .command(.wipeAccountData(account: "alice@contoso.com"))))
        host.send(Frame(seq: 21, body: .command(.identitySwitchRequired(account: "alice@contoso.com", reason: "to import", cause: IdentitySwitchCause.documentImport))))
        host.send(Frame(seq: 22, body: .command(.identitySwitchRequired(account: "bob@outlook.com", reason: "to import", cause: IdentitySwitchCause.openURL))))
        host.send(Frame(seq: 23, body: .command(.addIdentity(account: "alice@contoso.com"))))
        host.send(Frame(seq: 24, body: .command(.notification(SDKNotification(kind: .restartApplication, account: "alice@contoso.com")))))
        host.send(Frame(seq: 25, body: .command(.notification(SDKNotification(kind: .complianceStatus, account: "alice@contoso.com", detail: "notCompliant",
                                                                                title: "Access blocked", message: "No policy is assigned")))))
        try await wait { host.commandResults.withLock { $0.count } == 6 }
        #expect(host.commandResults.withLock { $0.map(\.0) } == [
            .wipeAccountData(wiped: true), .identitySwitchRequired(accepted: true), .identitySwitchRequired(accepted: false),
            .addIdentity(added: true), .notified(restartsItself: true), .notified(restartsItself: false),
        ], "each command is answered with what the delegate said, in the order the host sent them")
        #expect(delegate.told.withLock { $0 } == [
            "wipe \(Self.aliceOID)", "switch \(Self.aliceOID) documentImport", "switch bob@outlook.com openURL", "add \(Self.aliceOID)",
            "restart", "compliance \(Self.aliceOID) notCompliant Access blocked: No policy is assigned",
        ], "the delegates get the SDK's account ids (OIDs) and reasons")
    }

    @Test func aPolicyChangeIsPostedWithTheAccountIdInUserInfo() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let posted = Mutex<[String]>([])
        let observer = NotificationCenter.default.addObserver(forName: .IntuneMAMPolicyDidChange, object: nil, queue: nil) { note in
            let id = note.userInfo?[IntuneMAMPolicyDidChangeNotificationAccountId] as? String ?? "?"
            posted.withLock { $0.append(id) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        host.send(Frame(seq: 30, body: .command(.notification(SDKNotification(kind: .policyChanged, account: "alice@contoso.com")))))
        try await wait { host.commandResults.withLock { $0.count } == 1 }
        #expect(posted.withLock { $0 } == [Self.aliceOID], "posted before the host hears the app took the change")
    }

    final class Delegate: IntuneMAMEnrollmentDelegate, Sendable {
        let told = Mutex<[(String, IntuneMAMEnrollmentStatusCode, String, String)]>([])
        func enrollmentRequest(with status: IntuneMAMEnrollmentStatus) { told.withLock { $0.append(("enrollment", status.statusCode, status.accountId, status.identity)) } }
        func unenrollRequest(with status: IntuneMAMEnrollmentStatus) { told.withLock { $0.append(("unenroll", status.statusCode, status.accountId, status.identity)) } }
    }

    @Test func enrollmentStatusesReachTheDelegateWithUPNAndOID() async throws {
        let host = try PlayedHost(answer: Self.answer)
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
        #expect(delegate.told.withLock { $0.last.map { [$0.2, $0.3] } } == [Self.aliceOID, "alice@contoso.com"])
        #expect(await Task.detached { manager.enrolledAccountId() }.value == Self.aliceOID, "the host's directory")
        manager.deRegisterAndUnenrollAccountId(Self.aliceOID, withWipe: true)
        try await wait { host.seen.withLock { $0.contains { $0.0 == .unenroll(account: Self.aliceOID, wipe: true) } } }
        host.send(Frame(seq: 11, body: .command(.notification(SDKNotification(kind: .unenrollmentStatus, account: "alice@contoso.com", detail: "104")))))
        try await wait { delegate.told.withLock { $0.count } == 3 }
        #expect(await Task.detached { manager.enrolledAccountId() }.value == nil)
        Self.aliceEnrolled.withLock { $0 = true }
    }

    /// Ids as the SDK gives them (issue 87, item 7): a status the host sends with the account's
    /// OID reaches the delegate with that OID and the UPN beside it, and the UI identity set by
    /// UPN reads back as the OID. The calls reach the host in the order the app made them.
    @Test func statusesAndTheUIIdentityCarryTheOID() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let delegate = Delegate()
        IntuneMAMEnrollmentManager.instance().delegate = delegate
        host.send(Frame(seq: 12, body: .command(.notification(SDKNotification(kind: .enrollmentStatus, account: Self.aliceOID, detail: "227")))))
        try await wait { delegate.told.withLock { $0.count } == 1 }
        #expect(delegate.told.withLock { $0.first.map { [$0.2, $0.3] } } == [Self.aliceOID, "alice@contoso.com"])
        let manager = IntuneMAMPolicyManager.instance()
        manager.setUIPolicyAccountId("alice@contoso.com")
        IntuneMAMEnrollmentManager.instance().registerAndEnrollAccountId(Self.aliceOID)
        try await wait { host.seen.withLock { $0.contains { $0.0 == .enroll(account: Self.aliceOID, interactive: false, userCancels: false) } } }
        #expect(host.identities.withLock { $0.last?.account } == "alice@contoso.com", "the identity was set before the enrollment was asked")
        #expect(await Task.detached { manager.getUIPolicyAccountId() }.value == Self.aliceOID)
        Self.aliceEnrolled.withLock { $0 = true }
    }

    /// Issue 97, item 6 (the strict probe hung here): an account the app has not signed in —
    /// refused 227 — is in no directory of the app's, yet its status carries the UPN the app
    /// logged in with as `identity`, since the host names it; without it, `identity` is the OID.
    @Test func aRefusedAccountsStatusNamesItsUPN() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let delegate = Delegate()
        IntuneMAMEnrollmentManager.instance().delegate = delegate
        let erin = "7e6d5c4b-3a29-4180-8f7e-6d5c4b3a2918"
        host.send(Frame(seq: 12, body: .command(.notification(SDKNotification(kind: .enrollmentStatus, account: erin, detail: "227", upn: "erin@contoso.com")))))
        try await wait { delegate.told.withLock { $0.count } == 1 }
        #expect(delegate.told.withLock { $0.first.map { [$0.2, $0.3] } } == [erin, "erin@contoso.com"])
        host.send(Frame(seq: 13, body: .command(.notification(SDKNotification(kind: .enrollmentStatus, account: erin, detail: "227")))))
        try await wait { delegate.told.withLock { $0.count } == 2 }
        #expect(delegate.told.withLock { $0.last.map { [$0.2, $0.3] } } == [erin, erin])
    }

    @Test func theThreadIdentityScopeIsTheSwiftContextManagers() async throws {
        let host = try PlayedHost(answer: Self.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let seen = await Task.detached { () -> [String?] in
            var inside: String?
            IntuneMAMSwiftContextManager.setAccountId("alice@contoso.com") {
                inside = IntuneMAMPolicyManager.instance().getCurrentThreadAccountId()
                _ = IntuneMAMComplianceManager.instance().remediationInProgress(forAccountId: "alice@contoso.com")
            }
            return [inside, IntuneMAMSwiftContextManager.getScopedAccountId()]
        }.value
        #expect(seen == ["alice@contoso.com", nil])
        #expect(host.seen.withLock { $0.last?.1.thread } == "alice@contoso.com", "a call inside the scope is made as its account")
    }

    private func wait(_ condition: @escaping @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { Issue.record("timed out"); return }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
