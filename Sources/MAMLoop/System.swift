#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Every system call mamsim makes outside libuv, in one place (as NIOPosix's `System`): the
/// socket pair of a child's channel, spawning, signals and reaping, the signal set-up of
/// threads and programs, and the file calls of containers and cgroups. Platform differences
/// live here and nowhere else, and so does the one policy for interrupted calls: a call that
/// fails with `EINTR` is made again (`retryingInterrupts`); no caller sees `EINTR`.
public enum System {
    /// Makes `call` again while it fails with `EINTR` (a signal arrived first); its result.
    /// Every call here that can be interrupted goes through it.
    @inline(__always)
    static func retryingInterrupts<T: FixedWidthInteger & SignedInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result != -1 || errno != EINTR { return result }
        }
    }

    // MARK: - Signals

    /// For a program's entry (`main`): a write to a peer that has gone away returns `EPIPE`
    /// instead of killing the program. The host and every child write to sockets whose other
    /// end may die at any moment.
    public static func ignoreBrokenPipes() {
        #if canImport(Glibc)
        _ = Glibc.signal(SIGPIPE, SIG_IGN)
        #else
        _ = Darwin.signal(SIGPIPE, SIG_IGN)
        #endif
    }

    /// The same for the calling thread only, without touching the process's dispositions: a
    /// loop thread blocks SIGPIPE, so a write to a dead peer fails with `EPIPE` there whatever
    /// the embedding program does. (A blocked SIGPIPE raised by a write stays pending on this
    /// thread and is never delivered: the thread never unblocks it.)
    public static func blockBrokenPipesOnThisThread() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// libuv learns of child exits through SIGCHLD. A parent may have started us with it
    /// blocked (Foundation's Process passes its thread's mask on); a signal blocked in every
    /// thread is never delivered, so a loop thread unblocks it.
    static func unblockChildExitSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGCHLD)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Sends `signal` to every process of the group `pid` leads; a group already gone is not
    /// an error.
    static func signalGroup(_ pid: pid_t, _ signal: Int32) {
        #if canImport(Glibc)
        _ = Glibc.kill(-pid, signal)
        #else
        _ = Darwin.kill(-pid, signal)
        #endif
    }

    /// Sends `signal` to the group `pid` leads, or to `pid` alone while it has no group yet (an
    /// app just forked, before its first instruction made it a session leader). Only for a
    /// child not yet reaped: its pid cannot belong to another process.
    static func signalGroupOrLeader(_ pid: pid_t, _ signal: Int32) {
        #if canImport(Glibc)
        if Glibc.kill(-pid, signal) != 0 && errno == ESRCH { _ = Glibc.kill(pid, signal) }
        #else
        if Darwin.kill(-pid, signal) != 0 && errno == ESRCH { _ = Darwin.kill(pid, signal) }
        #endif
    }

    /// Sends `signal` to the process `pid` (not to its group); `false` when it is gone.
    @discardableResult
    public static func signal(_ pid: Int32, _ signal: Int32) -> Bool {
        #if canImport(Glibc)
        Glibc.kill(pid, signal) == 0
        #else
        Darwin.kill(pid, signal) == 0
        #endif
    }

    /// Whether a process `pid` exists (ours or another user's).
    public static func processExists(_ pid: Int32) -> Bool {
        signal(pid, 0) || errno != ESRCH
    }

    // MARK: - Descriptors

    /// What each end of a channel may hold unread (`SO_SNDBUF`; the kernel doubles it, so
    /// 192 KiB), pinned rather than the machine's default (`net.core.wmem_default`, 208 KiB
    /// unless tuned): a machine whose default is raised made the broker markedly slower (larger
    /// buffers let a batch outrun the caches) while the C reference did not move, so a figure
    /// would depend on the machine's tuning. Smaller sizes down to this one ran level with the
    /// default. The C reference pins the same size.
    static let channelSendBuffer: Int32 = 96 << 10

    /// A connected pair of stream sockets, both close-on-exec (the child's end is made its
    /// fd 3 by `spawn`, which clears the flag there), each end's send buffer
    /// `channelSendBuffer` (on Linux).
    static func socketPair() throws(UVError) -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        #if os(Linux)
        // Atomic: no other thread's spawn can inherit the pair between socketpair and fcntl.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw UVError(-errno)
        }
        // A size the kernel refuses leaves its default: slower, nothing else.
        for fd in fds {
            var size = channelSendBuffer
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        #else
        // No SOCK_CLOEXEC here; the host spawns from its loop thread only, so the window
        // between socketpair and fcntl is not raced by another spawn of ours.
        guard socketpair(AF_UNIX, SOCK_STREAM, 0, &fds) == 0 else { throw UVError(-errno) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        #endif
        return (fds[0], fds[1])
    }

    /// A connected pair of datagram-like stream sockets (SOCK_SEQPACKET: message boundaries
    /// kept), both close-on-exec. The zygote's control channel.
    static func packetSocketPair() throws(UVError) -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        #if os(Linux)
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw UVError(-errno)
        }
        return (fds[0], fds[1])
        #else
        throw UVError(-ENOTSUP)
        #endif
    }

    public static func close(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    /// Takes an exclusive lock on `path` (created if missing) for as long as the returned
    /// descriptor stays open; `nil` when another process holds it. Released by `close`, and by
    /// the kernel when the process dies, so a killed host never leaves a stale lock.
    public static func tryExclusiveLock(_ path: String) throws(UVError) -> Int32? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw UVError(-errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let e = errno
            close(fd)
            if e == EWOULDBLOCK { return nil }
            throw UVError(-e)
        }
        return fd
    }

    public static func unlock(_ fd: Int32) {
        close(fd)
    }

    // MARK: - CPUs

    private typealias Affinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32
    private typealias CurrentCPU = @convention(c) () -> Int32

    /// glibc's `sched_getaffinity`, `sched_setaffinity` and `sched_getcpu`, GNU extensions
    /// Swift's Glibc module does not declare: found at run time; `nil` off Linux.
    private static let affinityCalls: (get: Affinity, set: Affinity, current: CurrentCPU)? = {
        #if os(Linux)
        guard let get = dlsym(nil, "sched_getaffinity"), let set = dlsym(nil, "sched_setaffinity"),
              let current = dlsym(nil, "sched_getcpu") else { return nil }
        return (unsafeBitCast(get, to: Affinity.self), unsafeBitCast(set, to: Affinity.self), unsafeBitCast(current, to: CurrentCPU.self))
        #else
        return nil
        #endif
    }()

    /// glibc's `cpu_set_t`: 1,024 CPUs, one bit each.
    private static let cpuSetWords = 16

    /// The CPUs thread `thread` (0: the calling thread) may run on, in increasing order;
    /// `nil` where the system does not say (not Linux, or the thread is gone).
    public static func allowedCPUs(of thread: Int32 = 0) -> [Int]? {
        guard let calls = affinityCalls else { return nil }
        var mask = [UInt64](repeating: 0, count: cpuSetWords)
        let status = mask.withUnsafeMutableBytes { calls.get(thread, $0.count, $0.baseAddress!) }
        guard status == 0 else { return nil }
        return (0..<cpuSetWords * 64).filter { mask[$0 / 64] & (1 << UInt64($0 % 64)) != 0 }
    }

    /// Lets thread `thread` (0: the calling thread; a process's id: its first thread) run on
    /// `cpus` only; what it starts afterwards inherits that. `false` if refused (a CPU outside
    /// the cpuset, a thread gone, another user's) or unsupported.
    @discardableResult
    public static func allowCPUs(_ cpus: [Int], to thread: Int32 = 0) -> Bool {
        guard let calls = affinityCalls, !cpus.isEmpty else { return false }
        var mask = [UInt64](repeating: 0, count: cpuSetWords)
        for cpu in cpus where cpu >= 0 && cpu < cpuSetWords * 64 { mask[cpu / 64] |= 1 << UInt64(cpu % 64) }
        return mask.withUnsafeMutableBytes { calls.set(thread, $0.count, $0.baseAddress!) } == 0
    }

    /// The CPU the calling thread runs on now; `nil` where the system does not say.
    public static func currentCPU() -> Int? {
        guard let calls = affinityCalls else { return nil }
        let cpu = calls.current()
        return cpu >= 0 ? Int(cpu) : nil
    }

    /// Every thread of process `pid` (Linux's /proc/PID/task); just `pid` where that cannot
    /// be read.
    public static func threads(of pid: Int32) -> [Int32] {
        #if os(Linux)
        guard let dir = opendir("/proc/\(pid)/task") else { return [pid] }
        defer { closedir(dir) }
        var threads: [Int32] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let tid = Int32(name) { threads.append(tid) }
        }
        return threads.isEmpty ? [pid] : threads
        #else
        return [pid]
        #endif
    }

    // MARK: - Processes

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which Swift's Glibc module
    /// does not declare: found at run time, `nil` where the C library lacks it.
    private static let addCloseFrom: AddCloseFrom? = {
        #if os(Linux)
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
        #else
        return nil
        #endif
    }()

    /// Where a spawned program's standard output goes.
    enum Output {
        case inherit, discard
        case file(String)
        /// Appended to (created if missing): a relaunched child adds to what it wrote before.
        case appending(String)
    }

    /// `posix_spawn` with a clean signal state: an empty mask and default dispositions (a
    /// parent that ignores SIGPIPE or blocks SIGCHLD must not pass that on), stdin from
    /// /dev/null, and `channelFD` (if any) as the child's fd 3. Returns 0 or an errno.
    static func spawn(
        _ executable: String, arguments: [String], environment: [String: String]?, channelFD: Int32?,
        stdout: Output, stderr: Output, pid: inout pid_t
    ) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (fd, output) in [(Int32(1), stdout), (Int32(2), stderr)] {
            switch output {
            case .inherit: break
            case .discard: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0)
            case .file(let path): posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            case .appending(let path): posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            }
        }
        if let channelFD {
            // dup2 onto 3 clears close-on-exec there; the socket pair's own descriptors keep it.
            posix_spawn_file_actions_adddup2(&actions, channelFD, 3)
            // When fd 3 is the channel already, dup2 would be a no-op and leave close-on-exec set.
            if channelFD == 3 { _ = fcntl(3, F_SETFD, 0) }
        }
        // After the dup2 above: nothing else of the host's reaches the child. A descriptor
        // another thread opened without close-on-exec (a file being written) would otherwise
        // leak into it, and keep a just-written program "busy" (ETXTBSY) while the child lives.
        if let closeFrom = addCloseFrom { _ = closeFrom(&actions, channelFD == nil ? 3 : 4) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var all = sigset_t()
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &all)
        // Its own session, hence its own process group: ending the child ends whatever it
        // started too, and it has no controlling terminal to type into (TIOCSTI).
        #if canImport(Glibc)
        let ownSession = Int32(0x80)  // POSIX_SPAWN_SETSID (glibc 2.26), hidden behind _GNU_SOURCE
        #else
        let ownSession = Int32(POSIX_SPAWN_SETSID)
        #endif
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | ownSession))
        var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] } ?? []
        defer { envp.forEach { free($0) } }
        if environment == nil {
            return posix_spawn(&pid, executable, &actions, &attributes, &argv, environ)
        }
        return posix_spawn(&pid, executable, &actions, &attributes, &argv, &envp)
    }

    /// Blocks until `pid` exits; its raw wait status.
    static func waitForExit(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        _ = retryingInterrupts { waitpid(pid, &status, 0) }
        return status
    }

    /// The raw wait status of `pid` if it has exited (reaping it), `nil` if it still runs.
    /// A pid that is no longer our child counts as exited with status 0.
    static func reapIfExited(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        let r = retryingInterrupts { waitpid(pid, &status, WNOHANG) }
        if r == pid { return status }
        if r < 0 && errno == ECHILD { return 0 }
        return nil
    }

}
