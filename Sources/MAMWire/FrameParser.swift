internal import CMAMProto
internal import CProtobufC
public import MAMModel
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Turns the payload of one frame into a `Frame`, or a typed `WireError`.
///
/// protobuf-c's `unpack` allocates every message, string and bytes field; here it allocates
/// them from one arena for the frame (on the stack when the frame is small, so a share costs no
/// malloc until its Swift values are made). Everything is copied into Swift values and the C
/// message is released before this function returns, so no C memory outlives it.
/// What a frame must satisfy is generated from the .proto (`WireCodec.decodeFrame`): every enum
/// holds a value the contract defines, every required field and `oneof` is set, and a body comes
/// from the side allowed to send it (the host reads a child's bytes into `ChildFrame`, a child
/// the host's into `HostFrame`, types without the other side's bodies); a peer that sends
/// anything else gets a `WireError` naming the field.
public enum FrameParser {
    /// Any body, from either side: for tools and tests (the host and the apps read typed frames).
    public static func parse(_ payload: [UInt8]) throws(WireError) -> Frame {
        try payload.withUnsafeBytes { bytes in Result { () throws(WireError) in try parse(bytes) } }.get()
    }

    /// Parses a payload in place (a read buffer's bytes, valid during the call). `strings`:
    /// the connection's pool of strings its frames repeat, reused instead of made again.
    public static func parse(_ payload: UnsafeRawBufferPointer, strings: StringPool? = nil) throws(WireError) -> Frame {
        var frame = Frame(body: .launchFinished)
        try parse(payload, strings: strings, into: &frame)
        return frame
    }

    /// As above, into a frame the caller holds (whatever it held is replaced): where frames
    /// come one after another, a frame returned was one more copy of its body, and one more
    /// destruction.
    public static func parse(_ payload: UnsafeRawBufferPointer, strings: StringPool? = nil, into frame: inout Frame) throws(WireError) {
        let bytes = payload.bindMemory(to: UInt8.self)
        try FieldBudget.check(bytes)
        if HotFrames.decode(bytes, pool: strings, into: &frame) { return }
        frame = try unpack(bytes)
    }

    /// Parses a payload that stays where it was read: a share's item refers to its bytes
    /// there instead of copying them (the host forwards them to the destination from there).
    /// Frames protobuf-c reads are copied as always.
    public static func parse(_ payload: ReceivedBytes, strings: StringPool? = nil) throws(WireError) -> Frame {
        var frame = Frame(body: .launchFinished)
        try parse(payload, strings: strings, into: &frame)
        return frame
    }

    /// As above, into a frame the caller holds (whatever it held is replaced).
    public static func parse(_ payload: ReceivedBytes, strings: StringPool? = nil, into frame: inout Frame) throws(WireError) {
        try payload.withUnsafeBytes { raw in
            Result { () throws(WireError) in
                let bytes = raw.bindMemory(to: UInt8.self)
                try FieldBudget.check(bytes)
                if HotFrames.decode(bytes, pool: strings, received: payload, into: &frame) { return }
                frame = try unpack(bytes)
            }
        }.get()
    }

    /// A frame a child sent, read into the host's type of what children send (`ChildFrame`):
    /// whatever the host does with it, it never meets a body only the host sends, which the
    /// decoder refuses here, naming it (`WireError.wrongSender`).
    public static func parse(_ payload: ReceivedBytes, strings: StringPool? = nil, into frame: inout ChildFrame) throws(WireError) {
        try parseSent(payload, strings: strings, into: &frame)
    }

    /// A frame the host sent, read into a child's type of what the host sends (`HostFrame`).
    public static func parse(_ payload: ReceivedBytes, strings: StringPool? = nil, into frame: inout HostFrame) throws(WireError) {
        try parseSent(payload, strings: strings, into: &frame)
    }

    /// A frame the host sent, parsed in place from a read buffer's bytes (valid during the call).
    public static func parse(_ payload: UnsafeRawBufferPointer, strings: StringPool? = nil, into frame: inout HostFrame) throws(WireError) {
        try parseSent(payload.bindMemory(to: UInt8.self), strings: strings, received: nil, into: &frame)
    }

    /// A frame a child sent, parsed in place from a read buffer's bytes (valid during the call).
    public static func parse(_ payload: UnsafeRawBufferPointer, strings: StringPool? = nil, into frame: inout ChildFrame) throws(WireError) {
        try parseSent(payload.bindMemory(to: UInt8.self), strings: strings, received: nil, into: &frame)
    }

    @inline(__always)
    private static func parseSent<F: SentFrame>(_ payload: ReceivedBytes, strings: StringPool?, into frame: inout F) throws(WireError) {
        try payload.withUnsafeBytes { raw in
            Result { () throws(WireError) in
                try parseSent(raw.bindMemory(to: UInt8.self), strings: strings, received: payload, into: &frame)
            }
        }.get()
    }

    /// The one-pass reading, or protobuf-c's made into `F`: a body the other side alone sends
    /// has no case there, and is refused naming it.
    @inline(__always)
    private static func parseSent<F: SentFrame>(_ bytes: UnsafeBufferPointer<UInt8>, strings: StringPool?, received: ReceivedBytes?,
                                                into frame: inout F) throws(WireError) {
        try FieldBudget.check(bytes)
        if F.decode(bytes, pool: strings, received: received, into: &frame) { return }
        let decoded = try unpack(bytes)
        guard let typed = F(decoded) else { throw .wrongSender(body: decoded.body.name, only: F.sender == .child ? .host : .child) }
        frame = typed
    }

