import Foundation
import MAMKit
import MAMModel
import MAMWire
import Synchronization

// The policy object the SDK hands out (`HostPolicy`, behind `IntuneMAMPolicy`), and the item
// provider a share extension's input carries where Linux lacks Foundation's.

#if !canImport(ObjectiveC)
/// Foundation's item provider, which Linux lacks: what a share extension's input carries. Made
/// from an item the host delivered (`init(item:)`), it holds the owner the host stamped it with.
/// `@unchecked Sendable`: `open`, as Foundation's is, so the compiler cannot check it; every
/// stored property is a constant of a `Sendable` type.
open class NSItemProvider: @unchecked Sendable {
    /// The owner the host stamped the item with ("" = personal) and the app it came from.
    let owner: String
    let sourceBundle: String
    public let registeredTypeIdentifiers: [String]

    public init() {
        owner = ""
        sourceBundle = ""
        registeredTypeIdentifiers = []
    }

    public init(item: Item) {
        owner = item.ownership?.upn ?? ""
        sourceBundle = item.ownership?.sourceBundle.rawValue ?? ""
        registeredTypeIdentifiers = item.typeIdentifiers
    }
}
#endif

/// The policy of one account, read whole from the host once (`policy`): every getter answers
/// from it without asking again, as the SDK's answer from the policy it holds. A location
/// check for another account than the policy's own asks the host (`can_save`/`can_open`).
final class HostPolicy: IntuneMAMPolicy, Sendable {
    /// The account asked for (`nil`: the identity in effect when the policy was read).
    let accountId: String?
    private let snapshot: PolicySummary
    /// Where the app read it, and how many changes of its account's policy the app had been
    /// told then: used after another, it is a stale copy (Strict Mode).
    private let site: Strict.Site
    private let readAt: Int
    private let key: String

    init(accountId: String?, summary: PolicySummary, site: Strict.Site) {
        self.accountId = accountId
        self.snapshot = summary
        self.site = site
        key = Strict.policyKey(upn: summary.upn, oid: summary.oid)
        readAt = Strict.policyRead(key, site)
    }

    /// The policy as read; every getter goes through here, so a use after a change is seen.
    var summary: PolicySummary {
        Strict.policyUsed(key, readAt: readAt, site)
        return snapshot
    }

    /// Whether `other` names the policy's own account (an unmanaged policy's own is `""`): by
    /// its account id, the OID (a UPN only for an account declared without one).
    private func isOwn(_ other: String?) -> Bool {
        guard let other else { return false }
        if summary.upn.isEmpty && summary.oid.isEmpty { return other.isEmpty }
        let folded = other.lowercased()
        return summary.oid.isEmpty ? folded == summary.upn.lowercased() : folded == summary.oid.lowercased()
    }

    /// The account whose policy this is, as the host names it in a getter's report.
    private var own: String { snapshot.oid.isEmpty ? snapshot.upn : snapshot.oid }

    /// The getters of this object the app's code read already: a getter is a few loads on the
    /// app's hot path, so after its first read it costs one atomic load here.
    private let told = Atomic<UInt32>(0)

    /// `getter` was read by the app's code (told to the host once: `GettersRead`).
    private func read(_ getter: PolicyGetter) {
        let bit = UInt32(1) << UInt32(PolicyGetter.allCases.firstIndex(of: getter) ?? 31)
        guard told.load(ordering: .relaxed) & bit == 0, told.bitwiseOr(bit, ordering: .relaxed).oldValue & bit == 0 else { return }
        GettersRead.read(getter, account: own)
    }

    private func reading(_ getter: PolicyGetter) -> PolicySummary {
        read(getter)
        return summary
    }

    func isSaveToAllowed(for location: IntuneMAMSaveLocation, withAccountId accountId: String?) -> Bool {
        read(.isSaveToAllowed)
        if isOwn(accountId) {
            return location == .other ? summary.saveToOther : summary.saveTo & UInt32(location.rawValue) != 0
        }
        return MAMIntuneFacade.blocking(Service.CanSave(location: location.location, account: accountId ?? ""), as: self.accountId)?.isAllowed ?? false
    }

    func isOpenFromAllowed(for location: IntuneMAMOpenLocation, withAccountId accountId: String?) -> Bool {
        read(.isOpenFromAllowed)
        if isOwn(accountId) {
            return location == .other ? summary.openFromOther : summary.openFrom & UInt32(location.rawValue) != 0
        }
        return MAMIntuneFacade.blocking(Service.CanOpen(location: location.location, account: accountId ?? "", as: self.accountId), as: self.accountId)?.isAllowed ?? false
    }

