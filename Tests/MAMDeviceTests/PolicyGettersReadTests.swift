import Foundation
import MAMDevice
import MAMModel
import MAMPolicy
import MAMWire
import Synchronization
import Testing

/// `policy_getters_read` (issue 99, item 3): which getters of which account's policy the app's
/// code read is the app's word about itself — the SDK's getters only, an account of the app's
/// own — and reaches the run as an event, deciding nothing. And the host's own sighting: a
/// managed account's file saved where the user sees the app's documents.
@Suite(.serialized) struct PolicyGettersReadTests {
    @Test func aGetterReadIsAnEventAndAForgedOneIsRefused() async throws {
        let log = EventLog()
        let host = try HostController(configuration: try makeConfiguration(apps: 1)) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        _ = await host.signIn("app0", account: "alice@contoso.com")
        let ok = await host.service("app0", .policyGettersRead(getters: ["isSaveToAllowed(for:withAccountId:)", "isPINRequired"], account: alice.oid, configKeys: []))
        #expect(ok.isAllowed, "\(ok)")
        let unmanaged = await host.service("app0", .policyGettersRead(getters: ["notificationPolicy"], account: "", configKeys: []))
        #expect(unmanaged.isAllowed, "\(unmanaged)")
        let forged = await host.service("app0", .policyGettersRead(getters: ["rm -rf\u{1B}[2J"], account: "", configKeys: []))
        #expect(forged.verdict.reason == .badRequest && !forged.verdict.explanation.contains("\u{1B}"), "\(forged.verdict)")
        // bob is no account of app0's: nothing of his reaches the run from app0's word.
        let stranger = await host.service("app0", .policyGettersRead(getters: ["isPINRequired"], account: "bob@outlook.com", configKeys: []))
        #expect(stranger.verdict.reason == .notSignedIn, "\(stranger.verdict)")
        #expect(await host.shutdown() == 0)
        let reads = log.all.compactMap { event -> String? in
            guard case .policyGettersRead(let handle, let getters, let account) = event else { return nil }
            return "\(handle) \(getters.map(\.rawValue).joined(separator: ",")) \(account)"
        }
        #expect(reads == ["app0 isSaveToAllowed(for:withAccountId:),isPINRequired alice@contoso.com", "app0 notificationPolicy "], "\(reads)")
    }

    /// The app configuration keys the code read: the app's own text, bounded and escaped.
    @Test func configurationKeysReadAreAnEventBoundedAndEscaped() async throws {
        let log = EventLog()
        let host = try HostController(configuration: try makeConfiguration(apps: 1)) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        _ = await host.signIn("app0", account: "alice@contoso.com")
        let ok = await host.service("app0", .policyGettersRead(getters: [], account: alice.oid, configKeys: ["region", "beep\u{7}"]))
        #expect(ok.isAllowed, "\(ok)")
        let long = await host.service("app0", .policyGettersRead(getters: [], account: "", configKeys: [String(repeating: "k\u{1B}", count: 200)]))
        #expect(long.verdict.reason == .badRequest && !long.verdict.explanation.contains("\u{1B}"), "\(long.verdict)")
        let many = await host.service("app0", .policyGettersRead(getters: [], account: "", configKeys: (0...64).map { "k\($0)" }))
        #expect(many.verdict.reason == .badRequest, "\(many.verdict)")
        let stranger = await host.service("app0", .policyGettersRead(getters: [], account: "bob@outlook.com", configKeys: ["region"]))
        #expect(stranger.verdict.reason == .notSignedIn, "\(stranger.verdict)")
        #expect(await host.shutdown() == 0)
        let reads = log.all.compactMap { event -> String? in
            guard case .appConfigKeysRead(let handle, let keys, let account) = event else { return nil }
            #expect(!event.description.contains("\u{7}"), "shown escaped: \(event)")
            return "\(handle) \(keys.joined(separator: ",")) \(account)"
        }
        #expect(reads == ["app0 region,beep\u{7} alice@contoso.com"], "\(reads)")
        #expect(!log.all.contains { if case .policyGettersRead = $0 { true } else { false } }, "no getter was read")
    }

