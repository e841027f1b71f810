import Foundation
import MAMModel
import MAMPolicy
import Testing
@testable import MAMDeviceState

/// Seed 001, "Validation des scénarios de connexion et de déconnexion": one managed account
/// and any number of unmanaged ones per multi-identity app.
@Suite struct Seed001SignInTests {
    @Test func signInManagedFirstThenUnmanagedKeepsEachAccountsDataAsItIs() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        try signIn(device, World.mail, World.alice)
        #expect(try isManagedData(dir, device, file: "alice.txt", app: World.mail, owner: World.alice))
        try signIn(device, World.mail, World.bob)
        #expect(try !isManagedData(dir, device, file: "bob.txt", app: World.mail, owner: World.bob))
        #expect(try device.enrolledManagedAccount == World.alice)
    }

    @Test func signInUnmanagedFirstThenManagedKeepsEachAccountsDataAsItIs() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        try signIn(device, World.mail, World.bob)
        #expect(try !isManagedData(dir, device, file: "bob.txt", app: World.mail, owner: World.bob))
        #expect(try device.enrolledManagedAccount == nil)
        try signIn(device, World.mail, World.alice)
        #expect(try isManagedData(dir, device, file: "alice.txt", app: World.mail, owner: World.alice))
        #expect(try device.signedInAccounts(app: World.mail) == [World.bob, World.alice])
    }

    @Test func secondManagedAccountIsRefusedUntilTheFirstIsRemoved() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        try signIn(device, World.mail, World.alice)
        try signIn(device, World.outlook, World.alice)
        let refused = try device.signIn(app: World.mail, account: "carol@fabrikam.com")
        #expect(refused.decision.blockedBy == .secondManagedAccount)
        #expect(refused.decision.explanation.contains("alice@contoso.com is already signed in as the managed account"))
        #expect(refused.decision.explanation.contains("carol@fabrikam.com can sign in only after alice@contoso.com is removed"))
        // Refused in another app too: the limit is per device.
        #expect(try device.signIn(app: World.outlook, account: "carol@fabrikam.com").decision.blockedBy == .secondManagedAccount)

        #expect(try device.signOut(app: World.mail, account: "alice@contoso.com").isAllowed)
        // Still enrolled through Outlook.
        #expect(try device.signIn(app: World.mail, account: "carol@fabrikam.com").decision.blockedBy == .secondManagedAccount)
        #expect(try device.signOut(app: World.outlook, account: "alice@contoso.com").isAllowed)
        #expect(try device.enrolledManagedAccount == nil)
        let accepted = try device.signIn(app: World.mail, account: "carol@fabrikam.com")
        #expect(accepted.isAllowed)
        #expect(accepted.isManaged)
        #expect(try device.enrolledManagedAccount == World.carol)
    }

    @Test func managedSignOutRemovesTheManagedAccountAndOnlyItsData() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        try signIn(device, World.mail, World.alice, World.bob)
        try device.writeFile(app: World.mail, path: ContainerPath("Inbox/alice.eml"), data: [UInt8]("org mail"), owner: "alice@contoso.com")
        try device.writeFile(app: World.mail, path: ContainerPath("Inbox/bob.eml"), data: [UInt8]("personal mail"), owner: "bob@outlook.com")
        _ = try device.keychainSet(app: World.mail, key: "alice.token", value: [1], owner: "alice@contoso.com")
        _ = try device.keychainSet(app: World.mail, key: "bob.token", value: [2], owner: "bob@outlook.com")
        _ = try device.setUIPolicyAccountId(app: World.mail, window: "main", account: "bob@outlook.com")

        let out = try device.signOut(app: World.mail, account: "ALICE@contoso.com")
        #expect(out.isAllowed)
        #expect(out.wipe?.deletedFiles == ["containers/com.contoso.Mail/Inbox/alice.eml"])
        #expect(out.wipe?.deletedKeychainItems == ["com.contoso.Mail/alice.token"])
        #expect(!dir.exists("containers/com.contoso.Mail/Inbox/alice.eml"))
        #expect(try device.signedInAccounts(app: World.mail) == [World.bob])
        // The unmanaged account: still signed in, its data intact, no policy applied.
        #expect(try device.readFile(app: World.mail, path: ContainerPath("Inbox/bob.eml")).text == "personal mail")
        #expect(try device.keychainGet(app: World.mail, key: "bob.token").value == [2])
        #expect(try device.uiIdentity(app: World.mail, window: "main") == "bob@outlook.com")
        #expect(try !device.isPolicyApplied(app: World.mail, window: "main", for: .ui))
        #expect(try device.enrolledManagedAccount == nil)
    }

    @Test func unmanagedSignOutRemovesItsDataAndLeavesManagedDataAndPolicy() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        try signIn(device, World.mail, World.alice, World.bob)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "main", account: "alice@contoso.com", pin: "2580").result == .success)
        try device.writeFile(app: World.mail, path: ContainerPath("alice.docx"), data: [UInt8]("org doc"), owner: "alice@contoso.com")
        try device.writeFile(app: World.mail, path: ContainerPath("bob.docx"), data: [UInt8]("own doc"), owner: "bob@outlook.com")

        let out = try device.signOut(app: World.mail, account: "bob@outlook.com")
        #expect(out.wipe?.deletedFiles == ["containers/com.contoso.Mail/bob.docx"])
        #expect(!dir.exists("containers/com.contoso.Mail/bob.docx"))
        #expect(try device.signedInAccounts(app: World.mail) == [World.alice])
        // The managed account's data: still there, still encrypted, policy still applied.
        #expect(try device.readFile(app: World.mail, path: ContainerPath("alice.docx")).text == "org doc")
        #expect(!(dir.bytesOnDisk("containers/com.contoso.Mail/alice.docx") ?? []).contains([UInt8]("org doc")))
        #expect(try device.isPolicyApplied(app: World.mail, window: "main", for: .ui))
        #expect(try device.enrolledManagedAccount == World.alice)
        #expect(try device.pinState(for: "alice@contoso.com").pin == "2580")
    }

    @Test func appThatWipesItsOwnDataLeavesFilesToTheAppButLosesKeychainItems() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        try signIn(device, World.mail, World.alice)
        try device.writeFile(app: World.mail, path: ContainerPath("a.txt"), data: [UInt8]("x"), owner: "alice@contoso.com")
        _ = try device.keychainSet(app: World.mail, key: "t", value: [1], owner: "alice@contoso.com")
        let out = try device.signOut(app: World.mail, account: "alice@contoso.com", appHandledWipe: true)
        #expect(out.wipe?.deletedFiles == [])
        #expect(out.wipe?.deletedKeychainItems == ["com.contoso.Mail/t"])
        #expect(dir.exists("containers/com.contoso.Mail/a.txt"))
    }

    @Test func wipeInASharedAppGroupDeletesOnlyTheFilesThisAppWrote() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        try signIn(device, World.mail, World.alice)
        try signIn(device, World.outlook, World.alice)
        let byMail = ContainerPath("mail.txt", in: .appGroup(World.group))
        let byOutlook = ContainerPath("outlook.txt", in: .appGroup(World.group))
        try device.writeFile(app: World.mail, path: byMail, data: [UInt8]("m"), owner: "alice@contoso.com")
        try device.writeFile(app: World.outlook, path: byOutlook, data: [UInt8]("o"), owner: "alice@contoso.com")
        _ = try device.keychainSet(app: World.outlook, group: "com.microsoft.intune.mam", key: "shared", value: [9], owner: "alice@contoso.com")

        let report = try device.wipe(app: World.mail, account: "alice@contoso.com", appHandledWipe: false)
        #expect(report.deletedFiles == ["groups/group.com.contoso/mail.txt"])
        #expect(try device.readFile(app: World.outlook, path: byOutlook).text == "o")
        // The Intune group is shared with Outlook, which wrote the item and where alice is still
        // signed in: Mail's wipe leaves it (it removes only what Mail wrote).
        #expect(report.deletedKeychainItems == [])
        #expect(try device.keychainGet(app: World.outlook, group: "com.microsoft.intune.mam", key: "shared").value == [9])
        // `wipe` alone does not sign out.
        #expect(try device.isSignedIn("alice@contoso.com", app: World.mail))
    }

    /// Issue 24, defect 12 (c): Mail's share extension acts with Mail's accounts (RULES.md §2),
    /// so what it wrote for alice in the group Mail shares with Outlook is Mail's data and goes
    /// with Mail's wipe; Outlook's copy stays.
    @Test func wipeInASharedAppGroupAlsoDeletesWhatTheAppsOwnExtensionWrote() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        try signIn(device, World.mail, World.alice)
        try signIn(device, World.outlook, World.alice)
        let byExtension = ContainerPath("shared-in.txt", in: .appGroup(World.group))
        let byOutlook = ContainerPath("outlook.txt", in: .appGroup(World.group))
        try device.writeFile(app: World.mailShare, path: byExtension, data: [UInt8]("e"), owner: "alice@contoso.com")
        try device.writeFile(app: World.outlook, path: byOutlook, data: [UInt8]("o"), owner: "alice@contoso.com")
        _ = try device.keychainSet(app: World.mailShare, group: "com.microsoft.intune.mam", key: "draft", value: [7], owner: "alice@contoso.com")
        _ = try device.keychainSet(app: World.outlook, group: "com.microsoft.intune.mam", key: "shared", value: [9], owner: "alice@contoso.com")

        let report = try device.wipe(app: World.mail, account: "alice@contoso.com", appHandledWipe: false)
        #expect(report.deletedFiles == ["groups/group.com.contoso/shared-in.txt"])
        #expect(!dir.exists("groups/group.com.contoso/shared-in.txt"))
        #expect(try device.readFile(app: World.outlook, path: byOutlook).text == "o")
        #expect(report.deletedKeychainItems == ["com.microsoft.intune.mam/draft"])
        #expect(try device.keychainGet(app: World.outlook, group: "com.microsoft.intune.mam", key: "shared").value == [9])
    }

    @Test func unknownAccountIsRefusedWithASentence() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        let r = try device.signIn(app: World.mail, account: "dave@contoso.com")
        #expect(r.decision.blockedBy == .unknownAccount)
        #expect(r.decision.explanation == "dave@contoso.com cannot sign in to com.contoso.Mail: it is not an account of this device's fleet; add it to the scenario's accounts or check its spelling")
        let app = try device.signIn(app: "com.example.missing", account: "alice@contoso.com")
        #expect(app.decision.blockedBy == .unknownApp)
        #expect(app.decision.explanation == "com.example.missing is not installed on this device; install it in the fleet before using it")
    }

    @Test func accountNotOnTheAllowedListIsRefusedNamingBothValues() throws {
        var fleet = World.fleet()
        fleet.allowedAccounts = ["alice@contoso.com"]
        let dir = try DeviceDirectory()
        let device = try dir.open(fleet)
        let r = try device.signIn(app: World.mail, account: "bob@outlook.com")
        #expect(r.decision.blockedBy == .accountNotAllowed)
        #expect(r.decision.explanation.contains("[alice@contoso.com]"))
        #expect(r.decision.explanation.contains("bob@outlook.com"))
        // By OID, in another case, is the same account.
        #expect(try device.signIn(app: World.mail, account: World.alice.oid.uppercased()).isAllowed)
    }

    @Test func signingOutAnAccountThatIsNotSignedInSaysSo() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        let r = try device.signOut(app: World.mail, account: "bob@outlook.com")
        #expect(r.decision.blockedBy == .notSignedIn)
        #expect(r.decision.explanation == "bob@outlook.com is not signed in to com.contoso.Mail, so there is nothing to sign out; sign it in first")
        #expect(r.wipe == nil)
    }

    @Test func accountsNoLongerAllowedAreSignedOutAndTheirAppsNamed() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        try signIn(device, World.mail, World.alice, World.bob)
        try signIn(device, World.outlook, World.alice)
        let changes = try device.setAllowedAccounts(["ALICE@contoso.com"])
        #expect(changes == [AllowedAccountsChange(app: World.mail, signedOut: [World.bob])])
        #expect(try device.signedInAccounts(app: World.mail) == [World.alice])
        #expect(try device.signIn(app: World.mail, account: "bob@outlook.com").decision.blockedBy == .accountNotAllowed)
        let removed = try device.setAllowedAccounts([World.bob.oid])
        #expect(Set(removed.map(\.app)) == [World.mail, World.outlook])
        #expect(try device.enrolledManagedAccount == nil)
        // The list is device state: it survives a restart.
        let reopened = try dir.open()
        #expect(reopened.fleet.allowedAccounts == [World.bob.oid])
    }

    @Test func singleIdentityAppRunsAsItsEnrolledAccountAndMultiIdentityAppAsNobody() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        let single = try device.signIn(app: World.outlook, account: "Alice@Contoso.com")
        #expect(single.processIdentity == "alice@contoso.com")
        #expect(try device.isPolicyApplied(app: World.outlook, for: .file))
        let multi = try device.signIn(app: World.mail, account: "alice@contoso.com")
        #expect(multi.processIdentity == nil)
        #expect(try !device.isPolicyApplied(app: World.mail, for: .file))
        _ = try device.signOut(app: World.outlook, account: "alice@contoso.com")
        #expect(try device.processIdentity(app: World.outlook) == nil)
    }

    @Test func untargetingTheEnrolledAccountAtRunTimeLetsAnotherManagedAccountEnrol() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        try signIn(device, World.mail, World.alice)
        try device.assignPolicy(nil, to: "alice@contoso.com")
        let r = try device.signIn(app: World.mail, account: "carol@fabrikam.com")
        #expect(r.isAllowed)
        #expect(try device.enrolledManagedAccount == World.carol)
    }
}
