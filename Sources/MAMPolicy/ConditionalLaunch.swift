public import MAMModel

/// The result of an identity switch, as the SDK reports it (`IntuneMAMSwitchIdentityResult`).
public enum IdentitySwitchResult: String, Sendable, Hashable, CaseIterable {
    case success, canceled, notAllowed, failed
}

/// The facts conditional launch checks besides the device (RULES.md §8).
public struct LaunchFacts: Sendable, Hashable {
    /// The simulated time of the switch.
    public var now: Instant
    /// When the app last checked in with the Intune service; `nil` = just now.
    public var lastCheckIn: Instant?
    /// `CFBundleShortVersionString` of the app; `nil` = unknown (app-version checks skipped).
    public var appVersion: Version?
    /// The Intune SDK version the app links; `nil` = unknown (SDK checks skipped).
    public var sdkVersion: Version?
    /// Whether the account is disabled in Entra (the user can no longer authenticate).
    public var accountDisabled: Bool

    public init(now: Instant, lastCheckIn: Instant? = nil, appVersion: Version? = nil, sdkVersion: Version? = nil,
                accountDisabled: Bool = false) {
        self.now = now
        self.lastCheckIn = lastCheckIn
        self.appVersion = appVersion
        self.sdkVersion = sdkVersion
        self.accountDisabled = accountDisabled
    }
}

/// What switching to an identity came to: the SDK result, the decision, the action the host
/// must carry out (`wipe` = selective wipe of the account in the app), the PIN state to store
/// and any warnings to show.
public struct IdentitySwitchOutcome: Sendable, Hashable {
    public let result: IdentitySwitchResult
    public let decision: Verdict
    /// The conditional-launch action that fired (`block`, `wipe`), or `nil`.
    public let action: RemediationAction?
    public let pin: PinState
    /// Sentences for checks whose action is `warn`; the switch still succeeds.
    public let warnings: [String]
}

extension Enforcer {
    /// Whether two accounts belong to one organization: the same tenant when both say theirs,
    /// else the same domain after the `@` of their UPNs.
    static func sameOrganization(_ a: Account, _ b: Account) -> Bool {
        if !a.tenant.isEmpty, !b.tenant.isEmpty { return a.tenant.lowercased() == b.tenant.lowercased() }
        func domain(_ upn: String) -> String? { upn.split(separator: "@").count == 2 ? upn.split(separator: "@")[1].lowercased() : nil }
        guard let x = domain(a.upn), let y = domain(b.upn) else { return false }
        return x == y
    }

    /// `IntuneMAMSwitchIdentityResultNotAllowed` when the app's main thread carries a thread
    /// identity (`setCurrentThreadAccountId`, not cleared) other than the one it switches its UI
    /// to (`IntuneMAMPolicyManager.h`: the app must clear it first). `mainThread`: `nil` = none
    /// set, `""` = unmanaged; `account`: `nil` or `""` = unmanaged. Accounts compare by UPN or
    /// OID. `nil` when the switch may go on.
    public static func mainThreadConflict(switchingTo account: String?, mainThread: String?, in fleet: Fleet) -> Verdict? {
        guard let mainThread else { return nil }
        let target = account ?? ""
        func same(_ a: String, _ b: String) -> Bool {
            if a.isEmpty || b.isEmpty { return a.isEmpty && b.isEmpty }
            let x = fleet.account(named: a) ?? Account(upn: a), y = fleet.account(named: b) ?? Account(upn: b)
            return x.isSame(as: y)
        }
        guard !same(target, mainThread) else { return nil }
        let shown = { (s: String) in s.isEmpty ? "the unmanaged identity" : s }
        return .blocked(.identitySwitchNotAllowed, because: "the main thread's identity is \(shown(mainThread)), not \(shown(target)), the identity switched to: the app must clear its main thread's identity before it switches")
    }

