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

// One file of about a thousand lines, on purpose: a child's life — spawn (forked from the
// template or executed), handshake, launch, deadlines, teardown, exit and the SDK's relaunch —
// is one state machine over `ChildConnection.state`, and each step checks and sets what the
// next one reads. Split across files, its transitions could no longer be read in the order a
// child goes through them.

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
/// written through `Supervisor`'s properties of the same names.
struct SupervisorLoopState {
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
    private let state: DeviceState
    private let onEvent: (HostEvent) -> Void
    private let environment: [String: String]
    /// How children are started: through the confinement launcher, or directly.
    let confinement: ConfinementReport
    /// The device directory as the kernel sees it (symbolic links resolved), for Landlock.
    private let realDeviceDirectory: String
    /// What confined children may read besides their containers.
    private let sandbox: SandboxPlan
    /// Each app's read paths, resolved and checked once when the host starts (apps asking the
    /// same share one answer: resolving paths costs more than the rest of a launch's host work).
    private var readPaths: [AppHandle: [String]] = [:]
    /// Apps the Intune SDK ended and is launching again (`restartApplication`).
    private var relaunching: Set<AppHandle> = []
    /// A cgroup per confined child (process limit, every descendant ended with it).
    private let cgroups: ChildCgroups
    /// The containers' filesystem (`DeviceStorage`), unmounted once every child is gone.
    private let storage: DeviceStorage?
    weak var router: (any ChildFrameRouter)?

    /// Running (or starting, or stopping) children by handle.
    private(set) var children: [AppHandle: ChildConnection] = [:] {
        didSet {
            lastLookupValid = false
            lastLookupChild = nil
        }
    }
    /// The last handle looked up and what it found: a stream of shares asks for the same
    /// destination item after item, and comparing a handle costs less than hashing it. Apart,
    /// not as one optional pair: reading the pair copied it, a retain of the child for the
    /// comparison. On the loop thread only.
    private var lastLookupValid: Bool {
        @inline(__always) _read { yield value.lastLookupValid }
        @inline(__always) _modify { yield &value.lastLookupValid }
    }
    private var lastLookupHandle: AppHandle {
        @inline(__always) _read { yield value.lastLookupHandle }
        @inline(__always) _modify { yield &value.lastLookupHandle }
    }
    private var lastLookupChild: ChildConnection? {
        @inline(__always) _read { yield value.lastLookupChild }
        @inline(__always) _modify { yield &value.lastLookupChild }
    }
    /// Children replaced in `children` before they exited (an extension told `Bye` that is
    /// started again for the next share): kept until their exit, ended at teardown.
    private var retiring: [ObjectIdentifier: ChildConnection] = [:]
    private var readyWaiters: [AppHandle: [(Result<Int32, HostError>) -> Void]] = [:]
    private(set) var shuttingDown = false
    private var shutdownCompletion: (() -> Void)?
    private let sweep: MAMLoop.Timer
    private var sweeping = false
    private var signalWatchers: [SignalWatcher] = []
    /// The built-in runtime's template, started with the first built-in app; `nil` before,
    /// and for good once it failed (apps are exec'd then).
    private var zygote: Zygote?
    private var zygoteFailed = false
    /// The CPU kept for the loop and the apps' CPUs, once made (`BrokerCPU`).
    private(set) var cpuSplit: BrokerCPUSplit?
    /// Whether this host holds the process's claim on a split (`BrokerCPUSplit.claim`).
    private var holdsCPUClaim = false
    /// How often the sweep looks at deadlines while any is pending.
    static let sweepInterval: UInt64 = 50

    init(loop: EventLoop, configuration: HostConfiguration, registry: AppRegistry, state: DeviceState,
         storage: DeviceStorage? = nil, onEvent: @escaping (HostEvent) -> Void) throws(HostError) {
        self.storage = storage
        self.loop = loop
        self.configuration = configuration
        self.registry = registry
        self.state = state
        self.onEvent = onEvent
        environment = Self.childEnvironment(for: configuration)
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
        do { sweep = try MAMLoop.Timer(loop: loop) } catch { throw .loop("cannot create the supervisor's timer: \(error)") }
        super.init(SupervisorLoopState())
        // The template starts with the device when it has built-in apps: it loads while the
        // host makes the containers and the caller gets ready, not while the first app waits.
        if configuration.apps.contains(where: { $0.executable == nil }) { _ = builtInTemplate() }
        // Containers exist from installation, as on a device: a launch then finds them.
        if confinement.launcher != nil {
            for spec in configuration.apps { for dir in confinedDirectories(of: spec) { Self.ensureDirectory(dir) } }
        }
    }

