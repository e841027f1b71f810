import MAMModel
import MAMPolicy
import Testing

@Suite("Conditional launch on an identity switch")
struct ConditionalLaunchTests {
    typealias W = World
    static let now = Instant(iso8601: "2026-01-01T09:00:00Z")!

    func policy(_ change: (inout IosManagedAppProtection) -> Void = { _ in }) -> IosManagedAppProtection {
        var p = W.strictPolicy()
        change(&p)
        return p
    }

    func switchTo(_ account: Account? = World.alice, pin entered: String? = "2580", state: PinState = PinState(),
                  facts: LaunchFacts = LaunchFacts(now: now), fleet: Fleet) -> IdentitySwitchOutcome {
        Enforcer.switchIdentity(to: account, signedIn: [W.alice, W.bob], enteredPin: entered, pin: state, facts: facts, app: World.mine, in: fleet)
    }

    /// IntuneMAMSwitchIdentityResultNotAllowed: an account of the enrolled account's
    /// organization that is not the enrolled account (RULES.md §5); another organization's
    /// account switches as unmanaged.
    @Test(arguments: [
        ("same tenant", Account(upn: "dana@contoso.com", oid: "d0d0d0d0-2222-4333-8444-555566667777", tenant: "contoso.onmicrosoft.com"), IdentitySwitchResult.notAllowed),
        ("same domain, tenants unknown", Account(upn: "erin@contoso.com"), .notAllowed),
        ("another organization", World.bob, .success),
        ("another tenant", World.carol, .success),
    ])
    func aSecondAccountOfTheEnrolledOrganizationIsNotAllowed(row: String, other: Account, expected: IdentitySwitchResult) {
        var fleet = W.fleet()
        fleet.add(other)
        let outcome = Enforcer.switchIdentity(to: other, signedIn: [W.alice, other], enteredPin: "2580", pin: PinState(),
                                              facts: LaunchFacts(now: Self.now), app: World.mine, in: fleet)
        #expect(outcome.result == expected, "\(row): \(outcome.decision)")
    }

