public import MAMDeclarations
public import MAMDeviceState
public import MAMModel
public import MAMPolicy
import MAMWire

/// What the administrator (Intune, the MDM server) changes while the device runs: an
/// account's policy, app configuration policies, DDM declarations. A part of the host of its
/// own, with one change-and-notify mechanism (`change`): what each app sees is read before
/// and after the change is stored, the apps whose view changed are told, and the change
/// completes when the last of them has answered (or could not be told).
public final class AdminDesk {
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

    /// The one way an administrator's change reaches the apps: `view` is read for each app
    /// in `apps` before and after `apply` stores the change; `notices` says what each app is
    /// told given its view before and after (nothing when it did not change). `completion`
    /// runs once, with how many were told, when the last has answered (at once when none).
    private func change<View>(among apps: [AppSpec], view: (AppSpec) -> View, apply: () throws -> Void,
                              notices: @escaping (AppSpec, View, View) -> [SDKNotification],
                              then completion: @escaping (Result<Int, DeviceStateError>) -> Void) {
        let before = apps.map(view)
        do {
            try apply()
        } catch let e as DeclarationError {
            return completion(.failure(DeviceStateError(.badRequest, "\(e); nothing was applied")))
        } catch {
            return completion(.failure(DeviceStateError.wrapping(error, doing: "change the device's administration")))
        }
        let told = zip(apps, zip(before, apps.map(view))).flatMap { spec, views in notices(spec, views.0, views.1).map { (spec, $0) } }
        var remaining = told.count
        guard remaining > 0 else { return completion(.success(0)) }
        for (spec, notice) in told {
            supervisor.notify(spec, notice) {
                remaining -= 1
                if remaining == 0 { completion(.success(told.count)) }
            }
        }
    }

    /// Running apps with the SDK, or (`mdm`) managed by the MDM server.
    private func running(mdm: Bool = false) -> [AppSpec] {
        registry.specs.filter {
            // Whether MDM manages an app is the device's to say (`manageApp` changes it).
            ($0.descriptor.sdkIntegrated && ($0.descriptor.kind == .app || mdm) || (mdm && (state.fleet.app($0.bundleID)?.mdmManaged ?? false)))
                && supervisor.readyChild($0.key) != nil
        }
    }

    /// Targets or untargets an account with a policy at run time (`nil` = no policy).
    /// Returns whether the policy applies: it does not while another account is the device's
    /// managed account (RULES.md §5, single managed account).
    /// Apps with the SDK the account is signed in to are told
    /// (`IntuneMAMPolicyDidChangeNotification`) before `completion` runs.
    public func setPolicy(_ policy: IosManagedAppProtection?, for account: Account, _ completion: @escaping (Result<Bool, DeviceStateError>) -> Void) {
        var applies = false
        let identities = Identities(state: state)
        let apps = registry.specs.filter { $0.descriptor.kind == .app && $0.descriptor.sdkIntegrated }
        change(among: apps, view: { spec in (try? identities.accounts(of: spec))?.contains { $0.isSame(as: account) } ?? false },
               apply: { applies = try state.assignPolicy(policy, to: account.oid.isEmpty ? account.upn : account.oid) },
               // With `delivery: checkIn` the apps learn of it at their next check-in.
               notices: { [state] _, _, signedIn in
                   signedIn && state.fleet.service.delivery == .immediate ? [SDKNotification(kind: .policyChanged, account: account.description)] : []
               },
               then: { completion($0.map { _ in applies }) })
    }

