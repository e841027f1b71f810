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

    /// A value of an app-config key the SDK itself enforces, as the SDK reads it: without the
    /// spaces, tabs and line breaks around it (SDK 22.2), so `" Disabled\n"` is `Disabled`.
    public static func sdkConfigValue(_ value: String) -> String {
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

    /// `isScreenCaptureAllowed` (RULES.md §7): `screenCaptureConfigurationState = blocked`
    /// forbids it; otherwise a managed identity whose outbound is not `allApps` may not
    /// capture unless the app configuration sets `screencapturecontrol = Disabled`.
    public static func isScreenCaptureAllowed(for identity: Account?, appConfig: [String: String] = [:], app: BundleID, in fleet: Fleet) -> Bool {
        guard let p = fleet.managedEntry(identity, in: app)?.policy else { return true }
        if p.screenCaptureConfigurationState == .blocked { return false }
        if p.allowedOutboundDataTransferDestinations == .allApps { return true }
        let control = appConfig.first { $0.key.lowercased() == screenCaptureConfigKey }?.value
        return control.map(sdkConfigValue)?.lowercased() == "disabled"
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
