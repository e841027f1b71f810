import Foundation
import MAMKit
import MAMModel
import MAMWire

/// What a compliance remediation came to (the SDK's raw values).
public enum IntuneMAMComplianceStatus: UInt, Sendable, CaseIterable {
    case compliant = 0
    case notCompliant = 1
    case serviceFailure = 2
    case networkFailure = 3
    case interactionRequired = 4
    case userCancelled = 5

    /// The status the host names (`ComplianceStatus`'s raw value); an unknown one is a
    /// service failure.
    init(named name: String) {
        self = switch name {
        case "compliant": .compliant
        case "notCompliant": .notCompliant
        case "networkFailure": .networkFailure
        case "interactionRequired": .interactionRequired
        case "userCancelled": .userCancelled
        default: .serviceFailure
        }
    }
}

/// The app's compliance delegate: how a remediation ended, with the error text the app shows.
public protocol IntuneMAMComplianceDelegate: AnyObject {
    func accountId(_ accountId: String, hasComplianceStatus status: IntuneMAMComplianceStatus,
                   withErrorMessage errMsg: String, andErrorTitle errTitle: String)
}

extension IntuneMAMComplianceDelegate {
    public func accountId(_ accountId: String, hasComplianceStatus status: IntuneMAMComplianceStatus,
                          withErrorMessage errMsg: String, andErrorTitle errTitle: String) {}
}

/// App protection conditional access: the remediation the SDK runs when the token service
/// answers that an app protection policy is required. `@unchecked Sendable`: `weakDelegate`
/// is read and written under `lock` only.
public final class IntuneMAMComplianceManager: @unchecked Sendable {
    private static let shared = IntuneMAMComplianceManager()
    private let lock = NSLock()
    private weak var weakDelegate: (any IntuneMAMComplianceDelegate)?

    public class func instance() -> IntuneMAMComplianceManager { shared }

    public weak var delegate: (any IntuneMAMComplianceDelegate)? {
        get { lock.withLock { weakDelegate } }
        set { lock.withLock { weakDelegate = newValue } }
    }

    /// Starts a remediation for `accountId`; its outcome reaches the delegate.
    public func remediateCompliance(forAccountId accountId: String, silent: Bool, file: String = #fileID, line: UInt = #line) {
        let call = "remediateCompliance(forAccountId:silent:)"
        Strict.checkAccountId(accountId, call, file, line)
        // Judged by the host, which holds the app's MSAL client capabilities.
        Strict.report(.remediationWithoutProtapp, call, file, line,
                      "the app declares no protapp client capability (MSAL clientCapabilities), so the remediation can never satisfy app protection conditional access; add protapp")
        MAMIntuneFacade.send(Service.RemediateCompliance(account: accountId, silent: silent))
    }

    /// Whether a remediation for `accountId` is under way or queued.
    public func remediationInProgress(forAccountId accountId: String, file: String = #fileID, line: UInt = #line) -> Bool {
        Strict.checkAccountId(accountId, "remediationInProgress(forAccountId:)", file, line)
        return MAMIntuneFacade.blocking(Service.RemediationInProgress(account: accountId), as: nil)?.allowedAnswer ?? false
    }
}
