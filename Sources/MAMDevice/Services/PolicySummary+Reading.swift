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
