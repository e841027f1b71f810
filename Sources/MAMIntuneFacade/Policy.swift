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

    var location: SaveLocation { SaveLocation.allCases.first { $0.sdkValue == rawValue }! }
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

    var location: OpenLocation { OpenLocation.allCases.first { $0.sdkValue == rawValue }! }
}

/// What notifications of an account's data may show (the SDK's raw values).
public enum IntuneMAMNotificationPolicy: Int, Sendable, CaseIterable {
    case allow = 0
    case blockOrgData = 1
    case block = 2
}

#if !canImport(UIKit)
/// UIKit's document picker modes, for `isDocumentPickerAllowed(_:)` where UIKit is absent.
public enum UIDocumentPickerMode: UInt, Sendable, CaseIterable {
    case `import` = 0
    case open = 1
    case exportToService = 2
    case moveToService = 3
}
#endif

/// An account's app protection policy as the app reads it.
public protocol IntuneMAMPolicy: AnyObject {
    var isPINRequired: Bool { get }
    // Disfavoured so that a call names the extension's overload below, which takes the
    // caller's line for Strict Mode and then calls the conformer's own (a team's mock too).
    @_disfavoredOverload func isSaveToAllowed(for location: IntuneMAMSaveLocation, withAccountId accountId: String?) -> Bool
    @_disfavoredOverload func isOpenFromAllowed(for location: IntuneMAMOpenLocation, withAccountId accountId: String?) -> Bool
    func getSaveToLocations(forAccountId toAccountId: String?) -> [NSNumber: NSNumber]
    func getOpenFromLocations(forAccountId fromAccountId: String?) -> [NSNumber: NSNumber]
    func isDocumentPickerAllowed(_ mode: UIDocumentPickerMode) -> Bool
    var isManagedBrowserRequired: Bool { get }
    var isContactSyncAllowed: Bool { get }
    var isWidgetContentSyncAllowed: Bool { get }
    var isSpotlightIndexingAllowed: Bool { get }
    var areSiriIntentsAllowed: Bool { get }
    var areAppIntentsAllowed: Bool { get }
    var isAppSharingAllowed: Bool { get }
    var shouldFileProviderEncryptFiles: Bool { get }
    var notificationPolicy: IntuneMAMNotificationPolicy { get }
    var isFileEncryptionRequired: Bool { get }
    var isScreenCaptureAllowed: Bool { get }
    func isURLAllowed(_ url: URL) -> Bool
    func isURLAllowed(_ url: URL, isKnownManagedAppScheme: Bool) -> Bool
    func isUniversalLinkAllowed(_ url: URL) -> Bool
    func canReceiveSharedItemProvider(_ itemProvider: NSItemProvider) -> Bool
    func canReceiveSharedFile(_ path: String) -> Bool
}

extension IntuneMAMPolicy {
    /// The SDK's `isSaveToAllowed(for:withAccountId:)`, as a call site spells it: Strict Mode
    /// checks the location's account at the caller's line, then the policy answers.
    public func isSaveToAllowed(for location: IntuneMAMSaveLocation, withAccountId accountId: String?,
                                file: String = #fileID, line: UInt = #line) -> Bool {
        Strict.checkLocation("\(location)", needsAccount: Strict.accountSaveLocations.contains(location), accountId,
                             "isSaveToAllowed(for:withAccountId:)", file, line)
        // The location's account by its account id: a UPN there is the SDK 20 mistake too.
        Strict.checkAccountId(accountId, "isSaveToAllowed(for:withAccountId:)", file, line)
        let answer: (IntuneMAMSaveLocation, String?) -> Bool = isSaveToAllowed(for:withAccountId:)
        return answer(location, accountId)
    }

    /// The SDK's `isOpenFromAllowed(for:withAccountId:)`, checked as `isSaveToAllowed` is.
    public func isOpenFromAllowed(for location: IntuneMAMOpenLocation, withAccountId accountId: String?,
                                  file: String = #fileID, line: UInt = #line) -> Bool {
        Strict.checkLocation("\(location)", needsAccount: Strict.accountOpenLocations.contains(location), accountId,
                             "isOpenFromAllowed(for:withAccountId:)", file, line)
        Strict.checkAccountId(accountId, "isOpenFromAllowed(for:withAccountId:)", file, line)
        let answer: (IntuneMAMOpenLocation, String?) -> Bool = isOpenFromAllowed(for:withAccountId:)
        return answer(location, accountId)
    }
}

/// How `setUIPolicyAccountId` ended (the SDK's raw values).
public enum IntuneMAMSwitchIdentityResult: UInt, Sendable, CaseIterable {
    case success = 0
    case canceled = 1
    case notAllowed = 2
    case failed = 3

    init(_ result: IdentityResult) {
        switch result.status {
        case .success: self = .success
        case .canceled: self = .canceled
        case .notAllowed: self = .notAllowed
        case .failed: self = .failed
        }
    }
}

