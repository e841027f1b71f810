public import MAMModel

/// What a notification shows, or that it is not shown.
public struct NotificationDecision: Sendable, Hashable {
    public let decision: Verdict
    /// The text shown; `nil` when the notification is blocked.
    public let shownText: String?

    public init(decision: Verdict, shownText: String?) {
        self.decision = decision
        self.shownText = shownText
    }
}

extension Enforcer {
    /// The text shown instead of org data under `blockOrganizationalData`.
    public static let genericNotificationText = "You have new content"

    /// The app-config key and value that let screen capture through (RULES.md §7).
    public static let screenCaptureConfigKey = "com.microsoft.intune.mam.screencapturecontrol"

    /// A value of an app-config key the SDK itself enforces, as the SDK reads it: from SDK
    /// 22.2.0 on (or an app that does not say its SDK: the SDK as it ships) without the spaces,
    /// tabs and line breaks around it, so `" Disabled\n"` is `Disabled`; before, as written
    /// (SDKVersionFloors.trimsAppConfigValues).
    public static func sdkConfigValue(_ value: String, sdkVersion: String? = nil) -> String {
        if let written = sdkVersion, let version = Version(written), version < SDKVersionFloors.trimsAppConfigValues { return value }
        var s = Substring(value)
        while let c = s.first, c.isWhitespace { s = s.dropFirst() }
        while let c = s.last, c.isWhitespace { s = s.dropLast() }
        return String(s)
    }

    /// Decides printing data of the identity `identity` (the app's effective UI identity).
    public static func print(as identity: Account?, app: BundleID, in fleet: Fleet) -> Verdict {
        guard let e = fleet.managedEntry(identity, in: app) else { return .allowed("\(unmanagedReason(identity, in: app, fleet)): printing is not restricted") }
        if e.policy!.printBlocked {
            return .blocked(.printBlocked, because: "\(e.subject) blocks printing org data (printBlocked = true)")
        }
        return .allowed("\(e.subject) allows printing org data (printBlocked = false)")
    }

    /// Decides a notification carrying `text` of `account`'s data (`notificationRestriction`).
    public static func notification(_ text: String, of account: Account?, app: BundleID, in fleet: Fleet) -> NotificationDecision {
        guard let e = fleet.managedEntry(account, in: app) else {
            return NotificationDecision(decision: .allowed("\(unmanagedReason(account, in: app, fleet)): the notification is shown as sent"), shownText: text)
        }
        switch e.policy!.notificationRestriction {
        case .allow:
            return NotificationDecision(decision: .allowed("\(e.subject) shows org data in notifications"), shownText: text)
        case .blockOrganizationalData:
            return NotificationDecision(decision: .allowed("\(e.subject) hides org data in notifications (notificationRestriction = blockOrganizationalData); a generic text is shown"),
                                        shownText: genericNotificationText)
        case .block:
            return NotificationDecision(decision: .blocked(.notificationBlocked, because: "\(e.subject) blocks notifications with org data (notificationRestriction = block)"),
                                        shownText: nil)
        }
    }

    /// `areSiriIntentsAllowed`: false for a managed identity unless outbound is `allApps`.
    public static func areSiriIntentsAllowed(for identity: Account?, app: BundleID, in fleet: Fleet) -> Bool {
        !restricts(.siriIntents, for: identity, app: app, in: fleet)
    }

    /// `areAppIntentsAllowed`: false for a managed identity unless outbound is `allApps`.
    public static func areAppIntentsAllowed(for identity: Account?, app: BundleID, in fleet: Fleet) -> Bool {
        !restricts(.appIntents, for: identity, app: app, in: fleet)
    }

    /// `isAppSharingAllowed`: our reading is "org data may be shared with some app", i.e.
    /// outbound is not `none` (an exempted scheme alone does not make app sharing possible).
    public static func isAppSharingAllowed(for identity: Account?, app: BundleID, in fleet: Fleet) -> Bool {
        !restricts(.appSharing, for: identity, app: app, in: fleet)
    }

    /// `isScreenCaptureAllowed` (RULES.md §7), `screenCaptureRule`'s answer.
    public static func isScreenCaptureAllowed(for identity: Account?, appConfig: [String: String] = [:], app: BundleID, in fleet: Fleet) -> Bool {
        let control = appConfig.first { $0.key.lowercased() == screenCaptureConfigKey }.map { sdkConfigValue($0.value, sdkVersion: fleet.app(app)?.sdkVersion) }
        return screenCaptureRule(for: identity, app: app, sdkVersion: fleet.app(app)?.sdkVersion, appConfigControl: control, in: fleet).isAllowed
    }