    func getSaveToLocations(forAccountId toAccountId: String?) -> [NSNumber: NSNumber] {
        read(.getSaveToLocations)
        return Dictionary(uniqueKeysWithValues: IntuneMAMSaveLocation.allCases.map {
            (NSNumber(value: $0.rawValue), NSNumber(value: isSaveToAllowed(for: $0, withAccountId: toAccountId)))
        })
    }

    func getOpenFromLocations(forAccountId fromAccountId: String?) -> [NSNumber: NSNumber] {
        read(.getOpenFromLocations)
        return Dictionary(uniqueKeysWithValues: IntuneMAMOpenLocation.allCases.map {
            (NSNumber(value: $0.rawValue), NSNumber(value: isOpenFromAllowed(for: $0, withAccountId: fromAccountId)))
        })
    }

    /// Exporting or moving is saving a copy elsewhere (the policy's document-picker switch);
    /// importing or opening is opening from a location that is no account's (`other`).
    func isDocumentPickerAllowed(_ mode: UIDocumentPickerMode) -> Bool {
        let summary = reading(.isDocumentPickerAllowed)
        return switch mode {
        case .exportToService, .moveToService: summary.documentPickerAllowed
        default: summary.openFromOther
        }
    }

    var isPINRequired: Bool { reading(.isPINRequired).pinRequired }
    var isManagedBrowserRequired: Bool { reading(.isManagedBrowserRequired).managedBrowserRequired }
    var isContactSyncAllowed: Bool { reading(.isContactSyncAllowed).contactSyncAllowed }
    var isWidgetContentSyncAllowed: Bool { reading(.isWidgetContentSyncAllowed).widgetContentSyncAllowed }
    var isSpotlightIndexingAllowed: Bool { reading(.isSpotlightIndexingAllowed).spotlightIndexingAllowed }
    var areSiriIntentsAllowed: Bool { reading(.areSiriIntentsAllowed).siriIntentsAllowed }
    var areAppIntentsAllowed: Bool { reading(.areAppIntentsAllowed).appIntentsAllowed }
    var isAppSharingAllowed: Bool { reading(.isAppSharingAllowed).appSharingAllowed }
    var shouldFileProviderEncryptFiles: Bool { reading(.shouldFileProviderEncryptFiles).fileProviderEncryptionRequired }
    var isFileEncryptionRequired: Bool { reading(.isFileEncryptionRequired).fileEncryptionRequired }
    var isScreenCaptureAllowed: Bool { reading(.isScreenCaptureAllowed).screenCaptureAllowed }

    func isURLAllowed(_ url: URL) -> Bool { isURLAllowed(url, isKnownManagedAppScheme: false) }

    /// `isKnownManagedAppScheme` spares the app listing `scheme-intunemam` in its queried
    /// schemes; the policy's answer is the same.
    func isURLAllowed(_ url: URL, isKnownManagedAppScheme: Bool) -> Bool {
        read(.isURLAllowed)
        return MAMIntuneFacade.answered(Service.UrlAllowed(url: url.absoluteString, universalLink: false, as: accountId), as: accountId, "isURLAllowed").isAllowed
    }

    func isUniversalLinkAllowed(_ url: URL) -> Bool {
        read(.isUniversalLinkAllowed)
        return MAMIntuneFacade.answered(Service.UrlAllowed(url: url.absoluteString, universalLink: true, as: accountId), as: accountId, "isUniversalLinkAllowed").isAllowed
    }

    func canReceiveSharedItemProvider(_ itemProvider: NSItemProvider) -> Bool {
        read(.canReceiveSharedItemProvider)
        #if canImport(ObjectiveC)
        let (owner, source) = ("", "")
        #else
        let (owner, source) = (itemProvider.owner, itemProvider.sourceBundle)
        #endif
        return MAMIntuneFacade.answered(Service.CanReceiveShared(path: "", owner: owner, sourceBundle: source, as: accountId), as: accountId, "canReceiveSharedItemProvider").isAllowed
    }

    func canReceiveSharedFile(_ path: String) -> Bool {
        read(.canReceiveSharedFile)
        return MAMIntuneFacade.answered(Service.CanReceiveShared(path: path, owner: "", sourceBundle: "", as: accountId), as: accountId, "canReceiveSharedFile").isAllowed
    }

    var notificationPolicy: IntuneMAMNotificationPolicy { IntuneMAMNotificationPolicy(rawValue: Int(reading(.notificationPolicy).notificationPolicy)) ?? .block }
}
