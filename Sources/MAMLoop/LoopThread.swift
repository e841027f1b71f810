#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Runs an `EventLoop` on a dedicated thread; other threads reach it only with `submit`.
///
/// `setup` runs first on the new thread, with the loop, to create the handles that live there.
/// The loop runs until `setup`'s handles are closed and a job calls `stopAcceptingJobs()`,
/// then the loop is closed on that thread; `join()` waits for it.
public final class LoopThread: Sendable {
    /// Not public: apart from `submit` (thread-safe), a waker is loop-bound.
    let waker: Waker
    private let owner: LoopOwnerBox
    /// Written by the loop thread before `init` returns (the init waits on a semaphore) and
    /// only read afterwards.
    private let thread: Box

    private final class Box: @unchecked Sendable {
        // `id` is set by the creating thread before anyone else reads it; `closeStatus` is
        // written by the loop thread as it ends and read only after `pthread_join`.
        var id: pthread_t?
        var closeStatus: Int32 = 0
    }

    private final class Start: @unchecked Sendable {
        // Handed to the new thread, which writes waker/error before posting `ready`; the
        // creator reads them only after waiting on `ready`.
        let setup: (EventLoop) throws -> Void
        var waker: Waker?
        var error: (any Error)?
        var owner: LoopOwner?
        /// At a stable address: a semaphore must not move while a thread waits on it, and
        /// `&property` of a class may hand C a temporary copy.
        let ready: UnsafeMutablePointer<sem_t>
        let box: Box
        init(setup: @escaping (EventLoop) throws -> Void, box: Box) {
            self.setup = setup
            self.box = box
            ready = .allocate(capacity: 1)
            sem_init(ready, 0, 0)
        }
        deinit {
            sem_destroy(ready)
            ready.deallocate()
        }
    }

    /// The loop thread's identity, written by it before `init` returns.
    private final class LoopOwnerBox: Sendable {
        let owner: LoopOwner
        init(_ owner: LoopOwner) { self.owner = owner }
    }

    public init(setup: @escaping (EventLoop) throws -> Void) throws {
        let box = Box()
        let start = Start(setup: setup, box: box)
        var id = pthread_t()
        let context = Unmanaged.passRetained(start).toOpaque()
        let status = pthread_create(&id, nil, { raw in
            let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
            let loop: EventLoop
            start.owner = LoopOwner()
            do {
                loop = try EventLoop()
            } catch {
                start.error = error
                sem_post(start.ready)
                return nil
            }
            do {
                let waker = try Waker(loop: loop)
                try start.setup(loop)
                start.waker = waker
            } catch {
                // What the set-up opened before it failed is closed with the loop.
                start.box.closeStatus = loop.close()
                start.error = error
                sem_post(start.ready)
                return nil
            }
            sem_post(start.ready)
            loop.run()
            start.box.closeStatus = loop.close()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Start>.fromOpaque(context).release()
            throw UVError(-status)
        }
        box.id = id
        _ = System.retryingInterrupts { sem_wait(start.ready) }
        if let error = start.error {
            pthread_join(id, nil)
            throw error
        }
        waker = start.waker!
        owner = LoopOwnerBox(start.owner!)
        thread = box
    }

    /// Runs `job` on the loop thread. Returns false once the thread stopped accepting jobs.
    @discardableResult
    public func submit(_ job: @escaping @Sendable () -> Void) -> Bool { waker.submit(job) }

    /// Whether the caller runs on this loop's thread: what must never block waiting for the
    /// loop (a blocking call made there would wait for itself).
    public var isCurrent: Bool { owner.owner.isCurrent }

    /// From a job on the loop thread (checked): accept no more jobs and let the loop end once
    /// its other handles are closed.
    public func stopAcceptingJobs() {
        owner.owner.check("LoopThread.stopAcceptingJobs")
        waker.close()
    }

    /// Waits for the loop thread to end; returns `uv_loop_close`'s status (0 = all closed).
    public func join() -> Int32 {
        guard let id = thread.id else { return 0 }
        thread.id = nil
        pthread_join(id, nil)
        return thread.closeStatus
    }
}
