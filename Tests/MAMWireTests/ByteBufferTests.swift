import CAllocationCount
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
        // Each block landed where it was asked to, across every move.
        for i in [0, 1, 999, 1_999] {
            #expect(bytes[i * 1_040] == UInt8(truncatingIfNeeded: i) && bytes[i * 1_040 + 1_039] == UInt8(truncatingIfNeeded: i + 1_039))
        }
    }

    /// A writer that captures what it writes (as a record's fields are) costs no allocation
    /// where the array has room: its closure is not stored anywhere, so its captures need no
    /// context on the heap. Carried in the sequence, they had one for every frame and record.
    @Test(.enabled(if: mamsim_allocations_counted() == 1, "the allocator is interposed on Linux with glibc only"))
    func aCapturingWriterAllocatesNothingWhereThereIsRoom() {
        let fields = [String(repeating: "alice@contoso.com ", count: 3), "com.example.notes", String(repeating: "é", count: 40)]
        let (a, b, c) = (fields[0], fields[1], fields[2])
        let size = a.utf8.count + b.utf8.count + c.utf8.count
        var bytes: [UInt8] = []
        bytes.reserveCapacity(101 * size)
        var appended = 0
        // The first append instantiates the generic types' metadata, once per process.
        var before = 0 as UInt64
        for round in 0...100 {
            if round == 1 { before = mamsim_allocations() }
            bytes.append(count: size) { start in
                var p = start
                for byte in a.utf8 { p.pointee = byte; p += 1 }
                for byte in b.utf8 { p.pointee = byte; p += 1 }
                for byte in c.utf8 { p.pointee = byte; p += 1 }
                appended += 1
            }
        }
        let allocations = mamsim_allocations() - before
        #expect(appended == 101)
        #expect(bytes == Array(repeating: Array((a + b + c).utf8), count: 101).flatMap { $0 })
        #expect(allocations == 0, "\(allocations) allocations in 100 appends")
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

    /// The space claimed for a writer: iterated, or offered less room than it claims, it is
    /// zeros (never what memory held); offered enough, it claims its count and leaves nothing.
    @Test func theClaimedSpaceIsZerosWhereItIsNotWrittenInPlace() {
        let space = SpaceToWrite(count: 6)
        #expect(Array(space) == [0, 0, 0, 0, 0, 0])
        #expect(Array(SpaceToWrite(count: 0)) == [])
        let small = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 3)
        defer { small.deallocate() }
        var (rest, written) = space._copyContents(initializing: small)
        #expect(written == 0)
        var left: [UInt8] = []
        while let b = rest.next() { left.append(b) }
        #expect(left == [0, 0, 0, 0, 0, 0])
        let room = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 8)
        defer { room.deallocate() }
        var (none, claimed) = space._copyContents(initializing: room)
        #expect(claimed == 6)
        #expect(none.next() == nil)
    }
}
