internal import CLibUV
public import MAMModel
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A libuv pipe (a UNIX socketpair end in practice): reads, and writes batched per iteration.
///
/// `enqueue` appends bytes to the pipe's outgoing buffer; the loop flushes it with a single
/// `uv_write` before its next poll (or sooner, once an iteration has read enough:
/// `EventLoop.handled(read:)`), so many small frames to one peer cost one syscall. The
/// buffer is the loop's, lent while bytes wait in it.
/// The bytes of a write that waits for the socket stay in the buffer they were queued in until
/// its callback, as libuv requires (it does not copy).
public final class Pipe: Handle {
    private var onRead: ((UnsafeRawBufferPointer) -> Void)?
    private var onReceive: ((ReceivedBytes) -> Void)?
    private var onEnd: ((UVError?) -> Void)?
    // Loop-thread only (LoopOwner), appended to for every frame and set at every flush: the
    // runtime's exclusivity check on each append was measurable on the share path.
    @exclusivity(unchecked) private var outgoing: [UInt8] = []
    @exclusivity(unchecked) private var flushScheduled = false
    /// How many bytes the last flush wrote (`EventLoop.takeOutgoingBuffer`).
    @exclusivity(unchecked) private var lastFlushedBytes = 0
    private var reportedEnd = false
    /// Writes handed to libuv and not yet completed (back-pressure indicator). Counted at
    /// every write that waits for the socket, on the loop thread only, without the runtime's
    /// exclusivity check.
    @exclusivity(unchecked) public private(set) var pendingWrites = 0

    public init(loop: EventLoop) throws(UVError) {
        super.init(loop: loop, type: UV_NAMED_PIPE)
        let status = uv_pipe_init(loop.raw, pipePointer, 0)
        if status < 0 { discard(); throw UVError(status) }
        adopt()
    }

