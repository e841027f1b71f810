public import Foundation
import MAMKit
import MAMModel
import MAMWire

/// Where an app saves org data (the SDK's raw values: apps OR them into masks).
public enum IntuneMAMSaveLocation: Int, Sendable, CaseIterable {
    case other = 0
    case oneDriveForBusiness = 1
    case sharePoint = 2
    case box = 4
    case dropbox = 8
    case googleDrive = 16
    case localDrive = 32
    case cameraRoll = 64
    case accountDocument = 128
    case iManage = 256
    case egnyte = 512

    var location: SaveLocation {
        switch self {
        case .other: .other
        case .oneDriveForBusiness: .oneDriveForBusiness
        case .sharePoint: .sharePoint
        case .box: .box
        case .dropbox: .dropbox
        case .googleDrive: .googleDrive
        case .localDrive: .localDrive
        case .cameraRoll: .cameraRoll
        case .accountDocument: .accountDocument
        case .iManage: .iManage
        case .egnyte: .egnyte
        }
    }
}

/// Where an app opens data from (the SDK's raw values).
public enum IntuneMAMOpenLocation: Int, Sendable, CaseIterable {
    case other = 0
    case oneDriveForBusiness = 1
    case sharePoint = 2
    case camera = 4
    case localStorage = 8
    case photos = 16
    case accountDocument = 32
    case box = 64
    case iManage = 128
    case egnyte = 256

    var location: OpenLocation {
        switch self {
        case .other: .other
        case .oneDriveForBusiness: .oneDriveForBusiness
        case .sharePoint: .sharePoint
        case .camera: .camera
        case .localStorage: .localStorage
        case .photos: .photos
        case .accountDocument: .accountDocument
        case .box: .box
        case .iManage: .iManage
        case .egnyte: .egnyte
        }
    }
}

/// An account's app protection policy as the app reads it.
public protocol IntuneMAMPolicy: AnyObject {
    func isSaveToAllowed(for location: IntuneMAMSaveLocation, withAccountId accountId: String?) -> Bool
    func isOpenFromAllowed(for location: IntuneMAMOpenLocation, withAccountId accountId: String?) -> Bool
    func getSaveToLocations(forAccountId toAccountId: String?) -> [NSNumber: NSNumber]
    func getOpenFromLocations(forAccountId fromAccountId: String?) -> [NSNumber: NSNumber]
    var isContactSyncAllowed: Bool { get }
    var isWidgetContentSyncAllowed: Bool { get }
    var isSpotlightIndexingAllowed: Bool { get }
    var areSiriIntentsAllowed: Bool { get }
    var areAppIntentsAllowed: Bool { get }
    var isAppSharingAllowed: Bool { get }
    var isFileEncryptionRequired: Bool { get }
    var shouldFileProviderEncryptFiles: Bool { get }
    var isScreenCaptureAllowed: Bool { get }
}

/// The policy of one account (`nil`: the app's current identity), answered by the host.
final class HostPolicy: IntuneMAMPolicy {
    let accountId: String?

    init(accountId: String?) { self.accountId = accountId }

    func isSaveToAllowed(for location: IntuneMAMSaveLocation, withAccountId accountId: String?) -> Bool {
        MAMIntuneFacade.blocking(Service.CanSave(location: location.location, account: accountId ?? ""), as: self.accountId)?.isAllowed ?? false
    }

    func isOpenFromAllowed(for location: IntuneMAMOpenLocation, withAccountId accountId: String?) -> Bool {
        MAMIntuneFacade.blocking(Service.CanOpen(location: location.location, account: accountId ?? "", as: self.accountId), as: self.accountId)?.isAllowed ?? false
    }

    func getSaveToLocations(forAccountId toAccountId: String?) -> [NSNumber: NSNumber] {
        Dictionary(uniqueKeysWithValues: IntuneMAMSaveLocation.allCases.map {
            (NSNumber(value: $0.rawValue), NSNumber(value: isSaveToAllowed(for: $0, withAccountId: toAccountId)))
        })
    }

    func getOpenFromLocations(forAccountId fromAccountId: String?) -> [NSNumber: NSNumber] {
        Dictionary(uniqueKeysWithValues: IntuneMAMOpenLocation.allCases.map {
            (NSNumber(value: $0.rawValue), NSNumber(value: isOpenFromAllowed(for: $0, withAccountId: fromAccountId)))
        })
    }

    /// Whether the policy restricts (or, for the two encryption settings, requires) `setting`
    /// for this account's data: `policy_query`, `feature-restricted` when it does. A host that
    /// does not answer restricts.
    private func restricts(_ setting: PolicySetting) -> Bool {
        guard let reply = MAMIntuneFacade.blocking(Service.PolicyQuery(setting: setting, as: accountId, accounts: []), as: accountId) else { return true }
        return !reply.isAllowed
    }

    var isContactSyncAllowed: Bool { !restricts(.contactSync) }
    var isWidgetContentSyncAllowed: Bool { !restricts(.widgets) }
    var isSpotlightIndexingAllowed: Bool { !restricts(.spotlight) }
    var areSiriIntentsAllowed: Bool { !restricts(.siriIntents) }
    var areAppIntentsAllowed: Bool { !restricts(.appIntents) }
    var isAppSharingAllowed: Bool { !restricts(.appSharing) }
    var isFileEncryptionRequired: Bool { restricts(.fileEncryption) }
    var shouldFileProviderEncryptFiles: Bool { restricts(.fileProviderEncryption) }
    /// `screen_capture` as this account's data (the policy and the app configuration's key).
    var isScreenCaptureAllowed: Bool { MAMIntuneFacade.blocking(Service.ScreenCapture(), as: accountId)?.isAllowed ?? false }
}

/// The SDK's entry to policies (it holds nothing: each policy asks the host).
public final class IntuneMAMPolicyManager: Sendable {
    private static let shared = IntuneMAMPolicyManager()

    public class func instance() -> IntuneMAMPolicyManager { shared }

    /// The policy of `accountId` (`nil`: the app's current identity).
    public func policy(forAccountId accountId: String?) -> (any IntuneMAMPolicy)? {
        HostPolicy(accountId: accountId)
    }
}
