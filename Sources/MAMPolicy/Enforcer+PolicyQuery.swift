public import MAMModel

/// A feature switch of `IntuneMAMPolicy` an app asks about before it uses the feature with a
/// managed account's data (seed 000, `IntuneMAMPolicy.h`). Raw values are the spelling in
/// scenario files (`policyQuery.setting`).
public enum PolicySetting: String, Sendable, Hashable, CaseIterable {
    case contactSync, widgets, spotlight, siriIntents, appIntents, appSharing, documentPicker
    case thirdPartyKeyboards, backup, fileEncryption, fileProviderEncryption

    /// The SDK property an app reads.
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

extension Enforcer {
    /// Whether `setting` lets the app use the feature with `identity`'s data: `allowed`, or
    /// `feature-restricted` naming the policy setting that decides. For the two requirements
    /// (file and file-provider encryption) `feature-restricted` means "required". Outside the
    /// policy's targeted apps, and for unmanaged data, nothing is restricted.
    public static func policyQuery(_ setting: PolicySetting, as identity: Account?, app: BundleID, in fleet: Fleet) -> Decision {
        guard let e = fleet.managedEntry(identity, in: app) else {
            return .allowed("\(unmanagedReason(identity, in: app, fleet)): nothing restricts \(setting.sdkName)")
        }
        let p = e.policy!
        let requirement = setting == .fileEncryption || setting == .fileProviderEncryption
        func answer(restricted: Bool, _ because: String) -> Decision {
            restricted ? .blocked(.featureRestricted, because: "\(e.subject): \(setting.sdkName): \(requirement ? "required" : "restricted") (\(because))")
                : .allowed("\(e.subject): \(setting.sdkName): not \(requirement ? "required" : "restricted") (\(because))")
        }
        let outbound = "allowedOutboundDataTransferDestinations = \(p.allowedOutboundDataTransferDestinations.rawValue)"
        switch setting {
        case .contactSync: return answer(restricted: p.contactSyncBlocked, "contactSyncBlocked = \(p.contactSyncBlocked)")
        case .widgets: return answer(restricted: !p.allowWidgetContentSync, "allowWidgetContentSync = \(p.allowWidgetContentSync)")
        // Our reading: indexing org data for Spotlight and donating it to Siri or App Intents
        // hands it to the system outside the app, as the SDK's Siri comment says for outbound.
        case .spotlight, .siriIntents, .appIntents:
            return answer(restricted: p.allowedOutboundDataTransferDestinations != .allApps, outbound)
        case .appSharing: return answer(restricted: p.allowedOutboundDataTransferDestinations == .none, outbound)
        // Our reading: exporting through the document picker is saving a copy elsewhere.
        case .documentPicker: return answer(restricted: p.saveAsBlocked, "saveAsBlocked = \(p.saveAsBlocked)")
        case .thirdPartyKeyboards: return answer(restricted: p.thirdPartyKeyboardsBlocked, "thirdPartyKeyboardsBlocked = \(p.thirdPartyKeyboardsBlocked)")
        case .backup: return answer(restricted: p.dataBackupBlocked, "dataBackupBlocked = \(p.dataBackupBlocked)")
        // Every managed identity's files are encrypted (appDataEncryptionType only says when).
        case .fileEncryption, .fileProviderEncryption:
            return answer(restricted: true, "appDataEncryptionType = \(p.appDataEncryptionType.rawValue): org files are encrypted")
        }
    }
}