    /// IntuneMAMSwitchIdentityResultNotAllowed also when the main thread carries a thread
    /// identity other than the one switched to (IntuneMAMPolicyManager.h); none set, or the
    /// same account by UPN or OID, lets the switch go on.
    @Test(arguments: [
        ("no thread identity", "alice@contoso.com", nil, false),
        ("the same account", "alice@contoso.com", "alice@contoso.com", false),
        ("the same account by OID, any case", "ALICE@contoso.com", World.alice.oid, false),
        ("both unmanaged", "", "", false),
        ("another account", "alice@contoso.com", "bob@outlook.com", true),
        ("unmanaged thread, managed switch", "alice@contoso.com", "", true),
        ("managed thread, unmanaged switch", "", "alice@contoso.com", true),
        ("managed thread, switch cleared (nil)", nil, "alice@contoso.com", true),
    ] as [(String, String?, String?, Bool)])
    func aMainThreadIdentityThatContradictsTheSwitchIsNotAllowed(row: String, target: String?, thread: String?, refused: Bool) {
        let v = Enforcer.mainThreadConflict(switchingTo: target, mainThread: thread, in: W.fleet())
        #expect((v != nil) == refused, "\(row): \(String(describing: v))")
        if let v { #expect(v.blockedBy == .identitySwitchNotAllowed && v.explanation.contains("clear"), "\(row)") }
    }

    @Test func firstSwitchSetsThePinAndLaterSwitchesVerifyIt() {
        let fleet = W.fleet()
        let first = switchTo(fleet: fleet)
        #expect(first.result == .success)
        #expect(first.pin == PinState(pin: "2580", failedAttempts: 0, setAt: Self.now, lastAccess: Self.now), "set now: its age and the recheck window run from here")
        // Past the recheck window (30 minutes) the PIN is asked and verified.
        let later = LaunchFacts(now: Instant(secondsSince1970: Self.now.secondsSince1970 + 31 * 60))
        #expect(switchTo(pin: "2580", state: first.pin, facts: later, fleet: fleet).result == .success)
        let wrong = switchTo(pin: "0000", state: first.pin, facts: later, fleet: fleet)
        #expect(wrong.result == .failed && wrong.decision.blockedBy == .conditionalLaunch)
        #expect(wrong.pin.failedAttempts == 1 && wrong.pin.pin == "2580")
        #expect(switchTo(pin: "2580", state: wrong.pin, facts: later, fleet: fleet).pin.failedAttempts == 0, "a correct PIN clears the count")
    }

    /// SCENARIOS v1.2 `newPin` (our reading, RULES §8): a PIN change asks the current PIN even
    /// within the recheck window; the new one follows the PIN rules and differs from the current.
    @Test(arguments: [
        ("2580", "1397", IdentitySwitchResult.success, "1397"),
        ("0000", "1397", .failed, "2580"),        // wrong current PIN
        ("2580", "1234", .failed, "2580"),        // simple
        ("2580", "2580", .failed, "2580"),        // the same
        ("2580", "13a7", .failed, "2580"),        // not numeric
    ])
    func aPinChange(current: String, new: String, result: IdentitySwitchResult, kept: String) {
        let fleet = W.fleet(policy: policy { $0.simplePinBlocked = true; $0.pinCharacterSet = .numeric })
        let recent = PinState(pin: "2580", setAt: Self.now, lastAccess: Self.now)
        let o = Enforcer.switchIdentity(to: W.alice, signedIn: [W.alice], enteredPin: current, pin: recent,
                                        facts: LaunchFacts(now: Self.now), app: World.mine, in: fleet, newPin: new)
        #expect(o.result == result && o.pin.pin == kept, "\(current) → \(new): \(o.decision)")
        if result == .success { #expect(o.pin.previous.first == "2580" && o.warnings.contains { $0.contains("PIN is changed") }) }
        let none = Enforcer.switchIdentity(to: W.alice, signedIn: [W.alice], enteredPin: "2580", pin: PinState(),
                                           facts: LaunchFacts(now: Self.now), app: World.mine, in: fleet, newPin: new)
        #expect(none.result == .failed, "no PIN to change yet")
    }

    @Test func dismissingThePinPromptCancelsTheSwitch() {
        let o = switchTo(pin: nil, fleet: W.fleet())
        #expect(o.result == .canceled && o.decision.blockedBy == .identitySwitchCanceled)
    }

    @Test(arguments: [
        ("12", "minimumPinLength"), ("12a4", "digits only"),
    ])
    func newNumericPinMustSatisfyLengthAndCharacterSet(_ pin: String, _ named: String) {
        let o = switchTo(pin: pin, fleet: W.fleet())
        #expect(o.result == .failed)
        #expect(o.decision.explanation.contains(named))
        #expect(o.pin.pin == nil, "a refused PIN is not stored")
    }

    /// Microsoft's simple-PIN setting: every 3-character sliding window (RULES.md §8).
    @Test(arguments: [
        ("1111", false), ("1234", false), ("4321", false), ("9876", false),
        ("1235", false), ("1112", false), ("5123", false), ("0987", false),
        ("1122", true), ("1357", true), ("2580", true), ("1397", true), ("9090", true),
    ])
    func simplePinsAreRefusedWindowByWindowWhenBlocked(_ pin: String, _ accepted: Bool) {
        let fleet = W.fleet(policy: policy { $0.simplePinBlocked = true })
        let o = switchTo(pin: pin, fleet: fleet)
        #expect((o.result == .success) == accepted, "\(pin): \(o.decision.explanation)")
        if !accepted { #expect(o.decision.explanation.contains("simplePinBlocked")) }
        #expect(switchTo(pin: pin, fleet: W.fleet()).result == .success, "allowed without simplePinBlocked")
    }

    /// Passcode type: with simple PINs allowed, a letter or a special character; blocked, a
    /// digit, a letter and a special character (Microsoft's note on the Simple PIN setting).
    @Test(arguments: [
        ("123456", false, false), ("abcfgh", false, true), ("1a2b3c", false, true), ("12-45!", false, true),
        ("a1b2c3", true, false), ("a1-b2c", true, true), ("zz!9q7", true, true), ("abc!9q", true, false),
    ])
    func passcodeCharacterClasses(_ pin: String, _ simpleBlocked: Bool, _ accepted: Bool) {
        let fleet = W.fleet(policy: policy { $0.pinCharacterSet = .alphanumericAndSymbol; $0.minimumPinLength = 6; $0.simplePinBlocked = simpleBlocked })
        let o = switchTo(pin: pin, fleet: fleet)
        #expect((o.result == .success) == accepted, "\(pin), simplePinBlocked = \(simpleBlocked): \(o.decision.explanation)")
    }

    @Test func tooManyWrongPinsResetThePinUnderBlock() {
        let fleet = W.fleet(policy: policy { $0.maximumPinRetries = 2 })
        var state = PinState(pin: "2580")
        state = switchTo(pin: "1111", state: state, fleet: fleet).pin
        let second = switchTo(pin: "1111", state: state, fleet: fleet)
        #expect(second.result == .failed && second.action == .block)
        #expect(second.pin.pin == nil && second.pin.failedAttempts == 0, "block = reset PIN")
        #expect(second.pin.previous == ["2580"], "the reset PIN still counts for previousPinBlockCount")
        #expect(second.decision.explanation.contains("maximumPinRetries = 2"))
    }

    /// periodBeforePinReset (Graph iosManagedAppProtection): a PIN older than the period is
    /// replaced at the next prompt by the PIN entered, which may not be the expired one;
    /// previousPinBlockCount is Android-only (memdocs) and refuses nothing on iOS. Days since the PIN was set, the PIN
    /// entered, the history kept → accepted (and the new history) or refused.
    @Test(arguments: [
        (29.0, "2580", ["1357"], true, ["1357"]),            // not expired: the current PIN opens
        (30.0, "2580", ["1357"], false, ["1357"]),           // expired: the same PIN is refused
        (30.0, "1357", ["1357"], true, ["2580", "1357"]),    // one of the last 2: previousPinBlockCount is Android's, ignored
        (30.0, "9024", ["1357", "4680"], true, ["2580", "1357", "4680"]),
        (30.0, "4680", ["1357", "8642", "4680"], true, ["2580", "1357", "8642", "4680"]), // third back: out of the last 2
    ])
    func anExpiredPinIsReplacedByANewOne(days: Double, entered: String, previous: [String], accepted: Bool, history: [String]) {
        let fleet = W.fleet(policy: policy { $0.periodBeforePinReset = ISODuration("P30D")!; $0.previousPinBlockCount = 2 })
        let set = Instant(secondsSince1970: Self.now.secondsSince1970 - days * 86_400)
        let o = switchTo(pin: entered, state: PinState(pin: "2580", setAt: set, previous: previous), fleet: fleet)
        #expect((o.result == .success) == accepted, "\(days) days, \(entered): \(o.decision.explanation)")
        #expect(o.pin.previous == history)
        if accepted && days >= 30 {
            #expect(o.pin.pin == entered && o.pin.setAt == Self.now && o.warnings.contains { $0.contains("periodBeforePinReset = P30D") })
        }
        if !accepted { #expect(o.decision.blockedBy == .conditionalLaunch && o.decision.explanation.contains("refuses the new PIN")) }
    }

    /// RULES §8: whether the PIN is asked at a switch — to set it; after
    /// periodOnlineBeforeAccessCheck since the publisher's last access; once expired
    /// (periodBeforePinReset); always with a period of zero; never without pinRequired.
    @Test(arguments: [
        // (PIN set, minutes since last access (nil: none recorded), period, days since set, pinRequired) → asked
        (false, nil as Double?, "PT30M", 0.0, true, true),
        (true, 5.0, "PT30M", 0.0, true, false),
        (true, 29.9, "PT30M", 0.0, true, false),
        (true, 30.0, "PT30M", 0.0, true, true),
        (true, nil, "PT30M", 0.0, true, true),
        (true, 5.0, "PT0S", 0.0, true, true),
        (true, 5.0, "PT30M", 31.0, true, true),          // expired after P30D
        (true, 45.0, "PT30M", 0.0, false, false),
    ])
    func thePinIsAskedOutsideTheRecheckWindow(set: Bool, minutes: Double?, period: String, days: Double, required: Bool, asked: Bool) {
        var p = IosManagedAppProtection()
        p.pinRequired = required
        p.periodOnlineBeforeAccessCheck = ISODuration(period)!
        p.periodBeforePinReset = ISODuration("P30D")!
        let now = Self.now
        let state = PinState(pin: set ? "2580" : nil, setAt: Instant(secondsSince1970: now.secondsSince1970 - days * 86_400),
                             lastAccess: minutes.map { Instant(secondsSince1970: now.secondsSince1970 - $0 * 60) })
        #expect(state.isAsked(under: p, at: now) == asked)
        // At a switch: not asked, a wrong PIN typed is no wrong entry.
        let o = switchTo(pin: "1111", state: state, fleet: W.fleet(policy: { var q = policy { _ in }; q.pinRequired = required
            q.periodOnlineBeforeAccessCheck = p.periodOnlineBeforeAccessCheck; q.periodBeforePinReset = p.periodBeforePinReset; return q }()))
        if set, !asked { #expect(o.result == .success && o.pin.lastAccess == now, "\(o.decision)") }
    }

    /// periodOnlineBeforeAccessCheck (admin center: recheck the access requirements after this
    /// many minutes of inactivity): back after that long in the background, an app showing a
    /// managed account asks for its PIN again. Minutes in the background, PIN entered → the
    /// result, and whether the PIN was asked at all.
    @Test(arguments: [
        (nil as Double?, nil as String?, IdentitySwitchResult.success),  // a launch, or no pause
        (29.0, nil, .success),                                           // not long enough
        (30.0, nil, .failed),                                            // asked, none entered
        (30.0, "2580", .success),
        (45.0, "1111", .failed),                                         // wrong: counts
    ])
    func inactivityAsksForThePinAgain(minutes: Double?, entered: String?, expected: IdentitySwitchResult) throws {
        let fleet = W.fleet(policy: policy { $0.periodOnlineBeforeAccessCheck = ISODuration("PT30M")! })
        let o = try #require(Enforcer.launchChecks(for: W.alice, facts: LaunchFacts(now: Self.now), app: World.mine, in: fleet,
                                                   inactiveFor: minutes.map { $0 * 60 }, enteredPin: entered, pin: PinState(pin: "2580")))
        #expect(o.result == expected, "\(minutes ?? 0) min, \(entered ?? "no PIN"): \(o.decision.explanation)")
        if expected == .failed { #expect(o.decision.blockedBy == .conditionalLaunch) }
        if entered == "1111" { #expect(o.pin.failedAttempts == 1) }
        if minutes == 30, entered == nil { #expect(o.decision.explanation.contains("periodOnlineBeforeAccessCheck = PT30M")) }
        // No PIN set yet (an account shown without one): nothing to ask again.
        #expect(Enforcer.launchChecks(for: W.alice, facts: LaunchFacts(now: Self.now), app: World.mine, in: fleet, inactiveFor: 3600)?.result == .success)
    }

    @Test func aPinWithNoKnownAgeNeverExpires() {
        let fleet = W.fleet(policy: policy { $0.periodBeforePinReset = ISODuration("P1D")! })
        #expect(switchTo(pin: "2580", state: PinState(pin: "2580"), fleet: fleet).result == .success)
    }

    @Test func tooManyWrongPinsWipeUnderWipe() {
        let fleet = W.fleet(policy: policy { $0.maximumPinRetries = 1; $0.appActionIfMaximumPinRetriesExceeded = .wipe })
        let o = switchTo(pin: "1111", state: PinState(pin: "2580"), fleet: fleet)
        #expect(o.result == .failed && o.action == .wipe)
    }

    @Test func jailbrokenDeviceFailsWithTheComplianceAction() {
        let fleet = W.fleet(policy: policy { $0.appActionIfDeviceComplianceRequired = .wipe }, device: DeviceFacts(jailbroken: true))
        let o = switchTo(fleet: fleet)
        #expect(o.result == .failed && o.action == .wipe && o.decision.blockedBy == .conditionalLaunch)
        #expect(o.decision.explanation.contains("jailbroken"))
        let lax = W.fleet(policy: policy { $0.deviceComplianceRequired = false }, device: DeviceFacts(jailbroken: true))
        #expect(switchTo(fleet: lax).result == .success)
    }

    @Test func osVersionLimitsBlockWarnAndWipe() {
        let ios17 = DeviceFacts(osVersion: Version("17.2")!)
        #expect(switchTo(fleet: W.fleet(policy: policy { $0.minimumRequiredOsVersion = Version("17.4") }, device: ios17)).action == .block)
        #expect(switchTo(fleet: W.fleet(policy: policy { $0.minimumWipeOsVersion = Version("17.4") }, device: ios17)).action == .wipe)
        let warned = switchTo(fleet: W.fleet(policy: policy { $0.minimumWarningOsVersion = Version("17.4") }, device: ios17))
        #expect(warned.result == .success && warned.warnings.count == 1)
        #expect(switchTo(fleet: W.fleet(policy: policy { $0.maximumRequiredOsVersion = Version("17.0") }, device: ios17)).result == .failed)
        #expect(switchTo(fleet: W.fleet(policy: policy { $0.maximumRequiredOsVersion = Version("17.2") }, device: ios17)).result == .success)
    }

    /// Graph: the wipe floors wipe versions less than **or equal to** the floor; the required and
    /// warning floors act only below theirs (RULES §8). One row per floor and version.
    @Test(arguments: [
        // (floor, version, action expected)
        ("minimumWipeOsVersion", "17.4", "17.4", RemediationAction?.some(.wipe)),
        ("minimumWipeOsVersion", "17.4", "17.4.0", .wipe),
        ("minimumWipeOsVersion", "17.4", "17.5", nil),
        ("minimumRequiredOsVersion", "17.4", "17.4", nil),
        ("minimumWarningOsVersion", "17.4", "17.4", nil),
        ("minimumWipeAppVersion", "2.0", "2.0", .wipe),
        ("minimumWipeAppVersion", "2.0", "2.0.1", nil),
        ("minimumRequiredAppVersion", "2.0", "2.0", nil),
        ("minimumWipeSdkVersion", "19.0", "19.0", .wipe),
        ("minimumWipeSdkVersion", "19.0", "19.1", nil),
        ("minimumRequiredSdkVersion", "19.0", "19.0", nil),
    ])
    func wipeFloorsTakeTheFloorItself(floor: String, limit: String, version: String, expected: RemediationAction?) {
        let floorVersion = Version(limit)!, actual = Version(version)!
        let p = policy {
            switch floor {
            case "minimumWipeOsVersion": $0.minimumWipeOsVersion = floorVersion
            case "minimumRequiredOsVersion": $0.minimumRequiredOsVersion = floorVersion
            case "minimumWarningOsVersion": $0.minimumWarningOsVersion = floorVersion
            case "minimumWipeAppVersion": $0.minimumWipeAppVersion = floorVersion
            case "minimumRequiredAppVersion": $0.minimumRequiredAppVersion = floorVersion
            case "minimumWipeSdkVersion": $0.minimumWipeSdkVersion = floorVersion
            default: $0.minimumRequiredSdkVersion = floorVersion
            }
        }
        let onOS = floor.contains("Os")
        let device = DeviceFacts(osVersion: onOS ? actual : Version("26.0")!)
        let facts = LaunchFacts(now: Self.now, appVersion: floor.contains("App") ? actual : Version("9.9"),
                                sdkVersion: floor.contains("Sdk") ? actual : Version("99.0"))
        let o = switchTo(facts: facts, fleet: W.fleet(policy: p, device: device))
        #expect(o.action == expected, "\(floor) \(limit), version \(version): \(o.decision.explanation)")
        if expected == .wipe { #expect(o.decision.explanation.contains(actual == floorVersion ? "is at \(floor)" : "below")) }
    }

    @Test func appAndSdkMinimumsApplyWhenVersionsAreKnown() {
        let fleet = W.fleet(policy: policy { $0.minimumRequiredAppVersion = Version("2.0"); $0.minimumWipeSdkVersion = Version("19.0") })
        let old = LaunchFacts(now: Self.now, appVersion: Version("1.9"))
        #expect(switchTo(facts: old, fleet: fleet).action == .block)
        let oldSdk = LaunchFacts(now: Self.now, appVersion: Version("2.1"), sdkVersion: Version("17.7.1"))
        #expect(switchTo(facts: oldSdk, fleet: fleet).action == .wipe)
        #expect(switchTo(facts: LaunchFacts(now: Self.now), fleet: fleet).result == .success)
    }

    @Test func offlineLongerThanTheAccessCheckBlocksAndLongerThanTheWipePeriodWipes() {
        let fleet = W.fleet()  // defaults: PT12H and P90D
        let lastCheckIn = Self.now
        let after11h = LaunchFacts(now: lastCheckIn.advanced(by: ISODuration("PT11H")!), lastCheckIn: lastCheckIn)
        #expect(switchTo(facts: after11h, fleet: fleet).result == .success)
        let after13h = LaunchFacts(now: lastCheckIn.advanced(by: ISODuration("PT13H")!), lastCheckIn: lastCheckIn)
        let blocked = switchTo(facts: after13h, fleet: fleet)
        #expect(blocked.action == .block && blocked.decision.explanation.contains("periodOfflineBeforeAccessCheck PT12H"))
        let after91d = LaunchFacts(now: lastCheckIn.advanced(by: ISODuration("P91D")!), lastCheckIn: lastCheckIn)
        #expect(switchTo(facts: after91d, fleet: fleet).action == .wipe)
    }

    @Test func nonPositiveOfflinePeriodsDisableTheCheck() {
        let fleet = W.fleet(policy: policy { $0.periodOfflineBeforeAccessCheck = ISODuration("-PT17.1357909S")! })
        let later = LaunchFacts(now: Self.now.advanced(by: ISODuration("PT1H")!), lastCheckIn: Self.now)
        #expect(switchTo(facts: later, fleet: fleet).result == .success)
    }

    @Test func disabledAccountFailsWithTheAuthenticationAction() {
        let o = switchTo(facts: LaunchFacts(now: Self.now, accountDisabled: true), fleet: W.fleet())
        #expect(o.result == .failed && o.action == .block)
    }

    @Test func switchingToAnAccountNotSignedInIsNotAllowed() {
        let o = switchTo(W.carol, fleet: W.fleet())
        #expect(o.result == .notAllowed && o.decision.blockedBy == .identitySwitchNotAllowed)
    }

    @Test func switchingToUnmanagedIdentitiesNeedsNoPin() {
        let fleet = W.fleet(policy: policy { $0.minimumRequiredOsVersion = Version("99") })
        #expect(switchTo(Account(upn: ""), pin: nil, fleet: fleet).result == .success)
        #expect(switchTo(nil, pin: nil, fleet: fleet).result == .success)
        #expect(switchTo(W.bob, pin: nil, fleet: fleet).result == .success)
        #expect(switchTo(W.alice, pin: "2580", fleet: fleet).result == .failed)
    }
}

@Suite("Conditional launch when an app is launched or resumed")
struct LaunchChecksTests {
    typealias W = World
    static let now = Instant(iso8601: "2026-01-01T09:00:00Z")!

    func fleet(jailbroken: Bool = false, os: String = "18.4", model: String = "iPhone15,2",
               _ change: (inout IosManagedAppProtection) -> Void = { _ in }) -> Fleet {
        var p = W.strictPolicy()
        change(&p)
        return W.fleet(policy: p, device: DeviceFacts(jailbroken: jailbroken, osVersion: Version(os)!, model: model))
    }

    /// Each row: device and app facts → the action conditional launch takes at launch
    /// (`nil` = the app opens). The PIN is never asked at launch.
    @Test(arguments: [
        ("nothing wrong", false, "18.4", "iPhone15,2", nil as String?, 0.0, nil as RemediationAction?),
        ("jailbroken", true, "18.4", "iPhone15,2", nil, 0, .block),
        ("OS below the minimum", false, "16.0", "iPhone15,2", nil, 0, .block),
        ("model not allowed", false, "18.4", "iPad13,1", nil, 0, .block),
        ("app below minimumRequiredAppVersion", false, "18.4", "iPhone15,2", "1.9", 0, .block),
        ("app at the minimum", false, "18.4", "iPhone15,2", "2.0", 0, nil),
        ("offline 11 h", false, "18.4", "iPhone15,2", nil, 11, nil),
        ("offline 13 h", false, "18.4", "iPhone15,2", nil, 13, .block),
        ("offline 91 days", false, "18.4", "iPhone15,2", nil, 91 * 24, .wipe),
    ])
    func launchTable(row: String, jailbroken: Bool, os: String, model: String, appVersion: String?, hoursOffline: Double,
                     expected: RemediationAction?) throws {
        let fleet = fleet(jailbroken: jailbroken, os: os, model: model) {
            $0.pinRequired = true
            $0.deviceComplianceRequired = true
            $0.appActionIfDeviceComplianceRequired = .block
            $0.minimumRequiredOsVersion = Version("17.0")
            $0.allowedIosDeviceModels = "iPhone15,2;iPhone16,1"
            $0.appActionIfIosDeviceModelNotAllowed = .block
            $0.minimumRequiredAppVersion = Version("2.0")
        }
        let facts = LaunchFacts(now: Self.now.advanced(by: ISODuration("PT\(Int(hoursOffline))H")!), lastCheckIn: Self.now,
                                appVersion: appVersion.flatMap(Version.init))
        let outcome = try #require(Enforcer.launchChecks(for: W.alice, facts: facts, app: World.mine, in: fleet), "\(row)")
        #expect(outcome.action == expected, "\(row): \(outcome.decision)")
        #expect(outcome.result == (expected == nil ? .success : .failed), "\(row)")
        if expected != nil { #expect(outcome.decision.blockedBy == .conditionalLaunch, "\(row)") }
    }

    @Test func unmanagedAccountsAreNotChecked() {
        #expect(Enforcer.launchChecks(for: W.bob, facts: LaunchFacts(now: Self.now), app: World.mine, in: fleet(jailbroken: true)) == nil)
    }

    @Test func thePinIsNotAskedAtLaunch() throws {
        let o = try #require(Enforcer.launchChecks(for: W.alice, facts: LaunchFacts(now: Self.now), app: World.mine, in: fleet { $0.pinRequired = true }))
        #expect(o.result == .success)
    }
}
