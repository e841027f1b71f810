import Foundation
import MAMDeviceState
import MAMLoop
import MAMModel
import MAMWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A child's life is one state machine over `ChildConnection.state`, each step checking and
// setting what the next reads; its files follow the order a child goes through them:
// Supervisor+Spawning (spawn, confine, register), this file's end (a child's frames: the
// handshake, launch, commands), Supervisor+Exits (deadlines, disconnects, exits, relaunch,
// teardown).

/// What the supervisor hands on: frames past the handshake, and children becoming ready or
/// gone. The host routes them to the broker and the service desk.
protocol ChildFrameRouter: AnyObject {
    /// A frame of a ready child that is not the supervisor's own business. Throwing
    /// `HostileFrame` cuts the child off.
    /// (The message and its numbers apart: a whole frame passed here was copied for the match.)
    func route(_ body: ChildMessage, seq: UInt64, replyTo: UInt64, from child: ChildConnection) throws
    func childBecameReady(_ child: ChildConnection)
    /// A new process of the app was spawned and its identities reset for the new process:
    /// conditional launch's turn (RULES.md §8).
    func childLaunched(_ spec: AppSpec)
    /// The child is gone: everything it owed or was owed must be answered now.
    /// `how`: the exit with its cause (`Supervisor.describe`), for what the child owed.
    func childWentAway(_ child: ChildConnection, exit: ChildProcess.Exit, how: String)
    /// Deliveries whose deadline passed (the sweep's business, the broker's decision).
    func expireDeliveries(of child: ChildConnection, now: UInt64)
}

/// A frame that breaks the protocol: the child is cut off with this sentence.
struct HostileFrame: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// `Supervisor`'s state on its loop's thread (`LoopBound`): its fields are read and
/// written through `value` (`Supervisor.value.field`), checked to be on the loop's thread in debug builds.
struct SupervisorLoopState {
    /// The last handle looked up and what it found: a stream of shares asks for the same
    /// destination item after item, and comparing a handle costs less than hashing it. Apart,
    /// not as one optional pair: reading the pair copied it, a retain of the child for the
    /// comparison. On the loop thread only.
    var lastLookupValid: Bool = false
    var lastLookupHandle: AppHandle = AppHandle("")
    var lastLookupChild: ChildConnection?
}

/// Spawns the children, does the handshake, reads and checks their frames, sends them
/// commands, notices exits, and ends them (`HostConfiguration.teardown`). One sweep timer
/// watches every deadline: handshakes, commands, deliveries and teardown steps.
final class Supervisor: LoopBound<SupervisorLoopState> {
    let loop: EventLoop
    let configuration: HostConfiguration
    let registry: AppRegistry
    let state: DeviceState
    let onEvent: (HostEvent) -> Void
    let environment: [String: String]
    /// How children are started: through the confinement launcher, or directly.
    let confinement: ConfinementReport
    /// The device directory as the kernel sees it (symbolic links resolved), for Landlock.
    let realDeviceDirectory: String
    /// What confined children may read besides their containers.
    let sandbox: SandboxPlan
    /// Each app's read paths, resolved and checked once when the host starts (apps asking the
    /// same share one answer: resolving paths costs more than the rest of a launch's host work).
    var readPaths: [AppHandle: [String]] = [:]
    /// Each app's launches followed across its processes (`LaunchWaiters`): who waits for it,
    /// whether the SDK is relaunching it, how many launches in a row ended in a restart.
    var launches = LaunchWaiters()
    /// A cgroup per confined child (process limit, every descendant ended with it).
    let cgroups: ChildCgroups
    /// The containers' filesystem (`DeviceStorage`), unmounted once every child is gone.
    let storage: DeviceStorage?
    weak var router: (any ChildFrameRouter)?

    /// Running (or starting, or stopping) children by handle.
    var children: [AppHandle: ChildConnection] = [:] {
        didSet {
            self.value.lastLookupValid = false
            self.value.lastLookupChild = nil
        }
    }
    /// Children replaced in `children` before they exited (an extension told `Bye` that is
    /// started again for the next share): kept until their exit, ended at teardown.
    var retiring: [ObjectIdentifier: ChildConnection] = [:]
    var shutdown = SupervisorShutdown()
    var shuttingDown: Bool { shutdown.begun }
    /// Watches every deadline, at this interval (loop ms) while any is pending.
    let sweep: DeadlineSweep
    private static let sweepInterval: UInt64 = 50
    /// The built-in runtime's template, started with the first built-in app.
    var template = BuiltInTemplate()
    /// The CPU kept for the loop and the apps' CPUs, once made (`BrokerCPU`).
    var cpus = AppCPUs()