    /// The few variables of the host's environment a program needs (`ChildEnvironment`), plus
    /// `MAMSIM_BIN_DIR` (where mamsim's own binaries are), so a plugin's `run` script can find
    /// an executable built beside `mamsim-app`, and `MAMSIM_DEVICE_DIR`. Computed once per
    /// host: spawning is on the fleet-start path.
    static func childEnvironment(for configuration: HostConfiguration) -> [String: String] {
        var env = ChildEnvironment.filter(ProcessInfo.processInfo.environment)
        env["MAMSIM_BIN_DIR"] = URL(fileURLWithPath: configuration.appRuntime).deletingLastPathComponent().path
        env["MAMSIM_DEVICE_DIR"] = configuration.deviceDirectory.path
        return env
    }

    /// The template's environment: the children's, with the dynamic linker told to bind every
    /// symbol as the template loads (`LD_BIND_NOW`), so that no forked app binds them one by
    /// one on first call (each forked app would otherwise bind the same symbols again).
    /// Only the template: an exec'd app would bind symbols it never calls (linking
    /// `mamsim-app` with `-z now` made exec'd fleets slower). The template removes the
    /// variable again before it forks (`MAMSIM_TEMPLATE_BIND_NOW` says it set it).
    /// `appsConfined`: every app it forks confines itself, so the template prepares the part
    /// of that confinement every app shares (`MAMSIM_TEMPLATE_CONFINES`, `mamsim_confine_prepare`).
    static func templateEnvironment(_ environment: [String: String], appsConfined: Bool) -> [String: String] {
        var env = runtimeEnvironment(environment)
        if appsConfined { env["MAMSIM_TEMPLATE_CONFINES"] = "1" }
        guard environment["LD_BIND_NOW"] == nil else { return env }
        env["LD_BIND_NOW"] = "1"
        env["MAMSIM_TEMPLATE_BIND_NOW"] = "1"
        return env
    }

    /// What glibc's allocator is told in the built-in runtime's processes (the template,
    /// and so every app it forks, or an app exec'd in its place). Its per-thread cache keeps
    /// seven freed blocks of each size by default; an app handles items in batches of up to
    /// its window (512 shares), so most of a batch's blocks went through the allocator's slower
    /// bins and back. With 512 kept, the sender's instructions per item went from 4,192 to
    /// 4,022 and the receiver's from 6,709 to 6,426 (`scripts/bench-instructions --apps`).
    /// Read by glibc when the process starts; elsewhere it means nothing.
    static let runtimeMallocTunables = "glibc.malloc.tcache_count=512"

    /// `environment` for the built-in runtime: with `runtimeMallocTunables`.
    static func runtimeEnvironment(_ environment: [String: String]) -> [String: String] {
        var env = environment
        env["GLIBC_TUNABLES"] = runtimeMallocTunables
        return env
    }

    // MARK: - Lookup

    func child(_ handle: AppHandle) -> ChildConnection? {
        if lastLookupValid, lastLookupHandle == handle { return lastLookupChild }
        let found = children[handle]
        lastLookupHandle = handle
        lastLookupChild = found
        lastLookupValid = true
        return found
    }

    func readyChild(_ handle: AppHandle) -> ChildConnection? {
        guard let c = children[handle], c.state == .ready else { return nil }
        return c
    }

    // MARK: - Spawning

    /// Spawns one app (if not running) and calls `completion` once it completed the handshake.
    func launch(_ spec: AppSpec, _ completion: @escaping (Result<Int32, HostError>) -> Void) {
        let key = spec.key
        if let c = children[key], c.isLive {
            if c.state == .ready { return completion(.success(c.pid)) }
            readyWaiters[key, default: []].append(completion)
            return
        }
        guard !shuttingDown else { return completion(.failure(.shuttingDown)) }
        readyWaiters[key, default: []].append(completion)
        do {
            try spawn(spec)
        } catch {
            finishWaiters(key, .failure(error))
        }
    }

