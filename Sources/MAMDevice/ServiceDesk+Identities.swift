public import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

extension ServiceDesk {
    // MARK: - Identities

    /// Identity changes an app asks for. A switch to a managed identity runs conditional
    /// launch; the PIN prompt is answered with what the user was scripted to type.
    func setIdentity(_ request: SetIdentity, for app: AppSpec) -> IdentityResult {
        let owner = app.identityOwner
        let account: String? = request.account.isEmpty ? "" : request.account
        let pin = context.takePinAnswer(app.key)
        let newPin = context.takeNewPin(app.key)
        let mainThread = request.mainThread
        if let refused = PolicyReads.decision(in: fleet, { Enforcer.mainThreadConflict(switchingTo: account, mainThread: mainThread, in: $0) }) {
            audit.record(verb: .switchIdentity, source: app.handle, sourceIdentity: request.account, owner: request.account,
                         decision: .notAllowed, reason: refused.blockedBy, explanation: refused.explanation)
            return IdentityResult(status: .notAllowed, reason: refused.blockedBy, explanation: refused.explanation, account: request.account)
        }
        do {
            let report = switch request.scope {
            case .process: try state.setProcessAccountId(app: owner, account: account, pin: pin, newPin: newPin, now: nil)
            case .ui: try state.setUIPolicyAccountId(app: owner, window: request.window, account: account, pin: pin, newPin: newPin, now: nil)
            }
            let status: IdentityResult.Status = switch report.result {
            case .success: .success
            case .canceled: .canceled
            case .notAllowed: .notAllowed
            case .failed: .failed
            }
            audit.record(verb: .switchIdentity, source: app.handle, sourceIdentity: request.account, owner: request.account,
                         decision: AuditDecision(report.result), reason: report.decision.blockedBy, explanation: report.decision.explanation)
            if report.result == .notAllowed, !request.account.isEmpty, try identities.signedIn(request.account, to: app) == nil {
                onEvent(.hostile(handle: app.handle, what: "asked for identity \(request.account), which is not signed in to it", disconnected: false))
            }
            return IdentityResult(status: status, reason: report.decision.blockedBy, explanation: report.decision.explanation, account: request.account)
        } catch {
            let v = internalFailure(error, doing: "switch identity")
            return IdentityResult(status: .failed, reason: v.reason, explanation: v.explanation, account: request.account)
        }
    }

    func identityInfo(window: String, for app: AppSpec) throws -> IdentityInfo {
        let owner = app.identityOwner
        let process = try state.processIdentity(app: owner)
        let ui = try state.effectiveIdentity(app: owner, window: window, for: .ui)
        return IdentityInfo(processIdentity: process ?? "", uiIdentity: ui ?? "", signedIn: try identities.accounts(of: app).map(\.upn))
    }

    // MARK: - Files' protection, asked by the scenario

    /// What the device holds of a file in an app's containers, for `expectState`.
    public func fileStatus(_ app: AppSpec, path: String) throws -> FileStatus {
        try state.fileStatus(app: app.bundleID, path: ContainerPath(parsing: path))
    }

    /// `IntuneMAMFilePolicyManager.protect(path, account)` / `unprotect`: the file's owner
    /// changes (`""` = unowned) and its bytes are re-protected for the new owner, who must be
    /// signed in to the app. `owner == nil`: the app's file identity (thread ?? process).
    public func setFileOwner(_ app: AppSpec, path: String, owner: String?) throws -> ProtectionInfo {
        let who = try owner ?? state.effectiveIdentity(app: app.identityOwner, for: .file) ?? ""
        let info = try state.setFileOwner(app: app.bundleID, path: ContainerPath(parsing: path), owner: who)
        audit.record(verb: who.isEmpty ? .unprotect : .protect, source: app.handle, owner: who,
                     .allowed("\(path) is now owned by \(who.isEmpty ? "nobody (unprotected)" : who)"))
        return info
    }
}
