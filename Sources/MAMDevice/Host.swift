public import Foundation
public import MAMDeviceState
public import MAMDeclarations
public import MAMLoop
public import MAMModel
public import MAMPolicy
public import MAMWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The simulated device's host: the composition root of its parts.
///
/// - `Supervisor` spawns the children, does the handshake, checks their frames, sends them
///   commands and ends them;
/// - `Broker` routes shares (identity check, ownership stamp, enforcer, delivery, exactly one
///   answer) and owns the deliveries in flight;
/// - `ServiceDesk` answers the OS and SDK services, `AccountDesk` signs accounts in and out;
/// - `AuditSink` group-commits every decision to the audit log.
///
/// Every child is untrusted: a malformed, oversized or out-of-order frame, or a lie, gets an
/// error or a disconnect and an event — never a crash.
///
/// Thread rule: a `Host` lives on its loop's thread (checked); `HostController` is the way in
/// from elsewhere.
public final class Host {
    public let loop: EventLoop
    public let configuration: HostConfiguration
    /// Accounts, identities, files, keychain and audit log, persisted under the device directory.
    public let state: DeviceState
    let registry: AppRegistry
    let supervisor: Supervisor
    let broker: Broker
    let services: ServiceDesk
    let accounts: AccountDesk
    let audit: AuditSink
    private let owner = LoopOwner()
    /// The simulated token service and compliance remediation (RULES.md §10).
    let tokens: TokenService
    /// Policy assignment, app configuration and declarations changed at run time.
    let admin: AdminDesk
    /// Conditional launch at each launch and resume (RULES.md §8).
    let launches: LaunchDesk
    /// Every event the parts report; a hostile act also becomes an audit line.
    private let emit: (HostEvent) -> Void
    /// One host per device directory: held from `init` to `deinit`.
    private let lock: Int32

    deinit { System.unlock(lock) }

    /// A child that broke the protocol or lied is part of the device's record, not only of a
    /// verbose log: the event is written to the audit log too.
    private static func auditingHostileEvents(_ audit: AuditSink, then onEvent: @escaping (HostEvent) -> Void) -> (HostEvent) -> Void {
        { [weak audit] event in
            if case .hostile(let handle, let what, let disconnected) = event {
                audit?.record(verb: "hostile", source: handle, decision: disconnected ? "disconnected" : "refused",
                             reason: .badRequest, explanation: what)
            }
            onEvent(event)
        }
    }