    var pipePointer: UnsafeMutablePointer<uv_pipe_t> {
        UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_pipe_t.self)
    }

    var streamPointer: UnsafeMutablePointer<uv_stream_t> {
        UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_stream_t.self)
    }

    /// Opens an inherited descriptor (a child's fd 3). libuv's `uv_pipe_open` accepts closed
    /// descriptors and regular files, and the loop would abort later; check the kind first.
    public func open(fd: Int32) throws(PipeOpenError) {
        let kind = uv_guess_handle(fd)
        guard kind == UV_NAMED_PIPE else { throw PipeOpenError.notAPipe(fd: fd) }
        let status = uv_pipe_open(pipePointer, fd)
        if status < 0 { throw PipeOpenError.failed(fd: fd, UVError(status)) }
    }

    /// Starts reading. `onRead` gets each chunk (valid only during the call); `onEnd` is called
    /// once when the peer closes (`nil`) or on an error.
    public func startReading(onRead: @escaping (UnsafeRawBufferPointer) -> Void, onEnd: @escaping (UVError?) -> Void) throws(UVError) {
        self.onRead = onRead
        try startReading(onEnd: onEnd)
    }

    /// Starts reading; `onReceive` gets each chunk inside the buffer it was read into, which
    /// whoever keeps the bytes keeps alive (the loop never reads over them).
    public func startReading(onReceive: @escaping (ReceivedBytes) -> Void, onEnd: @escaping (UVError?) -> Void) throws(UVError) {
        self.onReceive = onReceive
        try startReading(onEnd: onEnd)
    }

    private func startReading(onEnd: @escaping (UVError?) -> Void) throws(UVError) {
        self.onEnd = onEnd
        // The loop and the pipe are lent to these callbacks, not retained: the loop runs them,
        // and an open pipe holds itself (`Handle.adopt`).
        try UVError.check(uv_read_start(streamPointer, { h, _, buf in
            let room = Unmanaged<EventLoop>.fromOpaque(h!.pointee.loop.pointee.data)._withUnsafeGuaranteedRef { $0.readSpace() }
            buf!.pointee = uv_buf_init(room.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(room.count))
        }, { stream, nread, buf in
            Handle.withWrapper(UnsafeMutableRawPointer(stream), as: Pipe.self) { pipe in
                if nread > 0 {
                    let loop = pipe.loop
                    if let onReceive = pipe.onReceive {
                        onReceive(loop.didRead(nread))
                    } else {
                        pipe.onRead?(UnsafeRawBufferPointer(start: buf!.pointee.base, count: nread))
                    }
                    loop.handled(read: nread)
                } else if nread < 0 {
                    pipe.stopReading()
                    let error = UVError(Int32(nread))
                    pipe.reportEnd(error.code == UV_EOF.rawValue ? nil : error)
                }
                // nread == 0 is EAGAIN: not an error, nothing to do.
            }
        }))
    }

    public func stopReading() {
        guard state == .open else { return }
        uv_read_stop(streamPointer)
    }

    private func reportEnd(_ error: UVError?) {
        // Writes cancelled by our own close come back with ECANCELED: not news to the owner,
        // who may already have let go of whatever `onEnd` refers to.
        guard !reportedEnd, state == .open else { return }
        reportedEnd = true
        onEnd?(error)
    }

    /// Bytes written to this pipe that the peer has not taken yet: queued for the next flush
    /// plus what libuv still holds. A peer that does not read makes it grow.
    public var backlogByteCount: Int {
        guard state == .open else { return 0 }
        return outgoing.count + Int(uv_stream_get_write_queue_size(streamPointer))
    }

    /// Calls `onExceeded` (once, with the backlog) when bytes are queued while more than
    /// `limit` wait for the peer: a peer that does not read cannot grow this process's memory
    /// without bound. Checked where bytes are queued, so only pipes written to pay for it.
    public func limitBacklog(to limit: Int, _ onExceeded: @escaping (Int) -> Void) {
        backlogLimit = limit
        onBacklogExceeded = onExceeded
    }

    private var backlogLimit = Int.max
    private var onBacklogExceeded: ((Int) -> Void)?

    /// Queues bytes for the next flush of this loop iteration.
    public func enqueue(_ bytes: [UInt8]) {
        enqueue { $0.append(contentsOf: bytes) }
    }

    /// Lets a caller encode directly into the outgoing buffer (no intermediate array).
    public func enqueue(_ build: (inout [UInt8]) -> Void) {
        guard state == .open, !reportedEnd else { return }
        if outgoing.capacity == 0 {
            outgoing = loop.takeOutgoingBuffer(forAbout: lastFlushedBytes)
            // Room for as much as last time at once: grown by doubling from a smaller buffer,
            // it copied what it held at each step (the host's deliveries to a busy app, whose
            // buffer is away with a waiting write, paid that copy on every brokered item).
            if outgoing.capacity < lastFlushedBytes { outgoing.reserveCapacity(lastFlushedBytes) }
        }
        build(&outgoing)
        scheduleFlush()
        checkBacklog()
    }

    private func checkBacklog() {
        // The count first: reading the callback retains and releases it, for every frame.
        guard backlogByteCount > backlogLimit, let report = onBacklogExceeded else { return }
        // Once: the callback may queue a last frame (an error) on this pipe.
        onBacklogExceeded = nil
        report(backlogByteCount)
    }

    private func scheduleFlush() {
        if !flushScheduled && !outgoing.isEmpty {
            flushScheduled = true
            loop.value.pipesToFlush.append(self)
        }
    }

    /// Writes everything queued now: what the socket takes at once straight from the queue
    /// (`uv_try_write`, no copy), the rest in one `uv_write`. Errors that mean the peer went
    /// away end the pipe (reported once through `onEnd`).
    ///
    /// While that write waits for the socket, what is queued stays queued: libuv refuses a
    /// direct write behind a waiting one, so each flush then copied all it had into a write
    /// request of its own (with one frame per item, the host's instructions per brokered item
    /// fell from 18.7 k to 18.0 k without those copies). The waiting write's completion
    /// flushes what waited, in one direct write again.
    public func flush() {
        flushScheduled = false
        guard state == .open, !outgoing.isEmpty else {
            loop.giveBackOutgoingBuffer(&outgoing)
            return
        }
        guard pendingWrites == 0 else { return }
        lastFlushedBytes = outgoing.count
        var written = 0
        let result = outgoing.withUnsafeMutableBytes { raw in
            var buffer = uv_buf_init(raw.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(raw.count))
            return uv_try_write(streamPointer, &buffer, 1)
        }
        if result >= 0 {
            written = Int(result)
        } else if result != UV_EAGAIN.rawValue {
            loop.giveBackOutgoingBuffer(&outgoing)
            return reportEnd(UVError(result))
        }
        let count = outgoing.count - written
        guard count > 0 else {
            loop.giveBackOutgoingBuffer(&outgoing)
            return
        }
        // The rest is written from where it lies: the queue's storage is kept, untouched,
        // until the write completes, and the next bytes queue in another buffer. (Copied into
        // an allocation of its own, the rest was a sending app's largest copy after its
        // payloads': the socket is often full when the host is the slower side.)
        let request = writeRequest ?? {
            let made = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)
            writeRequest = made
            return made
        }()
        swap(&writing, &outgoing)
        // (The array's storage is one heap object, which moves only when the array is changed
        // or let go; `writing` is neither until the callback.)
        var buffer = writing.withUnsafeMutableBytes { raw in
            uv_buf_init((raw.baseAddress! + written).assumingMemoryBound(to: CChar.self), UInt32(count))
        }
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        pendingWrites += 1
        let status = uv_write(request, streamPointer, &buffer, 1) { req, status in
            let me = Unmanaged<Pipe>.fromOpaque(req!.pointee.data)
            let pipe = me.takeUnretainedValue()
            pipe.pendingWrites -= 1
            pipe.loop.giveBackOutgoingBuffer(&pipe.writing)
            if status < 0 {
                pipe.reportEnd(UVError(status))
            } else {
                // What was queued behind it leaves with this iteration's flush.
                pipe.scheduleFlush()
            }
            me.release()
        }
        if status < 0 {
            pendingWrites -= 1
            Unmanaged.passUnretained(self).release()
            loop.giveBackOutgoingBuffer(&writing)
            reportEnd(UVError(status))
        }
    }

    /// The bytes of the write libuv holds (`pendingWrites`), from the queue they were in.
    @exclusivity(unchecked) private var writing: [UInt8] = []
    /// The request of that write, made at the first write that waits and reused: there is at
    /// most one at a time. Freed with the pipe, which a waiting write keeps alive.
    @exclusivity(unchecked) private var writeRequest: UnsafeMutablePointer<uv_write_t>?

    deinit { writeRequest?.deallocate() }

    override func willClose() {
        if state == .open { uv_read_stop(streamPointer) }
        outgoing = []
    }

    override func didClose() {
        onRead = nil
        onReceive = nil
        onEnd = nil
        onBacklogExceeded = nil
    }
}

/// Why an inherited descriptor could not be used as the host channel.
public enum PipeOpenError: Error, Sendable, CustomStringConvertible {
    case notAPipe(fd: Int32)
    case failed(fd: Int32, UVError)

    public var description: String {
        switch self {
        case .notAPipe(let fd):
            "fd \(fd) is not a pipe: this program must be started by a mamsim host, which passes its channel on fd \(fd)"
        case .failed(let fd, let e):
            "cannot open fd \(fd) as a pipe: \(e)"
        }
    }
}
