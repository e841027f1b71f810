import MAMDeclarations
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// What the administrator (Intune, the MDM server) changes while the device runs: an
/// account's policy, app configuration policies, DDM declarations. A part of the host of its
/// own, with one change-and-notify mechanism (`tell`): each change is stored first, then the
/// running apps whose view changed are told, and the change completes when the last of them
/// has answered (or could not be told).
final class AdminDesk {
    private let supervisor: Supervisor
    private let state: DeviceState
    private let audit: AuditSink
    private let registry: AppRegistry
    /// The app configuration policies the scenario declared at start: a removed one can come
    /// back by name.
    private let declaredAppConfigs: [AppConfigPolicy]

    init(supervisor: Supervisor, state: DeviceState, audit: AuditSink, registry: AppRegistry, declaredAppConfigs: [AppConfigPolicy]) {
        self.supervisor = supervisor
        self.state = state
        self.audit = audit
        self.registry = registry
        self.declaredAppConfigs = declaredAppConfigs
    }

    /// Tells each app its notification; `completion` runs once, with how many were told,
    /// when the last has answered (at once when there is none).
    private func tell(_ notices: [(AppSpec, SDKNotification)], then completion: @escaping (Int) -> Void) {
        var remaining = notices.count
        guard remaining > 0 else { return completion(0) }
        for (spec, notice) in notices {
            supervisor.notify(spec, notice) {
                remaining -= 1
                if remaining == 0 { completion(notices.count) }
            }
        }
    }

    /// Targets or untargets an account with a policy at run time (`nil` = no policy).
    /// Returns whether the policy applies: it does not while another account is the device's
    /// managed account (RULES.md §5, single managed account).
    /// Running apps the account is signed in to are told (`IntuneMAMPolicyDidChangeNotification`)
    /// before `completion` runs.
    func setPolicy(_ policy: IosManagedAppProtection?, for account: Account, _ completion: @escaping (Result<Bool, DeviceStateError>) -> Void) {
        let applies: Bool
        do {
            applies = try state.assignPolicy(policy, to: account.oid.isEmpty ? account.upn : account.oid)
        } catch {
            return completion(.failure(error as? DeviceStateError ?? DeviceStateError(.internalError, "\(error)")))
        }
        let identities = Identities(state: state)
        let told = registry.specs.filter { spec in
            spec.descriptor.kind == .app && spec.descriptor.sdkIntegrated
                && ((try? identities.accounts(of: spec))?.contains { $0.isSame(as: account) } ?? false)
        }
        tell(told.map { ($0, SDKNotification(kind: .policyChanged, account: account.description)) }) { _ in completion(.success(applies)) }
    }

    /// The admin changes an app configuration policy (`settings`; `nil` removes it). Running
    /// apps whose configuration changes for one of their managed accounts are told
    /// (`appConfigChanged`) before `completion` runs. The name must be one the device knows:
    /// in force now, or declared at start (a removed policy can come back).
    func setAppConfig(named name: String, settings: [KeyValuePair]?, _ completion: @escaping (Result<Int, DeviceStateError>) -> Void) {
        var policies = state.appConfigPolicies
        let index = policies.firstIndex { $0.name == name }
        let declared = declaredAppConfigs.first { $0.name == name }
        guard let base = index.map({ policies[$0] }) ?? declared else {
            let known = Set(policies.map(\.name) + declaredAppConfigs.map(\.name)).sorted()
            return completion(.failure(DeviceStateError(.badRequest, "no app configuration named \"\(name)\"; the device knows \(known.isEmpty ? "none" : known.joined(separator: ", "))")))
        }
        let running = registry.specs.filter { $0.descriptor.kind == .app && $0.descriptor.sdkIntegrated && supervisor.readyChild($0.key) != nil }
        let identities = Identities(state: state)
        func snapshot() -> [String: AppConfig] {
            var out: [String: AppConfig] = [:]
            for spec in running {
                for account in (try? identities.accounts(of: spec)) ?? [] where state.fleet.isManaged(account) {
                    out[spec.handle + "\u{0}" + account.description] = try? state.appConfig(app: spec.bundleID, account: account)
                }
            }
            return out
        }
        let before = snapshot()
        if let settings {
            var updated = base
            updated.settings = settings
            if let index { policies[index] = updated } else { policies.append(updated) }
        } else if let index {
            policies.remove(at: index)
        }
        do {
            try state.setAppConfigPolicies(policies)
        } catch {
            return completion(.failure(error as? DeviceStateError ?? DeviceStateError(.internalError, "\(error)")))
        }
        audit.record(verb: "setAppConfig", source: "device", decision: "ok",
                     explanation: settings.map { "app configuration \"\(name)\" now has \($0.count) setting(s)" } ?? "app configuration \"\(name)\" removed")
        let after = snapshot()
        let changed = after.keys.filter { before[$0] != after[$0] }.sorted()
        let notices = changed.map { key -> (AppSpec, SDKNotification) in
            let parts = key.split(separator: "\u{0}", maxSplits: 1).map(String.init)
            return (registry.specs.first { $0.handle == parts[0] }!, SDKNotification(kind: .appConfigChanged, account: parts[1]))
        }
        tell(notices) { completion(.success($0)) }
    }

    /// The MDM server sends declarations (`apply`) or removes one (`remove`). The change is
    /// checked as a whole and stored before anything changes; running apps and extensions
    /// whose configuration or secrets change are told (`managedConfigChanged`) before
    /// `completion` runs, with how many were.
    func changeDeclarations(apply entries: [DeclarationSet.Entry], remove identifier: String?,
                                   _ completion: @escaping (Result<Int, DeviceStateError>) -> Void) {
        let running = registry.specs.filter { $0.descriptor.sdkIntegrated || $0.descriptor.mdmManaged }.filter { supervisor.readyChild($0.key) != nil }
        func snapshot() -> [String: ManagedAppContent?] {
            var out: [String: ManagedAppContent?] = [:]
            for spec in running {
                if case .success(let c)? = try? state.managedAppContent(app: spec.bundleID) { out[spec.handle] = c } else { out[spec.handle] = .some(nil) }
            }
            return out
        }
        let before = snapshot()
        do {
            if !entries.isEmpty { _ = try state.applyDeclarations(entries) }
            if let identifier { try state.removeDeclaration(identifier) }
        } catch let e as DeclarationError {
            return completion(.failure(DeviceStateError(.badRequest, "\(e); nothing was applied")))
        } catch {
            return completion(.failure(error as? DeviceStateError ?? DeviceStateError(.internalError, "\(error)")))
        }
        let what = identifier.map { "removed declaration \($0)" } ?? "applied declarations \(entries.map(\.declaration.identifier).joined(separator: ", "))"
        audit.record(verb: identifier == nil ? "applyDeclarations" : "removeDeclaration", source: "device", decision: "ok", explanation: what)
        let after = snapshot()
        // Secrets may change under the same ids: an app is told whenever its content or an
        // asset it references changed.
        let changedAssets = Set(entries.map(\.declaration.identifier) + (identifier.map { [$0] } ?? []))
        let told = running.filter { spec in
            let b = before[spec.handle] ?? nil, a = after[spec.handle] ?? nil
            if b != a { return true }
            guard let a else { return false }
            let refs = Set(a.passwords.values).union(a.certificates.values).union(a.identities.values)
            return !refs.isDisjoint(with: changedAssets)
        }
        tell(told.map { ($0, SDKNotification(kind: .managedConfigChanged)) }) { completion(.success($0)) }
    }
}
