internal import CLibUV
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A spawned child process with its channel pipe on fd 3 (like Node's IPC channel), so its
/// stdout and stderr stay free for logs.
public final class ChildProcess: Handle {
    /// How a child ended.
    public struct Exit: Sendable, Hashable, CustomStringConvertible {
        public let status: Int64
        /// 0 when the child exited on its own.
        public let signal: Int32
        public var description: String {
            signal != 0 ? "killed by signal \(signal)" : "exited with status \(status)"
        }
    }

    public private(set) var pid: Int32 = 0
    public private(set) var exit: Exit?
    private var onExit: ((Exit) -> Void)?

    /// Spawns `executable` with `arguments` (argv[0] is added). stdin is /dev/null, stdout and
    /// stderr are inherited unless `quiet`, and `channel` becomes the child's fd 3.
    /// `uv_spawn` is synchronous: when it returns the program has been exec'd or failed.
    public init(
        loop: EventLoop, executable: String, arguments: [String], environment: [String: String]? = nil,
        channel: Pipe, quiet: Bool = false, onExit: @escaping (Exit) -> Void
    ) throws(UVError) {
        var options = uv_process_options_t()
        let argv = ([executable] + arguments).map { strdup($0) }
        let env = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } }
        defer {
            argv.forEach { free($0) }
            env?.forEach { free($0) }
        }
        var argvList: [UnsafeMutablePointer<CChar>?] = argv + [nil]
        var envList: [UnsafeMutablePointer<CChar>?]? = env.map { $0 + [nil] }
        var stdio = [uv_stdio_container_t](repeating: uv_stdio_container_t(), count: 4)
        stdio[0].flags = UV_IGNORE
        let inherit = quiet ? UV_IGNORE : UV_INHERIT_FD
        stdio[1].flags = inherit
        stdio[1].data.fd = 1
        stdio[2].flags = inherit
        stdio[2].data.fd = 2
        stdio[3].flags = uv_stdio_flags(UV_CREATE_PIPE.rawValue | UV_READABLE_PIPE.rawValue | UV_WRITABLE_PIPE.rawValue)
        stdio[3].data.stream = channel.streamPointer

        var status: Int32 = 0
        super.init(loop: loop, type: UV_PROCESS)
        // The handle is registered with the loop even when uv_spawn fails, so it is always
        // adopted and closed through the normal path.
        adopt()
        self.onExit = onExit
        executable.withCString { file in
            argvList.withUnsafeMutableBufferPointer { args in
                stdio.withUnsafeMutableBufferPointer { io in
                    options.file = file
                    options.args = args.baseAddress
                    options.stdio_count = 4
                    options.stdio = io.baseAddress
                    options.exit_cb = { p, status, signal in
                        let child = Handle.wrapper(UnsafeMutableRawPointer(p), as: ChildProcess.self)
                        let exit = Exit(status: status, signal: signal)
                        child.exit = exit
                        let callback = child.onExit
                        child.onExit = nil
                        callback?(exit)
                    }
                    if envList != nil {
                        envList!.withUnsafeMutableBufferPointer { e in
                            options.env = e.baseAddress
                            status = uv_spawn(loop.raw, processPointer, &options)
                        }
                    } else {
                        status = uv_spawn(loop.raw, processPointer, &options)
                    }
                }
            }
        }
        if status < 0 {
            self.onExit = nil
            close()
            throw UVError(status)
        }
        pid = processPointer.pointee.pid
    }

    private var processPointer: UnsafeMutablePointer<uv_process_t> {
        UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_process_t.self)
    }

    /// Sends a signal; a child that already exited is not an error.
    public func kill(_ signal: Int32) {
        guard state == .open, exit == nil else { return }
        _ = uv_process_kill(processPointer, signal)
    }

    override func didClose() { onExit = nil }
}
