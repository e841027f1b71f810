public import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// Accounts on the device: sign-in and sign-out (with the app asked to wipe first), admin
/// wipes, allowed-accounts changes and the SDK's `addIdentity` (RULES.md §5).
extension Host {
    /// Signs an account in to an app (allowed accounts, single managed account: RULES.md §5).
    public func signIn(_ name: String, account key: String) -> Decision {
        guard let spec = spec(named: name) else { return .blocked(.unknownApp, because: HostError.unknownApp(name).description) }
        do {
            let result = try state.signIn(app: identityOwner(of: spec), account: key)
            if result.isAllowed { onEvent(.signedIn(handle: spec.handle, account: result.account?.upn ?? key)) }
            audit(verb: "signIn", source: spec.handle, sourceIdentity: key, owner: key, result.decision)
            return result.decision
        } catch let error as DeviceStateError {
            audit(verb: "signIn", source: spec.handle, sourceIdentity: key, owner: key, .blocked(error.reason, because: error.message))
            return .blocked(error.reason, because: error.message)
        } catch {
            return .blocked(.badRequest, because: "\(error)")
        }
    }

    /// Signs an account out of an app. The app is asked to wipe the account's data
    /// (`wipeDataForAccountId`); if it does not, the device deletes what the account owns there.
    public func signOut(_ name: String, account key: String, _ completion: @escaping (Decision) -> Void) {
        guard let spec = spec(named: name) else { return completion(.blocked(.unknownApp, because: HostError.unknownApp(name).description)) }
        askToWipe(spec, account: key) { [weak self] handled in
            guard let self else { return }
            do {
                let result = try state.signOut(app: identityOwner(of: spec), account: key, appHandledWipe: handled)
                if result.isAllowed { onEvent(.signedOut(handle: spec.handle, account: key)) }
                audit(verb: "signOut", source: spec.handle, sourceIdentity: key, owner: key, result.decision)
                completion(result.decision)
            } catch let error as DeviceStateError {
                completion(.blocked(error.reason, because: error.message))
            } catch {
                completion(.blocked(.badRequest, because: "\(error)"))
            }
        }
    }

    /// An admin's selective wipe of an account in an app.
    public func wipe(_ name: String, account key: String, _ completion: @escaping (Result<WipeReport, DeviceStateError>) -> Void) {
        guard let spec = spec(named: name) else {
            return completion(.failure(DeviceStateError(.unknownApp, HostError.unknownApp(name).description)))
        }
        askToWipe(spec, account: key) { [weak self] handled in
            guard let self else { return }
            do {
                completion(.success(try state.wipe(app: identityOwner(of: spec), account: key, appHandledWipe: handled)))
            } catch let error as DeviceStateError {
                completion(.failure(error))
            } catch {
                completion(.failure(DeviceStateError(.badRequest, "\(error)")))
            }
        }
    }

    /// The admin changes the allowed-accounts list (`nil` = not targeted). Accounts no longer
    /// allowed are signed out of every app, each running app is told
    /// (`allowedAccountsDidChange`), and asked to wipe their data as on a sign-out.
    public func setAllowedAccounts(_ list: [String]?, _ completion: @escaping ([AllowedAccountsChange]) -> Void) {
        let changes: [AllowedAccountsChange]
        do {
            changes = try state.setAllowedAccounts(list)
        } catch {
            onEvent(.note("could not change the allowed accounts: \(error)"))
            return completion([])
        }
        var remaining = changes.reduce(0) { $0 + $1.signedOut.count }
        guard remaining > 0 else { return completion(changes) }
        for change in changes {
            guard let spec = configuration.apps.first(where: { $0.bundleID == change.app }) else {
                remaining -= change.signedOut.count
                continue
            }
            for account in change.signedOut {
                let key = account.upn.isEmpty ? account.oid : account.upn
                onEvent(.signedOut(handle: spec.handle, account: key))
                audit(verb: "allowedAccountsChanged", source: spec.handle, sourceIdentity: key, owner: key,
                      .blocked(.accountNotAllowed, because: "\(key) is no longer in the allowed accounts list (\(list?.joined(separator: ", ") ?? "none")); signed out of \(spec.bundleID)"))
            }
            if isReady(spec.handle) {
                command(spec.handle, Command(verb: "allowedAccountsDidChange", args: ["allowed": list?.joined(separator: ",") ?? ""])) { _ in }
            }
            for account in change.signedOut {
                let key = account.upn.isEmpty ? account.oid : account.upn
                askToWipe(spec, account: key) { [weak self] handled in
                    guard let self else { return }
                    _ = try? state.wipe(app: identityOwner(of: spec), account: key, appHandledWipe: handled)
                    remaining -= 1
                    if remaining == 0 { completion(changes) }
                }
            }
        }
        if remaining == 0 { completion(changes) }
    }

    /// The SDK needs an account added to an app (`addIdentity`): the app's delegate answers; on
    /// success the account is signed in to it.
    public func addIdentity(_ name: String, account key: String, _ completion: @escaping (Decision) -> Void) {
        guard let spec = spec(named: name) else { return completion(.blocked(.unknownApp, because: HostError.unknownApp(name).description)) }
        guard isReady(spec.handle) else { return completion(.blocked(.appNotRunning, because: "\(spec.handle) is not running; launch it first")) }
        command(spec.handle, Command(verb: "addIdentity", args: ["account": key])) { [weak self] result in
            guard let self else { return }
            guard result.ok, result.outcome == "success" else {
                return completion(.blocked(.identitySwitchCanceled, because: "\(spec.bundleID) did not add \(key) (addIdentity answered \(result.outcome))"))
            }
            completion(signIn(spec.handle, account: key))
        }
    }

    /// `wipeDataForAccountId`: a running app may wipe the account's data itself and say so.
    private func askToWipe(_ spec: AppSpec, account: String, _ completion: @escaping (Bool) -> Void) {
        guard isReady(spec.handle) else { return completion(false) }
        command(spec.handle, Command(verb: "wipeDataForAccountId", args: ["account": account])) { result in
            completion(result.ok && result.outcome == "true")
        }
    }

    public func signedInAccounts(_ name: String) -> [Account] {
        guard let spec = spec(named: name) else { return [] }
        return accounts(of: spec)
    }
}
