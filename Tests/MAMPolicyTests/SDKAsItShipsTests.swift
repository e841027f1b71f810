import MAMModel
@testable import MAMPolicy
import Testing

/// Issue 97, items 1–5, as tables of the pure rules (the scenarios in
/// scenarios/sdk-as-it-ships run the same through the host). Each row cites its source.
@Suite struct SDKAsItShipsTests {
    typealias W = World

    // Item 1 — memdocs app-sdk-ios-phase3, « Deregister user accounts »: the SDK no longer
    // manages the account in that app; its former policy judges nothing there.
    @Test func aDeregisteredAccountsFormerPolicyJudgesNoShare() {
        var fleet = W.fleet()
        #expect(!Enforcer.transfer(owner: W.alice, from: W.outlook, to: W.notes, receivedAs: nil, in: fleet).isAllowed)
        fleet.setInactive([W.outlook], for: W.alice)
        let after = Enforcer.transfer(owner: W.alice, from: W.outlook, to: W.notes, receivedAs: nil, in: fleet)
        #expect(after.isAllowed)
        #expect(after.decision.explanation.contains("not enrolled in \(W.outlook.rawValue)"), "\(after.decision.explanation)")
        // Still enrolled in word: there her policy still applies.
        #expect(!Enforcer.transfer(owner: W.alice, from: W.word, to: W.notes, receivedAs: nil, in: fleet).isAllowed)
    }

    // Item 2 — memdocs app-protection-policy-settings-ios, « Policy managed apps »: an app a
    // policy of the account protects; with several policies, any of them.
    @Test func policyManagedIsAnyOfTheAccountsPolicies() {
        var mail = IosManagedAppProtection(displayName: "mail")
        mail.allowedOutboundDataTransferDestinations = .managedApps
        mail.apps = [W.outlook]
        var word = IosManagedAppProtection(displayName: "word")
        word.allowedOutboundDataTransferDestinations = .managedApps
        word.apps = [W.word]
        var fleet = Fleet()
        fleet.add(W.alice, policies: [mail, word])
        fleet.install(AppDescriptor(bundleID: W.outlook))
        fleet.install(AppDescriptor(bundleID: W.word))
        fleet.install(AppDescriptor(bundleID: W.notes, sdkIntegrated: false))
        #expect(Enforcer.transfer(owner: W.alice, from: W.outlook, to: W.word, receivedAs: W.alice, in: fleet).isAllowed)
        #expect(Enforcer.transfer(owner: W.alice, from: W.word, to: W.outlook, receivedAs: W.alice, in: fleet).isAllowed)
        #expect(!Enforcer.transfer(owner: W.alice, from: W.outlook, to: W.notes, receivedAs: nil, in: fleet).isAllowed)
    }

    // Item 3 — memdocs data-transfer-between-apps-manage-ios, « Configure user UPN setting »:
    // required « to identify the enrolled user account for the sending policy managed app ».
    @Test(arguments: [(true, true), (false, false)])
    func osSharingNeedsIntuneMAMUPNInTheSendingApp(senderHasUPN: Bool, delivered: Bool) {
        var p = W.strictPolicy()
        p.disableProtectionOfManagedOutboundOpenInData = true
        var fleet = Fleet(device: DeviceFacts(mdmEnrolled: true))
        fleet.add(W.alice, policy: p)
        var sender = AppDescriptor(bundleID: W.outlook, mdmManaged: true)
        sender.intuneMAMUPNConfigured = senderHasUPN
        fleet.install(sender)
        fleet.install(AppDescriptor(bundleID: W.notes, sdkIntegrated: false, mdmManaged: true))
        #expect(Enforcer.transfer(owner: W.alice, from: W.outlook, to: W.notes, receivedAs: nil, isFile: true, in: fleet).isAllowed == delivered)
    }

    // Item 3 — memdocs app-protection-policy-settings-ios, « All apps with incoming Org data »:
    // marked « with the MDM enrolled user's identity, as defined by the IntuneMAMUPN setting ».
    @Test func incomingOrgDataNeedsIntuneMAMUPNInTheReceivingApp() {
        var p = W.strictPolicy()
        p.allowedInboundDataTransferSources = .allApps
        p.protectInboundDataFromUnknownSources = true
        var fleet = W.fleet(policy: p, device: DeviceFacts(mdmEnrolled: true))
        #expect(Enforcer.transfer(owner: nil, from: W.notes, to: W.outlook, receivedAs: W.alice, in: fleet).reowned == W.alice)
        var receiver = AppDescriptor(bundleID: W.outlook, mdmManaged: true)
        receiver.intuneMAMUPNConfigured = false
        fleet.install(receiver)
        let d = Enforcer.transfer(owner: nil, from: W.notes, to: W.outlook, receivedAs: W.alice, in: fleet)
        #expect(d.isAllowed && d.reowned == nil, "\(d)")
    }

