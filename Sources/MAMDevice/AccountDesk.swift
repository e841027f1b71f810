public import MAMDeviceState
public import MAMModel
public import MAMPolicy
import MAMWire

/// Accounts on the device: sign-in and sign-out (with the app asked to wipe first), admin
/// wipes, allowed-accounts changes and the SDK's `addIdentity` (RULES.md §5).
public final class AccountDesk {
    private let supervisor: Supervisor
    private let state: DeviceState
    private let audit: AuditSink
    private let onEvent: (HostEvent) -> Void

    init(supervisor: Supervisor, state: DeviceState, audit: AuditSink, onEvent: @escaping (HostEvent) -> Void) {
        self.supervisor = supervisor
        self.state = state
        self.audit = audit
        self.onEvent = onEvent
    }

    /// Signs an account in to an app (allowed accounts, single managed account: RULES.md §5).
    public func signIn(_ app: AppSpec, account key: String) -> Verdict {
        do {
            let result = try state.signIn(app: app.identityOwner, account: key)
            if result.isAllowed { onEvent(.signedIn(handle: app.handle, account: result.account?.upn ?? key)) }
            // Signing a managed account in is the SDK's enrollment call.
            if result.isAllowed, app.sendsTelemetry, result.isManaged { onEvent(.telemetry(handle: app.handle, event: "enrollment")) }
            audit.record(verb: .signIn, source: app.handle, sourceIdentity: key, owner: key, result.decision)
            return result.decision
        } catch {
            let d = internalFailure(error, doing: "sign \(key) in")
            audit.record(verb: .signIn, source: app.handle, sourceIdentity: key, owner: key, d)
            return d
        }
    }

    /// Signs an account out of an app. The app is asked to wipe the account's data
    /// (`wipeDataForAccountId`); if it does not, the device deletes what the account owns there.
    public func signOut(_ app: AppSpec, account key: String, _ completion: @escaping (Verdict) -> Void) {
        askToWipe(app, account: key) { [weak self] handled in
            guard let self else { return }
            do {
                let result = try state.signOut(app: app.identityOwner, account: key, appHandledWipe: handled)
                strictWipe(app, result.wipe)
                if result.isAllowed { onEvent(.signedOut(handle: app.handle, account: key)) }
                if result.isAllowed, app.sendsTelemetry { onEvent(.telemetry(handle: app.handle, event: "signOut")) }
                audit.record(verb: .signOut, source: app.handle, sourceIdentity: key, owner: key, result.decision)
                completion(result.decision)
            } catch {
                completion(internalFailure(error, doing: "sign \(key) out"))
            }
        }
    }

    /// `setUIPolicyAccountIds`: `app`'s window `window` shows several accounts' data
    /// (`DeviceState.setUIPolicyAccountIds`). The app is told `blockAccountId` for each account
    /// conditional launch blocked; `completion` runs once it took them.
    public func showAccounts(_ app: AppSpec, window: String, accounts: [String], pin: String?,
                             _ completion: @escaping (Result<MergedViewReport, DeviceStateError>) -> Void) {
        let report: MergedViewReport
        do {
            report = try state.setUIPolicyAccountIds(app: app.identityOwner, window: window, accounts: accounts, pin: pin)
        } catch {
            return completion(.failure(DeviceStateError.wrapping(error, doing: "show \(accounts.joined(separator: ", ")) in \(app.handle)")))
        }
        audit.record(verb: .switchIdentity, source: app.handle, sourceIdentity: accounts.joined(separator: ", "), owner: "",
                     decision: AuditDecision(report.result), reason: report.decision.blockedBy, explanation: report.decision.explanation)
        var remaining = report.blocked.count
        guard remaining > 0 else { return completion(.success(report)) }
        for b in report.blocked {
            supervisor.notify(app, SDKNotification(kind: .blockAccount, account: b.account.description, detail: b.reason.rawValue)) {
                remaining -= 1
                if remaining == 0 { completion(.success(report)) }
            }
        }
    }