    /// The device a supervisor starts apps on: the apps installed, its state, and its
    /// containers' filesystem where one was mounted (`nil`: none).
    struct Device {
        let registry: AppRegistry
        let state: DeviceState
        let storage: DeviceStorage?
    }

    init(loop: EventLoop, configuration: HostConfiguration, device parts: Device, onEvent: @escaping (HostEvent) -> Void) throws(HostError) {
        let (registry, state, storage) = (parts.registry, parts.state, parts.storage)
        self.storage = storage
        self.loop = loop
        self.configuration = configuration
        self.registry = registry
        self.state = state
        self.onEvent = onEvent
        environment = SpawnEnvironment.children(of: configuration)
        cgroups = ChildCgroups(maximum: configuration.confinement == .none ? 0 : configuration.childLimits.processesPerChild,
                               device: configuration.deviceLimits)
        var device = cgroups.deviceDescription
        if let storage {
            device.inForce = [device.inForce, storage.inForce].compactMap { $0 }.joined(separator: ", ").nonEmpty
            device.missing = [device.missing, storage.missing].compactMap { $0 }.joined(separator: ", ").nonEmpty
        }
        confinement = try ConfinementReport.probe(configuration, cgroupsUnavailable: cgroups.unavailable, device: device)
        if let note = BrokerCPU.unknownSetting(ProcessInfo.processInfo.environment["MAMSIM_BROKER_CPU"]) { onEvent(.note(note)) }
        realDeviceDirectory = configuration.deviceDirectory.resolvingSymlinksInPath().path
        sandbox = SandboxPlan(configuration: configuration, realDeviceDirectory: realDeviceDirectory)
        if confinement.isConfined {
            // Every declared path is resolved and checked once, here, and the launcher is
            // given exactly what was checked: it opens each without following a link, so one
            // re-pointed after this (in an app group, say) fails the start instead of moving
            // the grant. An extension started later gets what was checked now, not a new
            // resolution.
            // Apps that ask for the same share one answer (a fleet of built-in apps: one).
            var answered: [[String]: [String]] = [:]
            for spec in configuration.apps {
                try sandbox.check(spec)
                let program = spec.executable ?? configuration.appRuntime
                let request = [program, spec.executable == nil ? "built-in" : "own"] + spec.sandbox.read
                let paths = answered[request] ?? sandbox.readPaths(of: spec, program: program)
                answered[request] = paths
                readPaths[spec.key] = paths
            }
        }
        onEvent(.confinement(confinement.description))
        sweep = try DeadlineSweep(loop: loop, interval: Self.sweepInterval)
        super.init(SupervisorLoopState(), loop: loop)
        sweep.sweeps { [weak self] in self?.sweepDeadlines() }
        // The template starts with the device when it has built-in apps: it loads while the
        // host makes the containers and the caller gets ready, not while the first app waits.
        if configuration.apps.contains(where: { $0.executable == nil }) { _ = builtInTemplate() }
        // Containers exist from installation, as on a device: a launch then finds them.
        if confinement.launcher != nil {
            for spec in configuration.apps { for dir in confinedDirectories(of: spec) { Self.ensureDirectory(dir) } }
        }
    }

    func child(_ handle: AppHandle) -> ChildConnection? {
        if self.value.lastLookupValid, self.value.lastLookupHandle == handle { return self.value.lastLookupChild }
        let found = children[handle]
        self.value.lastLookupHandle = handle
        self.value.lastLookupChild = found
        self.value.lastLookupValid = true
        return found
    }

    func readyChild(_ handle: AppHandle) -> ChildConnection? {
        guard let c = children[handle], c.state == .ready else { return nil }
        return c
    }

    // MARK: - Spawning

}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}