/// Where the policy the app applies comes from (the SDK's raw values).
public enum IntuneMAMPolicySource: Int, Sendable, CaseIterable {
    case MDM = 0
    case MAM = 1
    case other = 2
}

/// Why an account is blocked from the app's UI (the SDK's raw values).
public enum IntuneMAMBlockAccountReason: UInt, Sendable, CaseIterable {
    case notBlocked = 0
    case conditionalLaunchBlocked = 1
    case conditionalLaunchCanceled = 2
    case clockedOut = 3
}

/// The SDK's entry to policies and identities. Policies are read from the host; the UI
/// identity is the host's; the thread identity is MAMKit's task-local one.
/// `@unchecked Sendable`: `strongDelegate` and `blocked` are read and written under `lock` only.
public final class IntuneMAMPolicyManager: @unchecked Sendable {
    private static let shared = IntuneMAMPolicyManager()
    private let lock = NSLock()
    private var strongDelegate: (any IntuneMAMPolicyDelegate)?
    private var blocked: [String: IntuneMAMBlockAccountReason] = [:]

    public class func instance() -> IntuneMAMPolicyManager { shared }

    /// The app's policy delegate (held strongly, as the SDK holds it).
    public var delegate: (any IntuneMAMPolicyDelegate)? {
        get { lock.withLock { strongDelegate } }
        set { lock.withLock { strongDelegate = newValue } }
    }

    /// The policy of `accountId` (`nil`: the identity in effect), read whole in one round
    /// trip. Account ids are Entra object ids (SDK 20+): a UPN of an account that has one is no
    /// account id, and reads as an unknown account's. A host that does not answer stops the
    /// app with the reason, never a silent `nil` (read as "not targeted").
    public func policy(forAccountId accountId: String?, file: String = #fileID, line: UInt = #line) -> (any IntuneMAMPolicy)? {
        policy(forAccountId: accountId, site: Strict.Site(call: "policy(forAccountId:)", file: file, line: line))
    }

    private func policy(forAccountId accountId: String?, site: Strict.Site) -> (any IntuneMAMPolicy)? {
        Strict.checkAccountId(accountId, site.call, site.file, site.line)
        let reply = MAMIntuneFacade.answered(Service.Policy(as: accountId, accounts: []), as: accountId, "policy(forAccountId:)")
        guard let summary = reply.allowedAnswer else { return nil }
        // The answer names the account by its OID: asked by another name (its UPN), the SDK
        // would not have known it, and answers as for no account.
        if let accountId, !accountId.isEmpty, !summary.oid.isEmpty, accountId.lowercased() != summary.oid.lowercased() {
            let unknown = MAMIntuneFacade.answered(Service.Policy(as: "", accounts: []), as: "", "policy(forAccountId:)")
            return unknown.allowedAnswer.map { HostPolicy(accountId: "", summary: $0, site: site) }
        }
        return HostPolicy(accountId: accountId, summary: summary, site: site)
    }

    /// The policy of several accounts: with a managed one among them, the lock-down policy
    /// (not any one account's); one account, its own.
    public func policy(forAccountIds accountIds: [String]?, file: String = #fileID, line: UInt = #line) -> (any IntuneMAMPolicy)? {
        let ids = accountIds ?? []
        let site = Strict.Site(call: "policy(forAccountIds:)", file: file, line: line)
        guard ids.count > 1 else { return policy(forAccountId: ids.first, site: site) }
        for id in ids { Strict.checkAccountId(id, site.call, file, line) }
        let reply = MAMIntuneFacade.answered(Service.Policy(as: nil, accounts: ids), as: nil, "policy(forAccountIds:)")
        guard let summary = reply.allowedAnswer else { return nil }
        return HostPolicy(accountId: summary.oid.isEmpty ? nil : summary.oid, summary: summary, site: site)
    }

    /// The policy of the identity in effect on this thread (thread, else UI, else process).
    public func policy(file: String = #fileID, line: UInt = #line) -> (any IntuneMAMPolicy)? {
        // Judged by the host, which knows whether the app is multi-identity. Inside a scope of
        // `IntuneMAMSwiftContextManager.setAccountId` the identity in effect is the scoped
        // account, the one whose data the code handles (IntuneMAMPolicyManager.h: policy()
        // answers for the current thread identity): no finding there.
        if ThreadIdentity.accountId == nil {
            Strict.report(.processPolicyInMultiIdentity, "policy()", file, line,
                          "in a multi-identity app, policy() answers for the identity in effect; ask policy(forAccountId:) with the OID of the account whose data this code handles, or read it inside IntuneMAMSwiftContextManager.setAccountId(_:forScope:)")
        }
        return policy(forAccountId: nil, site: Strict.Site(call: "policy()", file: file, line: line))
    }

