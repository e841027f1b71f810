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
// Supervisor+Spawning (spawn, confine, register), Supervisor+Frames (handshake, launch,
// commands), Supervisor+Exits (deadlines, disconnects, exits, relaunch, teardown).

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
    static let sweepInterval: UInt64 = 50
    var signalWatchers: [SignalWatcher] = []
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