    /// An admin's selective wipe of an account in an app: the app is asked to wipe, the
    /// account's data goes, and the account is signed out of the app (RULES.md §5 and §8: a
    /// wipe leaves the app without the account, as the conditional-launch wipe does).
    public func wipe(_ app: AppSpec, account key: String, _ completion: @escaping (Result<WipeReport, DeviceStateError>) -> Void) {
        askToWipe(app, account: key) { [weak self] handled in
            guard let self else { return }
            do {
                let out = try state.signOut(app: app.identityOwner, account: key, appHandledWipe: handled)
                strictWipe(app, out.wipe)
                if app.sendsTelemetry { onEvent(.telemetry(handle: app.handle, event: "wipe")) }
                if let report = out.wipe {
                    onEvent(.signedOut(handle: app.handle, account: key))
                    audit.record(verb: .wipe, source: app.handle, sourceIdentity: key, owner: key,
                                 .allowed("\(key) wiped from \(app.bundleID) and signed out: \(report)"))
                    return completion(.success(report))
                }
                // Not signed in there: what the account left behind is still deleted.
                let report = try state.wipe(app: app.identityOwner, account: key, appHandledWipe: handled)
                if app.descriptor.sdkIntegrated, let account = state.fleet.account(named: key) {
                    try state.deregister(app: app.identityOwner, account: account)
                }
                strictWipe(app, report)
                completion(.success(report))
            } catch let error as DeviceStateError {
                completion(.failure(error))
            } catch {
                completion(.failure(DeviceStateError.wrapping(error, doing: "wipe \(key)")))
            }
        }
    }

    /// The admin changes the allowed-accounts list (`nil` = not targeted). Accounts no longer
    /// allowed are signed out of every app, each running app is told
    /// (`allowedAccountsDidChange`), and asked to wipe their data as on a sign-out.
    public func setAllowedAccounts(_ list: [String]?, _ completion: @escaping (Result<[AllowedAccountsChange], DeviceStateError>) -> Void) {
        let changes: [AllowedAccountsChange]
        do {
            changes = try state.setAllowedAccounts(list)
        } catch let error as DeviceStateError {
            return completion(.failure(error))
        } catch {
            return completion(.failure(DeviceStateError.wrapping(error, doing: "change the allowed accounts")))
        }
        // Every running SDK app is told (IntuneMAMAllowedAccountsDidChangeNotification); the
        // accounts no longer allowed are wiped where they were signed in. The step completes
        // once every app answered.
        let told = supervisor.registry.specs.filter {
            $0.descriptor.kind == .app && $0.descriptor.sdkIntegrated && supervisor.readyChild($0.key) != nil
        }
        var remaining = told.count + changes.reduce(0) { $0 + $1.signedOut.count }
        guard remaining > 0 else { return completion(.success(changes)) }
        let finishOne = {
            remaining -= 1
            if remaining == 0 { completion(.success(changes)) }
        }
        for app in told {
            supervisor.command(app, .allowedAccountsChanged(allowed: list)) { [weak self] result in
                if case .acknowledged = result { self?.onEvent(.notified(handle: app.handle, name: "allowedAccountsChanged", account: "")) }
                finishOne()
            }
        }
        for change in changes {
            guard let app = supervisor.registry.app(withBundle: change.app) else {
                for _ in change.signedOut { finishOne() }
                continue
            }
            for account in change.signedOut {
                let key = account.upn.isEmpty ? account.oid : account.upn
                onEvent(.signedOut(handle: app.handle, account: key))
                audit.record(verb: .allowedAccountsChanged, source: app.handle, sourceIdentity: key, owner: key,
                             .blocked(.accountNotAllowed, because: "\(key) is no longer in the allowed accounts list (\(list?.joined(separator: ", ") ?? "none")); signed out of \(app.bundleID)"))
                askToWipe(app, account: key) { [weak self] handled in
                    guard let self else { return }
                    do {
                        strictWipe(app, try state.wipe(app: app.identityOwner, account: key, appHandledWipe: handled))
                    } catch {
                        onEvent(.note("could not wipe \(key)'s data in \(app.handle): \(error)"))
                    }
                    finishOne()
                }
            }
        }
    }

