internal import CMAMProto
internal import MAMModel

/// The wire numbers of the Swift enums that cross the channel. Each table is the one place a
/// Swift case meets its `mamsim.v2` number: renaming a case never changes the wire, and a
/// case without a number is caught by `WireEnumTests`.
enum WireEnums {
    static let reasons: [(Reason, Mamsim__V2__Reason)] = [
        (.outboundPolicy, MAMSIM__V2__REASON__REASON_OUTBOUND_POLICY),
        (.inboundPolicy, MAMSIM__V2__REASON__REASON_INBOUND_POLICY),
        (.notExempt, MAMSIM__V2__REASON__REASON_NOT_EXEMPT),
        (.clipboardPolicy, MAMSIM__V2__REASON__REASON_CLIPBOARD_POLICY),
        (.saveLocation, MAMSIM__V2__REASON__REASON_SAVE_LOCATION),
        (.openLocation, MAMSIM__V2__REASON__REASON_OPEN_LOCATION),
        (.accountNotAllowed, MAMSIM__V2__REASON__REASON_ACCOUNT_NOT_ALLOWED),
        (.secondManagedAccount, MAMSIM__V2__REASON__REASON_SECOND_MANAGED_ACCOUNT),
        (.notSignedIn, MAMSIM__V2__REASON__REASON_NOT_SIGNED_IN),
        (.keychainEntitlement, MAMSIM__V2__REASON__REASON_KEYCHAIN_ENTITLEMENT),
        (.appGroupEntitlement, MAMSIM__V2__REASON__REASON_APP_GROUP_ENTITLEMENT),
        (.notActivated, MAMSIM__V2__REASON__REASON_NOT_ACTIVATED),
        (.extensionMisconfigured, MAMSIM__V2__REASON__REASON_EXTENSION_MISCONFIGURED),
        (.identitySwitchCanceled, MAMSIM__V2__REASON__REASON_IDENTITY_SWITCH_CANCELED),
        (.identitySwitchNotAllowed, MAMSIM__V2__REASON__REASON_IDENTITY_SWITCH_NOT_ALLOWED),
        (.conditionalLaunch, MAMSIM__V2__REASON__REASON_CONDITIONAL_LAUNCH),
        (.printBlocked, MAMSIM__V2__REASON__REASON_PRINT_BLOCKED),
        (.notificationBlocked, MAMSIM__V2__REASON__REASON_NOTIFICATION_BLOCKED),
        (.protectionPolicyRequired, MAMSIM__V2__REASON__REASON_PROTECTION_POLICY_REQUIRED),
        (.unknownApp, MAMSIM__V2__REASON__REASON_UNKNOWN_APP),
        (.unknownAccount, MAMSIM__V2__REASON__REASON_UNKNOWN_ACCOUNT),
        (.appNotRunning, MAMSIM__V2__REASON__REASON_APP_NOT_RUNNING),
        (.badRequest, MAMSIM__V2__REASON__REASON_BAD_REQUEST),
        (.timeout, MAMSIM__V2__REASON__REASON_TIMEOUT),
        (.internalError, MAMSIM__V2__REASON__REASON_INTERNAL),
        (.screenCaptureBlocked, MAMSIM__V2__REASON__REASON_SCREEN_CAPTURE_BLOCKED),
        (.appProtectionUnsupported, MAMSIM__V2__REASON__REASON_APP_PROTECTION_UNSUPPORTED),
        (.brokerRequired, MAMSIM__V2__REASON__REASON_BROKER_REQUIRED),
        (.invalidIdentifier, MAMSIM__V2__REASON__REASON_INVALID_IDENTIFIER),
        (.featureRestricted, MAMSIM__V2__REASON__REASON_FEATURE_RESTRICTED),
    ]
    static let reasonByNumber: [UInt32: Reason] = Dictionary(uniqueKeysWithValues: reasons.map { ($0.1.rawValue, $0.0) })
    static let numberByReason: [Reason: Mamsim__V2__Reason] = Dictionary(uniqueKeysWithValues: reasons.map { ($0.0, $0.1) })

