import MAMLoop
import MAMModel
import MAMWire
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a blocking call (`MAMApp.callBlocking`) ended without the host's answer.
public enum BlockingCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No answer within the call's timeout.
    case timedOut(Duration)
    /// The channel to the host closed (the host went away, or the app closed it).
    case channelClosed

    public var description: String {
        switch self {
        case .timedOut(let d): "the host did not answer the blocking call within \(d)"
        case .channelClosed: "the host channel closed before it answered the blocking call"
        }
    }
}

/// One blocking call's wait: a POSIX semaphore of its own (at a stable address: a semaphore
/// must not move while a thread waits on it), and the answer the loop thread hands it.
final class BlockingWaiter<Value: Sendable>: Sendable {
    enum Outcome { case answered(Value?), timedOut }
    private struct State: ~Copyable {
        var value: Value?
        var done = false
    }
    private let state = Mutex(State())
    private nonisolated(unsafe) let semaphore: UnsafeMutablePointer<sem_t>

    init() {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Called by the loop thread (only the first call counts): `nil` = no answer will come.
    func finish(_ v: Value?) {
        let first = state.withLock { s in
            guard !s.done else { return false }
            s.done = true
            s.value = v
            return true
        }
        if first { sem_post(semaphore) }
    }

    func wait(timeout: Duration) -> Outcome {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let c = timeout.components
        let nanos = Int(deadline.tv_nsec) + Int(c.attoseconds / 1_000_000_000)
        deadline.tv_sec += Int(c.seconds) + nanos / 1_000_000_000
        deadline.tv_nsec = nanos % 1_000_000_000
        while sem_timedwait(semaphore, &deadline) != 0 {
            if errno == EINTR { continue }
            // Timed out, unless the answer landed just now: the caller gives up only then.
            let gaveUp = state.withLock { s in
                if s.done { return false }
                s.done = true
                return true
            }
            if gaveUp { return .timedOut }
            break
        }
        return .answered(state.withLock { $0.value })
    }
}