    /// What protobuf-c makes of a payload, even for a frame `HotFrames` reads itself (tests
    /// compare the two).
    public static func parseWithProtobufC(_ payload: UnsafeRawBufferPointer) throws(WireError) -> Frame {
        let bytes = payload.bindMemory(to: UInt8.self)
        try FieldBudget.check(bytes)
        return try unpack(bytes)
    }

    /// Frames that are not hot: read with protobuf-c.
    private static func unpack(_ bytes: UnsafeBufferPointer<UInt8>) throws(WireError) -> Frame {
        try FieldBudget.checkStrings(bytes)
        let payload = UnsafeRawBufferPointer(bytes)
        // protobuf-c needs a few hundred bytes of structures besides the frame's own strings
        // and bytes, which it copies.
        let arenaSize = min(payload.count * 2 + 1024, UnpackArena.largest)
        return try withUnsafeTemporaryAllocation(byteCount: arenaSize, alignment: 16) { (block) throws(WireError) -> Frame in
            var arena = UnpackArena(block)
            return try withUnsafeMutablePointer(to: &arena) { (arena) throws(WireError) -> Frame in
                var allocator = ProtobufCAllocator(alloc: UnpackArena.allocate, free: UnpackArena.release, allocator_data: arena)
                guard let message = mamsim__v2__frame__unpack(&allocator, bytes.count, bytes.baseAddress) else {
                    throw .malformed(length: payload.count)
                }
                defer { mamsim__v2__frame__free_unpacked(message, &allocator) }
                return try WireCodec.decodeFrame(message.pointee, { "" })
            }
        }
    }
}

/// A frame typed by the side that sends it (`ChildFrame`, `HostFrame`): what `FrameParser`
/// reads them with.
protocol SentFrame {
    /// The side that sends it.
    static var sender: WireParty { get }
    /// `frame` when this side may send its body, else `nil`.
    init?(_ frame: Frame)
    /// The one-pass reading of it (`HotFrames.decode`), `false` when protobuf-c must decide.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, pool: StringPool?, received: ReceivedBytes?, into frame: inout Self) -> Bool
}

// The field readers the generated decoder (Generated/Wire.swift) is written with.
extension WireCodec {
    /// The path of field `name` inside the message at `path`, for errors ("share_request.item").
    @inline(never)
    static func sub(_ path: () -> String, _ name: String) -> String {
        let parent = path()
        return parent.isEmpty ? name : parent + "." + name
    }

    @inline(__always)
    static func str(_ p: UnsafeMutablePointer<CChar>?) -> String {
        guard let p else { return "" }
        return String(cString: p)
    }

    static func bytes(_ b: ProtobufCBinaryData) -> [UInt8] {
        b.len == 0 ? [] : Array(UnsafeBufferPointer(start: b.data, count: b.len))
    }

    static func strings(_ list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ n: Int) -> [String] {
        guard let list, n > 0 else { return [] }
        return (0..<n).map { str(list[$0]) }
    }

    static func scalars<T>(_ list: UnsafeMutablePointer<T>?, _ n: Int) -> [T] {
        guard let list, n > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: list, count: n))
    }

    /// The `n` elements of a repeated message field, each made by `make`; a missing list or
    /// element is a missing field.
    static func messages<C, T>(
        _ list: UnsafeMutablePointer<UnsafeMutablePointer<C>?>?, _ n: Int, _ path: () -> String,
        _ make: (UnsafeMutablePointer<C>) throws(WireError) -> T
    ) throws(WireError) -> [T] {
        guard n > 0 else { return [] }
        guard let list else { throw .missingField(path()) }
        var elements: [T] = []
        elements.reserveCapacity(n)
        for i in 0..<n {
            guard let e = list[i] else { throw .missingField(path()) }
            elements.append(try make(e))
        }
        return elements
    }
}

/// Where protobuf-c unpacks one frame: allocations are carved from one block in order and
/// freed all at once with it; what does not fit is malloc'd and freed one by one, as
/// protobuf-c does by itself.
struct UnpackArena {
    /// The largest block asked for: bigger frames take their large fields from malloc.
    static let largest = 64 << 10

    let base: UnsafeMutableRawPointer
    let capacity: Int
    var used = 0

    init(_ block: UnsafeMutableRawBufferPointer) {
        base = block.baseAddress!
        capacity = block.count
    }

    static let allocate: @convention(c) (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer? = { data, size in
        let arena = data!.assumingMemoryBound(to: UnpackArena.self)
        let start = (arena.pointee.used + 15) & ~15
        if size <= arena.pointee.capacity - start {
            arena.pointee.used = start + size
            return arena.pointee.base + start
        }
        return malloc(max(size, 1))
    }

    static let release: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { data, pointer in
        guard let pointer else { return }
        let arena = data!.assumingMemoryBound(to: UnpackArena.self)
        let base = arena.pointee.base
        if pointer >= base && pointer < base + arena.pointee.capacity { return }
        free(pointer)
    }
}

extension FrameParser {
    /// protobuf-c's own unpack and free of `payload` with its default allocator, nothing made
    /// of it: the floor that `parse` is measured against (`mamsim bench`). `false` if the
    /// bytes are not a frame.
    public static func unpackOnly(_ payload: UnsafeRawBufferPointer) -> Bool {
        let bytes = payload.bindMemory(to: UInt8.self)
        guard let message = mamsim__v2__frame__unpack(nil, bytes.count, bytes.baseAddress) else { return false }
        mamsim__v2__frame__free_unpacked(message, nil)
        return true
    }
}
