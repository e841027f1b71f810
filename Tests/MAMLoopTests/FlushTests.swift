import CAllocationCount
import Foundation
import MAMModel
@testable import MAMLoop
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// When batched writes leave: at the end of each iteration, and sooner once an iteration has
/// read `EventLoop.earlyFlushBytes`; and which buffer they are queued in.
@Suite struct FlushTests {
    /// Bytes waiting to be read on `fd`, without taking them.
    static func waiting(_ fd: Int32) -> Int {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return n > 0 ? Int(n) : 0
    }

    /// Two pipes on `loop`, each open on one end of a socket pair; the other ends are the
    /// test's to read and close.
    static func twoPipes(on loop: EventLoop) throws -> (MAMLoop.Pipe, Int32, MAMLoop.Pipe, Int32) {
        let (a, aPeer) = try System.socketPair()
        let (b, bPeer) = try System.socketPair()
        let first = try MAMLoop.Pipe(loop: loop), second = try MAMLoop.Pipe(loop: loop)
        try first.open(fd: a)
        try second.open(fd: b)
        return (first, aPeer, second, bPeer)
    }

    /// Four peers each send half of `earlyFlushBytes` before the loop runs, so one iteration
    /// reads twice that; each read queues a reply. The replies to the first two reads reach
    /// their peer while the same iteration is still reading (before, they all waited for its
    /// end), and the hooks ran before they left.
    @Test func writesCausedByAnIterationsFirstReadsLeaveBeforeItsLastRead() throws {
        let loop = try EventLoop()
        var pipes: [MAMLoop.Pipe] = []
        var peers: [Int32] = []
        for _ in 0..<4 {
            let (mine, theirs) = try System.socketPair()
            let pipe = try MAMLoop.Pipe(loop: loop)
            try pipe.open(fd: mine)
            pipes.append(pipe)
            peers.append(theirs)
        }
        let (replyEnd, replyPeer) = try System.socketPair()
        let replies = try MAMLoop.Pipe(loop: loop)
        try replies.open(fd: replyEnd)
        defer { for fd in peers + [replyPeer] { System.close(fd) } }
        let chunk = [UInt8](repeating: 7, count: EventLoop.earlyFlushBytes / 2)
        for fd in peers { try System.writeAll(fd, chunk) }

        var reads = 0, readBytes = 0
        var repliesSeenWhileReading: [Int] = []
        final class Observer { var waitingWhenHooksRan: [Int] = []; var hook: FlushHook? }
        let observer = Observer()
        observer.hook = loop.addBeforeFlushHook(observer) { $0.waitingWhenHooksRan.append(Self.waiting(replyPeer)) }
        let hook = observer.hook!
        for pipe in pipes {
            try pipe.startReading(onReceive: { bytes in
                repliesSeenWhileReading.append(Self.waiting(replyPeer))
                reads += 1
                readBytes += bytes.count
                replies.enqueue([UInt8(reads)])
                loop.arm(hook)
            }, onEnd: { _ in })
        }
        while readBytes < 4 * chunk.count { loop.runOnce() }
        #expect(reads == 4, "one read per peer, all in one iteration")
        // The third read comes after `earlyFlushBytes` were read: the first two replies have left.
        #expect(repliesSeenWhileReading.prefix(2) == [0, 0])
        #expect(repliesSeenWhileReading.dropFirst(2).allSatisfy { $0 > 0 }, "\(repliesSeenWhileReading)")
        #expect(observer.waitingWhenHooksRan.contains(0), "the hooks ran before the replies left")
        for pipe in pipes + [replies] { pipe.close() }
        loop.run()
        #expect(loop.close() == 0)
    }

    /// A hook runs at a flush only if it was armed since the last one, once however often it
    /// was armed, with its owner; it lives as long as its owner keeps it (the loop holds
    /// neither), and a hook whose owner is gone is dropped when another is added.
    @Test func aHookRunsOnceAtTheFlushAfterItIsArmedWhileItsOwnerLives() throws {
        final class Owner { var flushes = 0; var hook: FlushHook? }
        let loop = try EventLoop()
        var owner: Owner? = Owner()
        weak let gone = owner
        owner!.hook = loop.addBeforeFlushHook(owner!) { $0.flushes += 1 }
        weak let goneHook = owner!.hook
        loop.flushPipes()
        #expect(owner?.flushes == 0, "not armed")
        loop.arm(owner!.hook!)
        loop.arm(owner!.hook!)
        loop.flushPipes()
        loop.flushPipes()
        #expect(owner?.flushes == 1, "armed twice before one flush: runs at that flush only")
        loop.arm(owner!.hook!)
        owner = nil
        #expect(gone == nil, "the loop does not keep its hooks' owners")
        #expect(goneHook == nil, "nor their hooks")
        loop.flushPipes()
        let other = Owner()
        other.hook = loop.addBeforeFlushHook(other) { $0.flushes += 1 }
        #expect(loop.flushHookCount == 1, "the hook whose owner is gone was dropped")
        loop.arm(other.hook!)
        loop.flushPipes()
        #expect(other.flushes == 1)
        loop.run()
        #expect(loop.close() == 0)
    }