    /// Takes `<device directory>/host.lock`, or says which directory is in use.
    private static func lockDevice(_ directory: URL) throws(HostError) -> Int32 {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .deviceState("cannot create \(directory.path): \(error)")
        }
        let path = directory.appendingPathComponent("host.lock").path
        let fd: Int32?
        do { fd = try System.tryExclusiveLock(path) } catch { throw .deviceState("cannot lock \(path): \(error)") }
        guard let fd else { throw .deviceInUse(directory.path) }
        return fd
    }

    public init(loop: EventLoop, configuration: HostConfiguration, onEvent: @escaping (HostEvent) -> Void) throws(HostError) {
        self.loop = loop
        self.configuration = configuration
        registry = try AppRegistry(configuration.apps)
        let lock = try Self.lockDevice(configuration.deviceDirectory)
        // Until every property is set, a throw does not run `deinit`: the lock is let go here.
        do throws(HostError) {
            do {
                state = try DeviceState(
                    directory: configuration.deviceDirectory, fleet: configuration.fleet, policies: configuration.extraPolicies,
                    clockStart: configuration.clockStart ?? DeviceState.defaultClockStart)
                if let online = configuration.networkOnline { try state.setNetwork(online: online) }
                try state.loadAppConfigPolicies(initial: configuration.appConfigs)
                try state.loadDeclarations()
                try state.loadConditionalAccess(initial: configuration.conditionalAccess)
                if !configuration.declarations.isEmpty { _ = try state.applyDeclarations(configuration.declarations) }
            } catch {
                throw HostError.deviceState("\(error)")
            }
            audit = AuditSink(loop: loop, state: state, context: configuration.context, enabled: configuration.auditDecisions,
                              refusalBudget: configuration.auditRefusalBudget, onEvent: onEvent)
            emit = Self.auditingHostileEvents(audit, then: onEvent)
            supervisor = try Supervisor(loop: loop, configuration: configuration, registry: registry, state: state, onEvent: emit)
        } catch {
            System.unlock(lock)
            throw error
        }
        self.lock = lock
        broker = Broker(supervisor: supervisor, state: state, audit: audit, context: configuration.context, onEvent: emit)
        services = ServiceDesk(state: state, audit: audit, registry: registry, context: configuration.context, onEvent: emit)
        accounts = AccountDesk(supervisor: supervisor, state: state, audit: audit, onEvent: emit)
        tokens = TokenService(supervisor: supervisor, state: state, audit: audit, brokerInstalled: configuration.brokerInstalled, onEvent: emit)
        launches = LaunchDesk(supervisor: supervisor, state: state, audit: audit, onEvent: emit)
        admin = AdminDesk(supervisor: supervisor, state: state, audit: audit, registry: registry, declaredAppConfigs: configuration.appConfigs)
        supervisor.router = self
    }

    public var fleet: Fleet { state.fleet }

    /// What confines the children (said once at start as a note event too).
    public var confinement: ConfinementReport { supervisor.confinement }

    /// The installed apps' handles, in declaration order.
    public var handles: [String] { registry.specs.map(\.handle) }

    private func app(_ name: String) throws(HostError) -> AppSpec {
        owner.check()
        return try registry.require(name)
    }

    // MARK: - Processes

    /// Starts every app that starts with the fleet; `completion` gets the handles that failed.
    public func startFleet(_ completion: @escaping ([String: HostError]) -> Void) {
        owner.check()
        let apps = registry.specs.filter(\.startsWithFleet)
        guard !apps.isEmpty else { return completion([:]) }
        var remaining = apps.count
        var failures: [String: HostError] = [:]
        for app in apps {
            supervisor.launch(app) { result in
                if case .failure(let e) = result { failures[app.handle] = e }
                remaining -= 1
                if remaining == 0 { completion(failures) }
            }
        }
    }

    /// Spawns one app (if not running) and calls `completion` once it completed the handshake.
    public func launch(_ name: String, _ completion: @escaping (Result<Int32, HostError>) -> Void) {
        do {
            supervisor.launch(try app(name), completion)
        } catch {
            completion(.failure(error))
        }
    }

    /// Kills a child as a crash would (SIGKILL by default). Its pending work fails.
    public func kill(_ name: String, signal: Int32 = SIGKILL) -> Bool {
        guard let spec = try? app(name) else { return false }
        return supervisor.kill(spec, signal: signal)
    }

    /// What conditional launch decided when the app was last launched or resumed; `nil` when
    /// it has not run for that app (never launched, an extension).
    public func launchReport(_ name: String) -> LaunchCheckReport? {
        guard let spec = try? app(name) else { return nil }
        return launches.report(of: spec)
    }

    /// The app comes back to the foreground: conditional launch runs again (RULES.md §8).
    public func resume(_ name: String) -> Result<LaunchCheckReport, HostError> {
        do { return launches.resume(try app(name)) } catch { return .failure(error) }
    }

    /// The app goes to the background; its identities and data stay as they are.
    public func pause(_ name: String) -> Result<Void, HostError> {
        do { return launches.pause(try app(name)) } catch { return .failure(error) }
    }

    public func pid(of name: String) -> Int32? {
        guard let spec = try? app(name), let c = supervisor.child(spec.key), c.isLive else { return nil }
        return c.pid
    }

    public func isReady(_ name: String) -> Bool {
        guard let spec = try? app(name) else { return false }
        return supervisor.readyChild(spec.key) != nil
    }

    /// Ends every child (`HostConfiguration.teardown`) and closes the host's handles;
    /// `completion` runs when no child is left. The audit log is committed first.
    public func shutdown(_ completion: @escaping () -> Void) {
        owner.check()
        supervisor.shutdown { [audit] in
            // A flood still being coalesced gets its record too: nothing is left unlogged.
            audit.commit(all: true)
            completion()
        }
    }

    /// SIGINT and SIGTERM to the host tear the fleet down gracefully, then call `then`.
    public func handleTerminationSignals(then: @escaping (Int32) -> Void) throws {
        owner.check()
        try supervisor.handleTerminationSignals(then: then)
    }

    // MARK: - What apps do themselves

    /// Sends a command to a running app's own process; `completion` runs exactly once.
    public func command(_ name: String, _ command: Command, _ completion: @escaping (CommandResult) -> Void) {
        do {
            supervisor.command(try app(name), command, completion)
        } catch {
            completion(.error(.unknownApp, error.description))
        }
    }

    // MARK: - What the device decides

    /// A service of the OS or the SDK, decided for `name` as if it had asked.
    public func service(_ name: String, _ request: ServiceRequest, context: ServiceContext = .main) -> ServiceResult {
        do {
            return services.perform(request, for: try app(name), in: context)
        } catch {
            return ServiceResult(.failed(.unknownApp, error.description))
        }
    }

    /// The app opens a URL from the data it shows; the decision and the app that takes it.
    public func openURL(_ name: String, url: String) -> (Decision, handler: String?) {
        do {
            return try services.openURL(url, for: try app(name))
        } catch {
            let v = internalFailure(error, doing: "open the URL")
            return (.blocked(v.reason ?? .internalError, because: v.explanation), nil)
        }
    }

    public func signIn(_ name: String, account: String) -> Decision {
        do { return accounts.signIn(try app(name), account: account) } catch { return .blocked(.unknownApp, because: error.description) }
    }

    public func signOut(_ name: String, account: String, _ completion: @escaping (Decision) -> Void) {
        do { accounts.signOut(try app(name), account: account, completion) } catch { completion(.blocked(.unknownApp, because: error.description)) }
    }

    public func wipe(_ name: String, account: String, _ completion: @escaping (Result<WipeReport, DeviceStateError>) -> Void) {
        do { accounts.wipe(try app(name), account: account, completion) } catch { completion(.failure(DeviceStateError(.unknownApp, error.description))) }
    }

    public func setAllowedAccounts(_ list: [String]?, _ completion: @escaping (Result<[AllowedAccountsChange], DeviceStateError>) -> Void) {
        owner.check()
        accounts.setAllowedAccounts(list, completion)
    }

    public func addIdentity(_ name: String, account: String, _ completion: @escaping (Decision) -> Void) {
        do { accounts.addIdentity(try app(name), account: account, completion) } catch { completion(.blocked(.unknownApp, because: error.description)) }
    }

    /// The identities the device holds for an app, for `expectState`.
    public func identities(_ name: String, window: String = "") throws -> (process: String?, ui: String?, signedIn: [Account]) {
        let spec = try app(name)
        let process = try state.processIdentity(app: spec.identityOwner)
        let ui = try state.uiIdentity(app: spec.identityOwner, window: window)
        return (process, ui, try Identities(state: state).accounts(of: spec))
    }

    /// What the device holds of a file in an app's containers, for `expectState`.
    public func fileStatus(_ name: String, path: String) throws -> FileStatus {
        try state.fileStatus(app: try app(name).bundleID, path: ContainerPath(parsing: path))
    }

    /// `IntuneMAMFilePolicyManager.protect(path, account)` / `unprotect`: the file's owner
    /// changes (`""` = unowned) and its bytes are re-protected for the new owner, who must be
    /// signed in to the app. `owner == nil`: the app's file identity (thread ?? process).
    public func setFileOwner(_ name: String, path: String, owner: String?) throws -> ProtectionInfo {
        self.owner.check()
        let spec = try app(name)
        let who = try owner ?? state.effectiveIdentity(app: spec.identityOwner, for: .file) ?? ""
        let info = try state.setFileOwner(app: spec.bundleID, path: ContainerPath(parsing: path), owner: who)
        audit.record(verb: who.isEmpty ? "unprotect" : "protect", source: spec.handle, owner: who, .allowed("\(path) is now owned by \(who.isEmpty ? "nobody (unprotected)" : who)"))
        return info
    }

    /// The app's effective UI identity (main window, else process).
    public func effectiveAccount(_ name: String, window: String = "") throws -> Account? {
        let spec = try app(name)
        guard !window.isEmpty else { return try Identities(state: state).current(of: spec) }
        return state.account(forIdentity: try state.effectiveIdentity(app: spec.identityOwner, window: window, for: .ui))
    }

    /// What `app` sees of the policy now, for `account` (`nil`: the identity its UI shows in
    /// `window`), as the SDK's `IntuneMAMPolicy` getters read it in the app.
    public func policyView(_ name: String, window: String = "", account: Account? = nil) throws -> PolicyView {
        let spec = try app(name)
        return PolicyView(fleet: fleet, app: spec.bundleID, identity: try account ?? effectiveAccount(name, window: window))
    }

    // MARK: - What the administrator changes (`AdminDesk`)

    /// Targets or untargets an account with a policy at run time (`nil` = no policy); whether
    /// it applies. The running apps it concerns are told before `completion` runs.
    public func setPolicy(_ policy: IosManagedAppProtection?, for account: Account, _ completion: @escaping (Result<Bool, DeviceStateError>) -> Void) {
        owner.check()
        admin.setPolicy(policy, for: account, completion)
    }

    /// Changes (or with `nil` removes) an app configuration policy; how many running apps
    /// were told.
    public func setAppConfig(named name: String, settings: [KeyValuePair]?, _ completion: @escaping (Result<Int, DeviceStateError>) -> Void) {
        owner.check()
        admin.setAppConfig(named: name, settings: settings, completion)
    }

    /// The MDM server sends declarations or removes one; how many running apps were told.
    public func changeDeclarations(apply entries: [DeclarationSet.Entry], remove identifier: String?,
                                   _ completion: @escaping (Result<Int, DeviceStateError>) -> Void) {
        owner.check()
        admin.changeDeclarations(apply: entries, remove: identifier, completion)
    }

    /// The simulated Entra token service (RULES.md §10, `TokenService`): a token for `account`
    /// to `resource`, or why not. `fromApp`: asked by the app's own process, which gets tokens
    /// only for accounts its user signed in to it.
    public func acquireToken(_ name: String, account key: String, resource: String, fromApp: Bool = false) -> (TokenDecision, token: String?) {
        owner.check()
        do {
            return tokens.acquireToken(for: try app(name), account: key, resource: resource, fromApp: fromApp)
        } catch {
            return (TokenDecision(decision: .blocked(.unknownApp, because: error.description), homeAccountID: nil), nil)
        }
    }

    /// `remediateCompliance(accountId:silent:)` (`TokenService.remediate`). `fromApp`: started
    /// by the app's own process, which enrolls only accounts its user signed in to it.
    public func remediate(_ name: String, account key: String, silent: Bool, userCancels: Bool, fromApp: Bool = false,
                          _ completion: @escaping (Result<RemediationOutcome, DeviceStateError>) -> Void) {
        owner.check()
        do {
            tokens.remediate(try app(name), account: key, silent: silent, userCancels: userCancels, fromApp: fromApp, completion)
        } catch {
            completion(.failure(DeviceStateError(.unknownApp, error.description)))
        }
    }

    /// `setConditionalAccess`: the admin turns a CA policy on or off.
    public func setConditionalAccess(_ name: String, state newState: ConditionalAccessPolicy.State) throws {
        owner.check()
        try state.setConditionalAccessState(name, newState)
        audit.record(verb: "setConditionalAccess", source: "device", decision: "ok", explanation: "conditional access policy \"\(name)\" is \(newState.rawValue)")
    }

    /// Turns the device's network on or off (`setNetwork`): check-ins need it.
    public func setNetwork(online: Bool) throws {
        owner.check()
        try state.setNetwork(online: online)
        audit.record(verb: "setNetwork", source: "device", decision: "ok", explanation: online ? "the device is online" : "the device is offline")
    }

    public func advanceClock(by duration: ISODuration) throws {
        owner.check()
        try state.advanceClock(by: duration)
    }

    /// Commits the audit log and writes it as JSON Lines.
    @discardableResult
    public func exportAudit(to url: URL) throws -> Int {
        owner.check()
        audit.commit(all: true)
        return try state.exportAuditJSONLines(to: url)
    }
}

