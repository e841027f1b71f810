internal import CLibUV
import Synchronization

/// The one door into a loop from other threads: `submit` queues a job and wakes the loop,
/// which runs every queued job, in order, on its own thread.
///
/// `@unchecked Sendable` is safe because the only members other threads touch are the
/// mutex-protected queue and `uv_async_send`, which libuv documents as thread-safe; the handle
/// itself is created, closed and freed on the loop thread.
public final class Waker: Handle, @unchecked Sendable {
    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var accepting = true
    }
    /// `uv_async_send` is called under this lock, and `accepting` turns false under it before
    /// the handle is closed: no thread can signal a handle that is being freed.
    private let queue = Mutex(Queue())

    public init(loop: EventLoop) throws(UVError) {
        super.init(loop: loop, type: UV_ASYNC)
        let status = uv_async_init(loop.raw, asyncPointer) { a in
            Handle.wrapper(UnsafeMutableRawPointer(a), as: Waker.self).drain()
        }
        if status < 0 { discard(); throw UVError(status) }
        adopt()
    }

    private var asyncPointer: UnsafeMutablePointer<uv_async_t> {
        UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_async_t.self)
    }

    /// Runs `job` on the loop thread soon. Returns false once the waker is closed (the job is
    /// dropped: the loop is shutting down).
    @discardableResult
    public func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let handle = asyncPointer
        return queue.withLock { q in
            guard q.accepting else { return false }
            q.jobs.append(job)
            uv_async_send(handle)
            return true
        }
    }

    /// Jobs are drained until the queue is empty: uv_async_send coalesces wake-ups.
    private func drain() {
        while true {
            let jobs = queue.withLock { q -> [@Sendable () -> Void] in
                let taken = q.jobs
                q.jobs.removeAll()
                return taken
            }
            if jobs.isEmpty { return }
            for job in jobs { job() }
        }
    }

    override func willClose() {
        queue.withLock { $0.accepting = false }
        drain()
    }
}
