@testable import MAMModel
import Testing

/// `append(count:writing:)` writes frames and audit records straight into an array's new space.
@Suite struct ByteBufferTests {
    /// Bytes `i, i+1, …` for a block of `count`.
    private func block(_ count: Int, from first: Int) -> (UnsafeMutablePointer<UInt8>) -> Void {
        { p in for i in 0..<count { p[i] = UInt8(truncatingIfNeeded: first + i) } }
    }

    @Test func appendedBytesFollowWhatTheArrayHeld() {
        var bytes: [UInt8] = [9, 8, 7]
        var expected = bytes
        for (n, count) in [1, 0, 5, 300, 4096, 17].enumerated() {
            bytes.append(count: count, writing: block(count, from: n * 10))
            expected += (0..<count).map { UInt8(truncatingIfNeeded: n * 10 + $0) }
            #expect(bytes == expected)
        }
    }

    /// Frames appended one after another move the array to new storage a logarithmic number
    /// of times (a growth to exactly what is asked would copy the whole buffer each time).
    @Test func theArrayGrowsGeometrically() {
        var bytes: [UInt8] = []
        var moves = 0
        var storage: UnsafeRawPointer?
        for i in 0..<2_000 {
            bytes.append(count: 1_040, writing: block(1_040, from: i))
            let now = bytes.withUnsafeBytes { UnsafeRawPointer($0.baseAddress) }
            if now != storage { moves += 1 }
            storage = now
        }
        #expect(bytes.count == 2_000 * 1_040)
        #expect(moves <= 30, "the array moved \(moves) times")
    }

    /// Into shared storage (copy on write): the copy keeps what it held.
    @Test func aCopyKeepsWhatItHeld() {
        var bytes: [UInt8] = [1, 2, 3]
        bytes.reserveCapacity(64)
        let copy = bytes
        bytes.append(count: 4, writing: block(4, from: 40))
        #expect(copy == [1, 2, 3])
        #expect(bytes == [1, 2, 3, 40, 41, 42, 43])
    }

    /// Iterated rather than appended, or offered too little space, the bytes are the same.
    @Test func iteratedTheBytesAreTheSame() {
        let bytes = BytesWrittenInPlace(count: 6, write: block(6, from: 250))
        var iterated: [UInt8] = []
        for b in bytes { iterated.append(b) }
        #expect(iterated == [250, 251, 252, 253, 254, 255])
        #expect(Array(BytesWrittenInPlace(count: 0, write: block(0, from: 0))) == [])
        let small = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 3)
        defer { small.deallocate() }
        var (rest, written) = bytes._copyContents(initializing: small)
        #expect(written == 0)
        var left: [UInt8] = []
        while let b = rest.next() { left.append(b) }
        #expect(left == iterated)
    }
}
