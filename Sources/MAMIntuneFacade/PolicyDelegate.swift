import Foundation
import MAMKit
import MAMModel
import MAMWire
import Synchronization

/// Why the SDK asks the app to switch identity (the SDK's raw values).
public enum IntuneMAMIdentitySwitchReason: UInt, Sendable, CaseIterable {
    case openURL = 0
    case cancelConditionalLaunch = 1
    case documentImport = 2
}

/// How the app answered `addAccountId` (the SDK's raw values).
public enum IntuneMAMAddIdentityResult: UInt, Sendable, CaseIterable {
    case success = 0
    case failed = 1
}

/// How the app answered `blockAccountId` (the SDK's raw values).
public enum IntuneMAMBlockAccountResult: UInt, Sendable, CaseIterable {
    case success = 0
    case failed = 1
}

/// The app's policy delegate. Every method is optional: the defaults are what mamsim's
/// declarative apps do when a scenario scripts nothing (accept the switch, add the account,
/// leave the wipe and the restart to the SDK).
public protocol IntuneMAMPolicyDelegate: AnyObject {
    func identitySwitchRequired(forAccountId accountId: String, reason: IntuneMAMIdentitySwitchReason,
                                completionHandler: @escaping (IntuneMAMSwitchIdentityResult) -> Void)
    func blockAccountId(_ accountId: String, reason: IntuneMAMBlockAccountReason,
                        completionHandler: @escaping (IntuneMAMBlockAccountResult) -> Void)
    /// `true`: the app deleted the account's data itself; `false`: the SDK deletes it.
    func wipeData(forAccountId accountId: String) -> Bool
    /// `true`: the app restarts on its own; `false`: the SDK restarts it.
    func restartApplication() -> Bool
    func addAccountId(_ accountId: String, completionHandler: @escaping (IntuneMAMAddIdentityResult) -> Void)
}

extension IntuneMAMPolicyDelegate {
    public func identitySwitchRequired(forAccountId accountId: String, reason: IntuneMAMIdentitySwitchReason,
                                       completionHandler: @escaping (IntuneMAMSwitchIdentityResult) -> Void) { completionHandler(.success) }
    public func blockAccountId(_ accountId: String, reason: IntuneMAMBlockAccountReason,
                               completionHandler: @escaping (IntuneMAMBlockAccountResult) -> Void) { completionHandler(.success) }
    public func wipeData(forAccountId accountId: String) -> Bool { false }
    public func restartApplication() -> Bool { false }
    public func addAccountId(_ accountId: String, completionHandler: @escaping (IntuneMAMAddIdentityResult) -> Void) { completionHandler(.success) }
}

/// Hands what the host tells the app to its delegates and to NotificationCenter, on the main
/// thread (where the SDK calls its delegates and posts its notifications), one after the
/// other; a command is answered when the delegate returns or calls its completion.
enum Delegates {
    static func deliver(_ n: SDKNotification) async {
        switch n.kind {
        case .enrollmentStatus, .unenrollmentStatus, .policyStatus:
            guard let code = UInt32(n.detail), let code = EnrollmentStatus(rawValue: code) else { return }
            // `identity` is the UPN the app logged in with, though the account is not signed in
            // to the app (a refused enrollment): the host names it.
            var named = account(n.account)
            if named.upn.isEmpty, !n.upn.isEmpty { named.upn = n.upn }
            let status = IntuneMAMEnrollmentStatus(account: named, status: code)
            await MainActor.run { IntuneMAMEnrollmentManager.instance().deliver(n.kind, status) }
        case .complianceStatus:
            let status = IntuneMAMComplianceStatus(named: n.detail)
            let id = account(n.account).accountId
            await MainActor.run {
                IntuneMAMComplianceManager.instance().delegate?.accountId(id, hasComplianceStatus: status, withErrorMessage: n.message, andErrorTitle: n.title)
            }
        case .blockAccount:
            let reason: IntuneMAMBlockAccountReason = n.detail == "conditionalLaunchCanceled" ? .conditionalLaunchCanceled : .conditionalLaunchBlocked
            let id = account(n.account).accountId
            IntuneMAMPolicyManager.instance().block(id, reason)
            _ = await onMain(as: IntuneMAMBlockAccountResult.self) { done in
                guard let delegate = IntuneMAMPolicyManager.instance().delegate else { return done(.success) }
                delegate.blockAccountId(id, reason: reason, completionHandler: done)
            }
        case .policyChanged:
            let changed = n.account.isEmpty ? DirectoryAccount() : account(n.account)
            let key = Strict.policyKey(upn: changed.upn, oid: changed.oid)
            // Counted before the post: a policy object read before it and used after it is the
            // finding (`Strict.policyUsed`); one simply not read again is none of the SDK's business.
            Strict.policyChanging(key)
            await post(.IntuneMAMPolicyDidChange, object: IntuneMAMPolicyManager.instance(), key: IntuneMAMPolicyDidChangeNotificationAccountId, n.account)
        case .appConfigChanged:
            await post(.IntuneMAMAppConfigDidChange, object: IntuneMAMAppConfigManager.instance(), key: IntuneMAMAppConfigDidChangeNotificationAccountId, n.account)
        case .managedConfigChanged, .restartApplication:
            break
        }
    }

