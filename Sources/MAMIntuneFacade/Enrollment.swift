import Foundation
import MAMKit
public import MAMModel
// The status codes are mamsim's own type; an app that imports only the façade reads them too.
@_exported public import enum MAMModel.EnrollmentStatus
import MAMWire

/// The SDK's enrollment status codes, with its raw values (the same cases as mamsim's
/// `EnrollmentStatus`).
public typealias IntuneMAMEnrollmentStatusCode = EnrollmentStatus

/// What an enrollment, policy or unenrollment request ended with, as the delegate gets it.
public final class IntuneMAMEnrollmentStatus: Sendable {
    public let accountId: String
    public let identity: String
    public let didSucceed: Bool
    public let statusCode: IntuneMAMEnrollmentStatusCode
    public let errorString: String?

    /// `account` as the app's directory knows it: the UPN is `identity`, the OID (since SDK
    /// 20, the SDK's account id) is `accountId`.
    init(account: DirectoryAccount, status: EnrollmentStatus) {
        accountId = account.accountId
        identity = account.upn.isEmpty ? account.accountId : account.upn
        didSucceed = status.didSucceed
        statusCode = status
        errorString = status.didSucceed ? nil : status.described
    }
}

/// The app's enrollment delegate; each method optional.
public protocol IntuneMAMEnrollmentDelegate: AnyObject {
    func enrollmentRequest(with status: IntuneMAMEnrollmentStatus)
    func policyRequest(with status: IntuneMAMEnrollmentStatus)
    func unenrollRequest(with status: IntuneMAMEnrollmentStatus)
}

extension IntuneMAMEnrollmentDelegate {
    public func enrollmentRequest(with status: IntuneMAMEnrollmentStatus) {}
    public func policyRequest(with status: IntuneMAMEnrollmentStatus) {}
    public func unenrollRequest(with status: IntuneMAMEnrollmentStatus) {}
}

/// The SDK's enrollment calls: each asks the host's enrollment service and returns at once;
/// the status reaches `delegate`, as the SDK's does. `@unchecked Sendable`: its two mutable
/// fields are read and written under `lock` only (the delegate is the app's object, not
/// `Sendable`, as the SDK's is not).
public final class IntuneMAMEnrollmentManager: @unchecked Sendable {
    private static let shared = IntuneMAMEnrollmentManager()
    /// Guards `weakDelegate` and `enrolled`: the app sets the delegate on its thread, the
    /// host's statuses arrive on MAMKit's.
    private let lock = NSLock()
    private weak var weakDelegate: (any IntuneMAMEnrollmentDelegate)?
    private var enrolled: String?

    public class func instance() -> IntuneMAMEnrollmentManager { shared }

    public weak var delegate: (any IntuneMAMEnrollmentDelegate)? {
        get { lock.withLock { weakDelegate } }
        set {
            lock.withLock { weakDelegate = newValue }
            if newValue != nil { Strict.enrollmentDelegateSet() }
        }
    }

    // `file` and `line` (defaulted: a team's call compiles unchanged) name the caller in Strict
    // Mode's findings (docs/STRICT.md).

    public func registerAndEnrollAccountId(_ accountId: String, file: String = #fileID, line: UInt = #line) {
        let call = "registerAndEnrollAccountId(_:)"
        Strict.checkAccountId(accountId, call, file, line)
        Strict.enrollmentCalled(accountId, delegateSet: delegate != nil, call, file, line)
        send(Service.Enroll(account: accountId, interactive: false, userCancels: false))
    }

    public func loginAndEnrollAccount(_ identity: String?, file: String = #fileID, line: UInt = #line) {
        Strict.enrollmentCalled(nil, delegateSet: delegate != nil, "loginAndEnrollAccount(_:)", file, line)
        send(Service.Enroll(account: identity ?? "", interactive: true, userCancels: false))
    }

    public func deRegisterAndUnenrollAccountId(_ accountId: String, withWipe doWipe: Bool, file: String = #fileID, line: UInt = #line) {
        let call = "deRegisterAndUnenrollAccountId(_:withWipe:)"
        Strict.checkAccountId(accountId, call, file, line)
        if Strict.inEnrollmentCallback {
            Strict.report(.deregisterInCallback, call, file, line,
                          "called from inside an IntuneMAMEnrollmentDelegate method; dispatch it to run after the callback returns")
        }
        send(Service.Unenroll(account: accountId, wipe: doWipe))
    }

    /// The account the app's SDK enrolled (its OID), as the host holds it: it survives the
    /// app's restart. What the delegate last heard when the host does not answer.
    public func enrolledAccountId() -> String? {
        if let d = MAMIntuneFacade.blocking(Service.Accounts(), as: nil)?.allowedAnswer { return d.accounts.first { $0.enrolled }?.accountId }
        return lock.withLock { enrolled }
    }

    /// The accounts the app's SDK enrolled (their OIDs).
    public func enrolledAccountIds() -> [String] {
        MAMIntuneFacade.directory().accounts.filter(\.enrolled).map(\.accountId)
    }

    /// The accounts registered with the SDK, enrolled or to be tried again (their OIDs).
    public func registeredAccountIds() -> [Any] {
        MAMIntuneFacade.directory().accounts.filter { $0.enrolled || $0.registered }.map(\.accountId)
    }

    /// The allowed-accounts list's UPNs; `nil` when no list is targeted.
    public func allowedAccounts() -> [Any]? {
        let d = MAMIntuneFacade.directory()
        return d.allowedRestricted ? d.allowed.filter { $0.contains("@") } : nil
    }

    /// The allowed-accounts list's OIDs; `nil` when no list is targeted.
    public func allowedAccountIds() -> [Any]? {
        let d = MAMIntuneFacade.directory()
        return d.allowedRestricted ? d.allowed.filter { !$0.contains("@") } : nil
    }

    private func send<Call: ServiceCall>(_ call: Call) { MAMIntuneFacade.send(call) }

    /// A status the host told the app (`enrollmentStatus`, `policyStatus`, `unenrollmentStatus`),
    /// on the main thread.
    @MainActor
    func deliver(_ kind: SDKNotification.Kind, _ told: IntuneMAMEnrollmentStatus) {
        let status = told.statusCode
        let delegate: (any IntuneMAMEnrollmentDelegate)? = lock.withLock {
            switch kind {
            case .enrollmentStatus where status.didSucceed: enrolled = told.accountId
            case .unenrollmentStatus where status == .unenrollmentSuccess: if enrolled == told.accountId { enrolled = nil }
            default: break
            }
            return weakDelegate
        }
        if kind == .enrollmentStatus { Strict.statusTold(told) }
        Strict.inCallback {
            switch kind {
            case .enrollmentStatus: delegate?.enrollmentRequest(with: told)
            case .policyStatus: delegate?.policyRequest(with: told)
            case .unenrollmentStatus: delegate?.unenrollRequest(with: told)
            default: break
            }
        }
    }
}