    /// The SDK needs an account added to an app (`addIdentity`): the app's delegate answers; on
    /// success the account is signed in to it.
    public func addIdentity(_ app: AppSpec, account key: String, _ completion: @escaping (Verdict) -> Void) {
        guard supervisor.readyChild(app.key) != nil else {
            return completion(.blocked(.appNotRunning, because: "\(app.handle) is not running; launch it first"))
        }
        supervisor.command(app, .addIdentity(account: key)) { [weak self] result in
            guard let self else { return }
            if case .addIdentity = result { onEvent(.notified(handle: app.handle, name: "addIdentity", account: key)) }
            guard case .addIdentity(added: true) = result else {
                return completion(.blocked(.identitySwitchCanceled, because: "\(app.bundleID) did not add \(key) (addIdentity answered \(result))"))
            }
            completion(signIn(app, account: key))
        }
    }

    /// Strict Mode (docs/STRICT.md): an app that answered `wipeData(forAccountId:)` done while
    /// the account's files are still in its containers made the mistake the SDK cannot see —
    /// the device trusted it and deleted nothing. The SDK called the app here, so the finding
    /// names the delegate method, not a line of the app.
    private func strictWipe(_ app: AppSpec, _ report: WipeReport?) {
        guard let report, let finding = WipeAnsweredWithFilesLeft.finding(account: report.account.description, appHandledWipe: report.appHandledWipe,
                                                                          filesLeft: report.filesLeft) else { return }
        onEvent(.strict(handle: app.handle, finding))
    }

    /// `wipeDataForAccountId`: a running app may wipe the account's data itself and say so.
    private func askToWipe(_ app: AppSpec, account: String, _ completion: @escaping (Bool) -> Void) {
        guard supervisor.readyChild(app.key) != nil else { return completion(false) }
        supervisor.command(app, .wipeAccountData(account: account)) { [weak self] result in
            if case .wipeAccountData(let wiped) = result {
                self?.onEvent(.notified(handle: app.handle, name: "wipe", account: account))
                completion(wiped)
            } else {
                completion(false)
            }
        }
    }

    // MARK: - What the device holds of an app's identities

    /// The identities the device holds for an app, for `expectState`.
    public func identities(_ app: AppSpec, window: String = "") throws -> AppIdentities {
        AppIdentities(process: try state.processIdentity(app: app.identityOwner), ui: try state.uiIdentity(app: app.identityOwner, window: window),
                      signedIn: try Identities(state: state).accounts(of: app))
    }

    /// The app's effective UI identity in `window` (`""`: the main window, else the process
    /// identity); `nil` = unmanaged.
    public func effectiveAccount(_ app: AppSpec, window: String = "") throws -> Account? {
        guard !window.isEmpty else { return try Identities(state: state).current(of: app) }
        return state.account(forIdentity: try state.effectiveIdentity(app: app.identityOwner, window: window, for: .ui))
    }

    /// What `app` sees of the policy now, for `account` (`nil`: the identity its UI shows in
    /// `window`), as the SDK's `IntuneMAMPolicy` getters read it in the app: query verbs decide
    /// on it with the Enforcer's pure functions, so a new query needs no new host call.
    /// A window showing several accounts with a managed one among them reads the lock-down
    /// policy for every feature switch (RULES.md §2), unless the question names an account.
    public func policyView(_ app: AppSpec, window: String = "", account: Account? = nil) throws -> PolicyView {
        var fleet = state.fleet
        if account == nil, let managed = try state.lockDownAccount(app: app.identityOwner, window: window, managedIn: app.bundleID, in: fleet) {
            fleet = fleet.lockingDown(managed)
        }
        return PolicyView(fleet: fleet, app: app.bundleID, identity: try account ?? effectiveAccount(app, window: window))
    }
}

/// An app's identities as the device holds them.
public struct AppIdentities: Sendable, Hashable {
    public var process: String?
    public var ui: String?
    public var signedIn: [Account]
}

/// A snapshot of what one app sees of the policy: the device's fleet (accounts, policies,
/// targeted apps), the app, and the identity asked about (`nil`: unmanaged).
public struct PolicyView: Sendable {
    public let fleet: Fleet
    public let app: BundleID
    public let identity: Account?
}