    /// Decides switching an app's identity to `account` (RULES.md §1, §8).
    ///
    /// `nil`, `""` and unmanaged accounts succeed without checks. A managed account must be
    /// signed in to the app (`signedIn`) and allowed; then conditional launch runs in order:
    /// PIN (set on the first switch, verified later; `enteredPin == nil` means the user
    /// dismissed the prompt ⇒ `canceled`), jailbreak, OS min/max, device model, app and SDK
    /// minimums, offline periods, disabled account. `block`/`wipe` end in `failed` with
    /// `conditional-launch`; `warn` adds a warning and goes on.
    ///
    /// `newPin`: the user changes the app PIN at this switch — the current PIN is asked
    /// (`enteredPin`) whatever the recheck window, then the new one replaces it (PIN rules
    /// apply; it may not be the current one).
    public static func switchIdentity(to account: Account?, signedIn: [Account], enteredPin: String?, pin: PinState,
                                      facts: LaunchFacts, app: BundleID, in fleet: Fleet, newPin: String? = nil) -> IdentitySwitchOutcome {
        guard let account, !account.isEmpty else {
            return IdentitySwitchOutcome(result: .success, decision: .allowed("switched to the unmanaged identity: no policy applies"),
                                         action: nil, pin: pin, warnings: [])
        }
        guard signedIn.contains(where: { $0.isSame(as: account) }) else {
            return IdentitySwitchOutcome(result: .notAllowed,
                                         decision: .blocked(.identitySwitchNotAllowed, because: "\(account) is not signed in to this app"),
                                         action: nil, pin: pin, warnings: [])
        }
        let allowed = isAccountAllowed(account, in: fleet)
        guard allowed.isAllowed else {
            return IdentitySwitchOutcome(result: .notAllowed,
                                         decision: .blocked(.identitySwitchNotAllowed, because: allowed.explanation),
                                         action: nil, pin: pin, warnings: [])
        }
        // IntuneMAMSwitchIdentityResultNotAllowed: an identity that is not the enrolled user's
        // but belongs to the same organization (RULES.md §5).
        if let enrolled = signedIn.first(where: { fleet.isManaged($0) }), !enrolled.isSame(as: account),
           sameOrganization(enrolled, account) {
            return IdentitySwitchOutcome(result: .notAllowed,
                                         decision: .blocked(.identitySwitchNotAllowed, because: "\(account) belongs to the organization of \(enrolled), the enrolled account, but is not it: the SDK does not switch to it"),
                                         action: nil, pin: pin, warnings: [])
        }
        guard let entry = fleet.managedEntry(account, in: app) else {
            let why = !fleet.isManaged(account) ? "\(account), an unmanaged account"
                : fleet.isInactive(account, in: app) ? "\(account), who is not enrolled in \(app) (deregistered, or its enrollment refused there): no conditional launch runs there"
                : "\(account), whose policy does not target \(app): no conditional launch runs there"
            return IdentitySwitchOutcome(result: .success, decision: .allowed("switched to \(why)"),
                                         action: nil, pin: pin, warnings: [])
        }
        // Within the recheck window of the publisher's last access no PIN is asked, and what the
        // user would type is never typed (RULES.md §8).
        let asked = pin.isAsked(under: entry.policy!, at: facts.now) || newPin != nil
        if newPin != nil {
            guard entry.policy!.pinRequired, pin.pin != nil else {
                return IdentitySwitchOutcome(result: .failed,
                                             decision: .blocked(.conditionalLaunch, because: "\(entry.subject) has no app PIN to change yet: the first switch to the account sets it"),
                                             action: nil, pin: pin, warnings: [])
            }
        }
        return conditionalLaunch(entry: entry, enteredPin: asked ? enteredPin : nil, pin: pin, facts: facts, device: fleet.device, asksPin: asked,
                                 newPin: newPin)
    }

