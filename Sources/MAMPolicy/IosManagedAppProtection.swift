public import MAMModel

/// One `{name, value}` pair of Graph's `keyValuePair`, as in `exemptedAppProtocols`.
public struct KeyValuePair: Sendable, Hashable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// An iOS app protection policy, named and shaped exactly as Graph's
/// `iosManagedAppProtection` (plus the targeted app list), with Intune's defaults for every
/// property a document leaves out.
///
/// Property names are Graph's so a policy reads the same here, in the Intune portal's export
/// and in scenario files. Values that decisions look up per call (targeted apps, exempted
/// URL schemes) are also kept in folded form, computed when the property is set, so a
/// decision never lowercases or splits a string.
public struct IosManagedAppProtection: Sendable, Hashable {
    // MARK: Identity of the policy
    public var id: String?
    public var displayName: String = ""
    public var description: String = ""
    public var version: String?
    public var createdDateTime: String?
    public var lastModifiedDateTime: String?
    public var roleScopeTagIds: [String] = []
    public var isAssigned: Bool = false
    public var deployedAppCount: Int = 0

    // MARK: Targeting
    /// Targeted apps (bundle ids). Empty and not listed (`appsListed` false: no `apps` key, as a
    /// Graph collection read without `$expand=apps`, or a scenario policy without `apps:`) means
    /// every SDK-integrated app of the fleet; an explicit empty list means none (RULES.md §1).
    public var apps: [BundleID] = [] {
        didSet { appSet = Set(apps); appsListed = true }
    }
    /// Whether the document or scenario gave the app list (`apps`, even empty).
    public var appsListed: Bool = false
    public private(set) var appSet: Set<BundleID> = []
    public var appGroupType: TargetedAppGroupType = .selectedPublicApps
    /// A flags value in Graph (`unspecified`, `unmanaged`, `mdm`, ...), kept as written.
    public var targetedAppManagementLevels: String = "unspecified"
    /// Who the policy is assigned to (Graph's `assignments`, when the export expanded them):
    /// `mamsim whatif` resolves them per persona; a scenario names its accounts instead.
    public var assignments: [PolicyAssignment] = []

    // MARK: Data transfer
    public var allowedInboundDataTransferSources: DataTransferLevel = .allApps
    public var allowedOutboundDataTransferDestinations: DataTransferLevel = .allApps
    public var allowedOutboundClipboardSharingLevel: ClipboardSharingLevel = .allApps
    /// Characters that may be pasted anywhere regardless of the clipboard level; 0 = none.
    public var allowedOutboundClipboardSharingExceptionLength: Int = 0
    public var filterOpenInToOnlyManagedApps: Bool = false
    /// "Policy managed apps with OS sharing": Apple managed open-in may also receive org data.
    public var disableProtectionOfManagedOutboundOpenInData: Bool = false
    /// "All apps with incoming Org data": unmanaged data arriving is re-owned by the receiver.
    public var protectInboundDataFromUnknownSources: Bool = false
    /// URL schemes org data may still go to. Intune's default list when absent.
    public var exemptedAppProtocols: [KeyValuePair] = IosManagedAppProtection.defaultExemptedAppProtocols {
        didSet { exemptSchemeKeys = Self.schemeKeys(exemptedAppProtocols) }
    }
    /// Every scheme of `exemptedAppProtocols`, lowercased and trimmed.
    public private(set) var exemptSchemeKeys: Set<String> = IosManagedAppProtection.schemeKeys(IosManagedAppProtection.defaultExemptedAppProtocols)
    public var managedUniversalLinks: [String] = []
    /// Universal links that open in the app claiming them whatever the web-content setting.
    /// Intune's default list when absent; an explicit list (even empty) replaces it.
    public var exemptedUniversalLinks: [String] = IosManagedAppProtection.defaultExemptedUniversalLinks
    public var dialerRestrictionLevel: DialerRestrictionLevel = .allApps
    public var customDialerAppProtocol: String?
    public var protectedMessagingRedirectAppType: MessagingRedirectAppType = .anyApp
    public var messagingRedirectAppUrlScheme: String?
    public var managedBrowserToOpenLinksRequired: Bool = false
    public var managedBrowser: ManagedBrowserType = .notConfigured
    public var customBrowserProtocol: String?

    // MARK: Save-as / open-from
    public var saveAsBlocked: Bool = false
    public var allowedDataStorageLocations: [DataStorageLocation] = []
    public var blockDataIngestionIntoOrganizationDocuments: Bool = false
    public var allowedDataIngestionLocations: [DataIngestionLocation] = [.oneDriveForBusiness, .sharePoint, .camera, .photoLibrary]

