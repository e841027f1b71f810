internal import CLibUV
public import MAMModel
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// `EventLoop`'s state on its loop's thread (`LoopBound`): its fields are read and
/// written through `value` (`EventLoop.value.field`), checked to be on the loop's thread in debug builds.
public struct EventLoopState {
    /// The outgoing buffers of pipes that wrote all they had: a pipe with bytes to queue takes
    /// the one that fits what it last wrote (`takeOutgoingBuffer`), so the few buffers written
    /// between two flushes are the same whatever the number of pipes.
    var spareOutgoing: [[UInt8]] = []
    /// Bytes read since batched writes last left.
    var readSinceFlush: Int = 0
    var pipesToFlush: [Pipe] = []
    /// Run before batched writes leave, those armed since the last flush: what must be
    /// durable before a peer can see an answer (the audit log's group commit) is made durable
    /// here. In the order they were added.
    var beforeFlushHooks: [HeldHook] = []
    /// Whether any hook was armed since the last flush.
    var hooksArmed: Bool = false
}

/// A libuv loop and the handles that live on it.
///
/// Thread rule: an `EventLoop` and every handle on it are used from the thread that runs the
/// loop only; other threads reach it through a `Waker`. The loop also batches writes: frames
/// queued for a pipe during one iteration leave in a single `uv_write` (see `Pipe.enqueue`).
public final class EventLoop: LoopBound<EventLoopState> {
    let raw: UnsafeMutablePointer<uv_loop_t>
    /// What every pipe of the loop reads into (libuv calls read_cb before the next alloc_cb,
    /// all on this thread), filled front to back: bytes a reader kept (a share's payload the
    /// host forwards from where it arrived) are never read over. While nothing refers to the
    /// buffer, each read starts again at its front; a buffer too full for another read is
    /// set aside until nothing refers to it and then used again.
    private(set) var readBuffer: ReceiveBuffer
    /// Where the next read goes in `readBuffer`.
    private var readOffset = 0
    /// Buffers set aside, each reused once nothing else refers to it.
    private var spareReadBuffers: [ReceiveBuffer] = []
    static let readBufferSize = 256 * 1024
    /// A read is offered at least this much room; with less left, the next buffer is used.
    static let minimumReadSize = 64 * 1024
    /// Buffers set aside beyond this many are freed when the last reference goes.
    static let maximumSpareReadBuffers = 16
    static let maximumSpareOutgoing = 32
    /// A spare outgoing buffer's capacity at most: a larger one is freed when given back.
    static let maximumSpareOutgoingCapacity = 1 << 20
    /// Past this many bytes read in one iteration, what they caused is written before the
    /// next read (`handled(read:)`): a sixteenth of this CPU's 1 MiB L2, so that a read, the
    /// deliveries encoded from it and the kernel's copy of them stay in it.
    static let earlyFlushBytes = 64 << 10
    private var flushPrepare: UnsafeMutablePointer<uv_prepare_t>?
    private var flushCheck: UnsafeMutablePointer<uv_check_t>?
    // Read and changed at every flush, as `readSinceFlush` is, on the loop thread only
    // (`LoopBound`): the runtime's exclusivity checks on the three were most of those an app
    // made per round trip.
    /// Collects child exits while any child of this loop is running (see `ChildProcess`).
    var childReaper: ChildReaper?
    private var closed = false
    #if DEBUG
    /// The thread that last ran the loop (`run`, `runOnce`); 0 before it first ran. Read by
    /// other threads' checks, written only by the loop's own.
    var runningThread: UInt = 0
    #endif

    /// The bytes of this loop's read buffers still alive, with those the items read into them
    /// keep (`FrameDecoder` counts a frame gathered across reads here too).
    public let readBufferTally = BufferTally()

    public init() throws(UVError) {
        // A loop writes to peers that may die at any time: on this thread a write to a dead
        // one fails with UV_EPIPE instead of raising SIGPIPE; and SIGCHLD must reach libuv.
        System.blockBrokenPipesOnThisThread()
        System.unblockChildExitSignals()
        raw = .allocate(capacity: 1)
        let status = uv_loop_init(raw)
        if status < 0 {
            raw.deallocate()
            throw UVError(status)
        }
        readBuffer = ReceiveBuffer(capacity: Self.readBufferSize, tally: readBufferTally)
        super.init(EventLoopState())
        bind(to: self)
        raw.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        installFlushHooks()
    }

    deinit {
        raw.deallocate()
    }

