public import MAMModel

/// Splits a byte stream into length-prefixed frames (4-byte big-endian length, then payload).
///
/// An explicit state machine fed with whatever a read returned: partial headers, partial
/// payloads and many frames per chunk all work. The announced length is checked against
/// `maximumFrameSize` before any payload buffer is allocated, so a hostile peer cannot make
/// the host allocate more than the limit.
public struct FrameDecoder: Sendable {
    public static let defaultMaximumFrameSize: UInt32 = 16 << 20

    enum State: Sendable {
        case waitingForHeader
        case waitingForPayload(length: Int)
        /// After an oversize header the stream cannot be resynchronised.
        case failed(WireError)
    }

    public let maximumFrameSize: UInt32
    private var state: State = .waitingForHeader
    private var header: [UInt8] = []
    /// A frame arriving over several reads, gathered in a buffer of its own (its size was
    /// checked against the limit first), and how much of it has arrived.
    private var partial: ReceiveBuffer?
    /// Where a frame gathered across reads counts its buffer (the host's read buffers).
    public var tally: BufferTally?
    private var partialCount = 0

    public init(maximumFrameSize: UInt32 = FrameDecoder.defaultMaximumFrameSize) {
        self.maximumFrameSize = maximumFrameSize
        header.reserveCapacity(4)
    }

    /// Bytes held in a frame not yet complete (0 at a frame boundary).
    public var bufferedByteCount: Int { header.count + partialCount }

    /// Feeds bytes; calls `onFrame` for each complete payload, in order, as bytes valid only
    /// during the call: a payload that arrived whole in `bytes` is passed in place, without a
    /// copy. Throws `WireError.frameTooLarge` once, and again on every later call.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, onFrameBytes onFrame: (UnsafeRawBufferPointer) throws -> Void) throws {
        try feed(bytes, in: nil) { frame, _ in try onFrame(frame) }
    }

    /// Feeds bytes read into a buffer that stays alive; calls `onFrame` for each complete
    /// payload as bytes that keep their buffer alive too: a payload that arrived whole is
    /// passed where it lies, one gathered from several reads in the buffer it was gathered in.
    public mutating func feed(_ received: ReceivedBytes, onFrame: (ReceivedBytes) throws -> Void) throws {
        try received.withUnsafeBytes { bytes in
            try feed(bytes, in: received) { _, frame in try onFrame(frame!) }
        }
    }

    /// `received`: the same bytes inside their buffer, if they are in one; each frame is
    /// passed to `onFrame` in memory and, when `received` is given, inside its buffer.
    private mutating func feed(_ bytes: UnsafeRawBufferPointer, in received: ReceivedBytes?,
                               onFrame: (UnsafeRawBufferPointer, ReceivedBytes?) throws -> Void) throws {
        var index = 0
        let count = bytes.count
        while index < count {
            switch state {
            case .failed(let error):
                throw error
            case .waitingForHeader:
                if header.isEmpty && count - index >= 4 {
                    // Fast path: the whole header is in this chunk.
                    let length = UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16
                        | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
                    index += 4
                    try startPayload(length)
                } else {
                    header.append(bytes[index])
                    index += 1
                    if header.count == 4 {
                        let length = UInt32(header[0]) << 24 | UInt32(header[1]) << 16
                            | UInt32(header[2]) << 8 | UInt32(header[3])
                        header.removeAll(keepingCapacity: true)
                        try startPayload(length)
                    }
                }
                if case .waitingForPayload(0) = state {
                    state = .waitingForHeader
                    try onFrame(UnsafeRawBufferPointer(start: nil, count: 0), received.map { $0.slice(offset: index, count: 0) })
                }
            case .waitingForPayload(let length):
                let take = min(length - partialCount, count - index)
                if partial == nil && take == length {
                    // Fast path: the whole payload is in this chunk; no copy.
                    let frame = UnsafeRawBufferPointer(rebasing: bytes[index..<index + take])
                    let inBuffer = received.map { $0.slice(offset: index, count: take) }
                    index += take
                    state = .waitingForHeader
                    try onFrame(frame, inBuffer)
                } else {
                    let gathering = partial ?? ReceiveBuffer(capacity: length, tally: tally)
                    partial = gathering
                    (gathering.base + partialCount).copyMemory(from: bytes.baseAddress! + index, byteCount: take)
                    partialCount += take
                    index += take
                    if partialCount == length {
                        state = .waitingForHeader
                        // Taken out first: `onFrame` may throw, and the next frame starts empty.
                        partial = nil
                        partialCount = 0
                        let frame = ReceivedBytes(gathering, offset: 0, count: length)
                        try frame.withUnsafeBytes { try onFrame($0, frame) }
                    }
                }
            }
        }
        if case .failed(let error) = state { throw error }
    }

    /// Feeds bytes; calls `onFrame` for each complete payload, in order, as an array of its own.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, onFrame: ([UInt8]) throws -> Void) throws {
        try feed(bytes, onFrameBytes: { try onFrame([UInt8]($0)) })
    }

    public mutating func feed(_ bytes: [UInt8], onFrame: ([UInt8]) throws -> Void) throws {
        try bytes.withUnsafeBytes { try feed($0, onFrame: onFrame) }
    }

    /// Call when the stream ended: throws `truncated` if a frame was cut short.
    public func finish() throws {
        switch state {
        case .waitingForHeader:
            if !header.isEmpty { throw WireError.truncated(missing: 4 - header.count) }
        case .waitingForPayload(let length):
            throw WireError.truncated(missing: length - partialCount)
        case .failed(let error):
            throw error
        }
    }

    private mutating func startPayload(_ length: UInt32) throws {
        guard length <= maximumFrameSize else {
            let error = WireError.frameTooLarge(length: length, maximum: maximumFrameSize)
            state = .failed(error)
            throw error
        }
        state = .waitingForPayload(length: Int(length))
    }
}

/// Appends the 4-byte big-endian length prefix for a payload of `length` bytes.
@inlinable
public func appendFrameHeader(length: Int, to buffer: inout [UInt8]) {
    let n = UInt32(truncatingIfNeeded: length)
    buffer.append(UInt8(truncatingIfNeeded: n >> 24))
    buffer.append(UInt8(truncatingIfNeeded: n >> 16))
    buffer.append(UInt8(truncatingIfNeeded: n >> 8))
    buffer.append(UInt8(truncatingIfNeeded: n))
}
