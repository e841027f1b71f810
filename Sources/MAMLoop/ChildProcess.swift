internal import CLibUV
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A spawned child process with its channel on fd 3 (like Node's IPC channel), so its stdout
/// and stderr stay free for logs.
///
/// Spawned with `posix_spawn` rather than `uv_spawn`: libuv 1.44 forks, which copies the page
/// tables of the whole host (hundreds of MiB mapped) for every app of a fleet, while glibc's
/// `posix_spawn` uses `CLONE_VFORK` and shares them until `exec`. Exits are collected by the
/// loop's `ChildReaper` on SIGCHLD. Like `uv_spawn`, spawning is synchronous: when `init`
/// returns the program has been exec'd, or `init` threw why not. A fork from the template
/// (`fork`) is answered on a later turn of the loop.
public final class ChildProcess {
    /// How a child ended.
    public struct Exit: Sendable, Hashable, CustomStringConvertible {
        public let status: Int64
        /// 0 when the child exited on its own.
        public let signal: Int32
        public var description: String {
            signal != 0 ? "killed by signal \(signal)" : "exited with status \(status)"
        }
    }

    public let pid: Int32
    public private(set) var exit: Exit?
    private var onExit: ((Exit) -> Void)?

    /// Spawns `executable` with `arguments` (argv[0] is added). stdin is /dev/null, stdout and
    /// stderr are inherited unless `quiet`, and `channel` (a fresh, unopened pipe) becomes the
    /// host's end of a socket pair whose other end is the child's fd 3. Signal mask and
    /// dispositions are reset in the child (the host ignores SIGPIPE; its children must not).
    /// `stderrLog`: a file the child's stderr is appended to instead (quiet or not), so the
    /// host can say what a child that failed wrote.
    public convenience init(
        loop: EventLoop, executable: String, arguments: [String], environment: [String: String]? = nil,
        channel: Pipe, quiet: Bool = false, stderrLog: String? = nil, onExit: @escaping (Exit) -> Void
    ) throws(UVError) {
        let (reaper, pid, hostEnd) = try Self.start(loop: loop) { childEnd throws(UVError) in
            var spawnedPid: pid_t = 0
            let status = System.spawn(
                executable, arguments: arguments, environment: environment, channelFD: childEnd,
                stdout: quiet ? .discard : .inherit, stderr: stderrLog.map { .appending($0) } ?? (quiet ? .discard : .inherit), pid: &spawnedPid)
            guard status == 0 else { throw UVError(-status) }
            return spawnedPid
        }
        try self.init(started: pid, reaper: reaper, hostEnd: hostEnd, channel: channel, onExit: onExit)
    }

    /// Starts a child with one end of a fresh socket pair (`pair`) as its fd 3: `start` gets
    /// that end and returns the new pid, or throws. The other end is the host's. The loop's
    /// SIGCHLD watcher runs before the child exists, so its exit cannot be missed; on failure
    /// nothing stays open.
    static func start(
        loop: EventLoop, pair: () throws(UVError) -> (Int32, Int32) = System.socketPair,
        _ start: (Int32) throws(UVError) -> Int32
    ) throws(UVError) -> (reaper: ChildReaper, pid: Int32, hostEnd: Int32) {
        let reaper = try loop.reaper()
        let hostEnd: Int32, childEnd: Int32
        do {
            (hostEnd, childEnd) = try pair()
        } catch {
            reaper.closeIfIdle()
            throw error
        }
        defer { System.close(childEnd) }
        do {
            return (reaper, try start(childEnd), hostEnd)
        } catch {
            System.close(hostEnd)
            reaper.closeIfIdle()
            throw error
        }
    }

    /// Starts an app forked from `zygote` (the built-in runtime's pre-initialised template)
    /// rather than exec'd: the same child to the host — its parent is the host, it leads its
    /// own session and process group, its channel is fd 3 — started without loading a program.
    /// The template's answer is read by the loop: `completion` gets the running child, or why
    /// the template could not fork it (the caller then execs), on a later turn of the loop.
    /// Throws when the request cannot even be made.
    public static func fork(
        loop: EventLoop, zygote: Zygote, arguments: [String], channel: Pipe, quiet: Bool = false,
        onExit: @escaping (Exit) -> Void, completion: @escaping (Result<ChildProcess, UVError>) -> Void
    ) throws(UVError) {
        let reaper = try loop.reaper()
        let hostEnd: Int32, childEnd: Int32
        do {
            (hostEnd, childEnd) = try System.socketPair()
        } catch {
            reaper.closeIfIdle()
            throw error
        }
        // The template takes the child's end over (sent with the request, closed here after).
        do throws(UVError) {
            try zygote.fork(arguments: arguments, channelFD: childEnd, quiet: quiet) { answer in
                reaper.startsAwaited -= 1
                switch answer {
                case .success(let pid):
                    let child: ChildProcess
                    do throws(UVError) {
                        child = try ChildProcess(started: pid, reaper: reaper, hostEnd: hostEnd, channel: channel, onExit: onExit)
                    } catch {
                        reaper.closeIfIdle()
                        return completion(.failure(error))
                    }
                    completion(.success(child))
                    // Its SIGCHLD may have come and gone while its pid was still unknown.
                    reaper.reapIfExited(child)
                case .failure(let error):
                    System.close(hostEnd)
                    reaper.closeIfIdle()
                    completion(.failure(error))
                }
            }
        } catch {
            System.close(hostEnd)
            reaper.closeIfIdle()
            throw error
        }
        // The reaper stays until the answer: the new child must find it watching.
        reaper.startsAwaited += 1
    }

    /// A child already running (spawned or forked): watched by the reaper, its channel opened.
    init(started: Int32, reaper: ChildReaper, hostEnd: Int32?, channel: Pipe?, onExit: @escaping (Exit) -> Void) throws(UVError) {
        pid = started
        self.onExit = onExit
        // Registered before the loop runs again: a SIGCHLD that already arrived is handled then.
        reaper.register(self)
        if let hostEnd, let channel {
            let opened = uv_pipe_open(channel.pipePointer, hostEnd)
            if opened < 0 {
                System.close(hostEnd)
                kill(SIGKILL)
                throw UVError(opened)
            }
        }
    }

    /// Runs a program to completion outside any loop, its stdout written to `stdoutPath`;
    /// returns its raw wait status (0 = exited with status 0). For one-shot helpers such as
    /// the benchmark's reference programs.
    public static func run(_ executable: String, arguments: [String], stdoutPath: String) throws(UVError) -> Int32 {
        var pid: pid_t = 0
        let status = System.spawn(executable, arguments: arguments, environment: nil, channelFD: nil,
                                  stdout: .file(stdoutPath), stderr: .inherit, pid: &pid)
        guard status == 0 else { throw UVError(-status) }
        return System.waitForExit(pid)
    }

    /// Sends a signal; a child that already exited is not an error.
    public func kill(_ signal: Int32) {
        guard exit == nil else { return }
        // The child leads its own process group: what it started gets the signal too.
        System.signalGroupOrLeader(pid, signal)
    }

    /// Drops the exit callback. The loop still reaps the process when it ends, so no zombie
    /// is left behind.
    public func close() {
        onExit = nil
    }

    /// Called by the reaper with the raw `waitpid` status.
    func exited(rawStatus: Int32) {
        // The child is gone; whatever it started (its process group) goes with it.
        System.signalGroup(pid, SIGKILL)
        let termSignal = rawStatus & 0x7F
        let result = termSignal == 0
            ? Exit(status: Int64((rawStatus >> 8) & 0xFF), signal: 0)
            : Exit(status: 0, signal: termSignal)
        exit = result
        let callback = onExit
        onExit = nil
        callback?(result)
    }
}

/// Collects the exits of a loop's children: a SIGCHLD watcher that lives while the loop has a
/// child not yet reaped, and `waitpid(WNOHANG)` for each of them when the signal arrives
/// (signals coalesce, and other loops' children are not ours to reap).
final class ChildReaper {
    private let watcher: SignalWatcher
    private var children: [Int32: ChildProcess] = [:]
    private unowned let loop: EventLoop

    init(loop: EventLoop) throws(UVError) {
        self.loop = loop
        watcher = try SignalWatcher(loop: loop)
        try watcher.start(signal: SIGCHLD) { [unowned self] _ in self.reap() }
    }

    /// Forks asked of a template and not yet answered: their children will need this reaper.
    var startsAwaited = 0

    func register(_ child: ChildProcess) {
        children[child.pid] = child
    }

    /// Reaps one child if it has exited already.
    func reapIfExited(_ child: ChildProcess) {
        guard children[child.pid] === child, let status = System.reapIfExited(child.pid) else { return }
        children[child.pid] = nil
        child.exited(rawStatus: status)
        closeIfIdle()
    }

    func reap() {
        for (pid, child) in children.sorted(by: { $0.key < $1.key }) {
            if let status = System.reapIfExited(pid) {
                children[pid] = nil
                child.exited(rawStatus: status)
            }
        }
        closeIfIdle()
    }

    /// Without children to wait for, the watcher would keep the loop alive for nothing.
    func closeIfIdle() {
        guard children.isEmpty, startsAwaited == 0 else { return }
        watcher.close()
        if loop.childReaper === self { loop.childReaper = nil }
    }
}

extension EventLoop {
    /// The loop's reaper, created with its SIGCHLD watcher when the first child is spawned.
    func reaper() throws(UVError) -> ChildReaper {
        if let r = childReaper { return r }
        let r = try ChildReaper(loop: self)
        childReaper = r
        return r
    }
}
