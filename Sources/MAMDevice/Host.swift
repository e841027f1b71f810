public import Foundation
public import MAMDeviceState
import MAMDeclarations
public import MAMLoop
import MAMModel
public import MAMPolicy
public import MAMWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The simulated device's host: the composition root of its parts. A caller reaches a part
/// by name and hands it the app it acts for (`host.accounts.signIn(try host.app("mail"), …)`):
///
/// - `Supervisor` spawns the children, does the handshake, checks their frames, sends them
///   commands and ends them (the host's own process calls below);
/// - `Broker` routes shares (identity check, ownership stamp, enforcer, delivery, exactly one
///   answer) and owns the deliveries in flight;
/// - `services` answers the OS and SDK services and the files' protection;
/// - `accounts` signs accounts in and out, wipes, and says which identities an app holds;
/// - `tokens` is the simulated Entra token service and CA remediation (RULES.md §10);
/// - `admin` is what the administrator changes at run time (policies, app configuration,
///   declarations, conditional access, the network, the clock), with one change-and-notify
///   mechanism;
/// - `launches` runs conditional launch at each launch and resume (RULES.md §8);
/// - `audit` group-commits every decision to the audit log.
///
/// Every child is untrusted: a malformed, oversized or out-of-order frame, or a lie, gets an
/// error or a disconnect and an event — never a crash.
///
/// Thread rule: a `Host` and its parts live on its loop's thread (checked in `app(_:)`);
/// `HostController.run` is the way in from elsewhere.
public final class Host {
    public let loop: EventLoop
    public let configuration: HostConfiguration
    /// Accounts, identities, files, keychain and audit log, persisted under the device directory.
    public let state: DeviceState
    let registry: AppRegistry
    let supervisor: Supervisor
    let broker: Broker
    public let services: ServiceDesk
    public let accounts: AccountDesk
    public let audit: AuditSink
    public let tokens: TokenService
    public let admin: AdminDesk
    /// The enrollment lifecycle and the service's time (SCENARIOS.md v1.3).
    public let enrollment: EnrollmentDesk
    public let launches: LaunchDesk
    private let owner = LoopOwner()
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
                audit?.record(verb: .hostile, source: handle, decision: disconnected ? .disconnected : .refused,
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
        // The containers' filesystem is in place before anything is written there.
        let storage = configuration.confinement == .none ? nil
            : DeviceStorage(deviceDirectory: configuration.deviceDirectory.resolvingSymlinksInPath().path,
                            limitBytes: configuration.deviceLimits.storageBytes)
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
            supervisor = try Supervisor(loop: loop, configuration: configuration, device: Supervisor.Device(registry: registry, state: state, storage: storage), onEvent: emit)
        } catch {
            storage?.close()
            System.unlock(lock)
            throw error
        }
        self.lock = lock
        broker = Broker(supervisor: supervisor, state: state, audit: audit, context: configuration.context, onEvent: emit)
        services = ServiceDesk(state: state, audit: audit, registry: registry, context: configuration.context, onEvent: emit)
        accounts = AccountDesk(supervisor: supervisor, state: state, audit: audit, onEvent: emit)
        tokens = TokenService(supervisor: supervisor, state: state, audit: audit, onEvent: emit)
        // The token calls are services like any other: the desk answers them through it.
        services.tokens = tokens
        launches = LaunchDesk(supervisor: supervisor, state: state, audit: audit, onEvent: emit)
        admin = AdminDesk(supervisor: supervisor, state: state, audit: audit, registry: registry, declaredAppConfigs: configuration.appConfigs)
        enrollment = EnrollmentDesk(supervisor: supervisor, state: state, audit: audit, accounts: accounts, onEvent: emit)
        services.enrollment = enrollment
        launches.enrollment = enrollment
        enrollment.isPaused = { [unowned launches] in launches.isPaused($0) }
        supervisor.router = self
    }

    public var fleet: Fleet { state.fleet }

    /// What confines the children (said once at start as a note event too).
    public var confinement: ConfinementReport { supervisor.confinement }

    /// The installed apps' handles, in declaration order.
    public var handles: [String] { registry.specs.map(\.handle) }

    /// The installed app or extension `name` names (a handle in any case, or a bundle id);
    /// the way in to every part's calls. Checks that the caller is on the loop's thread.
    public func app(_ name: String) throws(HostError) -> AppSpec {
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
            supervisor.launch(app) { [supervisor] result in
                if case .failure(let e) = result { failures[app.handle] = e }
                remaining -= 1
                guard remaining == 0 else { return }
                completion(failures)
                // After the answer: the fleet is ready, and moving it is not part of its start.
                supervisor.splitCPUs(forFleetOf: apps.count)
            }
        }
    }

    /// The CPU kept for the loop and the apps' CPUs, once the fleet's start made them
    /// (`HostConfiguration.brokerCPU`); `nil` while every CPU is shared.
    public var cpuSplit: BrokerCPUSplit? { supervisor.cpus.split }

    /// Spawns one app (if not running) and calls `completion` once it completed the handshake.
    public func launch(_ name: String, _ completion: @escaping (Result<Int32, HostError>) -> Void) {
        do { supervisor.launch(try app(name), completion) } catch { completion(.failure(error)) }
    }

    /// Kills a child as a crash would (SIGKILL by default). Its pending work fails.
    public func kill(_ name: String, signal: Int32 = SIGKILL) -> Bool {
        guard let spec = try? app(name) else { return false }
        return supervisor.kill(spec, signal: signal)
    }

    /// The running child's pid, once it is live.
    public func pid(of name: String) -> Int32? {
        guard let spec = try? app(name), let c = supervisor.child(spec.key), c.isLive else { return nil }
        return c.pid
    }

    public func isReady(_ name: String) -> Bool {
        guard let spec = try? app(name) else { return false }
        return supervisor.readyChild(spec.key) != nil
    }

    /// Sends a command to a running app's own process; `completion` runs exactly once.
    public func command(_ name: String, _ command: Command, _ completion: @escaping (CommandResult) -> Void) {
        do { supervisor.command(try app(name), command, completion) } catch { completion(.unanswered(HostFailure(error))) }
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
}