    static let saveLocations: [(SaveLocation, Mamsim__V2__SaveLocation)] = [
        (.oneDriveForBusiness, MAMSIM__V2__SAVE_LOCATION__SAVE_LOCATION_ONE_DRIVE_FOR_BUSINESS),
        (.sharePoint, MAMSIM__V2__SAVE_LOCATION__SAVE_LOCATION_SHARE_POINT),
        (.box, MAMSIM__V2__SAVE_LOCATION__SAVE_LOCATION_BOX),
        (.dropbox, MAMSIM__V2__SAVE_LOCATION__SAVE_LOCATION_DROPBOX),
        (.googleDrive, MAMSIM__V2__SAVE_LOCATION__SAVE_LOCATION_GOOGLE_DRIVE),
        (.localDrive, MAMSIM__V2__SAVE_LOCATION__SAVE_LOCATION_LOCAL_DRIVE),
        (.cameraRoll, MAMSIM__V2__SAVE_LOCATION__SAVE_LOCATION_CAMERA_ROLL),
        (.accountDocument, MAMSIM__V2__SAVE_LOCATION__SAVE_LOCATION_ACCOUNT_DOCUMENT),
        (.iManage, MAMSIM__V2__SAVE_LOCATION__SAVE_LOCATION_IMANAGE),
        (.egnyte, MAMSIM__V2__SAVE_LOCATION__SAVE_LOCATION_EGNYTE),
        (.other, MAMSIM__V2__SAVE_LOCATION__SAVE_LOCATION_OTHER),
    ]
    static let openLocations: [(OpenLocation, Mamsim__V2__OpenLocation)] = [
        (.oneDriveForBusiness, MAMSIM__V2__OPEN_LOCATION__OPEN_LOCATION_ONE_DRIVE_FOR_BUSINESS),
        (.sharePoint, MAMSIM__V2__OPEN_LOCATION__OPEN_LOCATION_SHARE_POINT),
        (.camera, MAMSIM__V2__OPEN_LOCATION__OPEN_LOCATION_CAMERA),
        (.photos, MAMSIM__V2__OPEN_LOCATION__OPEN_LOCATION_PHOTOS),
        (.localStorage, MAMSIM__V2__OPEN_LOCATION__OPEN_LOCATION_LOCAL_STORAGE),
        (.accountDocument, MAMSIM__V2__OPEN_LOCATION__OPEN_LOCATION_ACCOUNT_DOCUMENT),
        (.box, MAMSIM__V2__OPEN_LOCATION__OPEN_LOCATION_BOX),
        (.iManage, MAMSIM__V2__OPEN_LOCATION__OPEN_LOCATION_IMANAGE),
        (.egnyte, MAMSIM__V2__OPEN_LOCATION__OPEN_LOCATION_EGNYTE),
        (.other, MAMSIM__V2__OPEN_LOCATION__OPEN_LOCATION_OTHER),
    ]

    static let notificationKinds: [(SDKNotification.Kind, Mamsim__V2__SdkNotificationKind)] = [
        (.policyChanged, MAMSIM__V2__SDK_NOTIFICATION_KIND__SDK_NOTIFICATION_KIND_POLICY_CHANGED),
        (.appConfigChanged, MAMSIM__V2__SDK_NOTIFICATION_KIND__SDK_NOTIFICATION_KIND_APP_CONFIG_CHANGED),
        (.managedConfigChanged, MAMSIM__V2__SDK_NOTIFICATION_KIND__SDK_NOTIFICATION_KIND_MANAGED_CONFIG_CHANGED),
        (.restartApplication, MAMSIM__V2__SDK_NOTIFICATION_KIND__SDK_NOTIFICATION_KIND_RESTART_APPLICATION),
        (.complianceStatus, MAMSIM__V2__SDK_NOTIFICATION_KIND__SDK_NOTIFICATION_KIND_COMPLIANCE_STATUS),
    ]