    /// Room for the next read (libuv's alloc_cb).
    func readSpace() -> UnsafeMutableRawBufferPointer {
        if isKnownUniquelyReferenced(&readBuffer) {
            readOffset = 0
        } else if readBuffer.capacity - readOffset < Self.minimumReadSize {
            readBuffer = nextReadBuffer()
            readOffset = 0
        }
        return UnsafeMutableRawBufferPointer(start: readBuffer.base + readOffset, count: readBuffer.capacity - readOffset)
    }

    /// The `count` bytes a read put in the room `readSpace` offered; the room after them (at
    /// a 16-byte boundary) is offered next.
    func didRead(_ count: Int) -> ReceivedBytes {
        let bytes = ReceivedBytes(readBuffer, offset: readOffset, count: count)
        readOffset = min(readBuffer.capacity, (readOffset + count + 15) & ~15)
        return bytes
    }

    /// A buffer nothing refers to, the full one set aside in its place.
    private func nextReadBuffer() -> ReceiveBuffer {
        let full = readBuffer
        for i in spareReadBuffers.indices where isKnownUniquelyReferenced(&spareReadBuffers[i]) {
            let free = spareReadBuffers[i]
            spareReadBuffers[i] = full
            return free
        }
        if spareReadBuffers.count < Self.maximumSpareReadBuffers { spareReadBuffers.append(full) }
        return ReceiveBuffer(capacity: Self.readBufferSize, tally: readBufferTally)
    }

    /// An empty buffer to queue a pipe's bytes in, for a pipe that last queued `bytes`: the
    /// smallest one kept with room for them, else the largest kept, else a new one.
    ///
    /// (The last one given back was taken before: while a write waits for the socket, its
    /// buffer stays with it, and the pipe's next bytes took whichever buffer was on top, as
    /// often as not another pipe's small one, and grew it anew, copying, at every flush.)
    func takeOutgoingBuffer(forAbout bytes: Int) -> [UInt8] {
        guard !self.value.spareOutgoing.isEmpty else { return [] }
        var best = self.value.spareOutgoing.count - 1
        var bestCapacity = self.value.spareOutgoing[best].capacity
        for i in self.value.spareOutgoing.indices.dropLast() {
            let capacity = self.value.spareOutgoing[i].capacity
            if bestCapacity < bytes ? capacity > bestCapacity : capacity >= bytes && capacity < bestCapacity {
                best = i
                bestCapacity = capacity
            }
        }
        // (`remove(at:)`: at most `maximumSpareOutgoing` to move, and `swapAt` allocated.)
        return self.value.spareOutgoing.remove(at: best)
    }

    /// Takes a pipe's outgoing buffer, emptied, for the next pipe that queues bytes; leaves
    /// `buffer` empty, without storage.
    func giveBackOutgoingBuffer(_ buffer: inout [UInt8]) {
        var taken: [UInt8] = []
        swap(&taken, &buffer)
        guard self.value.spareOutgoing.count < Self.maximumSpareOutgoing, taken.capacity <= Self.maximumSpareOutgoingCapacity, taken.capacity > 0 else { return }
        taken.removeAll(keepingCapacity: true)
        self.value.spareOutgoing.append(taken)
    }

    /// Runs until no active, referenced handle is left, or `stop()`.
    public func run() {
        noteRunningThread()
        uv_run(raw, UV_RUN_DEFAULT)
    }

    /// Runs one iteration; waits for events only when `wait` is true.
    @discardableResult
    public func runOnce(wait: Bool = true) -> Bool {
        noteRunningThread()
        return uv_run(raw, wait ? UV_RUN_ONCE : UV_RUN_NOWAIT) != 0
    }

    public func stop() { uv_stop(raw) }

    /// Milliseconds on libuv's monotonic clock (cached per iteration).
    public var now: UInt64 { uv_now(raw) }

    /// Nanoseconds from an arbitrary point (not cached).
    public static func hrtime() -> UInt64 { uv_hrtime() }