    static func answer(_ command: Command) async -> CommandResult? {
        switch command {
        case .wipeAccountData(let name):
            let id = account(name).accountId
            let wiped = await MainActor.run { IntuneMAMPolicyManager.instance().delegate?.wipeData(forAccountId: id) ?? false }
            // The wipe is done on the app's side: apps wait for this before removing the
            // account's tokens (SDK issue #647).
            await post(.IntuneMAMWipeDidComplete, object: IntuneMAMPolicyManager.instance(), key: IntuneMAMSDKLifecycleEventAccountId, name)
            return .wipeAccountData(wiped: wiped)
        case .identitySwitchRequired(let name, _, let cause):
            let id = name.isEmpty ? "" : account(name).accountId
            let reason = IntuneMAMIdentitySwitchReason(rawValue: UInt(cause)) ?? .documentImport
            let result = await identitySwitch(id, reason)
            return .identitySwitchRequired(accepted: result == .success)
        case .addIdentity(let name):
            let id = account(name).accountId
            let result = await onMain(as: IntuneMAMAddIdentityResult.self) { done in
                guard let delegate = IntuneMAMPolicyManager.instance().delegate else { return done(.success) }
                delegate.addAccountId(id, completionHandler: done)
            }
            return .addIdentity(added: result == .success)
        case .allowedAccountsChanged(let accounts):
            await onMainQueue { NotificationCenter.default.post(name: .IntuneMAMAllowedAccountsDidChange, object: accounts) }
            return .acknowledged
        default:
            return nil
        }
    }

    static func restartApplication() async -> Bool {
        let handled = await MainActor.run { IntuneMAMPolicyManager.instance().delegate?.restartApplication() ?? false }
        await Strict.restarting(handled: handled)
        return handled
    }

    /// The account the host named, as the directory knows it (its UPN and OID).
    static func account(_ name: String) -> DirectoryAccount {
        guard !name.isEmpty else { return DirectoryAccount() }
        if let known = MAMIntuneFacade.directory().accounts.first(where: { $0.matches(name) }) { return known }
        return name.contains("@") ? DirectoryAccount(upn: name) : DirectoryAccount(oid: name)
    }

    /// Calls a delegate method with a completion on the main thread and waits for the
    /// completion; a second call of it is ignored (the SDK's completions are one-shot).
    static func onMain<T: Sendable>(as: T.Type, _ body: @escaping @MainActor (@escaping (T) -> Void) -> Void) async -> T {
        await withCheckedContinuation { (c: CheckedContinuation<T, Never>) in
            let once = Once(c)
            Task { @MainActor in body { once.resume($0) } }
        }
    }

    /// How long the SDK's identity switch waits on the app's answer before Strict Mode says so.
    static let identitySwitchPatience: Duration = .seconds(10)

    /// The policy delegate's `identitySwitchRequired`, whose completion handler must be called
    /// exactly once (Android's INCOMING_IDENTITY_SWITCH: an incoming switch not handled):
    /// called twice, or not within `identitySwitchPatience`, is `identity-switch-unhandled`,
    /// named at the delegate method (the SDK called the app there; no line of it is known).
    static func identitySwitch(_ id: String, _ reason: IntuneMAMIdentitySwitchReason) async -> IntuneMAMSwitchIdentityResult {
        let call = "IntuneMAMPolicyDelegate.identitySwitchRequired(forAccountId:reason:completionHandler:)"
        return await withCheckedContinuation { (c: CheckedContinuation<IntuneMAMSwitchIdentityResult, Never>) in
            let once = Once(c) {
                Strict.report(.identitySwitchUnhandled, call, "", 0, "its completion handler was called twice for \(id.isEmpty ? "the unmanaged identity" : id): the SDK takes the first answer; call it exactly once")
            }
            Task { @MainActor in
                guard let delegate = IntuneMAMPolicyManager.instance().delegate else { return once.resume(.success) }
                delegate.identitySwitchRequired(forAccountId: id, reason: reason) { once.resume($0) }
            }
            Task {
                try? await Task.sleep(for: identitySwitchPatience)
                if once.isPending {
                    Strict.report(.identitySwitchUnhandled, call, "", 0, "its completion handler was not called within \(identitySwitchPatience) for \(id.isEmpty ? "the unmanaged identity" : id): the switch waits on it; call it once, with .success or .canceled")
                }
            }
        }
    }

    static func post(_ name: Notification.Name, object: (any Sendable)?, key: String, _ account: String) async {
        let id = account.isEmpty ? "" : Self.account(account).accountId
        await onMainQueue { NotificationCenter.default.post(name: name, object: object, userInfo: [key: id]) }
    }

    /// Runs `body` as an operation of the main queue. A post made there hands an observer
    /// added with `queue: .main` the notification at once; made from a main-actor job instead,
    /// Foundation queues it on the main queue and waits for it, which, where the main queue is
    /// not the main thread's run loop (an app with an async `main`), never comes.
    static func onMainQueue(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            OperationQueue.main.addOperation {
                body()
                c.resume()
            }
        }
    }

    /// Resumes its continuation the first time only: it is taken under the mutex, so a
    /// completion called twice, or from two threads, resumes once.
    final class Once<T: Sendable>: Sendable {
        private let c: Mutex<CheckedContinuation<T, Never>?>
        /// What a second call does (Strict Mode's finding, where the SDK documents one call).
        private let onRepeat: (@Sendable () -> Void)?
        init(_ c: CheckedContinuation<T, Never>, onRepeat: (@Sendable () -> Void)? = nil) {
            self.c = Mutex(c)
            self.onRepeat = onRepeat
        }
        func resume(_ v: T) {
            guard let continuation = c.withLock({ $0.take() }) else { return onRepeat?() ?? () }
            continuation.resume(returning: v)
        }
        var isPending: Bool { c.withLock { $0 != nil } }
    }
}
