internal import CMAMProto
internal import CProtobufC

/// A bound on the elements of repeated fields a frame may carry, checked before protobuf-c
/// unpacks it.
///
/// protobuf-c allocates every element of a repeated field: a 16 MiB frame of empty strings
/// holds millions and stalls the loop for every child while they are allocated and freed.
/// This walks the frame's wire bytes with the schema's own descriptors (descending only into
/// fields the schema says are messages, never into bytes or strings) and counts repeated
/// elements, stopping as soon as the budget is spent. A frame smaller than twice the budget
/// cannot exceed it (an element takes at least two bytes) and is not walked.
enum FieldBudget {
    static let maximumRepeatedElements = 65_536
    /// The schema nests six deep; a deeper wire structure is refused by protobuf-c anyway.
    static let maximumDepth = 16

    static func check(_ payload: UnsafeBufferPointer<UInt8>) throws(WireError) {
        guard payload.count > 2 * maximumRepeatedElements else { return }
        var remaining = maximumRepeatedElements
        let ok = withUnsafePointer(to: mamsim__v2__frame__descriptor) { frame in
            walk(payload, 0, payload.count, frame, depth: 0, remaining: &remaining)
        }
        if !ok { throw .tooManyElements(maximum: maximumRepeatedElements) }
    }

    /// `false` once the budget is spent; malformed bytes end the walk (`true`): protobuf-c
    /// will refuse them itself.
    private static func walk(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int,
                             _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, depth: Int,
                             remaining: inout Int) -> Bool {
        var i = from
        while i < to {
            guard let (key, afterKey) = varint(b, i, to) else { return true }
            i = afterKey
            let field = protobuf_c_message_descriptor_get_field(descriptor, UInt32(truncatingIfNeeded: key >> 3))
            if let field, field.pointee.label == PROTOBUF_C_LABEL_REPEATED {
                remaining -= 1
                if remaining < 0 { return false }
            }
            switch key & 7 {
            case 0:
                guard let (_, n) = varint(b, i, to) else { return true }
                i = n
            case 1: i += 8
            case 5: i += 4
            case 2:
                guard let (length, n) = varint(b, i, to), length <= UInt64(to - n) else { return true }
                let end = n + Int(length)
                if let field, field.pointee.type == PROTOBUF_C_TYPE_MESSAGE, depth < maximumDepth,
                   let sub = field.pointee.descriptor?.assumingMemoryBound(to: ProtobufCMessageDescriptor.self) {
                    if !walk(b, n, end, sub, depth: depth + 1, remaining: &remaining) { return false }
                } else if let field, field.pointee.label == PROTOBUF_C_LABEL_REPEATED, isPackable(field.pointee.type) {
                    // A packed repeated scalar: at least one byte per element.
                    remaining -= Int(length)
                    if remaining < 0 { return false }
                }
                i = end
            default:
                return true
            }
        }
        return true
    }

    /// Throws when a string field holds a NUL byte. protobuf-c keeps a string as a C string, and
    /// every reader of one stops at the NUL: `notes\0word` would be read as `notes`, a name other
    /// than the one sent. (The one-pass reading refuses such a string itself; this guards the
    /// frames protobuf-c reads.)
    static func checkStrings(_ payload: UnsafeBufferPointer<UInt8>) throws(WireError) {
        guard payload.contains(0) else { return }
        let found = withUnsafePointer(to: mamsim__v2__frame__descriptor) { frame in
            nulString(payload, 0, payload.count, frame, depth: 0)
        }
        if let found { throw .invalidField(found, "holds a NUL byte, which no name or text may hold") }
    }

    /// The path of the first string field holding a NUL byte, or `nil`.
    private static func nulString(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int,
                                  _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, depth: Int) -> String? {
        var i = from
        while i < to {
            guard let (key, afterKey) = varint(b, i, to) else { return nil }
            i = afterKey
            let field = protobuf_c_message_descriptor_get_field(descriptor, UInt32(truncatingIfNeeded: key >> 3))
            switch key & 7 {
            case 0:
                guard let (_, n) = varint(b, i, to) else { return nil }
                i = n
            case 1: i += 8
            case 5: i += 4
            case 2:
                guard let (length, n) = varint(b, i, to), length <= UInt64(to - n) else { return nil }
                let end = n + Int(length)
                if let field {
                    let name = field.pointee.name.map { String(cString: $0) } ?? "field \(key >> 3)"
                    if field.pointee.type == PROTOBUF_C_TYPE_STRING, UnsafeBufferPointer(rebasing: b[n..<end]).contains(0) {
                        return name
                    }
                    if field.pointee.type == PROTOBUF_C_TYPE_MESSAGE, depth < maximumDepth,
                       let sub = field.pointee.descriptor?.assumingMemoryBound(to: ProtobufCMessageDescriptor.self),
                       let inner = nulString(b, n, end, sub, depth: depth + 1) {
                        return name + "." + inner
                    }
                }
                i = end
            default:
                return nil
            }
        }
        return nil
    }

    private static func isPackable(_ type: ProtobufCType) -> Bool {
        type != PROTOBUF_C_TYPE_STRING && type != PROTOBUF_C_TYPE_BYTES && type != PROTOBUF_C_TYPE_MESSAGE
    }

    private static func varint(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ end: Int) -> (UInt64, Int)? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var i = at
        while i < end, shift < 64 {
            let byte = b[i]
            value |= UInt64(byte & 0x7F) << shift
            i += 1
            if byte & 0x80 == 0 { return (value, i) }
            shift += 7
        }
        return nil
    }
}
