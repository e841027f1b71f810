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
    private let timeoutMilliseconds: UInt64
    private unowned let loop: EventLoop
    /// Readability of the control socket: the template's answers, read as they come.
    private let answers: DescriptorWatcher
    /// The deadline of the oldest request still unanswered.
    private let deadline: Timer
    /// Requests sent and not yet answered, oldest first: the template answers in order.
    private var waiting: [Waiting] = []
    private var firstWaiting = 0

    private struct Waiting {
        let deadline: UInt64
        /// The request and its channel until sent (then empty and -1).
        var request: [UInt8]
        var channelFD: Int32
        let quiet: Bool
        let completion: (Result<Int32, UVError>) -> Void
    }
    /// The first request not yet sent (`waiting.count` when all were).
    private var firstUnsent = 0

    /// Whether this platform can fork apps from a template.
    public static var isSupported: Bool { mamsim_zygote_supported() != 0 }

    /// Starts `executable --zygote` (inheriting stdout and stderr, which quiet apps replace
    /// with /dev/null). `onExit` runs if the template ends while the host still holds it.
    public init(
        loop: EventLoop, executable: String, environment: [String: String]?, timeoutMilliseconds: UInt64 = 5000,
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
        self.loop = loop
        self.timeoutMilliseconds = timeoutMilliseconds
        do throws(UVError) {
            answers = try DescriptorWatcher(loop: loop, fd: hostEnd)
            do { deadline = try Timer(loop: loop) } catch { answers.close(); throw error }
        } catch {
            System.close(hostEnd)
            throw error
        }
        process = try ChildProcess(started: spawned, reaper: reaper, hostEnd: nil, channel: nil, onExit: onExit)
        // Nothing is watched until a request waits: an idle template keeps no loop alive.
        answers.setReferenced(false)
        deadline.setReferenced(false)
    }

    /// Whether the template still answers (it has not failed or been closed).
    public var isOpen: Bool { control >= 0 && process?.exit == nil }

    /// Asks for a new app with `channelFD` as its fd 3, which the template takes over (it is
    /// closed here once sent, or on failure). Returns at once; `completion` gets the new pid,
    /// or why there is none, on a later turn of the loop — never during this call. At most
    /// `inFlightLimit` requests are on the socket: later ones wait here for earlier answers, so a
    /// fleet's burst never fills the socket. Throws when the request cannot be made; a template
    /// that then fails to answer in time is killed, so a late answer is never read as the next
    /// app's.
    func fork(arguments: [String], channelFD: Int32, quiet: Bool, completion: @escaping (Result<Int32, UVError>) -> Void) throws(UVError) {
        guard isOpen else {
            System.close(channelFD)
            throw UVError(-EPIPE)
        }
        var request: [UInt8] = []
        for argument in arguments {
            request.append(contentsOf: argument.utf8)
            request.append(0)
        }
        guard request.count + 4 <= Int(MAMSIM_ZYGOTE_MAX_REQUEST) else {
            System.close(channelFD)
            throw UVError(-E2BIG)
        }
        if pendingCount == 0 {
            do throws(UVError) {
                try answers.startReading { [unowned self] error in self.readAnswers(error) }
            } catch {
                System.close(channelFD)
                close()
                throw error
            }
            answers.setReferenced(true)
            deadline.setReferenced(true)
        }
        waiting.append(Waiting(deadline: loop.now + timeoutMilliseconds, request: request, channelFD: channelFD, quiet: quiet, completion: completion))
        if pendingCount == 1 { armDeadline() }
        if let error = sendQueued() {
            // The socket failed: the template is given up on. This request (not sent: sending
            // stops at the failure, and it is the last) is answered by the throw.
            let mine = waiting.removeLast()
            System.close(mine.channelFD)
            fail(error)
            throw error
        }
    }

    /// Requests allowed on the socket at once.
    static let inFlightLimit = 8

    /// Sends queued requests while fewer than `inFlightLimit` are unanswered. A full socket
    /// keeps them queued; any other failure is the template's, returned.
    private func sendQueued() -> UVError? {
        while firstUnsent < waiting.count, firstUnsent - firstWaiting < Self.inFlightLimit {
            let next = waiting[firstUnsent]
            let sent = next.request.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { text in
                    mamsim_zygote_request(control, next.channelFD, next.quiet ? UInt32(MAMSIM_ZYGOTE_QUIET) : 0, text.baseAddress, text.count)
                }
            }
            if sent == -EAGAIN { return nil }
            if sent != 0 { return UVError(sent) }
            System.close(next.channelFD)
            waiting[firstUnsent].channelFD = -1
            waiting[firstUnsent].request = []
            firstUnsent += 1
        }
        return nil
    }

    private var pendingCount: Int { waiting.count - firstWaiting }

    /// Every answer waiting on the socket, each to its request.
    private func readAnswers(_ error: UVError?) {
        if let error {
            fail(error)
            return
        }
        while control >= 0, firstWaiting < firstUnsent {
            var answer: Int32 = 0
            let status = mamsim_zygote_answer(control, &answer)
            if status == 0 { break }
            if status < 0 {
                fail(UVError(status))
                return
            }
            let next = waiting[firstWaiting]
            firstWaiting += 1
            if firstWaiting == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                firstWaiting = 0
                firstUnsent = 0
            }
            next.completion(answer > 0 ? .success(answer) : .failure(UVError(answer)))
        }
        guard control >= 0 else { return }
        if let error = sendQueued() {
            fail(error)
            return
        }
        if pendingCount == 0 {
            answers.stop()
            deadline.stop()
            answers.setReferenced(false)
            deadline.setReferenced(false)
        } else {
            armDeadline()
        }
    }

    private func armDeadline() {
        let due = waiting[firstWaiting].deadline
        let now = loop.now
        deadline.start(after: due > now ? due - now : 0) { [unowned self] in
            guard self.pendingCount > 0, self.waiting[self.firstWaiting].deadline <= self.loop.now else {
                if self.pendingCount > 0 { self.armDeadline() }
                return
            }
            self.fail(UVError(-ETIMEDOUT))
        }
    }

    /// The template stopped answering: it is killed (a stopped or hung one would never read
    /// its socket's end) and every request waiting fails.
    private func fail(_ error: UVError) {
        let failed = drain()
        process?.kill(SIGKILL)
        close()
        for w in failed { w.completion(.failure(error)) }
    }

    /// Takes every request still waiting out of the queue, closing the channels not sent.
    private func drain() -> ArraySlice<Waiting> {
        let drained = waiting[firstWaiting...]
        waiting.removeAll()
        firstWaiting = 0
        firstUnsent = 0
        for w in drained where w.channelFD >= 0 { System.close(w.channelFD) }
        return drained
    }

    /// Ends the template: it exits when its control socket closes (the loop reaps it). Requests
    /// still waiting fail with `EPIPE`.
    public func close() {
        guard control >= 0 else { return }
        // libuv's rule: a descriptor is closed only once nothing polls it.
        answers.close()
        deadline.close()
        System.close(control)
        control = -1
        process?.close()
        for w in drain() { w.completion(.failure(UVError(-EPIPE))) }
    }

    deinit { close() }
}
