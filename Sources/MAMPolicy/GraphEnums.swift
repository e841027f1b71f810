/// Graph enumerations used by `IosManagedAppProtection`, with Graph's raw values.
///
/// Importing checks every enum value against these lists, so a typo in a policy document is
/// an error naming the property instead of a silently different rule.
public protocol GraphEnum: RawRepresentable, CaseIterable, Sendable, Hashable where RawValue == String {}

/// `managedAppDataTransferLevel`: which apps org data may go to or come from.
public enum DataTransferLevel: String, GraphEnum {
    case allApps, managedApps, none
}

/// `managedAppClipboardSharingLevel`.
public enum ClipboardSharingLevel: String, GraphEnum {
    case allApps, managedAppsWithPasteIn, managedApps, blocked
}

/// `managedAppDataStorageLocation`: where "Save copies of org data" may still save.
public enum DataStorageLocation: String, GraphEnum {
    case oneDriveForBusiness, sharePoint, box, localStorage, photoLibrary, iManage, egnyte
}

/// `managedAppDataIngestionLocation`: where "Open data into org documents" may still open from.
public enum DataIngestionLocation: String, GraphEnum {
    case oneDriveForBusiness, sharePoint, camera, photoLibrary
}

/// `managedAppPinCharacterSet`.
public enum PinCharacterSet: String, GraphEnum {
    case numeric, alphanumericAndSymbol
}

/// `managedAppNotificationRestriction`.
public enum NotificationRestriction: String, GraphEnum {
    case allow, blockOrganizationalData, block
}

/// `managedAppRemediationAction`: what a failed conditional-launch check does.
public enum RemediationAction: String, GraphEnum {
    case block, wipe, warn, blockWhenSettingIsSupported
}

/// `managedBrowserType`.
public enum ManagedBrowserType: String, GraphEnum {
    case notConfigured, microsoftEdge
}

/// `managedAppDeviceThreatLevel`.
public enum DeviceThreatLevel: String, GraphEnum {
    case notConfigured, unavailable, secured, low, medium, high
}

/// `mobileThreatDefensePartnerPriority`.
public enum MobileThreatDefensePartnerPriority: String, GraphEnum {
    case defenderOverThirdPartyPartner, thirdPartyPartnerOverDefender, unknownFutureValue
}

/// `managedAppPhoneNumberRedirectLevel` (dialer restriction).
public enum DialerRestrictionLevel: String, GraphEnum {
    case allApps, managedApps, customApp, blocked
}

/// `messagingRedirectAppType`.
public enum MessagingRedirectAppType: String, GraphEnum {
    case anyApp, anyManagedApp, specificApps, blocked
}

/// `targetedManagedAppGroupType`.
public enum TargetedAppGroupType: String, GraphEnum {
    case selectedPublicApps, allCoreMicrosoftApps, allMicrosoftApps, allApps
}

/// `managedAppDataEncryptionType`.
public enum AppDataEncryptionType: String, GraphEnum {
    case useDeviceSettings, afterDeviceRestart, whenDeviceLockedExceptOpenFiles, whenDeviceLocked
}

/// Graph's state of the newer iOS switches (`screenCaptureConfigurationState`,
/// `writingToolsConfigurationState`, `genmojiConfigurationState`: Graph's
/// `…IosManagedAppConfigurationState` enums, `notBlocked` 0, `blocked` 1, `unknownFutureValue`
/// 2; `null` when the admin left it unset). `notConfigured` and `allowed` are the names an
/// earlier mamsim read, still accepted in scenarios.
public enum FeatureConfigurationState: String, GraphEnum {
    case notBlocked, blocked, unknownFutureValue, notConfigured, allowed

    /// The admin set it either way (a value Graph writes, not `null`).
    public var isConfigured: Bool { self == .blocked || self == .notBlocked || self == .allowed }
}
