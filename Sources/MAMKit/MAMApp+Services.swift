import MAMLoop
public import MAMModel
public import MAMWire
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The device's services as one call each: files, data protection, app configuration,
/// tokens and remediation, screen capture.
extension MAMApp {
    /// Writes a file in this app's containers (`group:<id>/path` for an app group). Its owner
    /// is the effective file identity — the thread identity of the calling task
    /// (`ThreadIdentity.withAccountId`) or the process identity — unless `owner` is given.
    public func writeFile(_ path: String, _ data: [UInt8], owner: String? = nil) async -> ServiceResult {
        await service(.writeFile(path: path, data: data, owner: owner ?? ThreadIdentity.accountId))
    }

    /// The file's bytes (decrypted for this app) as `.data`, or the host's refusal.
    public func readFile(_ path: String) async -> ServiceResult { await service(.readFile(path: path)) }

    /// The account owning a file (`""` = personal).
    public func fileOwner(_ path: String) async -> String? {
        await call(Service.FileOwner(path: path)).allowedAnswer?.owner
    }

    /// `protect`: managed owner → encrypted with a header naming the owner; unmanaged → plain
    /// with the header.
    public func protect(_ data: [UInt8], for owner: String) async -> [UInt8]? {
        await call(Service.Protect(data: data, owner: owner)).allowedAnswer
    }

    /// `unprotect`: data `protect` did not produce comes back unchanged.
    public func unprotect(_ data: [UInt8]) async -> [UInt8]? {
        await call(Service.Unprotect(data: data)).allowedAnswer
    }

    /// `IntuneMAMAppConfigManager appConfigForAccountId`: the Intune app configuration
    /// `account` receives here (`nil` = the calling task's identity: thread ?? main window ??
    /// process). `nil` when the host cannot answer.
    public func appConfig(for account: String? = nil) async -> AppConfig? {
        await call(Service.AppConfig(account: account)).allowedAnswer.map(AppConfig.init(fullData:))
    }

    /// MSAL's `acquireToken` against the device's Entra service: the JWT, or why not —
    /// `protection-policy-required` with the `homeAccountID` to remediate, or
    /// `app-protection-unsupported` (the app does not declare the `protapp` capability).
    public func acquireToken(account: String, resource: String, silent: Bool = true) async -> TokenResult {
        let r = await call(Service.AcquireToken(account: account, resource: resource, silent: silent))
        let token = r.answer.flatMap { $0.jwt.isEmpty ? nil : $0.jwt }
        let home = r.answer.flatMap { $0.homeAccountID.isEmpty ? nil : $0.homeAccountID }
        return TokenResult(token: r.isAllowed ? token : nil, reason: r.verdict.reason, homeAccountID: home, explanation: r.verdict.explanation)
    }

    /// `IntuneMAMComplianceManager remediateCompliance(accountId:silent:)`: returns at once;
    /// the outcome arrives as a `complianceStatus` notification whose `detail` is the status
    /// (`compliant`, `notCompliant`, `networkFailure`, `serviceFailure`, `userCancelled`,
    /// `interactionRequired`), then, when not compliant, the error title and the message to
    /// show, a line each.
    /// An app's remediations run one at a time: a call for another account is queued, a
    /// repeat for an account not yet answered has no effect.
    public func remediateCompliance(accountId: String, silent: Bool) async {
        _ = await service(.remediateCompliance(account: accountId, silent: silent))
    }

    /// `remediationInProgressForAccountId`: a remediation asked for this account whose
    /// outcome has not yet arrived (under way or queued).
    public func remediationInProgress(accountId: String) async -> Bool {
        await call(Service.RemediationInProgress(account: accountId)).answer ?? false
    }

    /// `isScreenCaptureAllowed` for what `window` shows.
    public func isScreenCaptureAllowed(window: String = "") async -> Bool {
        await service(.screenCapture, window: window).isAllowed
    }
}
