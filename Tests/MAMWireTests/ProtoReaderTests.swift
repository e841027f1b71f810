import Testing
@testable import MAMWire

/// `ProtoReader` reads a varint's first byte in line and the rest in a loop: both paths give
/// the same answers at every boundary (one byte, the largest one-byte value, two bytes, ten,
/// too many, cut short), and keys and lengths still refuse what protobuf-c would spell
/// otherwise (a trailing zero group, more than five bytes, field 0).
@Suite struct ProtoReaderTests {
    private func read<T>(_ bytes: [UInt8], _ body: (inout ProtoReader) -> T?) -> (T?, consumed: Int) {
        bytes.withUnsafeBufferPointer { b in
            var r = ProtoReader(b)
            let v = body(&r)
            return (v, r.consumed)
        }
    }

    static let varints: [(bytes: [UInt8], value: UInt64?, consumed: Int)] = [
        ([0x00], 0, 1),
        ([0x01, 0xFF], 1, 1),
        ([0x7F], 127, 1),
        ([0x80, 0x01], 128, 2),
        ([0xFF, 0x7F], 16_383, 2),
        ([0x80, 0x80, 0x01], 16_384, 3),
        ([0x80, 0x00], 0, 2),  // overlong, which `varint` reads
        ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], UInt64.max, 10),
        ([0x80], nil, 1),  // cut short
        ([0xFF, 0xFF], nil, 2),
        ([], nil, 0),
        ([UInt8](repeating: 0x80, count: 11) + [0x01], nil, 10),  // more than ten bytes
    ]

    @Test(arguments: varints)
    func aVarintReadsTheSameWhereverItsLastByteLies(_ c: (bytes: [UInt8], value: UInt64?, consumed: Int)) {
        let (v, consumed) = read(c.bytes) { $0.varint() }
        #expect(v == c.value, "\(c.bytes)")
        if c.value != nil { #expect(consumed == c.consumed, "\(c.bytes)") }
    }

    @Test func keysAreShortestAndNotZero() {
        #expect(read([0x08]) { $0.key() }.0.map { [$0.0, $0.1] } == [1, 0])
        #expect(read([0x7A]) { $0.key() }.0.map { [$0.0, $0.1] } == [15, 2])
        #expect(read([0xA2, 0x01]) { $0.key() }.0.map { [$0.0, $0.1] } == [20, 2])
        #expect(read([0x02]) { $0.key() }.0 == nil, "field 0")
        #expect(read([0x88, 0x00]) { $0.key() }.0 == nil, "a trailing zero group")
        #expect(read([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]) { $0.key() }.0 == nil, "six bytes")
        #expect(read([0x80]) { $0.key() }.0 == nil, "cut short")
        #expect(read([]) { $0.key() }.0 == nil)
    }

    @Test func aLengthDelimitedFieldIsWithinItsBytes() {
        let (one, consumed) = read([0x03, 1, 2, 3, 9]) { $0.lengthDelimited().map(Array.init) }
        #expect(one == [1, 2, 3] && consumed == 4)
        #expect(read([0x00, 9]) { $0.lengthDelimited().map(Array.init) }.0 == [])
        #expect(read([0x04, 1, 2, 3]) { $0.lengthDelimited() }.0 == nil, "longer than what is left")
        let long = [0x80, 0x01] + [UInt8](repeating: 5, count: 128)
        #expect(read(long) { $0.lengthDelimited()?.count }.0 == 128)
        #expect(read([0x83, 0x00, 1, 2, 3]) { $0.lengthDelimited() }.0 == nil, "a length with a trailing zero group")
        #expect(read([0x80]) { $0.lengthDelimited() }.0 == nil, "cut short")
    }

    /// Keys and lengths of two bytes are read in line, the rest in a loop: every two-byte
    /// spelling answers as the loop does (shortest ones read, a second byte of 0 refused, a
    /// second byte with its high bit set read as the start of a longer one).
    @Test func twoByteKeysAndLengthsReadAsTheLoopReadsThem() {
        for first in UInt8(0x80)...0xFF {
            for second: UInt8 in [0x00, 0x01, 0x40, 0x7F, 0x80, 0xFF] {
                let bytes = [first, second, 0x01] + [UInt8](repeating: 7, count: 300)
                let expected: UInt64? = second == 0 ? nil : second < 0x80
                    ? UInt64(first & 0x7F) | UInt64(second) << 7
                    : UInt64(first & 0x7F) | UInt64(second & 0x7F) << 7 | 1 << 14
                let (length, consumed) = read(bytes) { r in r.lengthDelimited().map { $0.count } }
                let fits = expected.map { Int($0) <= bytes.count - (second < 0x80 ? 2 : 3) } ?? false
                #expect(length == (fits ? expected.map(Int.init) : nil), "\(first), \(second)")
                if fits, let expected { #expect(consumed == (second < 0x80 ? 2 : 3) + Int(expected)) }
                let key = read(bytes) { $0.key() }.0.map { $0.0 << 3 | $0.1 }
                #expect(key == (expected.map { $0 >> 3 != 0 } == true ? expected : nil), "\(first), \(second)")
            }
        }
        #expect(read([0x80, 0x01]) { $0.lengthDelimited() }.0 == nil, "a length past the end")
        #expect(read([0x80]) { $0.key() }.0 == nil, "cut after the first byte")
    }
}