    /// Whether the policy of `accountId` is applied to it in this app.
    public func isAccountIdManaged(_ accountId: String?, file: String = #fileID, line: UInt = #line) -> Bool {
        Strict.checkAccountId(accountId, "isAccountIdManaged(_:)", file, line)
        guard let accountId, !accountId.isEmpty else { return false }
        return MAMIntuneFacade.directory().accounts.first { $0.matches(accountId) }?.managed ?? false
    }

    /// Whether any account of the app is managed.
    public func isManagementEnabled() -> Bool { !managedAccountIds.isEmpty }

    /// The account the app enrolled (its OID), if any.
    public var primaryAccountId: String? {
        MAMIntuneFacade.directory().accounts.first { $0.enrolled }?.accountId
    }

    /// The managed accounts of the app (their OIDs).
    public var managedAccountIds: [String] {
        MAMIntuneFacade.directory().accounts.filter(\.managed).map(\.accountId)
    }

    public var mamPolicySource: IntuneMAMPolicySource { isManagementEnabled() ? .MAM : .other }

    /// Sets the main window's UI identity (`""` or `nil`: the unmanaged one). The switch runs
    /// conditional launch; `completionHandler` gets how it ended.
    public func setUIPolicyAccountId(_ accountId: String?, completionHandler: ((IntuneMAMSwitchIdentityResult) -> Void)? = nil,
                                     file: String = #fileID, line: UInt = #line) {
        Strict.checkAccountId(accountId, "setUIPolicyAccountId(_:completionHandler:)", file, line)
        let app = MAMIntuneFacade.app
        let done = Handed(completionHandler)  // called on the main actor only
        // The main window's identity (the UI layer; `""` names the main window), not the
        // process's: files the app writes still take the thread's, else the process's. Handed
        // to the channel now, in order with the calls the app makes next.
        app.setIdentity(accountId ?? "", window: "") { result in
            Task {
                if result.status == .success { Strict.screenShown(accountId, file, line) }
                await MainActor.run { done.value?(IntuneMAMSwitchIdentityResult(result)) }
            }
        }
    }

    /// The main window's UI identity as the host holds it (`nil` when it does not answer).
    /// Read back as the SDK gives ids — the account's OID — whichever name the app set it by.
    public func getUIPolicyAccountId() -> String? {
        (try? MAMIntuneFacade.app.identityBlocking().uiIdentity).map(MAMIntuneFacade.accountId(of:))
    }

    /// The thread identity in effect (`IntuneMAMSwiftContextManager.setAccountId(_:forScope:)`).
    public func getCurrentThreadAccountId() -> String? { ThreadIdentity.accountId }

    /// The identity the process's files and data take by default, as the host holds it.
    public func getProcessAccountId() -> String? {
        (try? MAMIntuneFacade.app.identityBlocking().processIdentity).map(MAMIntuneFacade.accountId(of:))
    }

    /// Accounts the SDK blocked from the app's UI (`blockAccountId` told the delegate).
    public func blockedAccountIds() -> [String] { lock.withLock { blocked.keys.sorted() } }

    public func blockedReason(forAccountId accountId: String) -> IntuneMAMBlockAccountReason {
        lock.withLock { blocked[accountId] } ?? .notBlocked
    }

    func block(_ accountId: String, _ reason: IntuneMAMBlockAccountReason) {
        lock.withLock { blocked[accountId] = reason }
    }
}

/// The SDK's Swift scope for the thread identity: MAMKit's task-local `ThreadIdentity`.
public enum IntuneMAMSwiftContextManager {
    public static func getScopedAccountId() -> String? { ThreadIdentity.accountId }

    public static func setAccountId(_ accountId: String?, forScope scope: () -> Void, file: String = #fileID, line: UInt = #line) {
        Strict.checkAccountId(accountId, "IntuneMAMSwiftContextManager.setAccountId(_:forScope:)", file, line)
        ThreadIdentity.withAccountId(accountId, operation: scope)
    }

    public static func setAccountId(_ accountId: String?, forScope scope: () throws -> Void, file: String = #fileID, line: UInt = #line) throws {
        Strict.checkAccountId(accountId, "IntuneMAMSwiftContextManager.setAccountId(_:forScope:)", file, line)
        try ThreadIdentity.withAccountId(accountId, operation: scope)
    }

    public static func setAccountId(_ accountId: String?, forScope scope: () async -> Void, file: String = #fileID, line: UInt = #line) async {
        Strict.checkAccountId(accountId, "IntuneMAMSwiftContextManager.setAccountId(_:forScope:)", file, line)
        await ThreadIdentity.withAccountId(accountId, operation: scope)
    }

    public static func setAccountId(_ accountId: String?, forScope scope: () async throws -> Void, file: String = #fileID, line: UInt = #line) async throws {
        Strict.checkAccountId(accountId, "IntuneMAMSwiftContextManager.setAccountId(_:forScope:)", file, line)
        try await ThreadIdentity.withAccountId(accountId, operation: scope)
    }
}
