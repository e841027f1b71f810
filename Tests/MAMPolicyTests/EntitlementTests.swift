import MAMModel
import MAMPolicy
import Testing

@Suite("Keychain and app groups")
struct EntitlementTests {
    let mail = AppDescriptor(bundleID: "com.contoso.mail", keychainAccessGroups: ["$(AppIdentifierPrefix)com.contoso.mail", "ABCDE12345.com.microsoft.intune.mam"],
                             appGroups: ["group.com.contoso"])

    @Test func entitledGroupIsReadableAndItsDefaultIsTheFirstGroup() {
        #expect(Enforcer.defaultKeychainGroup(mail) == "com.contoso.mail")
        let d = Enforcer.keychainAccess(group: nil, by: mail, itemExists: true)
        #expect(d.status == .success && d.group == "com.contoso.mail")
        #expect(Enforcer.keychainAccess(group: "com.microsoft.intune.mam", by: mail, itemExists: true).decision.isAllowed)
    }

    @Test func groupOutsideTheEntitlementIsMissingEntitlement() {
        let d = Enforcer.keychainAccess(group: "com.other.app", by: mail, itemExists: true)
        #expect(d.status == .missingEntitlement)
        #expect(d.status.rawValue == -34018)
        #expect(d.decision.blockedBy == .keychainEntitlement)
        let none = Enforcer.keychainAccess(group: nil, by: AppDescriptor(bundleID: "x"), itemExists: true)
        #expect(none.status == .missingEntitlement)
    }

    @Test func absentItemIsItemNotFound() {
        let d = Enforcer.keychainAccess(group: "com.contoso.mail", by: mail, itemExists: false)
        #expect(d.status == .itemNotFound)
        #expect(d.status.rawValue == -25300)
    }

    @Test func appGroupNeedsTheEntitlement() {
        #expect(Enforcer.appGroupAccess("group.com.contoso", by: mail).isAllowed)
        #expect(Enforcer.appGroupAccess("group.com.fabrikam", by: mail).blockedBy == .appGroupEntitlement)
    }

    @Test func lintAcceptsBundleIdFirstThenIntuneGroup() {
        #expect(Enforcer.lintKeychainGroups(mail).isEmpty)
    }

    @Test func lintCatchesIntuneGroupFirst() {
        let app = AppDescriptor(bundleID: "com.contoso.mail", keychainAccessGroups: ["com.microsoft.intune.mam", "com.contoso.mail"])
        let problems = Enforcer.lintKeychainGroups(app)
        #expect(problems.count == 1)
        #expect(problems.first?.contains("must be the bundle id") == true)
    }

    @Test func lintCatchesAMisspelledIntuneGroup() {
        let app = AppDescriptor(bundleID: "com.contoso.mail", keychainAccessGroups: ["com.contoso.mail", "com.microsot.intune.mam"])
        let problems = Enforcer.lintKeychainGroups(app)
        #expect(problems.contains { $0.contains("misspelling") && $0.contains("com.microsot.intune.mam") })
        #expect(problems.contains { $0.contains("lacks") })
    }

    @Test func lintExpectsTheContainingAppsBundleIdInAnExtension() {
        let ext = AppDescriptor(bundleID: "com.contoso.mail.share", kind: .share, containingApp: "com.contoso.mail",
                                keychainAccessGroups: ["com.contoso.mail", "com.microsoft.intune.mam"])
        #expect(Enforcer.lintKeychainGroups(ext).isEmpty)
    }
}

@Suite("Other policy switches")
struct SwitchTests {
    typealias W = World

    @Test func printIsBlockedOnlyForManagedDataUnderPrintBlocked() {
        var p = W.strictPolicy()
        p.printBlocked = true
        let fleet = W.fleet(policy: p)
        #expect(Enforcer.print(as: W.alice, app: World.mine, in: fleet).blockedBy == .printBlocked)
        #expect(Enforcer.print(as: W.bob, app: World.mine, in: fleet).isAllowed)
        #expect(Enforcer.print(as: W.alice, app: World.mine, in: W.fleet()).isAllowed)
    }

    @Test(arguments: [(NotificationRestriction.allow, "Meeting at 10"), (.blockOrganizationalData, "You have new content")])
    func notificationsShowTextOrTheGenericText(_ restriction: NotificationRestriction, _ shown: String) {
        var p = W.strictPolicy()
        p.notificationRestriction = restriction
        let d = Enforcer.notification("Meeting at 10", of: W.alice, app: World.mine, in: W.fleet(policy: p))
        #expect(d.shownText == shown)
        #expect(d.decision.isAllowed)
    }