    /// Closes the loop's own handles, runs until every close callback has fired, and closes the
    /// loop. Returns `uv_loop_close`'s status: 0 means nothing was left open.
    @discardableResult
    public func close() -> Int32 {
        guard !closed else { return 0 }
        closed = true
        // Every handle still open (a set-up that failed half-way, an owner that never closed
        // its own) is closed through its wrapper, which releases its retain and memory as on
        // any close: libuv's own `close_loop` pattern, so `uv_loop_close` can succeed.
        var open: [UnsafeMutablePointer<uv_handle_t>] = []
        withUnsafeMutablePointer(to: &open) { list in
            uv_walk(raw, { h, arg in
                arg!.assumingMemoryBound(to: [UnsafeMutablePointer<uv_handle_t>].self).pointee.append(h!)
            }, list)
        }
        let own = [flushPrepare.map(UnsafeMutableRawPointer.init), flushCheck.map(UnsafeMutableRawPointer.init)]
        for h in open where uv_is_closing(h) == 0 && !own.contains(UnsafeMutableRawPointer(h)) && h.pointee.data != nil {
            Unmanaged<Handle>.fromOpaque(h.pointee.data).takeUnretainedValue().close()
        }
        if let p = flushPrepare {
            uv_prepare_stop(p)
            uv_close(UnsafeMutableRawPointer(p).assumingMemoryBound(to: uv_handle_t.self)) { h in
                UnsafeMutableRawPointer(h!).assumingMemoryBound(to: uv_prepare_t.self).deallocate()
            }
        }
        if let c = flushCheck {
            uv_check_stop(c)
            uv_close(UnsafeMutableRawPointer(c).assumingMemoryBound(to: uv_handle_t.self)) { h in
                UnsafeMutableRawPointer(h!).assumingMemoryBound(to: uv_check_t.self).deallocate()
            }
        }
        flushPrepare = nil
        flushCheck = nil
        self.value.beforeFlushHooks.removeAll()
        uv_run(raw, UV_RUN_DEFAULT)
        return uv_loop_close(raw)
    }

    /// Number of handles still open on the loop (for tests and leak checks).
    public var openHandleCount: Int {
        var count = 0
        withUnsafeMutablePointer(to: &count) { c in
            uv_walk(raw, { _, arg in arg!.assumingMemoryBound(to: Int.self).pointee += 1 }, c)
        }
        return count - (flushPrepare == nil ? 0 : 2)
    }

    /// Flushes batched writes twice per iteration: before polling (for writes queued by timers
    /// and wakers' callbacks) and after (for writes queued while handling reads).
    /// (The loop is lent to its prepare and check callbacks, which it runs, without a retain.)
    private func installFlushHooks() {
        let prepare = UnsafeMutablePointer<uv_prepare_t>.allocate(capacity: 1)
        uv_prepare_init(raw, prepare)
        prepare.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        uv_prepare_start(prepare) { p in
            Unmanaged<EventLoop>.fromOpaque(p!.pointee.data)._withUnsafeGuaranteedRef { $0.flushPipes() }
        }
        uv_unref(UnsafeMutableRawPointer(prepare).assumingMemoryBound(to: uv_handle_t.self))
        let check = UnsafeMutablePointer<uv_check_t>.allocate(capacity: 1)
        uv_check_init(raw, check)
        check.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        uv_check_start(check) { c in
            Unmanaged<EventLoop>.fromOpaque(c!.pointee.data)._withUnsafeGuaranteedRef { $0.flushPipes() }
        }
        uv_unref(UnsafeMutableRawPointer(check).assumingMemoryBound(to: uv_handle_t.self))
        flushPrepare = prepare
        flushCheck = check
    }

    /// `hook` with `owner`, on the loop thread, before the next flush of batched writes once
    /// `arm` was called with the answer. Each flush runs the armed hooks once, in the order
    /// they were added, and disarms them; a hook armed while hooks run (by itself or by a
    /// later one) runs at the next flush.
    ///
    /// The owner keeps the answer, and only the owner: the hook lives as long as the owner
    /// does (the loop holds it weakly) and holds the owner without counting it (`unowned`).
    /// Neither a weak reference to the owner, whose first one gives an object a side table
    /// that every later retain and release of it goes through (an app's channel is retained
    /// at each read, so every round trip would pay it), nor a strong one, which would keep the
    /// owner as long as the loop.
    ///
    /// (Armed rather than run at every flush: a flush comes twice per loop iteration, and an
    /// app's hook read its owner through a weak reference each time, with nothing to do at
    /// either flush of a round trip.)
    public func addBeforeFlushHook<Owner: AnyObject>(_ owner: Owner, _ hook: @escaping (Owner) -> Void) -> FlushHook {
        // Hooks whose owners are gone go first: a loop may serve one channel after another.
        self.value.beforeFlushHooks.removeAll { $0.hook == nil }
        let added = FlushHook(owner) { hook(unsafeDowncast($0, to: Owner.self)) }
        added.bind(to: self)
        self.value.beforeFlushHooks.append(HeldHook(hook: added))
        return added
    }