    /// Conditional launch when an app showing `account`'s data is launched or resumed
    /// (RULES.md §8): a single-identity app whose process identity is managed, or a window
    /// a relaunched app restores. Every check but the PIN runs; the PIN is asked only after
    /// `periodOnlineBeforeAccessCheck` since the last access of the PIN's publisher
    /// (`pin.lastAccess`; for a PIN kept from before that was recorded, `inactiveFor`, seconds
    /// in the background), checked against `pin` as at a switch, wrong entries counting.
    /// `nil` when `account` is not managed (nothing to check).
    public static func launchChecks(for account: Account, facts: LaunchFacts, app: BundleID, in fleet: Fleet,
                                    inactiveFor: Double? = nil, enteredPin: String? = nil, pin: PinState = PinState()) -> IdentitySwitchOutcome? {
        guard let entry = fleet.managedEntry(account, in: app) else { return nil }
        let p = entry.policy!
        let period = p.periodOnlineBeforeAccessCheck
        // Inactivity runs from the publisher's last access (a switch, launch or resume to the
        // managed identity); a PIN kept from before that was recorded, from the pause.
        let idle = pin.lastAccess.map { facts.now.seconds(since: $0) } ?? inactiveFor ?? 0
        let asks = p.pinRequired && pin.pin != nil && period.seconds > 0 && idle >= period.seconds
        if asks, enteredPin == nil {
            return IdentitySwitchOutcome(result: .failed,
                                         decision: .blocked(.conditionalLaunch, because: "\(entry.subject) asks for the app PIN again after \(Int(idle / 60)) minutes without access to its data (periodOnlineBeforeAccessCheck = \(period)); none was entered"),
                                         action: nil, pin: pin, warnings: [])
        }
        return conditionalLaunch(entry: entry, enteredPin: asks ? enteredPin : nil, pin: pin, facts: facts, device: fleet.device, asksPin: asks)
    }