extension Host: ChildFrameRouter {
    func route(_ frame: Frame, from child: ChildConnection) throws {
        switch frame.body {
        case .shareRequest(let request):
            broker.share(request, seq: frame.seq, from: child)
        case .shareBatch(let shares):
            for share in shares { broker.share(share.request, seq: share.seq, from: child, batched: true) }
        case .deliverAck(let ack):
            try broker.acknowledged(ack, replyTo: frame.replyTo, from: child)
        case .deliverAcks(let acks):
            try broker.acknowledged(acks, from: child)
        case .setIdentity(let request):
            child.send(.identityResult(services.setIdentity(request, for: child.spec)), replyTo: frame.seq)
        case .getIdentity(let window):
            do {
                child.send(.identityInfo(try services.identityInfo(window: window, for: child.spec)), replyTo: frame.seq)
            } catch {
                child.send(.error(code: .internalError, message: "the device could not read \(child.handle)'s identities: \(error)"), replyTo: frame.seq)
            }
        case .serviceRequest(.acquireToken(let account, let resource, _), _):
            child.send(.serviceResult(tokens.tokenResult(for: child.spec, account: account, resource: resource)), replyTo: frame.seq)
        case .serviceRequest(.remediateCompliance(let account, let silent), _):
            child.send(.serviceResult(tokens.startRemediation(for: child.spec, account: account, silent: silent)), replyTo: frame.seq)
        case .serviceRequest(let request, let context):
            child.send(.serviceResult(services.perform(request, for: child.spec, in: context)), replyTo: frame.seq)
        default:
            throw HostileFrame("sent \(frame.body.name), which the host does not route")
        }
    }

