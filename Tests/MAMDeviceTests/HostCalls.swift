import Foundation
import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// The host calls these tests make most, each one line over `HostController.run`: the tests
/// read as the story they check, and show how a caller reaches a part of the host.
extension HostController {
    func signIn(_ app: String, account: String) async -> Verdict {
        await run { try $0.accounts.signIn($0.app(app), account: account) }
    }

    func signOut(_ app: String, account: String) async -> Verdict {
        await complete { host, done in host.accounts.signOut(try host.app(app), account: account, done) }
    }

    func addIdentity(_ app: String, account: String) async -> Verdict {
        await complete { host, done in host.accounts.addIdentity(try host.app(app), account: account, done) }
    }

    func setAllowedAccounts(_ list: [String]?) async -> Result<[AllowedAccountsChange], DeviceStateError> {
        await complete { host, done in host.accounts.setAllowedAccounts(list, done) }
    }

    func identities(_ app: String, window: String = "") async -> Result<AppIdentities, DeviceStateError> {
        await result { try $0.accounts.identities($0.app(app), window: window) }
    }

    func service(_ app: String, _ request: ServiceRequest, context: ServiceContext = .main) async -> ServiceResult {
        await run { try $0.services.perform(request, for: $0.app(app), in: context) }
    }

    func acquireToken(_ app: String, account: String, resource: String, asApp: Bool = false) async -> (TokenDecision, token: String?) {
        await run(orElse: (.unanswered(.shutDown), nil)) { host -> (TokenDecision, token: String?) in
            do { return host.tokens.acquireToken(for: try host.app(app), account: account, resource: resource, fromApp: asApp) } catch {
                return (.unanswered(HostFailure(error)), nil)
            }
        }
    }

    func remediate(_ app: String, account: String, silent: Bool, userCancels: Bool, asApp: Bool = false) async -> Result<RemediationOutcome, DeviceStateError> {
        await complete { host, done in
            try host.tokens.remediate(try host.app(app), account: account, silent: silent, userCancels: userCancels, fromApp: asApp, done)
        }
    }

    func kill(_ app: String, signal: Int32 = 9) async -> Bool {
        await run(orElse: false) { $0.kill(app, signal: signal) }
    }

    func pid(of app: String) async -> Int32? {
        await run(orElse: nil) { $0.pid(of: app) }
    }

    func exportAudit(to url: URL) async -> Result<Int, DeviceStateError> {
        await result { try $0.audit.export(to: url) }
    }
}
