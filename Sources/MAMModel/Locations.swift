/// Where an app saves a copy of data (`IntuneMAMSaveLocation`, RULES.md §4).
///
/// Raw values are the names scenario files and the SDK use; where Graph has a matching
/// `managedAppDataStorageLocation` value the name is the same (`oneDriveForBusiness`,
/// `sharePoint`, `box`, `iManage`, `egnyte`). `localDrive` stands for Graph's `localStorage`
/// and `cameraRoll` for Graph's `photoLibrary`.
public enum SaveLocation: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case oneDriveForBusiness
    case sharePoint
    case box
    case dropbox
    case googleDrive
    /// The app's own sandbox only; a document picker or the Files app is `other`.
    case localDrive
    case cameraRoll
    case accountDocument
    case iManage
    case egnyte
    case other

    /// Locations that belong to an account: saving there is judged against that account.
    public var isAccountBound: Bool {
        switch self {
        // The app's sandbox too: since SDK 15.1 its account is the one named, and a nil
        // account is an unmanaged one (seed 000), no longer the current account.
        case .oneDriveForBusiness, .sharePoint, .box, .iManage, .egnyte, .accountDocument, .localDrive: true
        default: false
        }
    }

    /// The camera roll never has an account (it is the device's, not a tenant's).
    public var neverHasAccount: Bool { self == .cameraRoll }

    /// `IntuneMAMSaveLocation`'s raw value: a bit (apps OR them into masks), `other` 0.
    public var sdkValue: Int {
        switch self {
        case .other: 0
        case .oneDriveForBusiness: 1
        case .sharePoint: 2
        case .box: 4
        case .dropbox: 8
        case .googleDrive: 16
        case .localDrive: 32
        case .cameraRoll: 64
        case .accountDocument: 128
        case .iManage: 256
        case .egnyte: 512
        }
    }

    public var description: String { rawValue }
}

/// Where an app opens data from (`IntuneMAMOpenLocation`, RULES.md §4).
///
/// Raw values follow the SDK names; Graph's `managedAppDataIngestionLocation` uses the same
/// names for `oneDriveForBusiness`, `sharePoint` and `camera`, and `photoLibrary` for `photos`.
public enum OpenLocation: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case oneDriveForBusiness
    case sharePoint
    case camera
    case photos
    /// The app's own sandbox only.
    case localStorage
    case accountDocument
    case box
    case iManage
    case egnyte
    case other

    /// Locations that belong to an account: opening from there is judged against it.
    public var isAccountBound: Bool {
        switch self {
        case .oneDriveForBusiness, .sharePoint, .box, .iManage, .egnyte, .accountDocument: true
        default: false
        }
    }

    /// Camera and photos never have an account.
    public var neverHasAccount: Bool { self == .camera || self == .photos }

    /// `IntuneMAMOpenLocation`'s raw value: a bit, `other` 0.
    public var sdkValue: Int {
        switch self {
        case .other: 0
        case .oneDriveForBusiness: 1
        case .sharePoint: 2
        case .camera: 4
        case .localStorage: 8
        case .photos: 16
        case .accountDocument: 32
        case .box: 64
        case .iManage: 128
        case .egnyte: 256
        }
    }

    public var description: String { rawValue }
}