    @Test func blockedNotificationsShowNothing() {
        var p = W.strictPolicy()
        p.notificationRestriction = .block
        let fleet = W.fleet(policy: p)
        let d = Enforcer.notification("Meeting at 10", of: W.alice, app: World.mine, in: fleet)
        #expect(d.shownText == nil && d.decision.blockedBy == .notificationBlocked)
        #expect(Enforcer.notification("Personal", of: W.bob, app: World.mine, in: fleet).shownText == "Personal")
    }

    @Test func siriAndAppIntentsNeedOutboundAllApps() {
        let strict = W.fleet()
        #expect(!Enforcer.areSiriIntentsAllowed(for: W.alice, app: World.mine, in: strict))
        #expect(!Enforcer.areAppIntentsAllowed(for: W.alice, app: World.mine, in: strict))
        #expect(Enforcer.areSiriIntentsAllowed(for: W.bob, app: World.mine, in: strict))
        let open = W.fleet(policy: IosManagedAppProtection())
        #expect(Enforcer.areSiriIntentsAllowed(for: W.alice, app: World.mine, in: open) && Enforcer.areAppIntentsAllowed(for: W.alice, app: World.mine, in: open))
    }

    @Test func appSharingIsOffOnlyWhenOutboundIsNone() {
        var p = W.strictPolicy()
        #expect(Enforcer.isAppSharingAllowed(for: W.alice, app: World.mine, in: W.fleet(policy: p)))
        p.allowedOutboundDataTransferDestinations = .none
        #expect(!Enforcer.isAppSharingAllowed(for: W.alice, app: World.mine, in: W.fleet(policy: p)))
    }

    @Test func screenCaptureIsBlockedUnlessOutboundIsAllAppsOrAppConfigDisablesTheControl() {
        let strict = W.fleet()
        #expect(!Enforcer.isScreenCaptureAllowed(for: W.alice, app: World.mine, in: strict))
        #expect(Enforcer.isScreenCaptureAllowed(for: W.alice, appConfig: ["com.microsoft.intune.mam.screencapturecontrol": "Disabled"], app: World.mine, in: strict))
        #expect(!Enforcer.isScreenCaptureAllowed(for: W.alice, appConfig: ["com.microsoft.intune.mam.screencapturecontrol": "Enabled"], app: World.mine, in: strict))
        #expect(Enforcer.isScreenCaptureAllowed(for: W.bob, app: World.mine, in: strict))
        #expect(Enforcer.isScreenCaptureAllowed(for: W.alice, app: World.mine, in: W.fleet(policy: IosManagedAppProtection())))
    }

    @Test func screenCaptureConfigurationStateBlockedWins() {
        var p = IosManagedAppProtection()
        p.screenCaptureConfigurationState = .blocked
        let fleet = W.fleet(policy: p)
        #expect(!Enforcer.isScreenCaptureAllowed(for: W.alice, appConfig: ["com.microsoft.intune.mam.screencapturecontrol": "Disabled"], app: World.mine, in: fleet))
    }

    @Test func fileEncryptionBackupContactsAndKeyboardsFollowThePolicy() {
        var p = W.strictPolicy()
        p.dataBackupBlocked = true
        p.contactSyncBlocked = true
        p.thirdPartyKeyboardsBlocked = true
        let fleet = W.fleet(policy: p)
        #expect(Enforcer.isFileEncryptionRequired(for: W.alice, app: World.mine, in: fleet) && !Enforcer.isFileEncryptionRequired(for: W.bob, app: World.mine, in: fleet))
        #expect(Enforcer.isDataBackupBlocked(for: W.alice, app: World.mine, in: fleet) && !Enforcer.isDataBackupBlocked(for: W.bob, app: World.mine, in: fleet))
        #expect(Enforcer.isContactSyncBlocked(for: W.alice, app: World.mine, in: fleet))
        #expect(Enforcer.areThirdPartyKeyboardsBlocked(for: W.alice, app: World.mine, in: fleet))
        #expect(!Enforcer.areThirdPartyKeyboardsBlocked(for: W.alice, app: World.mine, in: W.fleet()))
    }
}