    /// Whether a managed screen may be captured (RULES.md §7), one rule for every question about
    /// it. An app linking SDK 20.4.0 or later (or saying nothing, taken as current) follows
    /// `screenCaptureConfigurationState` when the admin set it: `blocked` blocks, `notBlocked`
    /// allows. Otherwise the older rule: a managed identity whose outbound is not `allApps`
    /// may not capture, unless the app configuration sets `screencapturecontrol = Disabled` or
    /// the app links an SDK older than 19.7.6 (seed 000: the block came with 19.7.6).
    public static func screenCaptureRule(for identity: Account?, app: BundleID, sdkVersion: String?, appConfigControl control: String?,
                                         in fleet: Fleet) -> Verdict {
        guard let e = fleet.managedEntry(identity, in: app), let p = e.policy else {
            return .allowed("\(unmanagedReason(identity, in: app, fleet)): screen capture is not restricted")
        }
        let sdk = sdkVersion.flatMap(Version.init)
        let state = p.screenCaptureConfigurationState
        if state.isConfigured, sdk.map({ $0 >= screenCaptureSettingSDK }) ?? true {
            return state == .blocked
                ? .blocked(.screenCaptureBlocked, because: "\(e.subject) blocks screen capture (screenCaptureConfigurationState = blocked, which governs it since SDK \(screenCaptureSettingSDK))")
                : .allowed("\(e.subject) allows screen capture (screenCaptureConfigurationState = \(state.rawValue), which governs it since SDK \(screenCaptureSettingSDK))")
        }
        let setting = state.isConfigured ? "; \(app) links Intune SDK \(sdkVersion ?? ""), older than \(screenCaptureSettingSDK): screenCaptureConfigurationState does not apply" : ""
        if p.allowedOutboundDataTransferDestinations == .allApps {
            return .allowed("\(e.subject) sends org data to all apps: screen capture is allowed\(setting)")
        }
        if control?.lowercased() == "disabled" {
            return .allowed("\(e.subject) sends org data to \(p.allowedOutboundDataTransferDestinations.rawValue), but the app configuration sets \(screenCaptureConfigKey) = \(control ?? ""): screen capture is allowed\(setting)")
        }
        // Seed 000: the block that comes with restricted sending applies to apps updated to SDK
        // 19.7.6 or later (Xcode 15; 20.2.1 for Xcode 16). An app that says it links an older
        // SDK does not enforce it; one that says nothing is taken as current.
        if let written = sdkVersion, let sdk, sdk < screenCaptureBlockSDK {
            return .allowed("\(app) links Intune SDK \(written), older than \(screenCaptureBlockSDK): the screen-capture block that comes with restricted sending (\(e.subject): \(p.allowedOutboundDataTransferDestinations.rawValue)) does not apply")
        }
        let hint = control.map { "; \(screenCaptureConfigKey) is \"\($0)\", not Disabled" } ?? "; an app configuration with \(screenCaptureConfigKey) = Disabled would allow it"
        return .blocked(.screenCaptureBlocked, because: "\(e.subject) sends org data to \(p.allowedOutboundDataTransferDestinations.rawValue), not to all apps: screen capture of org data is blocked\(hint)\(setting)")
    }

    /// `isFileEncryptionRequired`: every managed identity's files are encrypted
    /// (`appDataEncryptionType`, which only chooses when).
    public static func isFileEncryptionRequired(for identity: Account?, app: BundleID, in fleet: Fleet) -> Bool {
        restricts(.fileEncryption, for: identity, app: app, in: fleet)
    }

    public static func isContactSyncBlocked(for identity: Account?, app: BundleID, in fleet: Fleet) -> Bool {
        restricts(.contactSync, for: identity, app: app, in: fleet)
    }

    public static func isDataBackupBlocked(for identity: Account?, app: BundleID, in fleet: Fleet) -> Bool {
        restricts(.backup, for: identity, app: app, in: fleet)
    }

    public static func areThirdPartyKeyboardsBlocked(for identity: Account?, app: BundleID, in fleet: Fleet) -> Bool {
        restricts(.thirdPartyKeyboards, for: identity, app: app, in: fleet)
    }
}