    private func spawn(_ spec: AppSpec) throws(HostError) {
        let pipe: MAMLoop.Pipe
        do { pipe = try MAMLoop.Pipe(loop: loop) } catch { throw .spawnFailed(spec.handle, "\(error)") }
        let child = ChildConnection(spec: spec, pipe: pipe, maximumFrameSize: configuration.maximumFrameSize)
        child.decoder.tally = loop.readBufferTally
        child.isSDKRelaunch = relaunching.contains(spec.key)
        // A child that lets its answers pile up unread is cut off (its pending work fails as
        // for any exit): no child can grow the host's memory.
        let limit = configuration.maximumBacklog
        let link = child.link
        pipe.limitBacklog(to: limit) { [weak self] waiting in
            guard let self, let child = link.child, child.isLive else { return }
            self.disconnect(child, because: "does not read its channel: \(waiting >> 20) MiB are waiting for it (limit \(limit >> 20) MiB)")
        }
        let program = spec.executable ?? configuration.appRuntime
        var executable = program
        var arguments = spec.arguments
        // What a built-in app forked from the template is given: the same, less the cgroups
        // it is in already.
        var forkArguments = spec.arguments
        if let launcher = confinement.launcher {
            // The child may use its own container and its entitled app groups, read the
            // system's libraries, its own program and what it declared, and nothing else; the
            // directories must exist for Landlock to name them.
            let writable = confinedDirectories(of: spec)
            for dir in writable { Self.ensureDirectory(dir) }
            // Resolved and checked when the host started, never again here (a link re-pointed
            // since must not move a grant); an app the host did not check gets no grant.
            let readable = readPaths[spec.key] ?? []
            let limits = configuration.childLimits
            if spec.executable == nil, program.split(separator: "/").last == "mamsim-app" {
                // The built-in runtime applies the same rules to itself first thing: one exec
                // per app instead of two (the launcher's exec was a large part of a fleet's
                // start). It runs mamsim's own code, which starts no process: it gets no cgroup
                // of its own (making and joining one was a large part of a forked app's start).
                // Forked from the template, it is in the device's cgroups already (the template
                // joined them); exec'd, it joins them itself.
                let confined = ["--confine"] + readable.flatMap { ["--confine-read", $0] } + writable.flatMap { ["--confine-write", $0] }
                    + limits.runtimeArguments
                forkArguments = confined + spec.arguments
                arguments = confined + (cgroups.builtIn.map { ["--confine-cgroup", $0] } ?? [])
                    + (cgroups.memoryProcs.map { ["--confine-device-cgroup", $0] } ?? []) + spec.arguments
            } else {
                // A program of its own may start processes: its own cgroup bounds them and ends
                // them all with it.
                child.cgroup = cgroups.make(for: spec.handle)
                executable = launcher
                arguments = readable.flatMap { ["--read", $0] } + writable.flatMap { ["--write", $0] } + limits.launcherArguments
                    + (child.cgroup.map { ["--cgroup", $0] } ?? []) + (cgroups.memoryProcs.map { ["--device-cgroup", $0] } ?? [])
                    + ["--", program] + spec.arguments
            }
        }
        let onExit: (ChildProcess.Exit) -> Void = { [weak self] exit in
            guard let self, let child = link.child else { return }
            self.childExited(child, exit)
        }
        if executable == configuration.appRuntime, spec.executable == nil, let zygote = builtInTemplate() {
            do {
                // The child waits as spawning while the template forks it: a second launch
                // of the app waits for this one, and the loop goes on with everything else.
                try ChildProcess.fork(loop: loop, zygote: zygote, arguments: forkArguments, channel: pipe, quiet: configuration.quietChildren, onExit: onExit) {
                    [weak self] result in
                    guard let self, let child = link.child else {
                        if case .success(let process) = result { process.kill(SIGKILL) }
                        return
                    }
                    self.forked(child, result, zygote: zygote, executable: executable, arguments: arguments, onExit: onExit)
                }
                register(child)
                return
            } catch {
                // The app is exec'd after all; if the template is what failed, every later
                // app is too.
                if !zygote.isOpen { templateFailed("cannot fork \(spec.handle): \(error)") }
            }
        }
        try exec(child, executable: executable, arguments: arguments, onExit: onExit)
        register(child)
        started(child)
    }

