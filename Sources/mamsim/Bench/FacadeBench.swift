import Foundation
import MAMDevice
import MAMIntuneFacade
import MAMKit
import MAMModel
import MAMPlayedHost
import MAMPolicy
import MAMWire

/// What app code pays for `policy(forAccountId:)` and 30 getters through the SDK-shaped façade
/// (one round trip: the policy read whole), against the same 30 answers asked one call each
/// (30 round trips: how the façade read a policy before the policy service). One app (MAMKit)
/// over a socket pair to a host played on a thread of its own, which decides every request with
/// the enforcer for alice under Microsoft's level 2 framework (the decisions are real; the
/// host's channel and audit are not in it). Both forms alternate, so slow moments fall on both.
enum FacadeBench {
    struct Result {
        var facadeP50: Double
        var perCallP50: Double
    }

    static let alice = Account(upn: "alice@contoso.com", oid: "5f0c1d2e-7a6b-4c3d-9e8f-0a1b2c3d4e5f", tenant: "contoso.onmicrosoft.com")
    static let app: BundleID = "com.mamsim.bench"

    static func fleet() throws -> Fleet {
        var p = IosManagedAppProtection(displayName: "bench: level 2's data settings")
        p.saveAsBlocked = true
        p.allowedDataStorageLocations = [.oneDriveForBusiness, .sharePoint]
        p.allowedOutboundDataTransferDestinations = .managedApps
        p.notificationRestriction = .blockOrganizationalData
        p.managedBrowserToOpenLinksRequired = true
        var f = Fleet()
        f.add(alice, policy: p)
        f.install(AppDescriptor(bundleID: app, keychainAccessGroups: [app.rawValue, "com.microsoft.intune.mam"]))
        return f
    }

    static func run(rounds: Int = 10, perRound: Int = 200) async throws -> Result {
        let fleet = try fleet()
        let host = try PlayedHost(bundleID: app, recording: false, answer: answer(fleet: fleet))
        let mamApp = try await MAMApp.connect(fd: host.appEnd)
        defer {
            mamApp.close()
            host.leave()
        }
        MAMIntuneFacade.connect(mamApp)
        // The account as the SDK names it, by its Entra object id (policy objects answer their own
        // account locally; another account, or its UPN, is asked of the host).
        let id = alice.oid
        return try await withCheckedThrowingContinuation { (c: CheckedContinuation<Result, any Error>) in
            // Synchronous app code, on a thread of its own, as the getters are called.
            Thread {
                var facade: [Double] = [], perCall: [Double] = []
                var checksum = 0
                for _ in 0..<rounds {
                    for _ in 0..<perRound {
                        let start = DispatchTime.now().uptimeNanoseconds
                        guard let p = IntuneMAMPolicyManager.instance().policy(forAccountId: id) else {
                            return c.resume(throwing: BenchError(message: "façade bench: policy(forAccountId:) got no answer"))
                        }
                        var n = 0
                        for flag in [p.isPINRequired, p.isManagedBrowserRequired, p.isContactSyncAllowed, p.isWidgetContentSyncAllowed,
                                     p.isSpotlightIndexingAllowed, p.areSiriIntentsAllowed, p.areAppIntentsAllowed, p.isAppSharingAllowed,
                                     p.shouldFileProviderEncryptFiles, p.isFileEncryptionRequired, p.isScreenCaptureAllowed,
                                     p.notificationPolicy == .allow, p.isDocumentPickerAllowed(.exportToService), p.isDocumentPickerAllowed(.import)] where flag { n += 1 }
                        for l in IntuneMAMSaveLocation.allCases where p.isSaveToAllowed(for: l, withAccountId: id) { n += 1 }
                        for l in IntuneMAMOpenLocation.allCases.prefix(5) where p.isOpenFromAllowed(for: l, withAccountId: id) { n += 1 }
                        facade.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
                        checksum &+= n
                    }
                    for _ in 0..<perRound {
                        let start = DispatchTime.now().uptimeNanoseconds
                        let n = askEachAnswer(mamApp, id)
                        perCall.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
                        checksum &+= n
                    }
                }
                _ = checksum
                func p50(_ s: [Double]) -> Double { s.sorted()[s.count / 2] }
                c.resume(returning: Result(facadeP50: p50(facade), perCallP50: p50(perCall)))
            }.start()
        }
    }

    /// The 30 answers the façade's policy object gives, asked one call each: the switches as
    /// policy_query (and screen capture), the locations as can_save / can_open. Returns how
    /// many were allowed, so that no call is optimised away.
    static func askEachAnswer(_ mamApp: MAMApp, _ id: String) -> Int {
        var n = 0
        let settings: [PolicySetting] = [.contactSync, .widgets, .spotlight, .siriIntents, .appIntents, .appSharing, .documentPicker,
                                         .thirdPartyKeyboards, .backup, .fileEncryption, .fileProviderEncryption, .contactSync, .widgets, .documentPicker]
        for s in settings where (try? mamApp.callBlocking(Service.PolicyQuery(setting: s, as: id, accounts: [])))?.isAllowed == true { n += 1 }
        for l in SaveLocation.allCases where (try? mamApp.callBlocking(Service.CanSave(location: l, account: id)))?.isAllowed == true { n += 1 }
        for l in OpenLocation.allCases.prefix(5) where (try? mamApp.callBlocking(Service.CanOpen(location: l, account: id, as: id)))?.isAllowed == true { n += 1 }
        return n
    }

    /// The played host: decides each policy, policy_query, can_save and can_open request with
    /// the enforcer (as alice's data; the thread identity names her).
    private static func answer(fleet: Fleet) -> @Sendable (ServiceRequest, ServiceContext) -> ServiceResult? {
        @Sendable func who(_ name: String?) -> Account? { name.flatMap { alice.matches($0) ? alice : nil } }
        return { request, context in
            switch request {
            case .policy(let call):
                let account = who(call.as ?? context.thread)
                let r = Enforcer.policyReading(as: account, app: app, in: fleet)
                return ServiceResult(verdict: .allowed("bench"), value: .policySummary(PolicySummary(r, of: account, screenCaptureAllowed: false)))
            case .policyQuery(let call):
                return ServiceResult(verdict: Enforcer.policyQuery(call.setting, as: who(call.as), app: app, in: fleet))
            case .canSave(let call):
                return ServiceResult(verdict: Enforcer.save(owner: who(context.thread), to: call.location, locationAccount: who(call.account), app: app, in: fleet))
            case .canOpen(let call):
                return ServiceResult(verdict: Enforcer.open(from: call.location, locationAccount: who(call.account), as: who(call.as), app: app, in: fleet))
            default:
                return ServiceResult(verdict: .failed(.badRequest, "not played by the bench's host"))
            }
        }
    }
}
