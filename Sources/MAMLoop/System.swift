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
    /// unless tuned). One sender→receiver pair, with the default raised for every socket:
    /// 320 KiB made the broker 24 % slower and 1 MiB 28 % (medians of four and five alternated
    /// runs), while the C reference writing each frame did not move, so the ratio fell from
    /// 2.1–2.7× to 1.7–2.0×; 160 and 192 KiB ran level with 208 KiB (docs/PERFORMANCE.md). The
    /// C reference pins the same size.
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

    // MARK: - Files

    /// Opens a directory (following links: the caller names a path it trusts).
    public static func openDirectory(_ path: String) throws(UVError) -> Int32 {
        try descriptor(retryingInterrupts { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) })
    }

    /// Opens `name` in the directory `dir` without following a link (`ELOOP`, or `ENOTDIR`
    /// for a link to a directory where one is wanted). `flags` add to `O_NOFOLLOW | O_CLOEXEC`.
    public static func openFile(at dir: Int32, _ name: String, flags: Int32, mode: Int = 0) throws(UVError) -> Int32 {
        try descriptor(retryingInterrupts { openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC, mode_t(mode)) })
    }

    /// Makes the directory `name` in `dir`; one that exists already is not an error.
    public static func makeDirectory(at dir: Int32, _ name: String, mode: Int = 0o755) throws(UVError) {
        if mkdirat(dir, name, mode_t(mode)) != 0, errno != EEXIST { throw UVError(-errno) }
    }

    /// Makes the directory `path` (its parent must exist); `false` when it could not be made,
    /// `true` also when it exists already, unless `new` (then it must be this call's).
    @discardableResult
    public static func makeDirectory(_ path: String, mode: Int = 0o755, new: Bool = false) -> Bool {
        mkdir(path, mode_t(mode)) == 0 || (!new && errno == EEXIST)
    }

    /// Binds the folder `source` at `target` (Linux; the device's storage): `false` where not
    /// allowed.
    public static func bindMount(_ source: String, at target: String) -> Bool {
        #if os(Linux)
        return mount(source, target, nil, UInt(MS_BIND), nil) == 0
        #else
        return false
        #endif
    }

    /// Detaches the mount at `path` (lazily: a process still using it keeps it until it lets
    /// go); `true` when it is gone.
    @discardableResult
    public static func unmount(_ path: String) -> Bool {
        #if os(Linux)
        return umount2(path, Int32(MNT_DETACH)) == 0
        #else
        return false
        #endif
    }

    /// Whether something is mounted exactly at `path`.
    public static func isMountPoint(_ path: String) -> Bool { mountPoints().contains(path) }

    /// Where something is mounted, as `/proc/self/mountinfo` lists it (its octal escapes of a
    /// space, tab, newline and backslash undone); empty where there is no such file.
    public static func mountPoints() -> [String] {
        #if os(Linux)
        guard let bytes = try? readFile("/proc/self/mountinfo") else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 5)
            guard fields.count > 4 else { return nil }
            var point = String.UnicodeScalarView()
            var rest = fields[4].unicodeScalars[...]
            while let u = rest.popFirst() {
                if u == "\\", rest.count >= 3, let code = UInt32(String(String.UnicodeScalarView(rest.prefix(3))), radix: 8), let decoded = Unicode.Scalar(code) {
                    point.append(decoded)
                    rest = rest.dropFirst(3)
                } else {
                    point.append(u)
                }
            }
            return String(point)
        }
        #else
        return []
        #endif
    }

    /// Removes the empty directory `path`; `true` when it is gone (or was).
    @discardableResult
    public static func removeDirectory(_ path: String) -> Bool {
        rmdir(path) == 0 || errno == ENOENT
    }

    /// What `fd` is: whether a regular file, its link count and size.
    public static func fileStatus(_ fd: Int32) throws(UVError) -> (isRegular: Bool, links: UInt64, size: Int) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw UVError(-errno) }
        return ((info.st_mode & S_IFMT) == S_IFREG, UInt64(info.st_nlink), Int(info.st_size))
    }

    /// Reads `fd` to its end.
    public static func readAll(_ fd: Int32, sizeHint: Int = 0) throws(UVError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(sizeHint)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { b in retryingInterrupts { read(fd, b.baseAddress, b.count) } }
            if n < 0 { throw UVError(-errno) }
            if n == 0 { return out }
            out.append(contentsOf: buffer[0..<n])
        }
    }

    /// Opens (creating) a file for appending; the descriptor is not inherited by children.
    public static func openForAppending(_ path: String, mode: Int = 0o600) throws(UVError) -> Int32 {
        try descriptor(retryingInterrupts { open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, mode_t(mode)) })
    }

    /// Opens a file for reading.
    static func openForReading(_ path: String) throws(UVError) -> Int32 {
        try descriptor(retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC) })
    }

    /// The whole content of the file `path`.
    public static func readFile(_ path: String) throws(UVError) -> [UInt8] {
        let fd = try openForReading(path)
        defer { close(fd) }
        return try readAll(fd, sizeHint: (try? fileStatus(fd).size) ?? 0)
    }

    /// Cuts the file open at `fd` to `length` bytes.
    public static func truncate(_ fd: Int32, to length: Int) throws(UVError) {
        guard retryingInterrupts({ ftruncate(fd, off_t(length)) }) == 0 else { throw UVError(-errno) }
    }

    /// Writes all of `bytes` to `fd`.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(UVError) {
        try bytes.withUnsafeBytes { b in Result { () throws(UVError) in try writeAll(fd, b) } }.get()
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(UVError) {
        var written = 0
        while written < bytes.count {
            let n = retryingInterrupts { write(fd, bytes.baseAddress! + written, bytes.count - written) }
            if n < 0 { throw UVError(-errno) }
            written += n
        }
    }

    /// Writes all of `text` to the file `path`, which must exist (a cgroup's control file).
    public static func writeFile(_ text: String, to path: String) throws(UVError) {
        let fd = try descriptor(retryingInterrupts { open(path, O_WRONLY | O_CLOEXEC) })
        defer { close(fd) }
        try writeAll(fd, Array(text.utf8))
    }

    /// Renames `from` to `to`, both in `dir` (atomic: `to` is replaced, never written through).
    public static func rename(at dir: Int32, _ from: String, to: String) throws(UVError) {
        guard renameat(dir, from, dir, to) == 0 else { throw UVError(-errno) }
    }

    /// Removes the name `name` from `dir` (a link itself, never what it points to).
    public static func unlink(at dir: Int32, _ name: String) throws(UVError) {
        guard unlinkat(dir, name, 0) == 0 else { throw UVError(-errno) }
    }

    private static func descriptor(_ fd: Int32) throws(UVError) -> Int32 {
        guard fd >= 0 else { throw UVError(-errno) }
        return fd
    }
}