    func childBecameReady(_ child: ChildConnection) { broker.destinationReady(child) }

    func childLaunched(_ spec: AppSpec) {
        guard spec.descriptor.kind == .app else { return }
        if spec.sendsTelemetry { emit(.telemetry(handle: spec.handle, event: "appLaunch")) }
        launches.runChecks(spec, verb: "launch")
    }

    func childWentAway(_ child: ChildConnection, exit: ChildProcess.Exit, how: String) { broker.failOutstandingWork(of: child, how: how) }

    func expireDeliveries(of child: ChildConnection, now: UInt64) { broker.expireDeliveries(of: child, now: now) }
}

/// Errors a host operation can meet; each a sentence naming the app.
public enum HostError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownApp(String)
    case duplicateApp(String)
    case spawnFailed(String, String)
    case exitedDuringHandshake(String, String)
    case notRunning(String)
    case shuttingDown
    case timedOut(String)
    case deviceState(String)
    case loop(String)
    case deviceInUse(String)

    public var description: String {
        switch self {
        case .unknownApp(let a): "no app or extension named \"\(a)\" is installed on this device"
        case .duplicateApp(let a): "two apps use the handle \"\(a)\"; give each a distinct id"
        case .spawnFailed(let a, let why): "could not start \(a): \(why)"
        case .exitedDuringHandshake(let a, let how): "\(a) ended before completing the handshake: \(how)"
        case .notRunning(let a): "\(a) is not running"
        case .shuttingDown: "the device is shutting down"
        case .timedOut(let what): "\(what) timed out"
        case .deviceState(let why): "the device state cannot be opened: \(why)"
        case .loop(let why): "the host's event loop failed: \(why)"
        case .deviceInUse(let dir): "another mamsim host is running on the device directory \(dir); stop it, or give this run another --device-dir"
        }
    }
}