    /// The admin changes an app configuration policy (`settings`; `nil` removes it). Running
    /// apps whose configuration changes for one of their managed accounts are told
    /// (`appConfigChanged`) before `completion` runs. The name must be one the device knows:
    /// in force now, or declared at start (a removed policy can come back).
    public func setAppConfig(named name: String, settings: [KeyValuePair]?, _ completion: @escaping (Result<Int, DeviceStateError>) -> Void) {
        var policies = state.appConfigPolicies
        let index = policies.firstIndex { $0.name == name }
        let declared = declaredAppConfigs.first { $0.name == name }
        guard let base = index.map({ policies[$0] }) ?? declared else {
            let known = Set(policies.map(\.name) + declaredAppConfigs.map(\.name)).sorted()
            return completion(.failure(DeviceStateError(.badRequest, "no app configuration named \"\(name)\"; the device knows \(known.isEmpty ? "none" : known.joined(separator: ", "))")))
        }
        if let settings {
            var updated = base
            updated.settings = settings
            if let index { policies[index] = updated } else { policies.append(updated) }
        } else if let index {
            policies.remove(at: index)
        }
        let identities = Identities(state: state)
        // Each managed account's configuration in the app, in sign-in order.
        func configurations(_ spec: AppSpec) -> [(String, AppConfig?)] {
            ((try? identities.accounts(of: spec)) ?? []).filter(state.fleet.isManaged).map {
                ($0.description, try? state.appConfig(app: spec.bundleID, account: $0))
            }
        }
        change(among: running(), view: configurations,
               apply: {
                   try state.setAppConfigPolicies(policies)
                   audit.record(verb: .setAppConfig, source: "device", decision: .ok,
                                explanation: settings.map { "app configuration \"\(name)\" now has \($0.count) setting(s)" } ?? "app configuration \"\(name)\" removed")
               },
               notices: { _, before, after in
                   let was = Dictionary(before, uniquingKeysWith: { a, _ in a })
                   return after.filter { account, config in was[account] != config }.map(\.0).sorted().map { SDKNotification(kind: .appConfigChanged, account: $0) }
               },
               then: completion)
    }

    /// The MDM server sends declarations (`apply`) or removes one (`remove`). The change is
    /// checked as a whole and stored before anything changes; running apps and extensions
    /// whose configuration or secrets change are told (`managedConfigChanged`) before
    /// `completion` runs, with how many were.
    public func changeDeclarations(apply entries: [DeclarationSet.Entry], remove identifier: String?,
                                   _ completion: @escaping (Result<Int, DeviceStateError>) -> Void) {
        // Secrets may change under the same ids: an app is told whenever its content or an
        // asset it references changed.
        let changedAssets = Set(entries.map(\.declaration.identifier) + (identifier.map { [$0] } ?? []))
        change(among: running(mdm: true), view: managedView,
               apply: {
                   if !entries.isEmpty { _ = try state.applyDeclarations(entries) }
                   if let identifier { try state.removeDeclaration(identifier) }
                   let what = identifier.map { "removed declaration \($0)" } ?? "applied declarations \(entries.map(\.declaration.identifier).joined(separator: ", "))"
                   audit.record(verb: identifier == nil ? .applyDeclarations : .removeDeclaration, source: "device", decision: .ok, explanation: what)
               },
               notices: { _, before, after in
                   let references = after.map { Set($0.passwords.values).union($0.certificates.values).union($0.identities.values) } ?? []
                   return before != after || !references.isDisjoint(with: changedAssets) ? [SDKNotification(kind: .managedConfigChanged)] : []
               },
               then: completion)
    }

    /// The MDM server takes an installed app under management (`manageApp`), or releases it:
    /// ManagedApp serves it its configuration and secrets from now on (or nothing), and the app
    /// and its extensions, when running, are told (`managedConfigChanged`) if what they see
    /// changed, before `completion` runs with how many were.
    public func manageApp(_ app: AppSpec, managed: Bool, _ completion: @escaping (Result<Int, DeviceStateError>) -> Void) {
        let family = registry.specs.filter { $0.bundleID == app.bundleID || $0.descriptor.containingApp == app.bundleID }
            .filter { supervisor.readyChild($0.key) != nil }
        change(among: family, view: managedView,
               apply: {
                   try state.setManagedByMDM(app.bundleID, managed)
                   audit.record(verb: .manageApp, source: "device", destination: app.handle, decision: .ok,
                                explanation: managed ? "the MDM server manages \(app.bundleID)" : "the MDM server no longer manages \(app.bundleID)")
               },
               notices: { _, before, after in before != after ? [SDKNotification(kind: .managedConfigChanged)] : [] },
               then: completion)
    }

    /// What ManagedApp serves an app or extension now (`nil`: nothing), for `change`'s views.
    private func managedView(_ spec: AppSpec) -> ManagedAppContent? {
        if case .success(let c)? = try? state.managedAppContent(app: spec.bundleID) { c } else { nil }
    }