    /// Execs `executable` for `child` (a program of its own, or the built-in runtime where no
    /// template forks it).
    private func exec(_ child: ChildConnection, executable: String, arguments: [String], onExit: @escaping (ChildProcess.Exit) -> Void) throws(HostError) {
        let spec = child.spec
        let program = spec.executable ?? configuration.appRuntime
        var environment = executable == configuration.appRuntime ? Self.runtimeEnvironment(environment) : environment
        // Where the program may keep files of its own (its confinement lets it write there
        // and in its entitled app groups, and nowhere else): its data container, and the
        // folder whose subfolders, named by group id, are its app groups.
        environment["MAMSIM_CONTAINER"] = realDeviceDirectory + "/containers/" + spec.bundleID.rawValue
        Self.ensureDirectory(environment["MAMSIM_CONTAINER"]!)
        environment["MAMSIM_APP_GROUPS_DIR"] = realDeviceDirectory + "/groups"
        if !spec.sandbox.environment.isEmpty {
            environment.merge(ChildEnvironment.filter(ProcessInfo.processInfo.environment, alsoPassing: spec.sandbox.environment)) { a, _ in a }
        }
        // A program of its own writes its stderr to the device's logs/, so a start that fails
        // can be explained with what it said.
        if spec.executable != nil || executable != configuration.appRuntime {
            let logs = configuration.deviceDirectory.appendingPathComponent("logs")
            Self.ensureDirectory(logs.path)
            child.stderrLog = logs.appendingPathComponent("\(spec.handle).stderr").path
        }
        do {
            child.process = try startingOnAppCPUs {
                try ChildProcess(
                    loop: loop, executable: executable, arguments: arguments, environment: environment, channel: child.pipe,
                    quiet: configuration.quietChildren, stderrLog: configuration.quietChildren ? child.stderrLog : nil, onExit: onExit)
            }
        } catch {
            child.pipe.close()
            if let cgroup = child.cgroup {
                cgroups.end(cgroup)
                child.cgroup = nil
            }
            onEvent(.spawnFailed(handle: spec.handle, error: "\(program): \(error)"))
            throw .spawnFailed(spec.handle, "\(program): \(error)")
        }
    }

    /// The template's answer for `child`: its process, or an exec after all. A child ended
    /// while it was being forked (shutdown, a kill) is killed as soon as it exists, and its
    /// exit is reported as any other.
    private func forked(
        _ child: ChildConnection, _ result: Result<ChildProcess, UVError>, zygote: Zygote, executable: String, arguments: [String],
        onExit: @escaping (ChildProcess.Exit) -> Void
    ) {
        switch result {
        case .success(let process):
            child.process = process
            child.forkedFromTemplate = true
            if child.killedWhileForking || child.state != .spawning {
                process.kill(SIGKILL)
                return
            }
        case .failure(let error):
            if !zygote.isOpen { templateFailed("cannot fork \(child.handle): \(error)") }
            guard child.state == .spawning, !child.killedWhileForking, !shuttingDown else {
                return abandon(child, because: shuttingDown ? .shuttingDown : .exitedDuringHandshake(child.handle, "ended before the template could fork it"))
            }
            do {
                try exec(child, executable: executable, arguments: arguments, onExit: onExit)
            } catch {
                return abandon(child, because: error)
            }
        }
        started(child)
    }

    /// A child that never got a process: it is forgotten and its launch fails.
    private func abandon(_ child: ChildConnection, because error: HostError) {
        child.state = .exited
        child.pipe.close()
        if let cgroup = child.cgroup {
            cgroups.end(cgroup)
            child.cgroup = nil
        }
        retiring[ObjectIdentifier(child)] = nil
        if children[child.key] === child {
            children[child.key] = nil
            finishWaiters(child.key, .failure(error))
        }
        if shuttingDown { teardownProgress() }
    }

    /// The child is the app's current instance from now on.
    private func register(_ child: ChildConnection) {
        if let old = children[child.key], old !== child { retiring[ObjectIdentifier(old)] = old }
        children[child.key] = child
    }

    /// The child's process runs: it gets its launch state and its channel is read.
    private func started(_ child: ChildConnection) {
        let spec = child.spec
        let pipe = child.pipe
        // A new process: window identities start empty, a single-identity app runs as its
        // enrolled account again (what the store acknowledged survives).
        do {
            try state.resetIdentitiesAtLaunch(app: spec.identityOwner)
        } catch {
            onEvent(.note("\(spec.handle): could not reset its window identities at launch: \(error)"))
        }
        router?.childLaunched(spec)
        onEvent(.spawned(handle: spec.handle, pid: child.pid))
        do {
            // Read into buffers the loop keeps: a share's payload stays where it arrived and
            // is forwarded from there.
            let link = child.link
            try pipe.startReading(onReceive: { [weak self] chunk in
                guard let self, let child = link.child else { return }
                self.received(chunk, from: child)
            }, onEnd: { [weak self] error in
                guard let self, let child = link.child else { return }
                self.channelEnded(child, error)
            })
        } catch {
            disconnect(child, because: "cannot read its channel: \(error)")
            return
        }
        child.handshakeDeadline = loop.now + configuration.handshakeTimeout.milliseconds
        watchDeadlines()
    }

    /// What a confined child may use of the device directory: its container and its
    /// entitled app groups (real paths, for Landlock).
    private func confinedDirectories(of spec: AppSpec) -> [String] {
        (["containers/\(spec.bundleID.rawValue)"] + spec.descriptor.appGroups.map { "groups/\($0)" }).map { realDeviceDirectory + "/" + $0 }
    }

