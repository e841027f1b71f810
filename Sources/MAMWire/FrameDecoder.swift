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
    private var payload: [UInt8] = []

    public init(maximumFrameSize: UInt32 = FrameDecoder.defaultMaximumFrameSize) {
        self.maximumFrameSize = maximumFrameSize
        header.reserveCapacity(4)
    }

    /// Bytes held in a frame not yet complete (0 at a frame boundary).
    public var bufferedByteCount: Int { header.count + payload.count }

    /// Feeds bytes; calls `onFrame` for each complete payload, in order, as bytes valid only
    /// during the call: a payload that arrived whole in `bytes` is passed in place, without a
    /// copy. Throws `WireError.frameTooLarge` once, and again on every later call.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, onFrameBytes onFrame: (UnsafeRawBufferPointer) throws -> Void) throws {
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
                    try onFrame(UnsafeRawBufferPointer(start: nil, count: 0))
                }
            case .waitingForPayload(let length):
                let take = min(length - payload.count, count - index)
                if payload.isEmpty && take == length {
                    // Fast path: the whole payload is in this chunk; no copy.
                    let frame = UnsafeRawBufferPointer(rebasing: bytes[index..<index + take])
                    index += take
                    state = .waitingForHeader
                    try onFrame(frame)
                } else {
                    if payload.isEmpty { payload.reserveCapacity(length) }
                    payload.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<index + take]))
                    index += take
                    if payload.count == length {
                        state = .waitingForHeader
                        // Taken out first: `onFrame` may throw, and the next frame starts empty.
                        let frame = payload
                        payload = []
                        try frame.withUnsafeBytes { try onFrame($0) }
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
            throw WireError.truncated(missing: length - payload.count)
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