    // MARK: - Device facts the administrator or the scenario sets

    /// `setConditionalAccess`: the admin turns a CA policy on or off.
    public func setConditionalAccess(_ name: String, state newState: ConditionalAccessPolicy.State) throws {
        try state.setConditionalAccessState(name, newState)
        audit.record(verb: .setConditionalAccess, source: "device", decision: .ok, explanation: "conditional access policy \"\(name)\" is \(newState.rawValue)")
    }

    /// Turns the device's network on or off (`setNetwork`): check-ins need it.
    public func setNetwork(online: Bool) throws {
        try state.setNetwork(online: online)
        audit.record(verb: .setNetwork, source: "device", decision: .ok, explanation: online ? "the device is online" : "the device is offline")
    }

    /// Device facts that change during a run (`setDevice`): Microsoft Authenticator installed
    /// or removed (app protection CA remediation needs it, RULES.md §10), the device
    /// jailbroken or not (conditional launch reads it at the next launch, resume or identity
    /// switch, RULES.md §8), the iOS version it runs (any, unlike `updateOS`). `nil` leaves a
    /// fact as it is. Returns what changed, in words.
    @discardableResult
    public func setDevice(brokerInstalled: Bool?, jailbroken: Bool?, osVersion: Version? = nil, assetServerAvailable: Bool? = nil) throws -> String {
        var facts = state.fleet.device
        var said: [String] = []
        if let brokerInstalled {
            facts.brokerInstalled = brokerInstalled
            said.append(brokerInstalled ? "Microsoft Authenticator is installed" : "Microsoft Authenticator is removed")
        }
        if let jailbroken {
            facts.jailbroken = jailbroken
            said.append(jailbroken ? "the device is jailbroken" : "the device is not jailbroken")
        }
        if let osVersion {
            said.append("the device runs iOS \(osVersion) (it ran \(facts.osVersion))")
            facts.osVersion = osVersion
        }
        if let assetServerAvailable {
            facts.assetServerAvailable = assetServerAvailable
            said.append(assetServerAvailable ? "the asset server answers again" : "the asset server fails: secrets stay listed, their lookups fail")
        }
        let text = said.isEmpty ? "nothing changed" : said.joined(separator: "; ")
        try state.setDeviceFacts(facts)
        audit.record(verb: .setDevice, source: "device", decision: .ok, explanation: text)
        return text
    }

    /// The administrator disables an account in Entra, or enables it again
    /// (`setAccountDisabled`): conditional launch's last check reads it at the next launch,
    /// resume or switch to that account (RULES.md §8). Returns what changed, in words.
    @discardableResult
    public func setAccountDisabled(_ account: String, disabled: Bool) throws -> String {
        try state.setAccountDisabled(account, disabled)
        let text = "\(account) is \(disabled ? "disabled" : "enabled again") in Entra; conditional launch reads it at the next launch, resume or switch"
        audit.record(verb: .setDevice, source: "device", sourceIdentity: account, owner: account, decision: .ok, reason: nil, explanation: text)
        return text
    }

    /// The user updates iOS (`updateOS`): conditional launch reads the new version at the
    /// next launch, resume or identity switch (RULES.md §8). iOS installs only newer versions;
    /// a scenario that needs an older one starts with it (`device.osVersion`). Returns the
    /// version it had.
    @discardableResult
    public func updateOS(to version: Version) throws -> Version {
        var facts = state.fleet.device
        let old = facts.osVersion
        guard version > old else {
            throw DeviceStateError(.badRequest, "the device runs iOS \(old); an update installs a newer version than that (set device.osVersion for an older one)")
        }
        facts.osVersion = version
        try state.setDeviceFacts(facts)
        audit.record(verb: .updateOS, source: "device", decision: .ok, explanation: "iOS \(old) was updated to \(version)")
        return old
    }

    /// Moves the simulated clock; returns the new time.
    @discardableResult
    public func advanceClock(by duration: ISODuration) throws -> Instant {
        try state.advanceClock(by: duration)
        return state.now
    }
}