/// A running child's frames: framing and protocol-order checks, the handshake and launch that
/// make it ready, and the commands and notifications the host sends it.
extension Supervisor {
    /// Bytes from a child: framing, decoding and protocol-order checks. Any violation cuts the
    /// child off; the host and the other children carry on.
    func received(_ chunk: ReceivedBytes, from child: ChildConnection) {
        guard child.isLive else { return }
        var completed = false
        do {
            try child.value.decoder.feed(chunk, onFrame: { payload in
                completed = true
                guard child.isLive else { return }
                var frame = ChildFrame(body: .launchFinished)
                do {
                    try FrameParser.parse(payload, strings: child.strings, into: &frame)
                } catch {
                    // A body only the host sends is named as such, not as unreadable.
                    if case WireError.wrongSender = error { throw HostileFrame("\(error)") }
                    throw HostileFrame("sent an unreadable frame: \(error)")
                }
                try self.dispatch(frame, from: child)
                child.strings.recycle(&frame)
            })
            // The clock of an unfinished frame starts when it started: a child streaming
            // frames back to back (each read ending mid-frame) completes some on every read.
            if child.life.framesRead(buffered: child.value.decoder.bufferedByteCount != 0, completedOne: completed, now: loop.now) {
                watchDeadlines()
            }
        } catch let hostile as HostileFrame {
            disconnect(child, because: hostile.message)
        } catch {
            disconnect(child, because: "sent a bad frame: \(error)")
        }
    }

    func dispatch(_ frame: ChildFrame, from child: ChildConnection) throws {
        // A batch's items take the seqs before the frame's own, one more each.
        var items = 0
        if case .shareBatch(let shares) = frame.body {
            items = shares.count
            for (i, share) in shares.enumerated() where share.seq != child.lastSeqFromChild &+ UInt64(i + 1) {
                throw HostileFrame("sent a share_batch whose share \(i + 1) has seq \(share.seq), not \(child.lastSeqFromChild &+ UInt64(i + 1)) (a batch's shares are numbered on from the last frame)")
            }
        }
        guard frame.seq == child.lastSeqFromChild &+ UInt64(items + 1) else {
            throw HostileFrame("sent frame seq \(frame.seq) after \(child.lastSeqFromChild &+ UInt64(items)) (each frame's seq is one more than the last, from 1)")
        }
        child.lastSeqFromChild = frame.seq
        if child.state == .spawning {
            guard case .hello(let hello) = frame.body else {
                throw HostileFrame("sent \(frame.body.name) before hello")
            }
            guard hello.protocolVersion == Hello.currentProtocolVersion else {
                throw HostileFrame("speaks protocol version \(hello.protocolVersion); this host speaks \(Hello.currentProtocolVersion) (proto/mamsim/v2)")
            }
            child.takesBatches = hello.batches
            welcome(child, seq: frame.seq, finishesLaunching: hello.finishesLaunching)
            return
        }
        switch frame.body {
        case .hello:
            throw HostileFrame("sent a second hello")
        case .launchFinished:
            guard child.life.finishingLaunch else { throw HostileFrame("sent launch_finished without announcing it in hello, or twice") }
            launchFinished(child, late: false)
        case .commandResult(let result):
            guard let pending = child.pendingCommands.removeValue(forKey: frame.replyTo) else {
                throw HostileFrame("answered command \(frame.replyTo), which the host never sent or which timed out")
            }
            guard result.answers(pending.command) else {
                pending.completion(.error(.badRequest, "\(child.handle) answered \(pending.command.name) with \(result.name)"))
                throw HostileFrame("answered command \(pending.command.name) with \(result.name)")
            }
            pending.completion(result)
        case .ping(let bytes):
            child.send(.ping(bytes), replyTo: frame.seq)
        case .bye:
            child.life.saidBye()
        case .error(let code, let message):
            onEvent(.note("\(child.handle) reported an error: \(code): \(message)"))
        case .shareRequest, .deliverAck, .setIdentity, .getIdentity, .serviceRequest, .shareBatch, .deliverAcks:
            try router?.route(frame.body, seq: frame.seq, replyTo: frame.replyTo, from: child)
        }
    }

