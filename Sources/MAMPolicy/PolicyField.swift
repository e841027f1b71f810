/// Each stored property of `IosManagedAppProtection`, in declaration order (a test checks the
/// order against the type's own). `mamsim mutate` learns from a run which of them its
/// decisions read, so that a mutant of a setting nothing read is judged without running it.
public enum PolicyField: UInt8, CaseIterable, Sendable {
    case id, displayName, description, version, createdDateTime, lastModifiedDateTime, roleScopeTagIds,
         isAssigned, deployedAppCount, apps, appsListed, appSet, appGroupType,
         targetedAppManagementLevels, assignments, allowedInboundDataTransferSources,
         allowedOutboundDataTransferDestinations, allowedOutboundClipboardSharingLevel,
         allowedOutboundClipboardSharingExceptionLength, filterOpenInToOnlyManagedApps,
         disableProtectionOfManagedOutboundOpenInData, protectInboundDataFromUnknownSources,
         exemptedAppProtocols, exemptSchemeKeys, managedUniversalLinks, exemptedUniversalLinks,
         dialerRestrictionLevel, customDialerAppProtocol, protectedMessagingRedirectAppType,
         messagingRedirectAppUrlScheme, managedBrowserToOpenLinksRequired, managedBrowser,
         customBrowserProtocol, saveAsBlocked, allowedDataStorageLocations,
         blockDataIngestionIntoOrganizationDocuments, allowedDataIngestionLocations, printBlocked,
         notificationRestriction, dataBackupBlocked, contactSyncBlocked, thirdPartyKeyboardsBlocked,
         allowWidgetContentSync, appDataEncryptionType, organizationalCredentialsRequired,
         screenCaptureConfigurationState, genmojiConfigurationState, writingToolsConfigurationState,
         purviewContentEvaluationRequired, pinRequired, minimumPinLength, pinCharacterSet,
         simplePinBlocked, maximumPinRetries, appActionIfMaximumPinRetriesExceeded, periodBeforePinReset,
         previousPinBlockCount, pinRequiredInsteadOfBiometricTimeout, fingerprintBlocked, faceIdBlocked,
         disableAppPinIfDevicePinIsSet, periodOfflineBeforeAccessCheck, periodOnlineBeforeAccessCheck,
         periodOfflineBeforeWipeIsEnforced, gracePeriodToBlockAppsDuringOffClockHours,
         deviceComplianceRequired, appActionIfDeviceComplianceRequired,
         appActionIfUnableToAuthenticateUser, appActionIfAccountIsClockedOut, minimumRequiredOsVersion,
         minimumWarningOsVersion, minimumWipeOsVersion, maximumRequiredOsVersion,
         maximumWarningOsVersion, maximumWipeOsVersion, minimumRequiredAppVersion,
         minimumWarningAppVersion, minimumWipeAppVersion, minimumRequiredSdkVersion,
         minimumWarningSdkVersion, minimumWipeSdkVersion, allowedIosDeviceModels,
         appActionIfIosDeviceModelNotAllowed, maximumAllowedDeviceThreatLevel,
         mobileThreatDefenseRemediationAction, mobileThreatDefensePartnerPriority
}

/// A set of `PolicyField`s: a bit each.
public struct PolicyFields: Hashable, Sendable {
    var low: UInt64 = 0
    var high: UInt64 = 0

    public init() {}
    public init(_ fields: some Sequence<PolicyField>) {
        for f in fields { insert(f) }
    }

    public mutating func insert(_ field: PolicyField) {
        let i = field.rawValue
        if i < 64 { low |= 1 << UInt64(i) } else { high |= 1 << UInt64(i - 64) }
    }

    public mutating func formUnion(_ other: PolicyFields) {
        low |= other.low
        high |= other.high
    }

    public func contains(_ field: PolicyField) -> Bool {
        let i = field.rawValue
        return i < 64 ? low & (1 << UInt64(i)) != 0 : high & (1 << UInt64(i - 64)) != 0
    }

    public func intersects(_ other: PolicyFields) -> Bool { low & other.low != 0 || high & other.high != 0 }
    public var isEmpty: Bool { low == 0 && high == 0 }
    public var members: [PolicyField] { PolicyField.allCases.filter(contains) }
}

extension IosManagedAppProtection {
    /// The stored properties whose values differ from `other`'s, compared without recording a
    /// read (a mutant's against its base policy, before any run).
    public func fields(differingFrom other: IosManagedAppProtection) -> PolicyFields {
        var out = PolicyFields()
        for (field, (a, b)) in zip(PolicyField.allCases, zip(Mirror(reflecting: self).children, Mirror(reflecting: other).children)) {
            let same = (a.value as? any PolicyStorage)?.isSame(as: b.value) ?? false
            if !same { out.insert(field) }
        }
        return out
    }
}

/// A `PolicyValue` compared without recording a read.
protocol PolicyStorage {
    func isSame(as other: Any) -> Bool
}

extension PolicyValue: PolicyStorage {
    func isSame(as other: Any) -> Bool {
        guard let other = other as? PolicyValue<Value> else { return false }
        return value == other.value
    }
}
