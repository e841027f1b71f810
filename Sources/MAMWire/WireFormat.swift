internal import MAMModel
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Reads protobuf's wire format; every read answers `nil` past the end or on a varint longer
/// than ten bytes. Keys, lengths and booleans are read only as protobuf-c writes them (the
/// shortest encoding, a key or length in at most five bytes, a field number above 0, a
/// boolean in one byte): other spellings, which protobuf-c reads by rules of its own, are
/// left to it.
struct ProtoReader {
    private let base: UnsafePointer<UInt8>?
    private var i = 0
    private let end: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        base = bytes.baseAddress
        end = bytes.count
    }

    var atEnd: Bool { i >= end }
    /// How many bytes were read so far.
    var consumed: Int { i }

    /// One byte read in line, the rest by `longVarint`: a key of a field below 16, and most
    /// lengths, are one byte, and a loop called for each was about a tenth of the readers'
    /// instructions per item.
    @inline(__always)
    mutating func varint() -> UInt64? {
        guard let base else { return nil }
        if i < end, base[i] < 0x80 {
            i += 1
            return UInt64(base[i - 1])
        }
        return longVarint(base)
    }

    private mutating func longVarint(_ base: UnsafePointer<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while i < end, shift < 70 {
            let byte = base[i]
            i += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

    /// A varint of at most five bytes in its shortest encoding (no trailing zero groups).
    @inline(__always)
    private mutating func shortVarint() -> UInt64? {
        // (One byte is always the shortest encoding.)
        guard let base else { return nil }
        if i < end, base[i] < 0x80 {
            i += 1
            return UInt64(base[i - 1])
        }
        // Two bytes, in line too: the length of a payload of 1 KiB, of the item and the share
        // around it, and a frame body's key (fields from 16 up), several per item. (A second
        // byte of 0 is not the shortest encoding.)
        if i &+ 1 < end, base[i &+ 1] &- 1 < 0x7F {
            let v = UInt64(base[i] & 0x7F) | UInt64(base[i &+ 1]) << 7
            i &+= 2
            return v
        }
        return longShortVarint()
    }

    private mutating func longShortVarint() -> UInt64? {
        let start = i
        guard let v = varint(), i - start <= 5, i - start == 1 || base![i - 1] != 0 else { return nil }
        return v
    }

    /// Field number (at least 1) and wire type.
    @inline(__always)
    mutating func key() -> (UInt64, UInt64)? {
        guard let k = shortVarint(), k >> 3 != 0 else { return nil }
        return (k >> 3, k & 7)
    }

    /// A boolean written in one byte.
    mutating func bool() -> Bool? {
        guard let base, i < end, base[i] < 0x80 else { return nil }
        i += 1
        return base[i - 1] != 0
    }

    @inline(__always)
    mutating func lengthDelimited() -> UnsafeBufferPointer<UInt8>? {
        guard let n = shortVarint(), n <= UInt64(end - i), let base else { return nil }
        let sub = UnsafeBufferPointer(start: base + i, count: Int(n))
        i += Int(n)
        return sub
    }
}

/// Writes protobuf's wire format into memory measured beforehand.
struct ProtoWriter {
    private(set) var position: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) { position = start }

    static func varintSize(_ v: UInt64) -> Int {
        v == 0 ? 1 : (64 - v.leadingZeroBitCount + 6) / 7
    }

    static func keySize(_ number: UInt64) -> Int { varintSize(number << 3) }

    mutating func byte(_ b: UInt8) {
        position.pointee = b
        position += 1
    }

    mutating func varint(_ v: UInt64) {
        var v = v
        while v >= 0x80 {
            byte(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        byte(UInt8(v))
    }

    mutating func key(_ number: UInt64, _ wire: UInt64) { varint(number << 3 | wire) }

    /// A varint field unless it is 0.
    mutating func scalar(_ number: UInt64, _ v: UInt64) {
        guard v != 0 else { return }
        key(number, 0)
        varint(v)
    }

    mutating func bool(_ number: UInt64, _ v: Bool) {
        guard v else { return }
        key(number, 0)
        byte(1)
    }

    mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        raw(UnsafeRawBufferPointer(bytes))
    }

    mutating func raw(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        UnsafeMutableRawPointer(position).copyMemory(from: base, byteCount: bytes.count)
        position += bytes.count
    }

    /// A length-delimited field, written even when empty.
    mutating func field(_ number: UInt64, _ s: String) {
        key(number, 2)
        // Borrowed where the string is contiguous (always, natively): `withUTF8` needs a
        // mutable copy, a retain and release per field.
        if s.utf8.withContiguousStorageIfAvailable({ lengthPrefixed($0) }) == nil {
            var s = s
            s.withUTF8 { lengthPrefixed($0) }
        }
    }

    private mutating func lengthPrefixed(_ bytes: UnsafeBufferPointer<UInt8>) {
        varint(UInt64(bytes.count))
        raw(bytes)
    }

    /// A string field unless it is empty.
    mutating func string(_ number: UInt64, _ s: String) {
        guard !s.isEmpty else { return }
        field(number, s)
    }

    // Sizes, as protobuf-c packs. `keyBytes`: the field's key's size (the generated code knows
    // it for each field; measured at run time it was a count of leading zeros per field).

    /// A varint field: 0 when it is 0 (proto3 leaves defaults out).
    static func scalarSize(keyBytes: Int, _ v: UInt64) -> Int {
        v == 0 ? 0 : keyBytes + varintSize(v)
    }

    /// A string field: 0 when it is empty.
    static func stringSize(keyBytes: Int, _ s: String) -> Int {
        let n = s.utf8.count
        return n == 0 ? 0 : keyBytes + varintSize(UInt64(n)) + n
    }

    /// A length-delimited field of `count` bytes, written even when empty (a message, a oneof
    /// member, an element of a list).
    static func fieldSize(keyBytes: Int, _ count: Int) -> Int {
        keyBytes + varintSize(UInt64(count)) + count
    }
}

extension HotFrames {
    /// Whether `bytes` (not empty) hold a NUL byte, and whether all of them are ASCII: read
    /// eight at a time, because a loop over the bytes cost more than the rest of reading an
    /// item's id of a few bytes.
    @inline(__always)
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> (nul: Bool, ascii: Bool) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var any: UInt64 = 0
        var zero: UInt64 = 0
        // A byte of 0 in `w` sets its high bit in `(w - ones) & ~w`; a borrow can set the high
        // bit of a byte above it too, but only above a byte of 0, so the word has one exactly
        // when that is not 0.
        @inline(__always) func take(_ w: UInt64) {
            any |= w
            zero |= (w &- ones) & ~w
        }
        let raw = UnsafeRawBufferPointer(bytes)
        let count = raw.count
        if count >= 8 {
            var i = 0
            while i &+ 8 <= count {
                take(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                i &+= 8
            }
            // The last bytes, in the word that ends with them (some read twice).
            if i < count { take(raw.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)) }
        } else {
            // Padded with 1s, neither NUL nor above ASCII.
            var w = ones
            withUnsafeMutableBytes(of: &w) { word in
                for i in 0..<count { word[i] = raw[i] }
            }
            take(w)
        }
        return (zero & highs != 0, any & highs == 0)
    }
}
