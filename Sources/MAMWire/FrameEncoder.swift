internal import CMAMProto
internal import CProtobufC
internal import MAMModel
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Serialises frames with protobuf-c.
///
/// protobuf-c reads C strings and nested message pointers that must stay valid until `pack`
/// returns; `CArena` owns every such allocation for the duration of one encode.
public enum FrameEncoder {
    /// The serialized `mamsim.v2.Frame` without a length prefix.
    public static func encode(_ frame: Frame) -> [UInt8] {
        var out: [UInt8] = []
        encode(frame, appendingTo: &out, withLengthPrefix: false)
        return out
    }

    /// Appends `frame` to `buffer`, preceded by its 4-byte big-endian length when asked:
    /// several frames for one peer can be joined into a single write.
    public static func encode(_ frame: Frame, appendingTo buffer: inout [UInt8], withLengthPrefix: Bool = true) {
        if HotFrames.encode(frame, appendingTo: &buffer, withLengthPrefix: withLengthPrefix) { return }
        encodeWithProtobufC(frame, appendingTo: &buffer, withLengthPrefix: withLengthPrefix)
    }

    /// The frame of `seq`, `replyTo` and `body`, with its length prefix, as `encode` writes
    /// it: for a sender with the body at hand (a `Frame` made only to be written was a copy
    /// of the body and its destruction).
    public static func encode(seq: UInt64, replyTo: UInt64 = 0, body: Frame.Body, appendingTo buffer: inout [UInt8]) {
        if HotFrames.encode(seq: seq, replyTo: replyTo, body: body, appendingTo: &buffer, withLengthPrefix: true) { return }
        encodeWithProtobufC(Frame(seq: seq, replyTo: replyTo, body: body), appendingTo: &buffer)
    }

    /// `encode(seq:replyTo:body:appendingTo:)` for a message a child sends (`ChildMessage`).
    @_disfavoredOverload
    public static func encode(seq: UInt64, replyTo: UInt64 = 0, body: ChildMessage, appendingTo buffer: inout [UInt8]) {
        if HotFrames.encode(seq: seq, replyTo: replyTo, body: body, appendingTo: &buffer, withLengthPrefix: true) { return }
        encodeWithProtobufC(Frame(seq: seq, replyTo: replyTo, body: Frame.Body(body)), appendingTo: &buffer)
    }

    /// `encode(seq:replyTo:body:appendingTo:)` for a message the host sends (`HostMessage`).
    @_disfavoredOverload
    public static func encode(seq: UInt64, replyTo: UInt64 = 0, body: HostMessage, appendingTo buffer: inout [UInt8]) {
        if HotFrames.encode(seq: seq, replyTo: replyTo, body: body, appendingTo: &buffer, withLengthPrefix: true) { return }
        encodeWithProtobufC(Frame(seq: seq, replyTo: replyTo, body: Frame.Body(body)), appendingTo: &buffer)
    }

    /// A `shareBatch` frame numbered `seq` holding `shares`, with its length prefix: the bytes
    /// `encode` writes for the frame, without an array made of the slice first.
    public static func encodeShareBatch(seq: UInt64, _ shares: ArraySlice<BatchedShare>, appendingTo buffer: inout [UInt8]) {
        HotFrames.encodeShareBatch(seq: seq, shares, appendingTo: &buffer)
    }

    /// protobuf-c's bytes for `frame`, even for a frame `HotFrames` writes itself (tests
    /// compare the two).
    public static func encodeWithProtobufC(_ frame: Frame, appendingTo buffer: inout [UInt8], withLengthPrefix: Bool = true) {
        let arena = CArena()
        defer { arena.freeAll() }
        let message = WireCodec.encodeFrame(frame, arena)
        let size = message.withMemoryRebound(to: ProtobufCMessage.self, capacity: 1) { protobuf_c_message_get_packed_size($0) }
        if withLengthPrefix { appendFrameHeader(length: size, to: &buffer) }
        guard size > 0 else { return }
        buffer.append(count: size) { start in
            let packed = message.withMemoryRebound(to: ProtobufCMessage.self, capacity: 1) { protobuf_c_message_pack($0, start) }
            precondition(packed == size, "protobuf-c packed another size than it measured")
        }
    }
}