    @Test func aManagedFileInDocumentsIsASaveAndNothingElseIs() async throws {
        let log = EventLog()
        let host = try HostController(configuration: try makeConfiguration(apps: 1)) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        _ = await host.signIn("app0", account: "alice@contoso.com")
        for (path, owner) in [("Documents/notes/a.txt", "alice@contoso.com"), ("Documents/b.txt", ""), ("Library/Caches/c.txt", "alice@contoso.com")] {
            let r = await host.service("app0", .writeFile(path: path, data: Array("x".utf8), owner: owner))
            #expect(r.isAllowed, "\(path): \(r)")
        }
        #expect(await host.shutdown() == 0)
        let saves = log.all.compactMap { event -> String? in
            guard case .savedData(let handle, let path, let owner) = event else { return nil }
            return "\(handle) \(path) \(owner)"
        }
        #expect(saves == ["app0 Documents/notes/a.txt alice@contoso.com"], "\(saves)")
    }
}

/// Which getters a change of policy answers otherwise (`mamsim mutate`): each field of the
/// policy object moved alone changes exactly its getters.
@Suite struct PolicySummaryGetterTests {
    static let base = PolicySummary(contactSyncAllowed: true, widgetContentSyncAllowed: true, spotlightIndexingAllowed: true, siriIntentsAllowed: true,
                                    appIntentsAllowed: true, appSharingAllowed: true, documentPickerAllowed: true, screenCaptureAllowed: true,
                                    saveTo: 1023, openFrom: 511, saveToOther: true, openFromOther: true)

    static var cases: [(String, (inout PolicySummary) -> Void, Set<PolicyGetter>)] { [
        ("saveTo", { $0.saveTo = 3 }, [.isSaveToAllowed, .getSaveToLocations]),
        ("saveToOther", { $0.saveToOther = false }, [.isSaveToAllowed, .getSaveToLocations]),
        ("openFrom", { $0.openFrom = 1 }, [.isOpenFromAllowed, .getOpenFromLocations]),
        ("openFromOther", { $0.openFromOther = false }, [.isOpenFromAllowed, .getOpenFromLocations, .isDocumentPickerAllowed]),
        ("documentPicker", { $0.documentPickerAllowed = false }, [.isDocumentPickerAllowed]),
        ("pin", { $0.pinRequired = true }, [.isPINRequired]),
        ("browser", { $0.managedBrowserRequired = true }, [.isManagedBrowserRequired]),
        ("notifications", { $0.notificationPolicy = 2 }, [.notificationPolicy]),
        ("contactSync", { $0.contactSyncAllowed = false }, [.isContactSyncAllowed]),
        ("widgets", { $0.widgetContentSyncAllowed = false }, [.isWidgetContentSyncAllowed]),
        ("spotlight", { $0.spotlightIndexingAllowed = false }, [.isSpotlightIndexingAllowed]),
        ("siri", { $0.siriIntentsAllowed = false }, [.areSiriIntentsAllowed]),
        ("appIntents", { $0.appIntentsAllowed = false }, [.areAppIntentsAllowed]),
        ("appSharing", { $0.appSharingAllowed = false }, [.isAppSharingAllowed]),
        ("fileProvider", { $0.fileProviderEncryptionRequired = true }, [.shouldFileProviderEncryptFiles]),
        ("fileEncryption", { $0.fileEncryptionRequired = true }, [.isFileEncryptionRequired]),
        ("screenCapture", { $0.screenCaptureAllowed = false }, [.isScreenCaptureAllowed]),
    ] }

    @Test func eachFieldChangesItsGettersAlone() {
        var covered = Set<PolicyGetter>()
        for (name, change, expected) in Self.cases {
            var moved = Self.base
            change(&moved)
            #expect(moved.getters(answeringOtherwiseThan: Self.base) == expected, "\(name)")
            covered.formUnion(expected)
        }
        #expect(Self.base.getters(answeringOtherwiseThan: Self.base).isEmpty)
        // Every getter is either answered from the policy object or asks the host.
        #expect(covered.union(PolicySummary.askingGetters) == Set(PolicyGetter.allCases))
    }

    @Test func onlyTheLocalDriveBitIsASaveToTheDevice() {
        var oneDriveOnly = Self.base
        oneDriveOnly.saveTo = 1023 & ~UInt32(SaveLocation.oneDriveForBusiness.sdkValue)
        #expect(!oneDriveOnly.savesToLocalDriveOtherwise(than: Self.base))
        var noLocal = Self.base
        noLocal.saveTo = 1023 & ~UInt32(SaveLocation.localDrive.sdkValue)
        #expect(noLocal.savesToLocalDriveOtherwise(than: Self.base))
    }
}