    /// Makes sure `path` exists. One mkdir where it (or its parent) exists already — the
    /// common case at every launch after the first; FileManager's walk up the path otherwise.
    static func ensureDirectory(_ path: String) {
        if System.makeDirectory(path) { return }
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Keeps one CPU free of apps for the loop: moves the template and every child to the
    /// other CPUs, if `configuration.brokerCPU` asks for it for a ready fleet of `apps` apps
    /// (`BrokerCPU`). Children started later inherit the apps' CPUs (`startingOnAppCPUs`); an
    /// app forked later, the template's. The loop itself is
    /// not pinned (a thread it starts, such as a worker of the process's task pool, would
    /// inherit one CPU): it runs where no app may.
    func splitCPUs(forFleetOf apps: Int) {
        guard cpuSplit == nil, !shuttingDown, let allowed = System.allowedCPUs(),
              let split = BrokerCPU.split(configuration.brokerCPU, apps: apps, allowed: allowed, current: System.currentCPU()) else { return }
        // Asked for by name, the split is made even beside another host's.
        holdsCPUClaim = BrokerCPUSplit.claim()
        guard holdsCPUClaim || configuration.brokerCPU == .dedicated else { return }
        cpuSplit = split
        var unmoved: [String] = []
        if let zygote, zygote.isOpen, !Self.move(zygote.pid, to: split.apps) { unmoved.append("the app template") }
        for child in Array(children.values) + Array(retiring.values) where child.process != nil {
            if !Self.move(child, to: split.apps) { unmoved.append(child.handle) }
        }
        onEvent(.note("\(split) (MAMSIM_BROKER_CPU=shared to share them)"
            + (unmoved.isEmpty ? "" : "; not moved, the system refused: \(unmoved.sorted().joined(separator: ", "))")))
    }

    /// Runs `body`, which starts a process, with the loop's thread on the apps' CPUs once a
    /// split is made: the process inherits them from its first instruction. (Moved after its
    /// start instead, a child could run for a while on the kept CPU, and a confined one read
    /// every CPU as its own: seen under a busy test run.)
    private func startingOnAppCPUs<T>(_ body: () throws -> T) rethrows -> T {
        guard let cpuSplit else { return try body() }
        System.allowCPUs(cpuSplit.apps)
        defer { System.allowCPUs(cpuSplit.all) }
        return try body()
    }

    /// `child` runs on `cpus` from now on. An app forked from the template is the runtime's
    /// one thread, moved in one call; any other child's threads are listed first (listing
    /// every app's threads was most of a large fleet's move).
    @discardableResult
    private static func move(_ child: ChildConnection, to cpus: [Int]) -> Bool {
        child.forkedFromTemplate ? System.allowCPUs(cpus, to: child.pid) || !System.processExists(child.pid) : move(child.pid, to: cpus)
    }

    /// Every thread of process `pid` runs on `cpus` from now on; `false` if the system refused
    /// one (a child that ended meanwhile is no matter: its exit is seen as any other).
    @discardableResult
    private static func move(_ pid: Int32, to cpus: [Int]) -> Bool {
        guard pid > 0 else { return true }
        var moved = true
        // A thread that ended between the listing and the call is no refusal.
        for thread in System.threads(of: pid) where !System.allowCPUs(cpus, to: thread) && System.processExists(thread) { moved = false }
        return moved
    }

    /// The built-in runtime's template, started on first use; `nil` where apps are exec'd.
    private func builtInTemplate() -> Zygote? {
        guard configuration.forkBuiltInApps, !zygoteFailed, !shuttingDown, Zygote.isSupported else { return nil }
        if let zygote, zygote.isOpen { return zygote }
        do {
            let started = try startingOnAppCPUs {
                try Zygote(
                    loop: loop, executable: configuration.appRuntime, environment: Self.templateEnvironment(environment, appsConfined: confinement.launcher != nil),
                    timeoutMilliseconds: configuration.templateTimeout.milliseconds
                ) { [weak self] exit in
                    self?.templateFailed("the app template \(exit)")
                }
            }
            zygote = started
            cgroups.adopt(started.pid)
            onEvent(.note("built-in apps are forked from a template (pid \(started.pid))"))
            return started
        } catch {
            templateFailed("cannot start the app template: \(error)")
            return nil
        }
    }

    private func templateFailed(_ why: String) {
        guard !zygoteFailed else { return }
        zygoteFailed = true
        zygote?.close()
        zygote = nil
        onEvent(.note("\(why); built-in apps are exec'd from now on"))
    }

    private func finishWaiters(_ key: AppHandle, _ result: Result<Int32, HostError>) {
        guard let waiters = readyWaiters.removeValue(forKey: key) else { return }
        for w in waiters { w(result) }
    }

    // MARK: - Frames

    /// Bytes from a child: framing, decoding and protocol-order checks. Any violation cuts the
    /// child off; the host and the other children carry on.
    private func received(_ chunk: ReceivedBytes, from child: ChildConnection) {
        guard child.isLive else { return }
        var completed = false
        do {
            try child.decoder.feed(chunk, onFrame: { payload in
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
            if child.decoder.bufferedByteCount == 0 {
                child.partialFrameSince = nil
            } else if completed || child.partialFrameSince == nil {
                child.partialFrameSince = loop.now
                watchDeadlines()
            }
        } catch let hostile as HostileFrame {
            disconnect(child, because: hostile.message)
        } catch {
            disconnect(child, because: "sent a bad frame: \(error)")
        }
    }

    private func dispatch(_ frame: ChildFrame, from child: ChildConnection) throws {
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
            guard child.finishingLaunch else { throw HostileFrame("sent launch_finished without announcing it in hello, or twice") }
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
            child.exitExpected = true
            child.state = .closing
        case .error(let code, let message):
            onEvent(.note("\(child.handle) reported an error: \(code): \(message)"))
        case .shareRequest, .deliverAck, .setIdentity, .getIdentity, .serviceRequest, .shareBatch, .deliverAcks:
            try router?.route(frame.body, seq: frame.seq, replyTo: frame.replyTo, from: child)
        }
    }

    private func welcome(_ child: ChildConnection, seq: UInt64, finishesLaunching: Bool) {
        child.state = .ready
        child.finishingLaunch = finishesLaunching
        // An app with launch work of its own has the rest of the handshake time to finish it.
        if !finishesLaunching { child.handshakeDeadline = .max }
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
    private func launchFinished(_ child: ChildConnection, late: Bool) {
        guard child.finishingLaunch else { return }
        child.finishingLaunch = false
        child.handshakeDeadline = .max
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
            // was not finished yet, at a first policy during launch) waits for the new process.
            child.endedForRelaunch = true
            child.onExit.append { [weak self] in
                guard let self else { return completion(false) }
                relaunching.insert(spec.key)
                launch(spec) { [weak self] _ in
                    self?.relaunching.remove(spec.key)
                    completion(true)
                }
            }
            end(child, reason: "the Intune SDK restarts the app (restartApplication)")
        }
    }

    // MARK: - Deadlines

    /// Starts the sweep if it is not running; it stops itself when nothing has a deadline.
    func watchDeadlines() {
        guard !sweeping else { return }
        sweeping = true
        sweep.start(after: Self.sweepInterval, repeat: Self.sweepInterval) { [weak self] in self?.sweepDeadlines() }
    }

    private func sweepDeadlines() {
        let now = loop.now
        var anything = false
        for child in Array(children.values) + Array(retiring.values) {
            if let since = child.partialFrameSince, child.isLive, since + configuration.frameTimeout.milliseconds <= now {
                disconnect(child, because: "started a frame and did not finish it within \(configuration.frameTimeout) (\(child.decoder.bufferedByteCount) bytes of it received)")
            }
            if child.state == .spawning, child.handshakeDeadline <= now {
                disconnect(child, because: "sent no hello within \(configuration.handshakeTimeout)")
            }
            if child.finishingLaunch, child.handshakeDeadline <= now { launchFinished(child, late: true) }
            let late = child.pendingCommands.filter { $0.value.deadline <= now }
            for (seq, pending) in late.sorted(by: { $0.key < $1.key }) {
                child.pendingCommands[seq] = nil
                pending.completion(.error(.timeout, "\(child.handle) did not answer \(pending.command.name) within \(configuration.commandTimeout)"))
            }
            router?.expireDeliveries(of: child, now: now)
            if let step = child.teardownStep, child.teardownDeadline <= now { takeTeardownStep(step, of: child) }
            if child.state != .exited, child.hasDeadlines { anything = true }
        }
        if !anything {
            sweep.stop()
            sweeping = false
        }
    }

    // MARK: - Exits and disconnects

    /// Cuts a child off: tells it why (best effort), stops listening, and kills it.
    func disconnect(_ child: ChildConnection, because why: String, hostile: Bool = true) {
        guard child.state != .exited else { return }
        if hostile { onEvent(.hostile(handle: child.handle, what: why, disconnected: true)) }
        if child.cutOffReason == nil { child.cutOffReason = why }
        if child.state != .closing, !child.forking {
            child.send(.error(code: .badRequest, message: why))
            child.pipe.flush()
            child.state = .closing
        }
        child.pipe.stopReading()
        child.exitExpected = true
        child.signal(SIGKILL)
    }

    private func channelEnded(_ child: ChildConnection, _ error: UVError?) {
        // The process exit callback does the bookkeeping; a child whose channel closed but
        // that keeps running is of no use to anyone.
        if child.state == .spawning || child.state == .ready {
            child.state = .closing
            if !child.exitExpected, let error {
                onEvent(.note("\(child.handle): channel ended: \(error)"))
            }
            child.signal(SIGTERM)
        }
    }

    private func childExited(_ child: ChildConnection, _ exit: ChildProcess.Exit) {
        let answeredHandshake = child.state == .ready
        child.state = .exited
        // What it started ends with it, wherever it went (a daemon out of its session too).
        if let cgroup = child.cgroup {
            cgroups.end(cgroup)
            child.cgroup = nil
        }
        child.teardownStep = nil
        onEvent(.exited(handle: child.handle, pid: child.pid, exit: exit, expected: child.exitExpected))
        let commands = child.pendingCommands
        child.pendingCommands.removeAll()
        let how = Self.describe(exit, of: child)
        for (_, c) in commands.sorted(by: { $0.key < $1.key }) {
            c.completion(.error(.appNotRunning, "\(child.handle) \(how)"))
        }
        router?.childWentAway(child, exit: exit, how: how)
        child.pipe.close()
        child.process?.close()
        retiring[ObjectIdentifier(child)] = nil
        // A newer instance of the same extension may be starting: its waiters are not ours.
        if children[child.key] === child {
            children[child.key] = nil
            if !child.endedForRelaunch {
                let relaunch = child.isSDKRelaunch ? "restarted by the Intune SDK after its first policy; it ended again: " : ""
                let error: HostError = answeredHandshake && child.finishingLaunch
                    ? .exitedBeforeFinishingLaunch(child.handle, relaunch + how)
                    : .exitedDuringHandshake(child.handle, relaunch + how)
                finishWaiters(child.key, .failure(error))
            }
        }
        if shuttingDown { teardownProgress() }
        let after = child.onExit
        child.onExit.removeAll()
        for f in after { f() }
    }

    /// How a child ended, with why when the host knows it: the protocol mistake it was cut off
    /// for, and the last lines it wrote to stderr (a program that says what it misses).
    static func describe(_ exit: ChildProcess.Exit, of child: ChildConnection) -> String {
        var text = "\(exit)"
        if let why = child.cutOffReason { text += " (the host cut it off: \(why))" }
        if !child.exitExpected || child.cutOffReason != nil, let path = child.stderrLog, let tail = stderrTail(path), !tail.isEmpty {
            text += "; its stderr ended with: \(tail)"
            if let hint = missingModuleHint(tail) { text += " (\(hint))" }
        }
        return text
    }

    /// What to do when an interpreter died for a module it could not read: under the sandbox a
    /// plugin reads only its folder and what `plugin.json`'s `sandbox.read` grants.
    static func missingModuleHint(_ tail: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        func interpreter(_ name: String) -> String? {
            for dir in (environment["PATH"] ?? "").split(separator: ":") {
                let path = "\(dir)/\(name)"
                if FileManager.default.isExecutableFile(atPath: path) {
                    let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
                    return (real as NSString).deletingLastPathComponent.hasSuffix("/bin") ? ((real as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent : real
                }
            }
            return nil
        }
        if tail.contains("No module named 'encodings'") || tail.contains("Could not find platform independent libraries") {
            return "Python cannot read its own standard library: add its installation\(interpreter("python3").map { " (\($0))" } ?? "") to plugin.json's sandbox.read"
        }
        if tail.contains("No module named"), !tail.contains("pip install") {
            return "a Python module the plugin imports is not readable to it: add its folder (the mamsim client is clients/python/src) to plugin.json's sandbox.read\(interpreter("python3").map { "; the python3 found is \($0)" } ?? "")"
        }
        if tail.contains("Cannot find module") {
            return "a Node module the plugin requires is not readable to it: add its folder (the mamsim client is clients/node) to plugin.json's sandbox.read\(interpreter("node").map { "; the node found is \($0)" } ?? "")"
        }
        return nil
    }

    /// The last lines of a child's stderr log (at most 3 lines, 600 characters), printable,
    /// after the first line that names an error when the last ones do not (Node prints
    /// "Error: Cannot find module …" and then its require stack).
    static func stderrTail(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > 4096 ? size - 4096 : 0)
        guard let data = try? handle.readToEnd() else { return nil }
        let all = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
        let last = all.suffix(3)
        var text = String(last.joined(separator: " | ").suffix(600))
        if let fatal = all.last(where: { $0.contains("Fatal error: ") }) {
            // A Swift program that stopped (a thrown error at top level, a fatalError): its one
            // line says why; what follows is the runtime's backtrace, which says nothing to a
            // reader of the run (the whole of it stays in the child's log).
            text = String(fatal.drop { $0 == " " }.prefix(600)) + " (its backtrace is in the device's logs/)"
        } else if let error = all.first(where: isErrorLine), !last.contains(where: isErrorLine) {
            text = String(error.prefix(300)) + " … " + text
        }
        // What a child wrote never drives the user's terminal.
        return String(text.unicodeScalars.map { UntrustedText.isUnsafe($0) ? "?" : Character($0) })
    }

    /// A line that says what went wrong: `Error: …`, `TypeError: …`, `error: …`, a Python
    /// traceback's last line, Swift's `Fatal error: …`.
    static func isErrorLine(_ line: Substring) -> Bool {
        let t = line.drop { $0 == " " }
        return t.hasPrefix("Error:") || t.hasPrefix("error:") || t.hasPrefix("Fatal error:") || t.range(of: #"^[A-Za-z]*(Error|Exception): "#, options: .regularExpression) != nil
    }

    /// Kills a child as a crash would (SIGKILL by default). Its pending work fails.
    func kill(_ spec: AppSpec, signal: Int32) -> Bool {
        guard let child = children[spec.key], child.isLive else { return false }
        child.signal(signal)
        return true
    }

    // MARK: - Teardown

    /// Ends one child by walking `HostConfiguration.teardown` (an extension with nothing
    /// left to do, or every child at shutdown).
    /// A child already closing (it said bye, its channel ended, it was cut off) is walked
    /// through the list too, so one that lingers is still signalled and killed.
    func end(_ child: ChildConnection, reason: String) {
        guard child.state != .exited, !child.teardownStarted else { return }
        child.teardownStarted = true
        child.exitExpected = true
        child.state = .closing
        child.byeReason = reason
        takeTeardownStep(0, of: child)
    }

    private func takeTeardownStep(_ index: Int, of child: ChildConnection) {
        guard child.state != .exited, index < configuration.teardown.count else {
            child.teardownStep = nil
            return
        }
        let wait: Duration
        switch configuration.teardown[index] {
        case .ask(let w):
            // A child still being forked has no channel yet; it is killed once it exists.
            if child.forking { child.signal(SIGKILL) } else { child.send(.bye(reason: child.byeReason)) }
            wait = w
        case .signal(let s, let w):
            child.signal(s)
            wait = w
        case .kill:
            child.signal(SIGKILL)
            wait = .zero
        }
        child.teardownStep = index + 1 < configuration.teardown.count ? index + 1 : nil
        child.teardownDeadline = loop.now + wait.milliseconds
        watchDeadlines()
    }

    /// Ends every child (see `end`); `completion` runs when no child is left.
    func shutdown(_ completion: @escaping () -> Void) {
        if shuttingDown {
            let previous = shutdownCompletion
            shutdownCompletion = { previous?(); completion() }
            return
        }
        shuttingDown = true
        shutdownCompletion = completion
        // No app starts from now on. The template ends with the last child: an app it is
        // forking now must still be answered for, so that it is killed and reaped, not lost.
        for child in Array(children.values) + Array(retiring.values) {
            end(child, reason: "the device is shutting down")
        }
        teardownProgress()
    }

    private func teardownProgress() {
        guard shuttingDown, children.isEmpty, retiring.isEmpty else { return }
        zygote?.close()
        zygote = nil
        if cpuSplit != nil {
            if holdsCPUClaim { BrokerCPUSplit.release() }
            holdsCPUClaim = false
            self.cpuSplit = nil
        }
        sweep.close()
        sweeping = false
        cgroups.removeAll()
        storage?.close()
        for w in signalWatchers { w.close() }
        signalWatchers.removeAll()
        let done = shutdownCompletion
        shutdownCompletion = nil
        done?()
    }

    /// SIGINT and SIGTERM to the host tear the fleet down gracefully, then call `then`.
    func handleTerminationSignals(then: @escaping (Int32) -> Void) throws {
        for sig in [SIGINT, SIGTERM] {
            let watcher = try SignalWatcher(loop: loop)
            try watcher.start(signal: sig) { [weak self] s in
                guard let self else { return }
                self.onEvent(.note("signal \(s): tearing the fleet down"))
                self.shutdown { then(s) }
            }
            signalWatchers.append(watcher)
        }
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