/// Every C allocation made while building one message, freed together after `pack`.
final class CArena {
    /// One block serves the whole message in the common case: a frame's strings, messages and
    /// a small payload fit, so an encode costs one allocation instead of one per field. A
    /// message that outgrows it (a batch of deliveries) gets blocks twice as large each time,
    /// so sixteen 1 KiB payloads cost three allocations, not sixteen.
    private static let blockSize = 4096
    private var block: UnsafeMutableRawPointer?
    private var capacity = 0
    private var used = 0
    /// Blocks filled before `block`, freed with it.
    private var filled: [UnsafeMutableRawPointer] = []

    init() {}

    /// `count` bytes aligned for any C type, valid until `freeAll`.
    private func allocate(_ count: Int) -> UnsafeMutableRawPointer {
        let start = (used + 15) & ~15
        if let block, count <= capacity - start {
            used = start + count
            return block + start
        }
        if let block { filled.append(block) }
        capacity = max(capacity * 2, Self.blockSize, count)
        let fresh = malloc(capacity)!
        block = fresh
        used = count
        return fresh
    }

    func string(_ s: String) -> UnsafeMutablePointer<CChar> {
        var s = s
        return s.withUTF8 { utf8 in
            let p = allocate(utf8.count + 1).assumingMemoryBound(to: CChar.self)
            if let base = utf8.baseAddress {
                UnsafeMutableRawPointer(p).copyMemory(from: base, byteCount: utf8.count)
            }
            p[utf8.count] = 0
            return p
        }
    }

    func bytes(_ b: [UInt8]) -> ProtobufCBinaryData {
        guard !b.isEmpty else { return ProtobufCBinaryData(len: 0, data: nil) }
        let p = allocate(b.count).assumingMemoryBound(to: UInt8.self)
        b.withUnsafeBufferPointer { p.update(from: $0.baseAddress!, count: b.count) }
        return ProtobufCBinaryData(len: b.count, data: p)
    }

    func message<T>(_: T.Type, _ initialise: (UnsafeMutablePointer<T>?) -> Void) -> UnsafeMutablePointer<T> {
        let p = allocate(MemoryLayout<T>.stride).bindMemory(to: T.self, capacity: 1)
        initialise(p)
        return p
    }

    func pointerArray<T>(_: T.Type, count: Int) -> UnsafeMutablePointer<UnsafeMutablePointer<T>?>? {
        guard count > 0 else { return nil }
        return allocate(MemoryLayout<UnsafeMutablePointer<T>?>.stride * count)
            .bindMemory(to: UnsafeMutablePointer<T>?.self, capacity: count)
    }

    /// An array of message pointers, each made by `make`.
    func pointerArray<E, T>(_ elements: [E], _ make: (E) -> UnsafeMutablePointer<T>) -> UnsafeMutablePointer<UnsafeMutablePointer<T>?>? {
        guard let list = pointerArray(T.self, count: elements.count) else { return nil }
        for (i, e) in elements.enumerated() { list[i] = make(e) }
        return list
    }

    func array(_ values: [UInt64]) -> UnsafeMutablePointer<UInt64>? {
        guard !values.isEmpty else { return nil }
        let p = allocate(MemoryLayout<UInt64>.stride * values.count).bindMemory(to: UInt64.self, capacity: values.count)
        for (i, v) in values.enumerated() { p[i] = v }
        return p
    }

    func stringArray(_ strings: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        guard let list = pointerArray(CChar.self, count: strings.count) else { return nil }
        for (i, s) in strings.enumerated() { list[i] = string(s) }
        return list
    }

    func freeAll() {
        free(block)
        block = nil
        capacity = 0
        used = 0
        for p in filled { free(p) }
        filled.removeAll()
    }
}
