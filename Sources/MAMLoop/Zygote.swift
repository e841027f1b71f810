internal import CZygote
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The built-in app runtime's zygote (Android's and Chromium's answer to start-up cost): one
/// `mamsim-app --zygote` started once, with its dynamic loading, Swift runtime start and
/// MAMKit code paths done, from which each new app is forked instead of exec'd. The template
/// has no bundle identity, no device state and no secrets — what makes an app an app (its
/// identity, its channel) comes from the host after the fork, exactly as for an exec'd app.
///
/// Linux only (`CLONE_PARENT` makes each app the host's own child). Not thread-safe: the host
/// asks for forks from its loop thread.
public final class Zygote {
    /// The template's pid.
    public let pid: Int32
    private var control: Int32
    private var process: ChildProcess?
    /// How long one fork may take before the template is given up on.
    private let timeoutMilliseconds: Int32

    /// Whether this platform can fork apps from a template.
    public static var isSupported: Bool { mamsim_zygote_supported() != 0 }

    /// Starts `executable --zygote` (inheriting stdout and stderr, which quiet apps replace
    /// with /dev/null). `onExit` runs if the template ends while the host still holds it.
    public init(
        loop: EventLoop, executable: String, environment: [String: String]?, timeoutMilliseconds: Int32 = 5000,
        onExit: @escaping (ChildProcess.Exit) -> Void
    ) throws(UVError) {
        guard Self.isSupported else { throw UVError(-ENOTSUP) }
        let (reaper, spawned, hostEnd) = try ChildProcess.start(loop: loop, pair: System.packetSocketPair) { templateEnd throws(UVError) in
            var spawned: pid_t = 0
            let status = System.spawn(
                executable, arguments: ["--zygote"], environment: environment, channelFD: templateEnd,
                stdout: .inherit, stderr: .inherit, pid: &spawned)
            guard status == 0 else { throw UVError(-status) }
            return spawned
        }
        pid = spawned
        control = hostEnd
        self.timeoutMilliseconds = timeoutMilliseconds
        process = try ChildProcess(started: spawned, reaper: reaper, hostEnd: nil, channel: nil, onExit: onExit)
    }

    /// Whether the template still answers (it has not failed or been closed).
    public var isOpen: Bool { control >= 0 && process?.exit == nil }

    /// Forks a new app with `channelFD` as its fd 3; its pid. A template that fails to answer
    /// is closed: a late answer must not be read as the next app's.
    func fork(arguments: [String], channelFD: Int32, quiet: Bool) throws(UVError) -> Int32 {
        guard isOpen else { throw UVError(-EPIPE) }
        var request: [UInt8] = []
        for argument in arguments {
            request.append(contentsOf: argument.utf8)
            request.append(0)
        }
        let answer = request.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { text in
                mamsim_zygote_fork(control, channelFD, quiet ? UInt32(MAMSIM_ZYGOTE_QUIET) : 0, text.baseAddress, text.count, timeoutMilliseconds)
            }
        }
        guard answer > 0 else {
            // EINVAL/E2BIG are this request's fault; anything else is the template's.
            if answer != -EINVAL && answer != -E2BIG && answer != -EAGAIN { close() }
            throw UVError(answer)
        }
        return answer
    }

    /// Ends the template: it exits when its control socket closes (the loop reaps it).
    public func close() {
        guard control >= 0 else { return }
        System.close(control)
        control = -1
        process?.close()
    }

    deinit { close() }
}
