import Foundation
import MAMModel
import MAMPolicy
import MAMKit
import Testing
@testable import MAMDeviceState

/// Seed 001, "Validation de l'identité active et du cycle de vie des applications", and
/// conditional launch on a switch to the managed identity (RULES.md §8). Each test signs in a
/// managed and an unmanaged account first, as the seed asks.
@Suite struct Seed001IdentityTests {
    func signedInDevice(_ dir: DeviceDirectory, _ fleet: Fleet = World.fleet()) throws -> DeviceState {
        let device = try dir.open(fleet)
        try signIn(device, World.mail, World.alice, World.bob)
        return device
    }

    @Test func singleAccountViewOfTheManagedAccountAppliesPolicy() throws {
        let dir = try DeviceDirectory()
        let device = try signedInDevice(dir)
        let r = try device.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "alice@contoso.com", pin: "2580")
        #expect(r.result == .success)
        #expect(try device.effectiveIdentity(app: World.mail, window: "inbox", for: .ui) == "alice@contoso.com")
        #expect(try device.isPolicyApplied(app: World.mail, window: "inbox", for: .ui))
        // The UI identity never decides who owns a file.
        #expect(try device.effectiveIdentity(app: World.mail, window: "inbox", for: .file) == nil)
    }

    @Test func singleAccountViewOfTheUnmanagedAccountAppliesNoPolicy() throws {
        let dir = try DeviceDirectory()
        let device = try signedInDevice(dir)
        let r = try device.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "bob@outlook.com")
        #expect(r.result == .success)
        #expect(try !device.isPolicyApplied(app: World.mail, window: "inbox", for: .ui))
        #expect(try device.pinState(for: "alice@contoso.com").pin == nil)
    }

    @Test func windowsShowingDifferentAccountsAreJudgedSeparately() throws {
        let dir = try DeviceDirectory()
        let device = try signedInDevice(dir)
        _ = try device.setUIPolicyAccountId(app: World.mail, window: "left", account: "alice@contoso.com", pin: "2580")
        _ = try device.setUIPolicyAccountId(app: World.mail, window: "right", account: "")
        #expect(try device.isPolicyApplied(app: World.mail, window: "left", for: .ui))
        #expect(try !device.isPolicyApplied(app: World.mail, window: "right", for: .ui))
        // A thread identity overrides both.
        #expect(try device.isPolicyApplied(app: World.mail, window: "right", thread: "alice@contoso.com", for: .ui))
        #expect(try !device.isPolicyApplied(app: World.mail, window: "left", thread: "", for: .ui))
    }

    @Test func firstManagedSwitchSetsThePinAndLaterSwitchesVerifyIt() throws {
        let dir = try DeviceDirectory()
        let device = try signedInDevice(dir)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "alice@contoso.com", pin: "2580").result == .success)
        #expect(try device.pinState(for: "alice@contoso.com") == PinState(pin: "2580", failedAttempts: 0, setAt: device.now, lastAccess: device.now))
        // Past the recheck window (periodOnlineBeforeAccessCheck, 30 minutes) the PIN is asked.
        try device.advanceClock(by: ISODuration("PT31M")!)
        let wrong = try device.setUIPolicyAccountId(app: World.mail, window: "b", account: "alice@contoso.com", pin: "1111")
        #expect(wrong.result == .failed)
        #expect(wrong.decision.blockedBy == .conditionalLaunch)
        #expect(wrong.decision.explanation == "alice@contoso.com's policy \"Contoso strict\" requires the app PIN; the entered PIN is wrong (4 tries left)")
        #expect(try device.uiIdentity(app: World.mail, window: "b") == nil)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "b", account: "alice@contoso.com", pin: "2580").result == .success)
        #expect(try device.pinState(for: "alice@contoso.com").failedAttempts == 0)
    }

    /// RULES §8: one PIN per publisher (Apple team id): another app of the same team uses it
    /// without asking within the recheck window; another team's app sets its own; both survive
    /// a host restart.
    @Test func thePinIsOnePublishers() throws {
        var fleet = World.fleet()
        for (bundle, team) in [("com.contoso.crm", "CONTOSO001"), ("com.fabrikam.viewer", "FABRIKAM01")] {
            var app = AppDescriptor(bundleID: BundleID(bundle), multiIdentity: true, keychainAccessGroups: [bundle, "com.microsoft.intune.mam"])
            app.teamId = team
            fleet.install(app)
        }
        var mail = fleet.app(World.mail)!
        mail.teamId = "contoso001"
        fleet.install(mail)
        let dir = try DeviceDirectory()
        do {
            let device = try dir.open(fleet)
            try signIn(device, World.mail, World.alice)
            try signIn(device, "com.contoso.crm", World.alice)
            try signIn(device, "com.fabrikam.viewer", World.alice)
            #expect(try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "alice@contoso.com", pin: "2580").result == .success)
            #expect(try device.setUIPolicyAccountId(app: "com.contoso.crm", window: "a", account: "alice@contoso.com", pin: nil).result == .success,
                    "the same team (its id in any case): no PIN asked")
            #expect(try device.setUIPolicyAccountId(app: "com.fabrikam.viewer", window: "a", account: "alice@contoso.com", pin: nil).result == .canceled,
                    "another team: its own PIN is asked")
            #expect(try device.setUIPolicyAccountId(app: "com.fabrikam.viewer", window: "a", account: "alice@contoso.com", pin: "1357").result == .success)
        }
        let host = try dir.open(fleet)
        #expect(try host.pinState(for: "alice@contoso.com", publisher: "CONTOSO001").pin == "2580")
        #expect(try host.pinState(for: "alice@contoso.com", publisher: "FABRIKAM01").pin == "1357")
        #expect(try host.pinState(for: "alice@contoso.com").pin == nil, "apps that name no team have a PIN of their own")
    }

    @Test func tooManyWrongPinsBlockAndResetThePin() throws {
        var policy = World.strictPolicy()
        policy.maximumPinRetries = 2
        let dir = try DeviceDirectory()
        let device = try signedInDevice(dir, World.fleet(policy: policy))
        _ = try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "alice@contoso.com", pin: "2580")
        try device.advanceClock(by: ISODuration("PT31M")!)
        _ = try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "alice@contoso.com", pin: "0000")
        let last = try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "alice@contoso.com", pin: "0000")
        #expect(last.result == .failed)
        #expect(last.decision.explanation.contains("the PIN was entered wrong 2 times in a row (maximumPinRetries = 2); the PIN is reset"))
        #expect(try device.pinState(for: "alice@contoso.com").pin == nil)
    }

    @Test func dismissedPinPromptCancelsTheSwitch() throws {
        let dir = try DeviceDirectory()
        let device = try signedInDevice(dir)
        let r = try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "alice@contoso.com", pin: nil)
        #expect(r.result == .canceled)
        #expect(r.decision.blockedBy == .identitySwitchCanceled)
    }

    @Test func switchToAnAccountNotSignedInIsNotAllowedAndNamesTheApp() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        let r = try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "carol@fabrikam.com", pin: "2580")
        #expect(r.result == .notAllowed)
        #expect(r.decision.explanation == "carol@fabrikam.com is not signed in to com.contoso.Mail")
    }

    @Test func jailbrokenDeviceBlocksTheManagedSwitch() throws {
        let dir = try DeviceDirectory()
        let device = try signedInDevice(dir)
        try device.setDeviceFacts(DeviceFacts(jailbroken: true))
        let r = try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "alice@contoso.com", pin: "2580")
        #expect(r.result == .failed)
        #expect(r.decision.explanation.contains("the device is jailbroken"))
        // The unmanaged account is not checked.
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "bob@outlook.com").result == .success)
    }

    @Test func osVersionBelowTheMinimumBlocksTheManagedSwitch() throws {
        var policy = World.strictPolicy()
        policy.minimumRequiredOsVersion = Version("19.0")
        let dir = try DeviceDirectory()
        let device = try signedInDevice(dir, World.fleet(policy: policy, device: DeviceFacts(osVersion: Version("18.4")!)))
        let r = try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "alice@contoso.com", pin: "2580")
        #expect(r.result == .failed)
        #expect(r.decision.explanation.contains("iOS 18.4 is below minimumRequiredOsVersion 19.0"))
    }

    @Test func offlineLongerThanTheAccessCheckPeriodOnTheSimulatedClockBlocks() throws {
        let dir = try DeviceDirectory()
        let device = try signedInDevice(dir)
        try device.checkIn(app: World.mail)
        try device.setNetwork(online: false)
        try device.advanceClock(by: ISODuration("PT13H")!)
        let blocked = try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "alice@contoso.com", pin: "2580")
        #expect(blocked.result == .failed)
        #expect(blocked.decision.explanation.contains("longer than periodOfflineBeforeAccessCheck PT12H"))
        try device.checkIn(app: World.mail)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "alice@contoso.com", pin: "2580").result == .success)
        // An explicit time overrides the clock for one switch.
        let later = device.now.advanced(by: ISODuration("P1D")!)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "alice@contoso.com", pin: "2580", now: later).result == .failed)
    }

    @Test func offlineLongerThanTheWipePeriodSignsTheAccountOutAndWipesIt() throws {
        let dir = try DeviceDirectory()
        let device = try signedInDevice(dir)
        try device.writeFile(app: World.mail, path: ContainerPath("org.txt"), data: [UInt8]("org"), owner: "alice@contoso.com")
        try device.writeFile(app: World.mail, path: ContainerPath("own.txt"), data: [UInt8]("own"), owner: "bob@outlook.com")
        try device.checkIn(app: World.mail)
        try device.setNetwork(online: false)
        try device.advanceClock(by: ISODuration("P91D")!)
        let r = try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "alice@contoso.com", pin: "2580")
        #expect(r.result == .failed)
        #expect(r.decision.explanation.contains("wipes the account's data"))
        #expect(r.wipe?.deletedFiles == ["containers/com.contoso.Mail/org.txt"])
        #expect(try device.signedInAccounts(app: World.mail) == [World.bob])
        #expect(dir.exists("containers/com.contoso.Mail/own.txt"))
    }

    @Test func killAndRelaunchWhileManagedRestoresIdentityAndProtection() throws {
        let dir = try DeviceDirectory()
        do {
            let device = try signedInDevice(dir)
            #expect(try device.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "alice@contoso.com", pin: "2580").result == .success)
            try ThreadIdentity.withAccountId("alice@contoso.com") {
                let owner = try device.effectiveIdentity(app: World.mail, thread: ThreadIdentity.accountId, for: .file)
                try device.writeFile(app: World.mail, path: ContainerPath("Inbox/1.eml"), data: [UInt8]("org mail"), owner: owner)
            }
        }
        // The host restarts: everything acknowledged is back.
        let host = try dir.open()
        #expect(try host.uiIdentity(app: World.mail, window: "inbox") == "alice@contoso.com")
        #expect(try host.isPolicyApplied(app: World.mail, window: "inbox", for: .ui))
        #expect(try host.fileOwner(app: World.mail, path: ContainerPath("Inbox/1.eml")) == "alice@contoso.com")
        #expect(!(dir.bytesOnDisk("containers/com.contoso.Mail/Inbox/1.eml") ?? []).contains([UInt8]("org mail")))
        #expect(try host.readFile(app: World.mail, path: ContainerPath("Inbox/1.eml")).text == "org mail")
        // The app's new process starts with no identity; resuming on the managed screen
        // verifies the PIN that was set before the kill instead of setting a new one.
        #expect(try host.appLaunched(app: World.mail) == IdentityLayers())
        try host.advanceClock(by: ISODuration("PT31M")!)
        #expect(try host.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "alice@contoso.com", pin: "1357").result == .failed)
        #expect(try host.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "alice@contoso.com", pin: "2580").result == .success)
        #expect(try host.isPolicyApplied(app: World.mail, window: "inbox", for: .ui))
    }

    @Test func killAndRelaunchWhileUnmanagedAppliesNoPolicy() throws {
        let dir = try DeviceDirectory()
        do {
            let device = try signedInDevice(dir)
            _ = try device.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "bob@outlook.com")
            try device.writeFile(app: World.mail, path: ContainerPath("note.txt"), data: [UInt8]("mine"), owner: "bob@outlook.com")
        }
        let host = try dir.open()
        #expect(try host.uiIdentity(app: World.mail, window: "inbox") == "bob@outlook.com")
        #expect(try !host.isPolicyApplied(app: World.mail, window: "inbox", for: .ui))
        #expect(dir.bytesOnDisk("containers/com.contoso.Mail/note.txt") == [UInt8]("mine"))
        try host.appLaunched(app: World.mail)
        #expect(try host.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "bob@outlook.com").result == .success)
        #expect(try !host.isPolicyApplied(app: World.mail, window: "inbox", for: .ui))
    }

    @Test func relaunchedSingleIdentityAppRunsAsItsEnrolledAccountAgain() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        try signIn(device, World.outlook, World.alice)
        let layers = try device.appLaunched(app: World.outlook)
        #expect(layers.process == "alice@contoso.com")
    }

    @Test func aShareExtensionSwitchesWithItsContainingAppsAccounts() throws {
        let dir = try DeviceDirectory()
        let device = try signedInDevice(dir)
        let r = try device.setUIPolicyAccountId(app: World.mailShare, window: "compose", account: "alice@contoso.com", pin: "2580")
        #expect(r.result == .success)
        #expect(try device.isPolicyApplied(app: World.mailShare, window: "compose", for: .ui))
        #expect(try device.setUIPolicyAccountId(app: World.outlook, window: "w", account: "bob@outlook.com").result == .notAllowed)
    }

    @Test func appBelowTheMinimumVersionAndDisabledAccountsAreBlocked() throws {
        var policy = World.strictPolicy()
        policy.minimumRequiredAppVersion = Version("5.0")
        let dir = try DeviceDirectory()
        let device = try signedInDevice(dir, World.fleet(policy: policy))
        try device.setVersions(app: World.mail, appVersion: Version("4.2"), sdkVersion: Version("20.1"))
        let old = try dir.open(World.fleet(policy: policy))
            .setUIPolicyAccountId(app: World.mail, window: "a", account: "alice@contoso.com", pin: "2580")
        #expect(old.decision.explanation.contains("the app version 4.2 is below minimumRequiredAppVersion 5.0"))
        try device.setVersions(app: World.mail, appVersion: Version("5.1"), sdkVersion: nil)
        try device.setAccountDisabled("alice@contoso.com", true)
        let disabled = try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "alice@contoso.com", pin: "2580")
        #expect(disabled.result == .failed)
        #expect(disabled.decision.explanation.contains("alice@contoso.com is disabled and cannot authenticate"))
        try device.setAccountDisabled("alice@contoso.com", false)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "a", account: "alice@contoso.com", pin: "2580").result == .success)
    }
}

