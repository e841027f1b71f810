import Foundation
import MAMDeviceState
import MAMModel
import MAMPolicy
import Testing

/// Launch, resume, relaunch and the network the check-ins need (RULES.md §5 "Relaunch", §8).
@Suite("App lifecycle on the device")
struct LifecycleTests {
    func device(_ dir: DeviceDirectory, _ fleet: Fleet = World.fleet()) throws -> DeviceState {
        let device = try dir.open(fleet)
        #expect(try device.signIn(app: World.mail, account: "alice@contoso.com").isAllowed)
        #expect(try device.signIn(app: World.mail, account: "bob@outlook.com").isAllowed)
        #expect(try device.signIn(app: World.outlook, account: "alice@contoso.com").isAllowed)
        return device
    }

    @Test func switchingIdentityWhileOnlineChecksIn() throws {
        let dir = try DeviceDirectory()
        let device = try device(dir)
        #expect(try device.isOnline())
        try device.advanceClock(by: ISODuration("P2D")!)
        let r = try device.setUIPolicyAccountId(app: World.mail, window: "", account: "alice@contoso.com", pin: "2580")
        #expect(r.result == .success, "online, the switch checks in before conditional launch")
        #expect(try device.lastCheckIn(app: World.mail) == device.now)
    }

    @Test func theNetworkStateSurvivesARestart() throws {
        let dir = try DeviceDirectory()
        do { try device(dir).setNetwork(online: false) }
        #expect(try !dir.open().isOnline())
    }

    @Test func aSingleIdentityAppIsCheckedAtLaunchAndResume() throws {
        let dir = try DeviceDirectory()
        let device = try device(dir, World.fleet(device: DeviceFacts(jailbroken: true)))
        try device.appLaunched(app: World.outlook)
        let r = try device.launchChecks(app: World.outlook)
        #expect(r.decision.blockedBy == .conditionalLaunch)
        #expect(r.decision.explanation.contains("jailbroken"))
        #expect(try device.accessBlock(app: World.outlook) != nil)
        #expect(try device.lastCheckIn(app: World.outlook) != nil, "online: it checked in first")
    }

    @Test func aMultiIdentityAppShowingNothingManagedIsNotCheckedAtLaunch() throws {
        let dir = try DeviceDirectory()
        let device = try device(dir, World.fleet(device: DeviceFacts(jailbroken: true)))
        try device.appLaunched(app: World.mail)
        #expect(try device.launchChecks(app: World.mail).decision.isAllowed)
        #expect(try device.accessBlock(app: World.mail) == nil)
    }

    @Test func aRelaunchRestoresTheWindowsOfAccountsStillSignedIn() throws {
        let dir = try DeviceDirectory()
        let device = try device(dir)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "alice@contoso.com", pin: "2580").result == .success)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "personal", account: "bob@outlook.com").result == .success)
        _ = try device.signOut(app: World.mail, account: "bob@outlook.com", appHandledWipe: false)
        let layers = try device.appLaunched(app: World.mail)
        #expect(layers.process == nil, "a multi-identity app starts with no process identity")
        #expect(try device.uiIdentity(app: World.mail, window: "inbox") == "alice@contoso.com")
        #expect(try device.uiIdentity(app: World.mail, window: "personal") == nil, "bob is signed out: that screen is gone")
    }

    @Test func anAppThatDoesNotRestoreItsStateStartsWithNoWindowIdentity() throws {
        var fleet = World.fleet()
        var mail = try #require(fleet.app(World.mail))
        mail.restoresState = false
        fleet.install(mail)
        let dir = try DeviceDirectory()
        let device = try device(dir, fleet)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "alice@contoso.com", pin: "2580").result == .success)
        try device.appLaunched(app: World.mail)
        #expect(try device.uiIdentity(app: World.mail, window: "inbox") == nil)
    }

    @Test func aRestoredManagedWindowRunsConditionalLaunch() throws {
        var policy = World.strictPolicy()
        policy.minimumRequiredAppVersion = Version("3.0")
        var fleet = World.fleet(policy: policy)
        var mail = try #require(fleet.app(World.mail))
        mail.shortVersion = "2.5"
        fleet.install(mail)
        let dir = try DeviceDirectory()
        let device = try device(dir, fleet)
        // Shown before the minimum was known to the app (a version set at run time wins).
        try device.setVersions(app: World.mail, appVersion: Version("3.1"), sdkVersion: nil)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "alice@contoso.com", pin: "2580").result == .success)
        try device.setVersions(app: World.mail, appVersion: nil, sdkVersion: nil)
        try device.appLaunched(app: World.mail)
        let r = try device.launchChecks(app: World.mail)
        #expect(r.decision.blockedBy == .conditionalLaunch)
        #expect(r.decision.explanation.contains("2.5 is below minimumRequiredAppVersion 3.0"))
        // A managed switch that passes opens access again.
        try device.setVersions(app: World.mail, appVersion: Version("3.1"), sdkVersion: nil)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "alice@contoso.com", pin: "2580").result == .success)
        #expect(try device.accessBlock(app: World.mail) == nil)
    }
}

/// RULES.md §5: one managed account per device.
@Suite("A policy assigned while another account is managed")
struct SingleManagedAccountTests {
    @Test func anAccountTargetedAfterAnotherEnrolledStaysUnmanagedAcrossRestarts() throws {
        let dir = try DeviceDirectory()
        do {
            let device = try dir.open()
            #expect(try device.signIn(app: World.mail, account: "alice@contoso.com").isAllowed)
            #expect(try device.signIn(app: World.mail, account: "bob@outlook.com").isAllowed)
            #expect(try !device.assignPolicy(World.fabrikamPolicy(), to: "bob@outlook.com"))
            #expect(!device.fleet.isManaged(World.bob))
        }
        let again = try dir.open(World.fleet(), policies: [World.fabrikamPolicy()])
        #expect(!again.fleet.isManaged(World.bob), "the restart keeps the assignment without applying it")
        _ = try again.signOut(app: World.mail, account: "alice@contoso.com")
        #expect(try again.assignPolicy(World.fabrikamPolicy(), to: "bob@outlook.com"))
        #expect(again.fleet.isManaged(World.bob))
    }
}

/// RULES.md §9: the app configuration the admin set at run time survives a host restart.
@Suite("App configuration on the device")
struct AppConfigStateTests {
    @Test func aRunTimeChangeIsStoredAndWinsOverTheScenarioAtRestart() throws {
        let dir = try DeviceDirectory()
        let initial = [AppConfigPolicy(name: "sales", settings: [KeyValuePair(name: "serverUrl", value: "https://a")])]
        do {
            let device = try dir.open()
            try device.loadAppConfigPolicies(initial: initial)
            #expect(try device.appConfig(app: World.mail, account: World.alice).values(forKey: "serverUrl") == ["https://a"])
            var changed = initial
            changed[0].settings = [KeyValuePair(name: "serverUrl", value: "https://b")]
            try device.setAppConfigPolicies(changed)
        }
        let again = try dir.open()
        try again.loadAppConfigPolicies(initial: initial)
        #expect(try again.appConfig(app: World.mail, account: World.alice).values(forKey: "serverUrl") == ["https://b"])
        #expect(try again.appConfig(app: World.mail, account: World.bob).fullData.isEmpty, "bob is unmanaged")
    }
}