    /// Armed hooks run in the order they were added; a hook armed while hooks run (by
    /// itself, or by a later one for an earlier one) runs at the next flush, not twice in one.
    @Test func aHookArmedWhileHooksRunWaitsForTheNextFlush() throws {
        final class Owner { var runs: [String] = []; var first: FlushHook?; var second: FlushHook? }
        let loop = try EventLoop()
        let owner = Owner()
        owner.first = loop.addBeforeFlushHook(owner) { $0.runs.append("first") }
        var rearmSelf = true
        owner.second = loop.addBeforeFlushHook(owner) { o in
            o.runs.append("second")
            loop.arm(o.first!)
            if rearmSelf { loop.arm(o.second!) }
        }
        loop.arm(owner.second!)
        loop.arm(owner.first!)
        loop.flushPipes()
        #expect(owner.runs == ["first", "second"])
        rearmSelf = false
        loop.flushPipes()
        #expect(owner.runs == ["first", "second", "first", "second"])
        loop.flushPipes()
        #expect(owner.runs == ["first", "second", "first", "second", "first"])
        loop.flushPipes()
        #expect(owner.runs.count == 5, "nothing armed")
        loop.run()
        #expect(loop.close() == 0)
    }

    /// A round trip's flush allocates nothing once warm: the list of pipes to flush is taken
    /// out and given back, not copied and emptied (which made it new storage at every flush),
    /// and the pipe's buffer is the loop's spare one. Counted by the allocator this test
    /// binary interposes (Tests/CAllocationCount), on this thread.
    @Test(.enabled(if: mamsim_allocations_counted() == 1, "the allocator is interposed on Linux with glibc only"))
    func aFlushAllocatesNothing() throws {
        let loop = try EventLoop()
        let (mine, peer) = try System.socketPair()
        defer { System.close(peer) }
        let pipe = try MAMLoop.Pipe(loop: loop)
        try pipe.open(fd: mine)
        let frame: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        var received = [UInt8](repeating: 0, count: 64)
        func roundTrip() {
            pipe.enqueue { $0.append(contentsOf: frame) }
            loop.flushPipes()
            _ = received.withUnsafeMutableBytes { recv(peer, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        }
        for _ in 0..<16 { roundTrip() }
        let before = mamsim_allocations()
        for _ in 0..<1_000 { roundTrip() }
        let allocations = mamsim_allocations() - before
        #expect(allocations == 0, "\(allocations) allocations in 1,000 flushes")
        #expect(received.prefix(frame.count).elementsEqual(frame), "the last frame reached the peer")
        pipe.close()
        loop.run()
        #expect(loop.close() == 0)
    }

    /// A pipe that wrote all it had gives its buffer back to the loop, and the next pipe with
    /// bytes to queue takes it: with many pipes, the buffers written between two flushes stay
    /// few, and the same ones.
    @Test func aPipeThatWroteAllItHadLendsItsBufferToTheNext() throws {
        let loop = try EventLoop()
        let (first, aPeer, second, bPeer) = try Self.twoPipes(on: loop)
        defer { System.close(aPeer); System.close(bPeer) }
        #expect(loop.value.spareOutgoing.isEmpty)
        first.enqueue([UInt8](repeating: 1, count: 64 << 10))
        first.flush()
        #expect(loop.value.spareOutgoing.count == 1)
        let lent = loop.value.spareOutgoing.first?.capacity ?? 0
        #expect(lent >= 64 << 10)
        second.enqueue([2])
        #expect(loop.value.spareOutgoing.isEmpty, "the second pipe took it")
        second.flush()
        #expect(loop.value.spareOutgoing.first?.capacity == lent, "and gave the same buffer back")
        var got = [UInt8](repeating: 0, count: 1)
        #expect(read(bPeer, &got, 1) == 1 && got == [2])
        first.close(); second.close()
        loop.run()
        #expect(loop.close() == 0)
    }

    /// A write the socket cannot take at once waits in libuv from the buffer its bytes were
    /// queued in (no copy, no allocation: the request is the pipe's, made once); what is queued
    /// meanwhile takes another buffer, and the waiting one goes back to the loop when the write
    /// is done. Every byte arrives, in order.
    @Test func aWriteThatWaitsForTheSocketCopiesAndAllocatesNothing() throws {
        let loop = try EventLoop()
        let (mine, peer) = try System.socketPair()
        defer { System.close(peer) }
        let pipe = try MAMLoop.Pipe(loop: loop)
        try pipe.open(fd: mine)
        // (Half the largest buffer the loop keeps: a larger one is freed when given back.)
        let chunk = (0..<(EventLoop.maximumSpareOutgoingCapacity / 2)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var sink = [UInt8](repeating: 0, count: 64 << 10)
        var checked = 0
        var inOrder = true
        // Reads all the peer has, checking each byte against the chunks' pattern, while the
        // loop completes the waiting write.
        func drain() {
            while pipe.pendingWrites > 0 || Self.waiting(peer) > 0 {
                let n = sink.withUnsafeMutableBytes { recv(peer, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n > 0 {
                    for k in 0..<n where sink[k] != chunk[(checked + k) % chunk.count] { inOrder = false }
                    checked += n
                }
                loop.runOnce(wait: false)
            }
        }
        func cycle() {
            pipe.enqueue { $0.append(contentsOf: chunk) }
            pipe.flush()
            drain()
        }
        cycle()
        cycle()
        #expect(pipe.pendingWrites == 0)
        let before = mamsim_allocations()
        var waited = 0
        for _ in 0..<20 {
            pipe.enqueue { $0.append(contentsOf: chunk) }
            pipe.flush()
            if pipe.pendingWrites > 0 { waited += 1 }
            drain()
        }
        let allocations = mamsim_allocations() - before
        #expect(waited > 0, "512 KiB always fit in the socket: nothing was tested")
        #expect(allocations == 0, "\(allocations) allocations in 20 writes of 512 KiB, \(waited) of which waited")
        #expect(checked == 22 * chunk.count)
        #expect(inOrder)
        #expect(loop.value.spareOutgoing.count == 1, "the buffer went back to the loop")
        pipe.close()
        loop.run()
        #expect(loop.close() == 0)
    }

    /// A pipe whose writes wait for the socket takes, for its next bytes, a kept buffer with
    /// room for what it last wrote, not whichever was given back last (its own, which a pipe
    /// of a few bytes would otherwise take first): neither grows a buffer again once both
    /// have one.
    @Test func aPipeTakesAKeptBufferWithRoomForWhatItLastWrote() throws {
        let loop = try EventLoop()
        let (bulk, bigPeer, answers, smallPeer) = try Self.twoPipes(on: loop)
        defer { System.close(bigPeer); System.close(smallPeer) }
        let chunk = [UInt8](repeating: 3, count: EventLoop.maximumSpareOutgoingCapacity / 2)
        let few: [UInt8] = [1, 2, 3]
        var sink = [UInt8](repeating: 0, count: 64 << 10)
        var waited = 0
        // As in the host: in one iteration the small pipe queues first (answers), then the
        // bulk one (deliveries), and both flush; the bulk write waits, and its buffer comes
        // back last, when the write completes.
        func cycle() {
            answers.enqueue { $0.append(contentsOf: few) }
            bulk.enqueue { $0.append(contentsOf: chunk) }
            answers.flush()
            bulk.flush()
            if bulk.pendingWrites > 0 { waited += 1 }
            _ = sink.withUnsafeMutableBytes { recv(smallPeer, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            while bulk.pendingWrites > 0 || Self.waiting(bigPeer) > 0 {
                _ = sink.withUnsafeMutableBytes { recv(bigPeer, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                loop.runOnce(wait: false)
            }
        }
        for _ in 0..<3 { cycle() }
        let before = mamsim_allocations()
        waited = 0
        for _ in 0..<20 { cycle() }
        let allocations = mamsim_allocations() - before
        #expect(waited > 0, "the bulk writes never waited: nothing was tested")
        #expect(allocations == 0, "\(allocations) allocations in 20 rounds, \(waited) bulk writes waited")
        bulk.close(); answers.close()
        loop.run()
        #expect(loop.close() == 0)
    }

    /// Of the buffers kept, the smallest with room for what a pipe last wrote, else the largest.
    @Test func theKeptBufferTakenIsTheSmallestWithRoomElseTheLargest() throws {
        let loop = try EventLoop()
        for capacity in [4096, 256, 65536, 1024] {
            var b: [UInt8] = []
            b.reserveCapacity(capacity)
            loop.giveBackOutgoingBuffer(&b)
        }
        let capacities = loop.value.spareOutgoing.map(\.capacity)
        func taken(_ bytes: Int) -> Int {
            var b = loop.takeOutgoingBuffer(forAbout: bytes)
            defer { loop.giveBackOutgoingBuffer(&b) }
            #expect(b.isEmpty)
            return b.capacity
        }
        let fitting = { (bytes: Int) in capacities.filter { $0 >= bytes }.min() ?? capacities.max()! }
        for bytes in [0, 1, 256, 257, 1000, 5000, 65536, 65537, 1 << 20] {
            #expect(taken(bytes) == fitting(bytes), "for \(bytes) bytes")
        }
        #expect(loop.value.spareOutgoing.count == 4)
        #expect(loop.close() == 0)
    }
}
