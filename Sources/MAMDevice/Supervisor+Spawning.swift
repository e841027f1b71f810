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

/// A child's start: launched on demand, forked from the template or executed, confined,
/// registered, and placed on the apps' CPUs; its waiters told when it is ready or failed.
extension Supervisor {
    /// Spawns one app (if not running) and calls `completion` once it completed the handshake.
    func launch(_ spec: AppSpec, _ completion: @escaping (Result<Int32, HostError>) -> Void) {
        let key = spec.key
        if let c = children[key], c.isLive {
            if c.state == .ready { return completion(.success(c.pid)) }
            launches.wait(for: key, completion)
            return
        }
        guard !shuttingDown else { return completion(.failure(.shuttingDown)) }
        launches.wait(for: key, completion)
        do {
            try spawn(spec)
        } catch {
            finishWaiters(key, .failure(error))
        }
    }

    private func spawn(_ spec: AppSpec) throws(HostError) {
        let pipe: MAMLoop.Pipe
        do { pipe = try MAMLoop.Pipe(loop: loop) } catch { throw .spawnFailed(spec.handle, "\(error)") }
        let child = ChildConnection(spec: spec, pipe: pipe, maximumFrameSize: configuration.maximumFrameSize,
                                    relaunch: launches.isRelaunching(spec.key))
        child.value.decoder.tally = loop.readBufferTally
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
                    self.forked(child, result, zygote: zygote, orExec: ExecCommand(executable: executable, arguments: arguments), onExit: onExit)
                }
                register(child)
                return
            } catch {
                // The app is exec'd after all; if the template is what failed, every later
                // app is too.
                if !zygote.isOpen { templateFailed("cannot fork \(spec.handle): \(error)") }
            }
        }
        try exec(child, ExecCommand(executable: executable, arguments: arguments), onExit: onExit)
        register(child)
        started(child)
    }

    /// What a child's process execs: its program and the arguments it is given (its own, or
    /// those of the confinement launcher that runs it).
    struct ExecCommand {
        var executable: String
        var arguments: [String]
    }

    /// Execs `command` for `child` (a program of its own, or the built-in runtime where no
    /// template forks it).
    private func exec(_ child: ChildConnection, _ command: ExecCommand, onExit: @escaping (ChildProcess.Exit) -> Void) throws(HostError) {
        let (executable, arguments) = (command.executable, command.arguments)
        let spec = child.spec
        let program = spec.executable ?? configuration.appRuntime
        var environment = executable == configuration.appRuntime ? SpawnEnvironment.runtime(environment) : environment
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
        _ child: ChildConnection, _ result: Result<ChildProcess, UVError>, zygote: Zygote, orExec command: ExecCommand,
        onExit: @escaping (ChildProcess.Exit) -> Void
    ) {
        switch result {
        case .success(let process):
            child.process = process
            child.forkedFromTemplate = true
            if child.life.killedWhileForking || child.state != .spawning {
                process.kill(SIGKILL)
                return
            }
        case .failure(let error):
            if !zygote.isOpen { templateFailed("cannot fork \(child.handle): \(error)") }
            guard child.state == .spawning, !child.life.killedWhileForking, !shuttingDown else {
                return abandon(child, because: shuttingDown ? .shuttingDown : .exitedDuringHandshake(child.handle, "ended before the template could fork it"))
            }
            do {
                try exec(child, command, onExit: onExit)
            } catch {
                return abandon(child, because: error)
            }
        }
        started(child)
    }

    /// A child that never got a process: it is forgotten and its launch fails.
    private func abandon(_ child: ChildConnection, because error: HostError) {
        child.life.exited()
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
    func started(_ child: ChildConnection) {
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
        child.life.started(helloBy: loop.now + configuration.handshakeTimeout.milliseconds)
        watchDeadlines()
    }

    /// What a confined child may use of the device directory: its container and its
    /// entitled app groups (real paths, for Landlock).
    func confinedDirectories(of spec: AppSpec) -> [String] {
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
        guard cpus.split == nil, !shuttingDown, let allowed = System.allowedCPUs(),
              let split = BrokerCPU.split(configuration.brokerCPU, apps: apps, allowed: allowed, current: System.currentCPU()) else { return }
        // Asked for by name, the split is made even beside another host's.
        guard cpus.claim(split, dedicated: configuration.brokerCPU == .dedicated) else { return }
        var unmoved: [String] = []
        if let zygote = template.running, !Self.move(zygote.pid, to: split.apps) { unmoved.append("the app template") }
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
        guard let cpuSplit = cpus.split else { return try body() }
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
    func builtInTemplate() -> Zygote? {
        guard template.mayStart(forkBuiltInApps: configuration.forkBuiltInApps), !shuttingDown else { return nil }
        if let zygote = template.running { return zygote }
        do {
            let started = try startingOnAppCPUs {
                try Zygote(
                    loop: loop, executable: configuration.appRuntime, environment: SpawnEnvironment.template(environment, appsConfined: confinement.launcher != nil),
                    timeoutMilliseconds: configuration.templateTimeout.milliseconds
                ) { [weak self] exit in
                    self?.templateFailed("the app template \(exit)")
                }
            }
            template.started(started)
            cgroups.adopt(started.pid)
            onEvent(.note("built-in apps are forked from a template (pid \(started.pid))"))
            return started
        } catch {
            templateFailed("cannot start the app template: \(error)")
            return nil
        }
    }

    private func templateFailed(_ why: String) {
        let (first, closing) = template.fail()
        closing?.close()
        guard first else { return }
        onEvent(.note("\(why); built-in apps are exec'd from now on"))
    }

    func finishWaiters(_ key: AppHandle, _ result: Result<Int32, HostError>) {
        let finished = if case .success = result { true } else { false }
        // Taken first, then told: a waiter may launch the app again, which changes `launches`.
        let waiters = launches.ended(key, finished: finished)
        for w in waiters { w(result) }
    }

    // MARK: - Frames
}