    static func conditionalLaunch(entry: AccountEntry, enteredPin: String?, pin: PinState, facts: LaunchFacts,
                                  device: DeviceFacts, asksPin: Bool = true, newPin: String? = nil) -> IdentitySwitchOutcome {
        let p = entry.policy!
        let subject = entry.subject
        var state = pin
        var warnings: [String] = []

        func fail(_ requested: RemediationAction, _ why: String) -> IdentitySwitchOutcome {
            // `blockWhenSettingIsSupported` blocks on iOS, which supports every setting here.
            let action: RemediationAction = requested == .blockWhenSettingIsSupported ? .block : requested
            let verb = action == .wipe ? "wipes the account's data" : "blocks access"
            return IdentitySwitchOutcome(result: .failed,
                                         decision: .blocked(.conditionalLaunch, because: "\(subject) \(verb): \(why)"),
                                         action: action == .warn ? nil : action, pin: state, warnings: warnings)
        }
        /// Applies `action` for a failed check; returns an outcome unless it only warns.
        func apply(_ action: RemediationAction, _ why: String) -> IdentitySwitchOutcome? {
            if action == .warn {
                warnings.append("\(subject) warns: \(why)")
                return nil
            }
            if action == .wipe, state.pin != nil { state = PinState() }
            return fail(action, why)
        }

        // 1. PIN.
        if asksPin, p.pinRequired {
            guard let entered = enteredPin else {
                return IdentitySwitchOutcome(result: .canceled,
                                             decision: .blocked(.identitySwitchCanceled, because: "\(subject) requires a PIN (pinRequired = true) and none was entered"),
                                             action: nil, pin: state, warnings: [])
            }
            if let current = state.pin, let set = state.setAt, p.periodBeforePinReset.seconds > 0,
               facts.now.secondsSince1970 - set.secondsSince1970 >= p.periodBeforePinReset.seconds {
                // The PIN has expired (periodBeforePinReset): the prompt asks for a new one, and
                // the PIN entered is that new one (our reading: the scenario gives one PIN per
                // switch; the device would ask for the old one first).
                let why = "the PIN set on \(set) expired (periodBeforePinReset = \(p.periodBeforePinReset))"
                // previousPinBlockCount (PIN history) is Android's: on iOS only the expired PIN
                // itself cannot be the new one (RULES.md §8).
                if entered == current {
                    let reused = "it is the expired PIN"
                    return IdentitySwitchOutcome(result: .failed,
                                                 decision: .blocked(.conditionalLaunch, because: "\(subject) refuses the new PIN: \(why), and \(reused)"),
                                                 action: nil, pin: state, warnings: [])
                }
                if let problem = PinRules.problem(with: entered, policy: p) {
                    return IdentitySwitchOutcome(result: .failed,
                                                 decision: .blocked(.conditionalLaunch, because: "\(subject) refuses the new PIN: \(why), and \(problem)"),
                                                 action: nil, pin: state, warnings: [])
                }
                state = PinState(pin: entered, failedAttempts: 0, setAt: facts.now,
                                 previous: Array(([current] + state.previous).prefix(PinState.historyLimit)))
                warnings.append("\(subject): \(why); the new PIN is set")
            } else if let current = state.pin {
                if entered != current {
                    state.failedAttempts += 1
                    if state.failedAttempts >= max(p.maximumPinRetries, 1) {
                        let why = "the PIN was entered wrong \(state.failedAttempts) times in a row (maximumPinRetries = \(p.maximumPinRetries))"
                        // `block` resets the PIN: the user must sign in again and set a new one.
                        state = PinState(previous: Array(([current] + state.previous).prefix(PinState.historyLimit)))
                        return fail(p.appActionIfMaximumPinRetriesExceeded == .warn ? .block : p.appActionIfMaximumPinRetriesExceeded,
                                    why + (p.appActionIfMaximumPinRetriesExceeded == .wipe ? "" : "; the PIN is reset"))
                    }
                    return IdentitySwitchOutcome(result: .failed,
                                                 decision: .blocked(.conditionalLaunch, because: "\(subject) requires the app PIN; the entered PIN is wrong (\(max(p.maximumPinRetries, 1) - state.failedAttempts) tries left)"),
                                                 action: nil, pin: state, warnings: [])
                }
                state.failedAttempts = 0
                // A PIN change: the current PIN was right; the new one must be a PIN of the
                // policy and another than the current one.
                if let newPin {
                    if let problem = newPin == current ? "it is the current PIN" : PinRules.problem(with: newPin, policy: p) {
                        return IdentitySwitchOutcome(result: .failed,
                                                     decision: .blocked(.conditionalLaunch, because: "\(subject) refuses the new PIN: \(problem)"),
                                                     action: nil, pin: state, warnings: [])
                    }
                    state = PinState(pin: newPin, failedAttempts: 0, setAt: facts.now,
                                     previous: Array(([current] + state.previous).prefix(PinState.historyLimit)), lastAccess: state.lastAccess)
                    warnings.append("\(subject): the app PIN is changed")
                }
            } else {
                if let problem = PinRules.problem(with: entered, policy: p) {
                    return IdentitySwitchOutcome(result: .failed,
                                                 decision: .blocked(.conditionalLaunch, because: "\(subject) refuses the new PIN: \(problem)"),
                                                 action: nil, pin: state, warnings: [])
                }
                state = PinState(pin: entered, failedAttempts: 0, setAt: facts.now, previous: state.previous)
            }
        }
        // 2. Jailbreak.
        if p.deviceComplianceRequired, device.jailbroken,
           let out = apply(p.appActionIfDeviceComplianceRequired, "the device is jailbroken (deviceComplianceRequired = true)") { return out }
        // 3. OS version.
        let os = device.osVersion
        let osChecks: [(Version?, Bool, RemediationAction, String)] = [
            (p.minimumWipeOsVersion, true, .wipe, "minimumWipeOsVersion"),
            (p.minimumRequiredOsVersion, true, .block, "minimumRequiredOsVersion"),
            (p.minimumWarningOsVersion, true, .warn, "minimumWarningOsVersion"),
            (p.maximumWipeOsVersion, false, .wipe, "maximumWipeOsVersion"),
            (p.maximumRequiredOsVersion, false, .block, "maximumRequiredOsVersion"),
            (p.maximumWarningOsVersion, false, .warn, "maximumWarningOsVersion"),
        ]
        // The wipe floors take the floor itself too (Graph: "less than or equal to"); the
        // required and warning floors only what is below.
        for (limit, isMinimum, action, name) in osChecks {
            guard let limit else { continue }
            // A check the app's SDK is too old for does not run there (SDKVersionFloors).
            if let sdk = facts.sdkVersion, let unmet = SDKVersionFloors.unmet(name, sdkVersion: sdk.text) {
                warnings.append("\(name) is not checked: the app links Intune SDK \(sdk), older than \(unmet.floor) (\(unmet.row.source))")
                continue
            }
            let atFloor = isMinimum && action == .wipe && os == limit
            if isMinimum ? (os < limit || atFloor) : os > limit,
               let out = apply(action, "iOS \(os) is \(atFloor ? "at" : isMinimum ? "below" : "above") \(name) \(limit)") { return out }
        }
        // 4. Device model.
        if let models = p.allowedIosDeviceModels {
            let allowedModels = models.split(separator: ";").map { $0.trimmingSpaces().lowercased() }.filter { !$0.isEmpty }
            if !allowedModels.isEmpty, !allowedModels.contains(device.model.lowercased()),
               let out = apply(p.appActionIfIosDeviceModelNotAllowed, "the device model \(device.model) is not in allowedIosDeviceModels") { return out }
        }
        // 5. App and SDK versions.
        let appChecks: [(Version?, Version?, RemediationAction, String, String)] = [
            (p.minimumWipeAppVersion, facts.appVersion, .wipe, "minimumWipeAppVersion", "the app version"),
            (p.minimumRequiredAppVersion, facts.appVersion, .block, "minimumRequiredAppVersion", "the app version"),
            (p.minimumWarningAppVersion, facts.appVersion, .warn, "minimumWarningAppVersion", "the app version"),
            (p.minimumWipeSdkVersion, facts.sdkVersion, .wipe, "minimumWipeSdkVersion", "the Intune SDK version"),
            (p.minimumRequiredSdkVersion, facts.sdkVersion, .block, "minimumRequiredSdkVersion", "the Intune SDK version"),
            (p.minimumWarningSdkVersion, facts.sdkVersion, .warn, "minimumWarningSdkVersion", "the Intune SDK version"),
        ]
        for (limit, actual, action, name, what) in appChecks {
            guard let limit, let actual else { continue }
            let atFloor = action == .wipe && actual == limit
            guard actual < limit || atFloor else { continue }
            if let out = apply(action, "\(what) \(actual) is \(atFloor ? "at" : "below") \(name) \(limit)") { return out }
        }
        // 6. Offline periods. A period of zero or less (Graph samples hold negative ones)
        // cannot be meant as "always offline": our reading is that it disables the check.
        if let last = facts.lastCheckIn {
            let offline = facts.now.seconds(since: last)
            let wipe = p.periodOfflineBeforeWipeIsEnforced, access = p.periodOfflineBeforeAccessCheck
            if wipe.seconds > 0, offline > wipe.seconds,
               let out = apply(.wipe, "the app has been offline \(describeSeconds(offline)), longer than periodOfflineBeforeWipeIsEnforced \(wipe)") { return out }
            if access.seconds > 0, offline > access.seconds,
               let out = apply(.block, "the app has been offline \(describeSeconds(offline)), longer than periodOfflineBeforeAccessCheck \(access); connect to the network to check in") { return out }
        }
        // 7. Disabled account.
        if facts.accountDisabled,
           let out = apply(p.appActionIfUnableToAuthenticateUser, "\(entry.account) is disabled and cannot authenticate") { return out }

        var note = warnings.isEmpty ? "" : " with warnings"
        if !asksPin, p.pinRequired, state.pin != nil, let last = pin.lastAccess {
            note += " (no PIN asked: its data was opened \(describeSeconds(facts.now.seconds(since: last))) ago, within periodOnlineBeforeAccessCheck = \(p.periodOnlineBeforeAccessCheck))"
        }
        state.lastAccess = facts.now
        return IdentitySwitchOutcome(result: .success,
                                     decision: .allowed("\(subject): conditional launch passed\(note)"),
                                     action: nil, pin: state, warnings: warnings)
    }

    static func describeSeconds(_ s: Double) -> String {
        if s >= 86_400 { return "\(Int(s / 86_400))d \(Int(s.truncatingRemainder(dividingBy: 86_400) / 3_600))h" }
        if s >= 3_600 { return "\(Int(s / 3_600))h \(Int(s.truncatingRemainder(dividingBy: 3_600) / 60))m" }
        return "\(Int(s))s"
    }
}
