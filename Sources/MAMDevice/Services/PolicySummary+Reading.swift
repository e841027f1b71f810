public import MAMModel
public import MAMPolicy
public import MAMWire

extension PolicySummary {
    /// The `policy` service's answer from the enforcer's reading of `account`'s policy (the
    /// host's handler and the façade bench's played host build it the same way).
    public init(_ reading: PolicyReading, of account: Account?, screenCaptureAllowed: Bool) {
        let notification: UInt32 = switch reading.notificationRestriction {
        case .allow: 0
        case .blockOrganizationalData: 1
        case .block: 2
        }
        let restricted = reading.restricted
        self.init(
            upn: account?.upn ?? "", oid: account?.oid ?? "", managed: reading.managed, pinRequired: reading.pinRequired,
            managedBrowserRequired: reading.managedBrowserRequired, notificationPolicy: notification,
            contactSyncAllowed: !restricted.contains(.contactSync), widgetContentSyncAllowed: !restricted.contains(.widgets),
            spotlightIndexingAllowed: !restricted.contains(.spotlight), siriIntentsAllowed: !restricted.contains(.siriIntents),
            appIntentsAllowed: !restricted.contains(.appIntents), appSharingAllowed: !restricted.contains(.appSharing),
            documentPickerAllowed: !restricted.contains(.documentPicker), fileEncryptionRequired: restricted.contains(.fileEncryption),
            fileProviderEncryptionRequired: restricted.contains(.fileProviderEncryption), screenCaptureAllowed: screenCaptureAllowed,
            saveTo: UInt32(reading.saveToMask), openFrom: UInt32(reading.openFromMask),
            saveToOther: reading.saveTo.contains(.other), openFromOther: reading.openFrom.contains(.other))
    }
}

extension PolicySummary {
    /// The getters of the policy object whose answers differ between this reading of an
    /// account's policy and `other` (`mamsim mutate`: a setting changed under an app's code).
    /// The getters that ask the host about a URL or an item are not among them: whether their
    /// answer differs depends on what is asked (`askingGetters`).
    public func getters(answeringOtherwiseThan other: PolicySummary) -> Set<PolicyGetter> {
        var changed = Set<PolicyGetter>()
        if saveTo != other.saveTo || saveToOther != other.saveToOther { changed.formUnion([.isSaveToAllowed, .getSaveToLocations]) }
        if openFrom != other.openFrom || openFromOther != other.openFromOther { changed.formUnion([.isOpenFromAllowed, .getOpenFromLocations]) }
        if documentPickerAllowed != other.documentPickerAllowed || openFromOther != other.openFromOther { changed.insert(.isDocumentPickerAllowed) }
        if notificationPolicy != other.notificationPolicy { changed.insert(.notificationPolicy) }
        let switches: [(PolicyGetter, KeyPath<PolicySummary, Bool>)] = [
            (.isPINRequired, \.pinRequired), (.isManagedBrowserRequired, \.managedBrowserRequired),
            (.isContactSyncAllowed, \.contactSyncAllowed), (.isWidgetContentSyncAllowed, \.widgetContentSyncAllowed),
            (.isSpotlightIndexingAllowed, \.spotlightIndexingAllowed), (.areSiriIntentsAllowed, \.siriIntentsAllowed),
            (.areAppIntentsAllowed, \.appIntentsAllowed), (.isAppSharingAllowed, \.appSharingAllowed),
            (.shouldFileProviderEncryptFiles, \.fileProviderEncryptionRequired), (.isFileEncryptionRequired, \.fileEncryptionRequired),
            (.isScreenCaptureAllowed, \.screenCaptureAllowed),
        ]
        for (getter, field) in switches where self[keyPath: field] != other[keyPath: field] { changed.insert(getter) }
        return changed
    }

    /// Whether saving the account's data to the local drive is answered otherwise than in `other`.
    public func savesToLocalDriveOtherwise(than other: PolicySummary) -> Bool {
        let bit = UInt32(SaveLocation.localDrive.sdkValue)
        return saveTo & bit != other.saveTo & bit
    }

    /// The getters answered by asking the host about one URL or item.
    public static let askingGetters: Set<PolicyGetter> = [.isURLAllowed, .isUniversalLinkAllowed, .canReceiveSharedItemProvider, .canReceiveSharedFile]
}
