import Synchronization

/// Memory a connection's bytes are read into, freed when the last reference to it goes: an
/// item read from it refers to its payload where it lies instead of copying it out, and the
/// host forwards those bytes to the destination from there.
///
/// Whoever reads into a buffer fills it front to back and hands out only bytes already
/// filled, which are never written again: that is what makes sharing it across threads safe
/// (the compiler cannot see it, hence `@unchecked`).
///
/// Only the package's own readers (the loop, the frame decoder) make and fill buffers; apps
/// see the bytes through `ReceivedBytes.withUnsafeBytes`.
public final class ReceiveBuffer: @unchecked Sendable {
    package let base: UnsafeMutableRawPointer
    public let capacity: Int

    /// Counts this buffer's bytes while it lives (the host's read buffers: what the items
    /// lying in them pin, however many share one).
    let tally: BufferTally?

    package init(capacity: Int, tally: BufferTally? = nil) {
        precondition(capacity >= 0)
        base = .allocate(byteCount: max(capacity, 1), alignment: 16)
        self.capacity = capacity
        self.tally = tally
        tally?.live.add(max(capacity, 1), ordering: .relaxed)
    }

    deinit {
        tally?.live.subtract(max(capacity, 1), ordering: .relaxed)
        base.deallocate()
    }
}

/// The bytes of the `ReceiveBuffer`s made with it that are still alive: a buffer is freed
/// on whichever thread lets go of it last, hence atomic.
public final class BufferTally: Sendable {
    let live = Atomic<Int>(0)
    public init() {}
    public var bytes: Int { live.load(ordering: .relaxed) }
}

/// Bytes inside a `ReceiveBuffer`, which they keep alive.
public struct ReceivedBytes: Sendable {
    public let buffer: ReceiveBuffer
    public let offset: Int
    public let count: Int

    // Inlinable, as `slice` is: called across modules, each took the buffer retained for
    // the call and released it after (an item's payload is sliced per brokered share).
    @inlinable
    public init(_ buffer: ReceiveBuffer, offset: Int, count: Int) {
        precondition(offset >= 0 && count >= 0 && offset <= buffer.capacity - count, "bytes outside their buffer")
        self.buffer = buffer
        self.offset = offset
        self.count = count
    }

    /// `bytes` copied into a buffer of their own, `offset` bytes in, as a read would leave
    /// them (the template's warm-up, tests).
    package init(copying bytes: [UInt8], offset: Int = 0) {
        let buffer = ReceiveBuffer(capacity: offset + bytes.count)
        bytes.withUnsafeBytes { if let base = $0.baseAddress { (buffer.base + offset).copyMemory(from: base, byteCount: $0.count) } }
        self.init(buffer, offset: offset, count: bytes.count)
    }

    /// `count` bytes from `offset` inside these.
    @inlinable
    public func slice(offset: Int, count: Int) -> ReceivedBytes {
        precondition(offset >= 0 && count >= 0 && offset <= self.count - count, "a slice outside its bytes")
        return ReceivedBytes(buffer, offset: self.offset + offset, count: count)
    }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        // `self`, and so its buffer, is the caller's for the whole call (a borrowed argument):
        // `withExtendedLifetime(buffer)` added a retain and a release of the buffer to every
        // look at a payload, two per brokered item.
        try body(UnsafeRawBufferPointer(start: buffer.base + offset, count: count))
    }

    /// A copy of the bytes.
    public var array: [UInt8] { withUnsafeBytes { Array($0) } }
}