    // MARK: Other switches
    public var printBlocked: Bool = false
    public var notificationRestriction: NotificationRestriction = .allow
    public var dataBackupBlocked: Bool = false
    public var contactSyncBlocked: Bool = false
    public var thirdPartyKeyboardsBlocked: Bool = false
    /// Graph's `allowWidgetContentSync` (iOS): org data may appear in the app's widgets.
    public var allowWidgetContentSync: Bool = false
    public var appDataEncryptionType: AppDataEncryptionType = .whenDeviceLocked
    public var organizationalCredentialsRequired: Bool = false
    /// Newer Graph switch; `blocked` forbids screen capture whatever the transfer level.
    public var screenCaptureConfigurationState: FeatureConfigurationState = .notConfigured
    public var genmojiConfigurationState: FeatureConfigurationState = .notConfigured
    public var writingToolsConfigurationState: FeatureConfigurationState = .notConfigured
    /// Microsoft Purview evaluates org content the app sends (beta); read, evaluated by the
    /// service (GraphPolicyCoverage).
    public var purviewContentEvaluationRequired: Bool = false

    // MARK: Access requirements (PIN)
    public var pinRequired: Bool = true
    public var minimumPinLength: Int = 4
    public var pinCharacterSet: PinCharacterSet = .numeric
    public var simplePinBlocked: Bool = false
    public var maximumPinRetries: Int = 5
    public var appActionIfMaximumPinRetriesExceeded: RemediationAction = .block
    public var periodBeforePinReset: ISODuration = ISODuration("PT0S")!
    public var previousPinBlockCount: Int = 0
    public var pinRequiredInsteadOfBiometricTimeout: ISODuration = ISODuration("PT30M")!
    public var fingerprintBlocked: Bool = false
    public var faceIdBlocked: Bool = false
    public var disableAppPinIfDevicePinIsSet: Bool = false

    // MARK: Conditional launch
    public var periodOfflineBeforeAccessCheck: ISODuration = ISODuration("PT12H")!
    public var periodOnlineBeforeAccessCheck: ISODuration = ISODuration("PT30M")!
    public var periodOfflineBeforeWipeIsEnforced: ISODuration = ISODuration("P90D")!
    public var gracePeriodToBlockAppsDuringOffClockHours: ISODuration?
    public var deviceComplianceRequired: Bool = true
    public var appActionIfDeviceComplianceRequired: RemediationAction = .block
    public var appActionIfUnableToAuthenticateUser: RemediationAction = .block
    public var appActionIfAccountIsClockedOut: RemediationAction?
    public var minimumRequiredOsVersion: Version?
    public var minimumWarningOsVersion: Version?
    public var minimumWipeOsVersion: Version?
    public var maximumRequiredOsVersion: Version?
    public var maximumWarningOsVersion: Version?
    public var maximumWipeOsVersion: Version?
    public var minimumRequiredAppVersion: Version?
    public var minimumWarningAppVersion: Version?
    public var minimumWipeAppVersion: Version?
    public var minimumRequiredSdkVersion: Version?
    public var minimumWarningSdkVersion: Version?
    public var minimumWipeSdkVersion: Version?
    /// Semicolon-separated device model identifiers (`iPhone14,2;iPad13,1`); `nil` = any.
    public var allowedIosDeviceModels: String?
    public var appActionIfIosDeviceModelNotAllowed: RemediationAction = .block
    public var maximumAllowedDeviceThreatLevel: DeviceThreatLevel = .notConfigured
    public var mobileThreatDefenseRemediationAction: RemediationAction = .block
    public var mobileThreatDefensePartnerPriority: MobileThreatDefensePartnerPriority?

    /// A policy with Intune's defaults for every property.
    public init(displayName: String = "") {
        self.displayName = displayName
    }

    /// Intune's default exemptions (RULES.md §2).
    public static let defaultExemptedAppProtocols: [KeyValuePair] = [
        KeyValuePair(name: "Default", value: "skype;app-settings;itms;itmss;itms-apps;itms-appss;itms-services;calshow;"),
    ]

    /// Intune's default universal-link exemptions: Apple Maps and FaceTime over http and https
    /// (RULES.md §2). The Intune admin center fills them into every new iOS policy, and Graph
    /// exports of real policies carry them (Microsoft's data protection framework's level 1–3
    /// templates among them).
    public static let defaultExemptedUniversalLinks: [String] = [
        "http://facetime.apple.com", "http://maps.apple.com", "https://facetime.apple.com", "https://maps.apple.com",
    ]

    static func schemeKeys(_ pairs: [KeyValuePair]) -> Set<String> {
        var keys = Set<String>()
        for pair in pairs {
            for scheme in pair.value.split(separator: ";") {
                let trimmed = scheme.trimmingSpaces().lowercased()
                if !trimmed.isEmpty { keys.insert(trimmed) }
            }
        }
        return keys
    }

    /// Whether any of `app`'s URL schemes is exempted (`exemptedAppProtocols`).
    public func isExempt(_ app: AppDescriptor) -> Bool {
        for key in app.schemeKeys where exemptSchemeKeys.contains(key) { return true }
        return false
    }

    /// Whether the app list targets `bundle` (an empty list targets every SDK app).
    public func targets(_ bundle: BundleID) -> Bool {
        appSet.isEmpty || appSet.contains(bundle)
    }

    /// The policy's name for messages: its display name, or "(unnamed)".
    public var title: String { displayName.isEmpty ? "(unnamed)" : displayName }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
