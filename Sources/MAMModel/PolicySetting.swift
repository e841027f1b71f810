/// A feature switch of `IntuneMAMPolicy` an app asks about before it uses the feature with a
/// managed account's data (seed 000, `IntuneMAMPolicy.h`). Raw values are the spelling in
/// scenario files (`policyQuery.setting`).
public enum PolicySetting: String, Sendable, Hashable, CaseIterable {
    case contactSync, widgets, spotlight, siriIntents, appIntents, appSharing, documentPicker
    case thirdPartyKeyboards, backup, fileEncryption, fileProviderEncryption

    /// The SDK property an app reads (for keyboards and backup, which the SDK enforces itself
    /// with no getter, what the setting governs).
    public var sdkName: String {
        switch self {
        case .contactSync: "isContactSyncAllowed"
        case .widgets: "isWidgetContentSyncAllowed"
        case .spotlight: "isSpotlightIndexingAllowed"
        case .siriIntents: "areSiriIntentsAllowed"
        case .appIntents: "areAppIntentsAllowed"
        case .appSharing: "isAppSharingAllowed"
        case .documentPicker: "isDocumentPickerAllowed"
        case .thirdPartyKeyboards: "third-party keyboards"
        case .backup: "iTunes/iCloud backup"
        case .fileEncryption: "isFileEncryptionRequired"
        case .fileProviderEncryption: "shouldFileProviderEncryptFiles"
        }
    }
}
