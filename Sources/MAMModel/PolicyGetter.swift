/// A getter of the SDK's policy object (`IntuneMAMPolicy`, seed 000) that an app's own code
/// reads. The façade tells the host which ones the app read (`policy_getters_read`), so that
/// `mamsim mutate` tells a setting the app's code consults from one it never asks about: an
/// app that saves without `isSaveToAllowed` ignores the save-as setting whatever its value.
/// Raw values are the SDK's Swift names.
public enum PolicyGetter: String, Sendable, Hashable, CaseIterable, Comparable {
    case isSaveToAllowed = "isSaveToAllowed(for:withAccountId:)"
    case getSaveToLocations = "getSaveToLocations(forAccountId:)"
    case isOpenFromAllowed = "isOpenFromAllowed(for:withAccountId:)"
    case getOpenFromLocations = "getOpenFromLocations(forAccountId:)"
    case isDocumentPickerAllowed = "isDocumentPickerAllowed(_:)"
    case isPINRequired
    case isManagedBrowserRequired
    case isContactSyncAllowed
    case isWidgetContentSyncAllowed
    case isSpotlightIndexingAllowed
    case areSiriIntentsAllowed
    case areAppIntentsAllowed
    case isAppSharingAllowed
    case shouldFileProviderEncryptFiles
    case isFileEncryptionRequired
    case isScreenCaptureAllowed
    case notificationPolicy
    case isURLAllowed = "isURLAllowed(_:)"
    case isUniversalLinkAllowed = "isUniversalLinkAllowed(_:)"
    case canReceiveSharedItemProvider = "canReceiveSharedItemProvider(_:)"
    case canReceiveSharedFile = "canReceiveSharedFile(_:)"

    /// The getter of a feature switch (`PolicySetting`), where the SDK has one.
    public init?(_ setting: PolicySetting) {
        switch setting {
        case .documentPicker: self = .isDocumentPickerAllowed
        case .thirdPartyKeyboards, .backup: return nil  // the SDK enforces them itself
        default: self.init(rawValue: setting.sdkName)
        }
    }

    /// What an app's code does with the answer, for a finding that names the call.
    public var call: String { "IntuneMAMPolicy.\(rawValue)" }

    public static func < (a: PolicyGetter, b: PolicyGetter) -> Bool { a.rawValue < b.rawValue }
}