    static func wire(_ k: SDKNotification.Kind) -> Mamsim__V2__SdkNotificationKind { notificationKinds.first { $0.0 == k }!.1 }

    static func notificationKind(_ n: Mamsim__V2__SdkNotificationKind, field: String) throws(WireError) -> SDKNotification.Kind {
        guard let k = notificationKinds.first(where: { $0.1.rawValue == n.rawValue }) else {
            throw .badEnum(field: field, value: Int32(bitPattern: n.rawValue))
        }
        return k.0
    }

    static let secretKinds: [(ManagedSecretKind, Mamsim__V2__ManagedSecretKind)] = [
        (.password, MAMSIM__V2__MANAGED_SECRET_KIND__MANAGED_SECRET_KIND_PASSWORD),
        (.certificate, MAMSIM__V2__MANAGED_SECRET_KIND__MANAGED_SECRET_KIND_CERTIFICATE),
        (.identity, MAMSIM__V2__MANAGED_SECRET_KIND__MANAGED_SECRET_KIND_IDENTITY),
    ]

    static func wire(_ k: ManagedSecretKind) -> Mamsim__V2__ManagedSecretKind { secretKinds.first { $0.0 == k }!.1 }

    static func secretKind(_ n: Mamsim__V2__ManagedSecretKind, field: String) throws(WireError) -> ManagedSecretKind {
        guard let k = secretKinds.first(where: { $0.1.rawValue == n.rawValue }) else {
            throw .badEnum(field: field, value: Int32(bitPattern: n.rawValue))
        }
        return k.0
    }

    /// Every Swift case has a wire number (checked by `WireEnumTests`).
    static var unnumbered: [String] {
        Reason.allCases.filter { numberByReason[$0] == nil }.map { "Reason.\($0)" }
            + ManagedSecretKind.allCases.filter { k in !secretKinds.contains { $0.0 == k } }.map { "ManagedSecretKind.\($0)" }
            + SDKNotification.Kind.allCases.filter { k in !notificationKinds.contains { $0.0 == k } }.map { "SDKNotification.Kind.\($0)" }
            + SaveLocation.allCases.filter { s in !saveLocations.contains { $0.0 == s } }.map { "SaveLocation.\($0)" }
            + OpenLocation.allCases.filter { o in !openLocations.contains { $0.0 == o } }.map { "OpenLocation.\($0)" }
    }

    static func wire(_ r: Reason) -> Mamsim__V2__Reason { numberByReason[r]! }

    static func reason(_ n: Mamsim__V2__Reason, field: String) throws(WireError) -> Reason {
        guard let r = reasonByNumber[n.rawValue] else { throw .badEnum(field: field, value: Int32(bitPattern: n.rawValue)) }
        return r
    }

    static func wire(_ s: SaveLocation) -> Mamsim__V2__SaveLocation { saveLocations.first { $0.0 == s }!.1 }
    static func wire(_ o: OpenLocation) -> Mamsim__V2__OpenLocation { openLocations.first { $0.0 == o }!.1 }

    static func saveLocation(_ n: Mamsim__V2__SaveLocation, field: String) throws(WireError) -> SaveLocation {
        guard let s = saveLocations.first(where: { $0.1.rawValue == n.rawValue }) else {
            throw .badEnum(field: field, value: Int32(bitPattern: n.rawValue))
        }
        return s.0
    }

    static func openLocation(_ n: Mamsim__V2__OpenLocation, field: String) throws(WireError) -> OpenLocation {
        guard let o = openLocations.first(where: { $0.1.rawValue == n.rawValue }) else {
            throw .badEnum(field: field, value: Int32(bitPattern: n.rawValue))
        }
        return o.0
    }
}
