public import MAMModel
public import MAMPolicy

extension WhatIf {
    /// Two or more policies on one user and app, deployed together (`conflictRule`): the
    /// settings the cells read at their most restrictive — transfer and clipboard levels, save
    /// and open locations, print, notifications, backup, screen capture, the Open-in and
    /// unknown-source protections. Named after the policies it merges. Numeric entry fields take
    /// Microsoft's recommended values, which no document here gives: PIN and conditional-launch
    /// numbers are the policy first by title's, and the report says so. The policies are taken
    /// in that one order (title, then id) whatever order their files were read in: the answer
    /// never depends on which file is named first.
    static func mostRestrictive(_ given: [IosManagedAppProtection]) -> IosManagedAppProtection {
        let policies = given.sorted { ($0.title, $0.id ?? "") < ($1.title, $1.id ?? "") }
        var m = policies[0]
        m.displayName = WhatIfAppResult.Protection.conflictTitle(policies.map(\.title))
        m.id = nil
        for p in policies.dropFirst() {
            m.allowedOutboundDataTransferDestinations = stricter(m.allowedOutboundDataTransferDestinations, p.allowedOutboundDataTransferDestinations, DataTransferLevel.allCases)
            m.allowedInboundDataTransferSources = stricter(m.allowedInboundDataTransferSources, p.allowedInboundDataTransferSources, DataTransferLevel.allCases)
            m.allowedOutboundClipboardSharingLevel = stricter(m.allowedOutboundClipboardSharingLevel, p.allowedOutboundClipboardSharingLevel, ClipboardSharingLevel.allCases)
            m.allowedOutboundClipboardSharingExceptionLength = min(m.allowedOutboundClipboardSharingExceptionLength, p.allowedOutboundClipboardSharingExceptionLength)
            m.notificationRestriction = stricter(m.notificationRestriction, p.notificationRestriction, NotificationRestriction.allCases)
            m.saveAsBlocked = m.saveAsBlocked || p.saveAsBlocked
            m.allowedDataStorageLocations = m.allowedDataStorageLocations.filter(p.allowedDataStorageLocations.contains)
            m.blockDataIngestionIntoOrganizationDocuments = m.blockDataIngestionIntoOrganizationDocuments || p.blockDataIngestionIntoOrganizationDocuments
            m.allowedDataIngestionLocations = m.allowedDataIngestionLocations.filter(p.allowedDataIngestionLocations.contains)
            m.printBlocked = m.printBlocked || p.printBlocked
            m.dataBackupBlocked = m.dataBackupBlocked || p.dataBackupBlocked
            m.contactSyncBlocked = m.contactSyncBlocked || p.contactSyncBlocked
            m.thirdPartyKeyboardsBlocked = m.thirdPartyKeyboardsBlocked || p.thirdPartyKeyboardsBlocked
            m.filterOpenInToOnlyManagedApps = m.filterOpenInToOnlyManagedApps || p.filterOpenInToOnlyManagedApps
            m.protectInboundDataFromUnknownSources = m.protectInboundDataFromUnknownSources || p.protectInboundDataFromUnknownSources
            // Letting OS sharing carry org documents to MDM apps is the looser choice.
            m.disableProtectionOfManagedOutboundOpenInData = m.disableProtectionOfManagedOutboundOpenInData && p.disableProtectionOfManagedOutboundOpenInData
            if p.screenCaptureConfigurationState == .blocked { m.screenCaptureConfigurationState = .blocked }
        }
        return m
    }

    /// The later of `a` and `b` in `order` (from least to most restrictive).
    static func stricter<T: Equatable>(_ a: T, _ b: T, _ order: [T]) -> T {
        (order.firstIndex(of: a) ?? 0) >= (order.firstIndex(of: b) ?? 0) ? a : b
    }
}

extension Fleet {
    /// Whether `policy` targets the installed app `bundle`, whoever it is assigned to, and why:
    /// its app list or group type (RULES.md §1) and the device types it is for.
    public func targeting(_ policy: IosManagedAppProtection, _ bundle: BundleID) -> (Bool, String) {
        guard let app = appEntry(bundle) else { return (false, "\(bundle) is not installed") }
        guard app.managementSDK else { return (false, "\(app.managementBundle) does not integrate the Intune SDK") }
        guard Self.targets(groupType: policy.appGroupType, apps: policy.appSet, listed: policy.appsListed, app) else {
            return (false, "the policy does not target \(bundle) (appGroupType \(policy.appGroupType.rawValue)\(policy.appsListed ? ", apps listed: \(policy.apps.count)" : ""))")
        }
        let entry = AccountEntry(account: Account(upn: ""), policy: policy)
        guard targetsDeviceType(entry, app) else {
            return (false, "the policy is for \(policy.targetedAppManagementLevels) apps; \(bundle) is \(app.mdmManaged ? "managed by the MDM (it gets IntuneMAMUPN)" : device.mdmEnrolled ? "not managed by the device's MDM (no IntuneMAMUPN): to its SDK, on an unmanaged device" : "on an unmanaged device")")
        }
        return (true, "the policy targets \(bundle)")
    }
}