    /// Hooks held, for tests.
    var flushHookCount: Int { self.value.beforeFlushHooks.count }

    /// `hook` runs at the next flush (once, however often it is armed before).
    @inline(__always)
    public func arm(_ hook: FlushHook) {
        guard !hook.value.armed else { return }
        hook.value.armed = true
        self.value.hooksArmed = true
    }

    /// After a read's bytes were handled: once an iteration has read `earlyFlushBytes`, the
    /// writes they caused leave now rather than at the iteration's end. With many peers ready
    /// at once (50 pairs), an iteration read megabytes before it wrote any, and by then the
    /// first reads' payloads and the buffers they were encoded into had left the CPU's L2
    /// cache (`scripts/bench-instructions --cache` counts the misses per item). The flush is the
    /// iteration's own: hooks first (the audit's commit), so no answer leaves before its audit
    /// line, as at the iteration's end.
    func handled(read count: Int) {
        self.value.readSinceFlush += count
        if self.value.readSinceFlush >= Self.earlyFlushBytes { flushPipes() }
    }

    func flushPipes() {
        self.value.readSinceFlush = 0
        if self.value.hooksArmed { runArmedHooks() }
        guard !self.value.pipesToFlush.isEmpty else { return }
        // One pipe, a round trip's: taken off the list, which stays with its storage (the
        // emptying below, `removeAll(keepingCapacity:)`, costs more than the one pipe's flush).
        // What its flush schedules waits in the list for the next flush.
        if self.value.pipesToFlush.count == 1 {
            let pipe = self.value.pipesToFlush.removeLast()
            pipe.flush()
            return
        }
        // Taken out whole and given back emptied: emptying the list in place while a copy of
        // it was being flushed made the list new storage at every flush (an allocation per
        // round trip on each side).
        var pipes: [Pipe] = []
        swap(&pipes, &self.value.pipesToFlush)
        // (Through a buffer pointer: a for-in's iterator holds the storage too, and in a debug
        // build it lives on to the emptying below, which then copied the storage.)
        pipes.withUnsafeBufferPointer { for pipe in $0 { pipe.flush() } }
        pipes.removeAll(keepingCapacity: true)
        if self.value.pipesToFlush.isEmpty { self.value.pipesToFlush = pipes }
    }
}

extension EventLoop {
    private func runArmedHooks() {
        self.value.hooksArmed = false
        // By index: a hook may add another (a channel made by an owner's work).
        var i = 0
        while i < self.value.beforeFlushHooks.count {
            let held = self.value.beforeFlushHooks[i].hook
            i += 1
            guard let hook = held, hook.value.armed else { continue }
            hook.value.armed = false
            // (Counted for the call: the hook may let its owner go.)
            let owner: AnyObject = hook.owner
            hook.run(owner)
        }
    }
}

/// `FlushHook`'s state on its loop's thread (`LoopBound`): its fields are read and
/// written through `value` (`FlushHook.value.field`), checked to be on the loop's thread in debug builds.
public struct FlushHookState {
    var armed: Bool = false
}

/// A hook an owner added to run before a loop's flush (`EventLoop.addBeforeFlushHook`): it
/// runs once after each `arm`, and lives as long as its owner keeps it. Read and changed on
/// the loop thread only.
public final class FlushHook: LoopBound<FlushHookState> {
    /// Not counted: the owner keeps this hook, so the owner outlives it.
    fileprivate unowned let owner: AnyObject
    fileprivate let run: (AnyObject) -> Void

    fileprivate init(_ owner: AnyObject, run: @escaping (AnyObject) -> Void) {
        self.owner = owner
        self.run = run
        super.init(FlushHookState())
    }
}

/// The loop's reference to a hook: weak, the owner's is the one that counts.
struct HeldHook {
    weak var hook: FlushHook?
}

/// The thread running a loop, for `LoopBound`'s check in debug builds (swift-nio's
/// `NIOLoopBound` asks its event loop the same).
extension EventLoop {
    /// Whether the caller may touch the loop's objects: it is on the thread running the loop,
    /// or the loop has not run yet (its objects are being set up).
    public var isCallerOnLoopThread: Bool {
        #if DEBUG
        let running = runningThread
        return running == 0 || running == Self.currentThread
        #else
        return true
        #endif
    }

    /// The caller's thread as a number (`pthread_self`).
    static var currentThread: UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }

    /// Called as the loop runs: from now on its objects belong to this thread.
    @inline(__always)
    func noteRunningThread() {
        #if DEBUG
        runningThread = Self.currentThread
        #endif
    }
}
