import Foundation
import MAMModel
import MAMPolicy
import Testing
@testable import MAMDeviceState

/// Keychain access groups (RULES.md §6).
@Suite struct KeychainTests {
    @Test func itemsGoToTheFirstAccessGroupByDefault() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        let set = try d.keychainSet(app: World.mail, key: "refresh", value: [1, 2, 3])
        #expect(set.status == .success)
        #expect(set.group == "com.contoso.Mail")
        #expect(try d.keychainGet(app: World.mail, group: "com.contoso.Mail", key: "refresh").value == [1, 2, 3])
        // The share extension shares the group; Outlook does not have it.
        #expect(try d.keychainGet(app: World.mailShare, key: "refresh").value == [1, 2, 3])
        #expect(try d.keychainGet(app: World.outlook, group: "com.contoso.Mail", key: "refresh").status == .missingEntitlement)
        // A read that names no group searches every group the app belongs to, in order.
        _ = try d.keychainSet(app: World.mail, group: "com.microsoft.intune.mam", key: "shared", value: [9])
        let found = try d.keychainGet(app: World.mail, key: "shared")
        #expect(found.value == [9] && found.group == "com.microsoft.intune.mam", "\(found)")
    }

    @Test func aGroupOutsideTheEntitlementIsDeniedWithMissingEntitlement() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        let write = try d.keychainSet(app: World.mail, group: "com.microsoft.Office.Outlook", key: "steal", value: [0])
        #expect(write.status == .missingEntitlement)
        #expect(write.status.rawValue == -34018)
        #expect(write.decision.blockedBy == .keychainEntitlement)
        #expect(write.decision.explanation == "com.contoso.Mail is not entitled to keychain group com.microsoft.Office.Outlook; its keychain-access-groups are [com.contoso.Mail, com.microsoft.intune.mam]")
        #expect(try d.keychainOwner(group: "com.microsoft.Office.Outlook", key: "steal") == nil)
        let none = try d.keychainGet(app: World.notes, key: "x")
        #expect(none.status == .missingEntitlement)
        #expect(none.decision.explanation == "com.example.notes has no keychain-access-groups entitlement")
    }

    @Test func aMissingItemIsItemNotFound() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        let r = try d.keychainGet(app: World.mail, key: "absent")
        #expect(r.status == .itemNotFound)
        #expect(r.status.rawValue == -25300)
        #expect(r.value == nil)
        #expect(try d.keychainDelete(app: World.mail, key: "absent").status == .itemNotFound)
        _ = try d.keychainSet(app: World.mail, key: "k", value: [1])
        #expect(try d.keychainDelete(app: World.mail, key: "k").status == .success)
        #expect(try d.keychainGet(app: World.mail, key: "k").status == .itemNotFound)
    }

    @Test func theIntuneGroupIsSharedBetweenEntitledApps() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        try signIn(d, World.outlook, World.alice)
        _ = try d.keychainSet(app: World.outlook, group: "com.microsoft.intune.mam", key: "enrollment", value: [7], owner: "alice@contoso.com")
        #expect(try d.keychainGet(app: World.mail, group: "com.microsoft.intune.mam", key: "enrollment").value == [7])
        #expect(try d.keychainOwner(group: "com.microsoft.intune.mam", key: "enrollment") == "alice@contoso.com")
    }

    @Test func storingAnItemForAnAccountThatIsNotSignedInIsRefused() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        let error = #expect(throws: DeviceStateError.self) {
            try d.keychainSet(app: World.mail, key: "t", value: [1], owner: "bob@outlook.com")
        }
        #expect(error?.reason == .notSignedIn)
        #expect(error?.message == "com.contoso.Mail cannot store keychain item \"t\" as bob@outlook.com: that account is not signed in to com.contoso.Mail; sign it in first")
    }

    @Test func signingOutOfOneAppWipesWhatItWroteNotWhatAnotherAppKeepsInTheSharedGroup() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        try signIn(d, World.mail, World.alice)
        try signIn(d, World.outlook, World.alice)
        _ = try d.keychainSet(app: World.mail, group: "com.microsoft.intune.mam", key: "mail-token", value: [1], owner: "alice@contoso.com")
        _ = try d.keychainSet(app: World.outlook, group: "com.microsoft.intune.mam", key: "outlook-token", value: [2], owner: "alice@contoso.com")
        let report = try d.wipe(app: World.outlook, account: "alice@contoso.com", appHandledWipe: false)
        #expect(report.deletedKeychainItems == ["com.microsoft.intune.mam/outlook-token"])
        #expect(try d.keychainGet(app: World.mail, group: "com.microsoft.intune.mam", key: "mail-token").value == [1])
        #expect(try d.keychainGet(app: World.mail, group: "com.microsoft.intune.mam", key: "outlook-token").status == .itemNotFound)
    }

    @Test func keychainValuesAndFileKeysAreSealedInTheStoreUnderAKeyBesideIt() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        try signIn(d, World.mail, World.alice)
        let secret = "refresh-token-7f3a9c"
        _ = try d.keychainSet(app: World.mail, key: "refresh", value: Array(secret.utf8), owner: "alice@contoso.com")
        try d.writeFile(app: World.mail, path: ContainerPath("q3.txt"), data: Array("numbers".utf8), owner: "alice@contoso.com")
        var stored: [UInt8] = []
        for name in ["device.sqlite", "device.sqlite-wal"] {
            stored += dir.bytesOnDisk(name) ?? []
        }
        #expect(!stored.isEmpty)
        #expect(!stored.contains(Array(secret.utf8)), "the keychain value is not in the store in the clear")
        #expect(try d.keychainGet(app: World.mail, key: "refresh").value == Array(secret.utf8))
        #expect(try d.readFile(app: World.mail, path: ContainerPath("q3.txt")).text == "numbers")
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.url.appendingPathComponent("store.key").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // Reopened (a host restart), the same key opens what was sealed.
        #expect(try dir.open().keychainGet(app: World.mail, key: "refresh").value == Array(secret.utf8))
    }
}