/// A window of several accounts (setUIPolicyAccountIds) is device state like a window of one:
/// it survives a restart, and a switch of the window to one account ends it.
@Suite struct MergedViewStateTests {
    @Test func aWindowOfSeveralAccountsIsStoredAndEndsAtASingleSwitch() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        _ = try device.signIn(app: World.mail, account: World.alice.upn)
        _ = try device.signIn(app: World.mail, account: World.bob.upn)
        let r = try device.setUIPolicyAccountIds(app: World.mail, window: "inbox", accounts: [World.alice.upn, World.bob.upn, ""], pin: "2580")
        #expect(r.result == .success && r.blocked.isEmpty, "\(r.decision)")
        #expect(r.shown == [World.alice.description, World.bob.description, ""])
        #expect(try device.uiIdentity(app: World.mail, window: "inbox") == World.alice.description, "owned by the managed account")
        let reopened = try dir.open()
        #expect(try reopened.uiAccounts(app: World.mail, window: "inbox") == r.shown)
        _ = try reopened.setUIPolicyAccountId(app: World.mail, window: "inbox", account: World.bob.upn)
        #expect(try reopened.uiAccounts(app: World.mail, window: "inbox") == nil)
        #expect(try reopened.setUIPolicyAccountIds(app: World.mail, window: "x", accounts: ["carol@fabrikam.com"]).result == .notAllowed)
    }
}