    private func welcome(_ child: ChildConnection, seq: UInt64, finishesLaunching: Bool) {
        child.life.welcomed(finishesLaunching: finishesLaunching)
        let kind: ChildKind = switch child.spec.descriptor.kind {
        case .app: .app
        case .share: .shareExtension
        case .action: .actionExtension
        case .keyboard: .keyboardExtension
        // The v1.4 kinds receive and send items as a share extension does (RULES.md §1); the
        // wire's kinds name the ones the SDK treats apart.
        case .fileProvider, .widget, .autofill, .intents, .notificationService, .notificationContent, .broadcastUpload, .messages, .contentBlocker:
            .shareExtension
        }
        let process: String?
        do {
            process = try state.processIdentity(app: child.spec.identityOwner)
        } catch {
            onEvent(.note("\(child.handle): its process identity cannot be read: \(error)"))
            process = nil
        }
        child.send(.welcome(Welcome(
            bundleID: child.bundleID, kind: kind, appHandle: child.handle,
            processIdentity: process ?? "", maxFrameSize: configuration.maximumFrameSize, batches: true, delegate: child.spec.delegate)),
            replyTo: seq)
        onEvent(.ready(handle: child.handle, bundle: child.bundleID, pid: child.pid))
        router?.childBecameReady(child)
        if !finishesLaunching { finishWaiters(child.key, .success(child.pid)) }
    }

    /// The app's own launch work is done (or its time is up): its launch completes.
    func launchFinished(_ child: ChildConnection, late: Bool) {
        guard child.life.finishLaunch() else { return }
        if late { onEvent(.note("\(child.handle) did not finish launching within \(configuration.handshakeTimeout); its launch completes anyway")) }
        finishWaiters(child.key, .success(child.pid))
    }

    // MARK: - Commands

    /// Sends a command to a ready child; `completion` runs exactly once, with the child's
    /// answer, or `.error` if it is not running, dies, or does not answer in time.
    func command(_ spec: AppSpec, _ command: Command, _ completion: @escaping (CommandResult) -> Void) {
        guard let child = readyChild(spec.key) else {
            return completion(.error(.appNotRunning, "\(spec.handle) is not running; launch it first"))
        }
        let seq = child.send(.command(command))
        if case .exit = command { return completion(.acknowledged) }
        child.pendingCommands[seq] = PendingCommand(
            command: command, deadline: loop.now + configuration.commandTimeout.milliseconds, completion: completion)
        watchDeadlines()
    }

    /// Tells a running app an SDK notification; `completion` runs once the app took it (or
    /// could not: not running, gone, timed out). Apps not running are not told.
    func notify(_ spec: AppSpec, _ n: SDKNotification, _ completion: @escaping () -> Void = {}) {
        guard readyChild(spec.key) != nil else { return completion() }
        command(spec, .notification(n)) { [weak self] result in
            if case .notified = result { self?.onEvent(.notified(handle: spec.handle, name: n.kind.rawValue, account: n.account)) }
            completion()
        }
    }

    /// `restartApplication`, and the SDK's restart when the app does not restart on its own
    /// (`IntuneMAMPolicyDelegate.h`): the app is told; if its answer leaves the restart to the
    /// SDK, the device ends it and launches it again. `completion` runs once the app is back
    /// (or was not running, or restarts itself), with whether the device restarted it.
    func restartApplication(_ spec: AppSpec, _ n: SDKNotification, _ completion: @escaping (Bool) -> Void) {
        guard readyChild(spec.key) != nil else { return completion(false) }
        command(spec, .notification(n)) { [weak self] result in
            guard let self else { return completion(false) }
            guard case .notified(let itself) = result else { return completion(false) }
            onEvent(.notified(handle: spec.handle, name: n.kind.rawValue, account: n.account))
            guard !itself, let child = readyChild(spec.key) else { return completion(false) }
            onEvent(.note("\(spec.handle) leaves the restart to the Intune SDK: the device ends it and launches it again"))
            // A relaunch, not a failure: whoever waits for the app's launch (its launch work
            // was not finished yet, at a first policy during launch) waits for the new process —
            // unless every launch has ended in a restart so far: then they are told.
            let (again, overLimit) = launches.restarted(spec.key)
            if overLimit {
                finishWaiters(spec.key, .failure(.exitedBeforeFinishingLaunch(
                    spec.handle, "the Intune SDK restarted it \(again) times before it finished launching (each launch ended in another restart: an app wiped at launch that enrolls again, or a policy that restarts it each time)")))
            }
            child.life.endForRelaunch()
            child.onExit.append { [weak self] in
                guard let self else { return completion(false) }
                launches.relaunch(spec.key, underWay: true)
                launch(spec) { [weak self] _ in
                    self?.launches.relaunch(spec.key, underWay: false)
                    completion(true)
                }
            }
            end(child, reason: "the Intune SDK restarts the app (restartApplication)")
        }
    }

    // MARK: - Deadlines
}