    // Item 4 — Learn ref-settings-ios: each setting's minimum SDK; 22.2.0 release notes.
    @Test(arguments: [
        ("maximumRequiredOsVersion", "14.3.0", "14.4.0"), ("maximumRequiredOsVersion", "14.4.0", nil),
        ("thirdPartyKeyboardsBlocked", "12.0.15", "12.0.16"), ("thirdPartyKeyboardsBlocked", "21.0.0", nil),
        ("allowedOutboundClipboardSharingExceptionLength", "9.0.13", "9.0.14"),
        ("genmojiConfigurationState", "19.7.11", "19.7.12"), ("genmojiConfigurationState", "20.3.0", "20.4.0"),
        ("genmojiConfigurationState", "20.4.0", nil), ("pinRequired", "1.0.0", nil),
    ] as [(String, String, String?)])
    func aSettingBelowItsFloorDoesNotApply(setting: String, sdk: String, floor: String?) {
        #expect(SDKVersionFloors.unmet(setting, sdkVersion: sdk)?.floor.text == floor)
        // The SDK as it ships: no floor unmet.
        #expect(SDKVersionFloors.unmet(setting, sdkVersion: nil) == nil)
    }

    @Test func appConfigValuesAreTrimmedFrom2220() {
        #expect(Enforcer.sdkConfigValue(" Disabled\n", sdkVersion: "22.1.0") == " Disabled\n")
        #expect(Enforcer.sdkConfigValue(" Disabled\n", sdkVersion: "22.2.0") == "Disabled")
        #expect(Enforcer.sdkConfigValue(" Disabled\n") == "Disabled")
    }

    // Learn intune-notices; the SDK README and release notes.
    @Test(arguments: [
        ("20.7.0", 2), ("20.8.0", 0), ("21.0.5", 1), ("21.1.0", 0), ("19.0.0", 2), ("22.2.0", 0),
    ])
    func datedNoticesJudgeAnSDKVersion(sdk: String, notices: Int) {
        #expect(SDKVersionFloors.notices(for: sdk).count == notices, "\(SDKVersionFloors.notices(for: sdk).map(\.says))")
    }

    @Test func eachTrainRunsOnItsLowestIOS() {
        #expect(SDKVersionFloors.minimumOS(for: "21.3.0")?.os.text == "17.0")
        #expect(SDKVersionFloors.minimumOS(for: "20.5.0")?.os.text == "16.0")
        #expect(SDKVersionFloors.minimumOS(for: "19.0.0") == nil)
    }

    // Item 5 — Learn ios-phase-3 « Application restart »; 20.9.0/21.2.0 release notes
    // (HooksAlwaysEnabled); SDK issue #561 (IntuneMAMUPN on an MDM-managed device).
    @Test func theRestartOnFirstPolicyHasItsDocumentedExceptions() {
        let plain = AppDescriptor(bundleID: W.outlook)
        #expect(EnrollmentRules.noRestartOnFirstPolicy(plain, deviceMDMEnrolled: false) == nil)
        var hooks = plain
        hooks.hooksAlwaysEnabled = true
        #expect(EnrollmentRules.noRestartOnFirstPolicy(hooks, deviceMDMEnrolled: false) != nil)
        hooks.sdkVersion = "21.1.0"
        #expect(EnrollmentRules.noRestartOnFirstPolicy(hooks, deviceMDMEnrolled: false) == nil)
        hooks.sdkVersion = "20.9.0"
        #expect(EnrollmentRules.noRestartOnFirstPolicy(hooks, deviceMDMEnrolled: false) != nil)
        var auto = plain
        auto.autoEnrollOnLaunch = true
        #expect(EnrollmentRules.noRestartOnFirstPolicy(auto, deviceMDMEnrolled: false) == nil)
        auto.mamPolicyRequired = true
        #expect(EnrollmentRules.noRestartOnFirstPolicy(auto, deviceMDMEnrolled: false) != nil)
        var mdm = AppDescriptor(bundleID: W.outlook, mdmManaged: true)
        // Not said: Learn's rule (t6-05 restarts an MDM-managed app).
        #expect(EnrollmentRules.noRestartOnFirstPolicy(mdm, deviceMDMEnrolled: true) == nil)
        mdm.intuneMAMUPNConfigured = true
        #expect(EnrollmentRules.noRestartOnFirstPolicy(mdm, deviceMDMEnrolled: true) != nil)
        #expect(EnrollmentRules.noRestartOnFirstPolicy(mdm, deviceMDMEnrolled: false) == nil)
        mdm.intuneMAMUPNConfigured = false
        #expect(EnrollmentRules.noRestartOnFirstPolicy(mdm, deviceMDMEnrolled: true) == nil)
    }
}