extension Host: ChildFrameRouter {
    func route(_ body: ChildMessage, seq: UInt64, replyTo: UInt64, from child: ChildConnection) throws {
        switch body {
        case .shareRequest(let request):
            broker.share(request, seq: seq, from: child)
        case .shareBatch(let shares):
            // Each share lent where it lies: a copy of one is 10 retains and 10 releases.
            shares.forEachInPlace { share in broker.share(share.request, seq: share.seq, from: child, batched: true) }
        case .deliverAck(let ack):
            try broker.answers.acknowledged(ack, replyTo: replyTo, from: child)
        case .deliverAcks(let acks):
            try broker.answers.acknowledged(acks, from: child)
        case .setIdentity(let request):
            child.send(.identityResult(services.setIdentity(request, for: child.spec)), replyTo: seq)
        case .getIdentity(let window):
            do {
                child.send(.identityInfo(try services.identityInfo(window: window, for: child.spec)), replyTo: seq)
            } catch {
                child.send(.error(code: .internalError, message: "the device could not read \(child.handle)'s identities: \(error)"), replyTo: seq)
            }
        case .serviceRequest(let request, let context):
            child.send(.serviceResult(services.perform(request, for: child.spec, in: context)), replyTo: seq)
        case .hello, .launchFinished, .commandResult, .ping, .bye, .error:
            // The conversation's own messages: the supervisor answers them, and routes the rest.
            break
        }
    }

    func childBecameReady(_ child: ChildConnection) {
        broker.delivery.destinationReady(child)
        launches.childReady(child.spec)
    }

    func childLaunched(_ spec: AppSpec) {
        // An AutoFill credential provider runs conditional launch as it starts (SDK 22.2).
        if spec.descriptor.kind == .autofill { launches.runChecks(spec, verb: .launch) }
        guard spec.descriptor.kind == .app else { return }
        if spec.sendsTelemetry { emit(.telemetry(handle: spec.handle, event: "appLaunch")) }
        launches.runChecks(spec, verb: .launch)
    }

    func childWentAway(_ child: ChildConnection, exit: ChildProcess.Exit, how: String) { broker.answers.failOutstandingWork(of: child, how: how) }

    func expireDeliveries(of child: ChildConnection, now: UInt64) { broker.answers.expireDeliveries(of: child, now: now) }
}
