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
    @PolicyValue(.id) public var id: String? = nil
    @PolicyValue(.displayName) public var displayName: String = ""
    @PolicyValue(.description) public var description: String = ""
    @PolicyValue(.version) public var version: String? = nil
    @PolicyValue(.createdDateTime) public var createdDateTime: String? = nil
    @PolicyValue(.lastModifiedDateTime) public var lastModifiedDateTime: String? = nil
    @PolicyValue(.roleScopeTagIds) public var roleScopeTagIds: [String] = []
    @PolicyValue(.isAssigned) public var isAssigned: Bool = false
    @PolicyValue(.deployedAppCount) public var deployedAppCount: Int = 0

    // MARK: Targeting
    /// Targeted apps (bundle ids). Empty and not listed (`appsListed` false: no `apps` key, as a
    /// Graph collection read without `$expand=apps`, or a scenario policy without `apps:`) means
    /// every SDK-integrated app of the fleet; an explicit empty list means none (RULES.md §1).
    @PolicyValue(.apps) public var apps: [BundleID] = [] {
        didSet { appSet = Set(apps); appsListed = true }
    }
    /// Whether the document or scenario gave the app list (`apps`, even empty).
    @PolicyValue(.appsListed) public var appsListed: Bool = false
    @PolicyValue(.appSet) public private(set) var appSet: Set<BundleID> = []
    @PolicyValue(.appGroupType) public var appGroupType: TargetedAppGroupType = .selectedPublicApps
    /// A flags value in Graph (`unspecified`, `unmanaged`, `mdm`, ...), kept as written.
    @PolicyValue(.targetedAppManagementLevels) public var targetedAppManagementLevels: String = "unspecified"
    /// Who the policy is assigned to (Graph's `assignments`, when the export expanded them):
    /// `mamsim whatif` resolves them per persona; a scenario names its accounts instead.
    @PolicyValue(.assignments) public var assignments: [PolicyAssignment] = []

    // MARK: Data transfer
    @PolicyValue(.allowedInboundDataTransferSources) public var allowedInboundDataTransferSources: DataTransferLevel = .allApps
    @PolicyValue(.allowedOutboundDataTransferDestinations) public var allowedOutboundDataTransferDestinations: DataTransferLevel = .allApps
    @PolicyValue(.allowedOutboundClipboardSharingLevel) public var allowedOutboundClipboardSharingLevel: ClipboardSharingLevel = .allApps
    /// Characters that may be pasted anywhere regardless of the clipboard level; 0 = none.
    @PolicyValue(.allowedOutboundClipboardSharingExceptionLength) public var allowedOutboundClipboardSharingExceptionLength: Int = 0
    @PolicyValue(.filterOpenInToOnlyManagedApps) public var filterOpenInToOnlyManagedApps: Bool = false
    /// "Policy managed apps with OS sharing": Apple managed open-in may also receive org data.
    @PolicyValue(.disableProtectionOfManagedOutboundOpenInData) public var disableProtectionOfManagedOutboundOpenInData: Bool = false
    /// "All apps with incoming Org data": unmanaged data arriving is re-owned by the receiver.
    @PolicyValue(.protectInboundDataFromUnknownSources) public var protectInboundDataFromUnknownSources: Bool = false
    /// URL schemes org data may still go to. Intune's default list when absent.
    @PolicyValue(.exemptedAppProtocols) public var exemptedAppProtocols: [KeyValuePair] = IosManagedAppProtection.defaultExemptedAppProtocols {
        didSet { exemptSchemeKeys = Self.schemeKeys(exemptedAppProtocols) }
    }
    /// Every scheme of `exemptedAppProtocols`, lowercased and trimmed.
    @PolicyValue(.exemptSchemeKeys) public private(set) var exemptSchemeKeys: Set<String> = IosManagedAppProtection.schemeKeys(IosManagedAppProtection.defaultExemptedAppProtocols)
    @PolicyValue(.managedUniversalLinks) public var managedUniversalLinks: [String] = []
    /// Universal links that open in the app claiming them whatever the web-content setting.
    /// Intune's default list when absent; an explicit list (even empty) replaces it.
    @PolicyValue(.exemptedUniversalLinks) public var exemptedUniversalLinks: [String] = IosManagedAppProtection.defaultExemptedUniversalLinks
    @PolicyValue(.dialerRestrictionLevel) public var dialerRestrictionLevel: DialerRestrictionLevel = .allApps
    @PolicyValue(.customDialerAppProtocol) public var customDialerAppProtocol: String? = nil
    @PolicyValue(.protectedMessagingRedirectAppType) public var protectedMessagingRedirectAppType: MessagingRedirectAppType = .anyApp
    @PolicyValue(.messagingRedirectAppUrlScheme) public var messagingRedirectAppUrlScheme: String? = nil
    @PolicyValue(.managedBrowserToOpenLinksRequired) public var managedBrowserToOpenLinksRequired: Bool = false
    @PolicyValue(.managedBrowser) public var managedBrowser: ManagedBrowserType = .notConfigured
    @PolicyValue(.customBrowserProtocol) public var customBrowserProtocol: String? = nil

    // MARK: Save-as / open-from
    @PolicyValue(.saveAsBlocked) public var saveAsBlocked: Bool = false
    @PolicyValue(.allowedDataStorageLocations) public var allowedDataStorageLocations: [DataStorageLocation] = []
    @PolicyValue(.blockDataIngestionIntoOrganizationDocuments) public var blockDataIngestionIntoOrganizationDocuments: Bool = false
    @PolicyValue(.allowedDataIngestionLocations) public var allowedDataIngestionLocations: [DataIngestionLocation] = [.oneDriveForBusiness, .sharePoint, .camera, .photoLibrary]

    // MARK: Other switches
    @PolicyValue(.printBlocked) public var printBlocked: Bool = false
    @PolicyValue(.notificationRestriction) public var notificationRestriction: NotificationRestriction = .allow
    @PolicyValue(.dataBackupBlocked) public var dataBackupBlocked: Bool = false
    @PolicyValue(.contactSyncBlocked) public var contactSyncBlocked: Bool = false
    @PolicyValue(.thirdPartyKeyboardsBlocked) public var thirdPartyKeyboardsBlocked: Bool = false
    /// Graph's `allowWidgetContentSync` (iOS): org data may appear in the app's widgets.
    @PolicyValue(.allowWidgetContentSync) public var allowWidgetContentSync: Bool = false
    @PolicyValue(.appDataEncryptionType) public var appDataEncryptionType: AppDataEncryptionType = .whenDeviceLocked
    @PolicyValue(.organizationalCredentialsRequired) public var organizationalCredentialsRequired: Bool = false
    /// Newer Graph switch; `blocked` forbids screen capture whatever the transfer level.
    @PolicyValue(.screenCaptureConfigurationState) public var screenCaptureConfigurationState: FeatureConfigurationState = .notConfigured
    @PolicyValue(.genmojiConfigurationState) public var genmojiConfigurationState: FeatureConfigurationState = .notConfigured
    @PolicyValue(.writingToolsConfigurationState) public var writingToolsConfigurationState: FeatureConfigurationState = .notConfigured
    /// Microsoft Purview evaluates org content the app sends (beta); read, evaluated by the
    /// service (GraphPolicyCoverage).
    @PolicyValue(.purviewContentEvaluationRequired) public var purviewContentEvaluationRequired: Bool = false

    // MARK: Access requirements (PIN)
    @PolicyValue(.pinRequired) public var pinRequired: Bool = true
    @PolicyValue(.minimumPinLength) public var minimumPinLength: Int = 4
    @PolicyValue(.pinCharacterSet) public var pinCharacterSet: PinCharacterSet = .numeric
    @PolicyValue(.simplePinBlocked) public var simplePinBlocked: Bool = false
    @PolicyValue(.maximumPinRetries) public var maximumPinRetries: Int = 5
    @PolicyValue(.appActionIfMaximumPinRetriesExceeded) public var appActionIfMaximumPinRetriesExceeded: RemediationAction = .block
    @PolicyValue(.periodBeforePinReset) public var periodBeforePinReset: ISODuration = ISODuration("PT0S")!
    @PolicyValue(.previousPinBlockCount) public var previousPinBlockCount: Int = 0
    @PolicyValue(.pinRequiredInsteadOfBiometricTimeout) public var pinRequiredInsteadOfBiometricTimeout: ISODuration = ISODuration("PT30M")!
    @PolicyValue(.fingerprintBlocked) public var fingerprintBlocked: Bool = false
    @PolicyValue(.faceIdBlocked) public var faceIdBlocked: Bool = false
    @PolicyValue(.disableAppPinIfDevicePinIsSet) public var disableAppPinIfDevicePinIsSet: Bool = false

    // MARK: Conditional launch
    @PolicyValue(.periodOfflineBeforeAccessCheck) public var periodOfflineBeforeAccessCheck: ISODuration = ISODuration("PT12H")!
    @PolicyValue(.periodOnlineBeforeAccessCheck) public var periodOnlineBeforeAccessCheck: ISODuration = ISODuration("PT30M")!
    @PolicyValue(.periodOfflineBeforeWipeIsEnforced) public var periodOfflineBeforeWipeIsEnforced: ISODuration = ISODuration("P90D")!
    @PolicyValue(.gracePeriodToBlockAppsDuringOffClockHours) public var gracePeriodToBlockAppsDuringOffClockHours: ISODuration? = nil
    @PolicyValue(.deviceComplianceRequired) public var deviceComplianceRequired: Bool = true
    @PolicyValue(.appActionIfDeviceComplianceRequired) public var appActionIfDeviceComplianceRequired: RemediationAction = .block
    @PolicyValue(.appActionIfUnableToAuthenticateUser) public var appActionIfUnableToAuthenticateUser: RemediationAction = .block
    @PolicyValue(.appActionIfAccountIsClockedOut) public var appActionIfAccountIsClockedOut: RemediationAction? = nil
    @PolicyValue(.minimumRequiredOsVersion) public var minimumRequiredOsVersion: Version? = nil
    @PolicyValue(.minimumWarningOsVersion) public var minimumWarningOsVersion: Version? = nil
    @PolicyValue(.minimumWipeOsVersion) public var minimumWipeOsVersion: Version? = nil
    @PolicyValue(.maximumRequiredOsVersion) public var maximumRequiredOsVersion: Version? = nil
    @PolicyValue(.maximumWarningOsVersion) public var maximumWarningOsVersion: Version? = nil
    @PolicyValue(.maximumWipeOsVersion) public var maximumWipeOsVersion: Version? = nil
    @PolicyValue(.minimumRequiredAppVersion) public var minimumRequiredAppVersion: Version? = nil
    @PolicyValue(.minimumWarningAppVersion) public var minimumWarningAppVersion: Version? = nil
    @PolicyValue(.minimumWipeAppVersion) public var minimumWipeAppVersion: Version? = nil
    @PolicyValue(.minimumRequiredSdkVersion) public var minimumRequiredSdkVersion: Version? = nil
    @PolicyValue(.minimumWarningSdkVersion) public var minimumWarningSdkVersion: Version? = nil
    @PolicyValue(.minimumWipeSdkVersion) public var minimumWipeSdkVersion: Version? = nil
    /// Semicolon-separated device model identifiers (`iPhone14,2;iPad13,1`); `nil` = any.
    @PolicyValue(.allowedIosDeviceModels) public var allowedIosDeviceModels: String? = nil
    @PolicyValue(.appActionIfIosDeviceModelNotAllowed) public var appActionIfIosDeviceModelNotAllowed: RemediationAction = .block
    @PolicyValue(.maximumAllowedDeviceThreatLevel) public var maximumAllowedDeviceThreatLevel: DeviceThreatLevel = .notConfigured
    @PolicyValue(.mobileThreatDefenseRemediationAction) public var mobileThreatDefenseRemediationAction: RemediationAction = .block
    @PolicyValue(.mobileThreatDefensePartnerPriority) public var mobileThreatDefensePartnerPriority: MobileThreatDefensePartnerPriority? = nil

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
