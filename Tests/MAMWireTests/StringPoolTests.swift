import CAllocationCount
import MAMModel
import Testing
@testable import MAMWire

/// The connection's pool (`StringPool`) under the one-pass codec: what it keeps changes no value
/// read, and what it recycles spares allocations without keeping too much.
extension HotFramesTests {
    /// Reading with a pool of recent strings gives the same frames: one pool across every
    /// mutated input, so slots are overwritten and strings of one length and ends collide.
    @Test func aPoolOfRecentStringsChangesNoValue() {
        let pool = StringPool()
        let long = "alice.longname@contoso.onmicrosoft.com"
        let twin = "alice.longnamf@contoso.onmicrosoft.com"  // same length and ends, other bytes
        var frames: [Frame] = []
        for (i, name) in [long, twin, long, twin].enumerated() {
            let item = Item(id: "item-\(i)", typeIdentifiers: ["com.microsoft.intune.mam.public.plain-text"], payload: .inline([1]),
                            ownership: Ownership(upn: name, oid: "0b6f1c2e-2f4b-4c1e-9a55-3c1f0e6d7a10", managed: true, sourceBundle: "com.contoso.mail.extension"))
            frames.append(Frame(seq: UInt64(i + 1), body: .deliver(Deliver(item: item, senderBundleID: "com.contoso.mail.extension", receivedAs: name))))
            // Senders of one length, alternating, then a sender spelled as the last one's prefix.
            for sender in ["com.a", "com.b", "com.b", "com.a", "com.", "Com.a", ""] {
                frames.append(Frame(seq: UInt64(i + 1), body: .deliver(Deliver(item: item, senderBundleID: BundleID(sender)))))
            }
            frames.append(Frame(seq: UInt64(i + 1), body: .shareRequest(ShareRequest(destination: "word", item: item, identity: name))))
            // Destinations of one length, one a byte apart, then shorter, longer and back: the
            // last one is compared by its bytes.
            for destination in ["word", "wore", "word", "wor", "com.contoso.word.share-extension", "word"] {
                frames.append(Frame(seq: UInt64(i + 1), body: .shareRequest(ShareRequest(destination: destination, item: item))))
            }
        }
        for frame in frames + everyFrame.filter({ Self.hotBodies.contains($0.body.name) }) {
            let bytes = protobufC(frame)
            let pooled = bytes.withUnsafeBufferPointer { HotFrames.decode($0, pool: pool) }
            #expect(pooled == hotDecode(bytes), "\(frame)")
            for i in stride(from: 0, to: bytes.count, by: 3) {
                var m = bytes
                m[i] ^= 0x01
                let mutated = m.withUnsafeBufferPointer { HotFrames.decode($0, pool: pool) }
                #expect(mutated == hotDecode(m))
            }
        }
    }

    /// A connection's items name the same types one after another: with a pool, a list equal
    /// to the last one is that list (one array, no new storage), and every other list — longer,
    /// shorter, empty, different — reads as itself.
    @Test func aPoolReusesTheLastTypeListAndReadsEveryOtherAsItself() throws {
        let pool = StringPool()
        let lists: [[String]] = [["public.plain-text", "public.data"], ["public.plain-text", "public.data"], ["public.plain-text"],
                                 ["public.plain-text", "public.data", "public.item"], [], ["public.data"], ["public.data"],
                                 ["public.data", "public.plain-text"], ["public.plain-text", "public.data"]]
        var last: [String]?
        for (i, list) in lists.enumerated() {
            let item = Item(id: "item-\(i)", typeIdentifiers: list, payload: .inline([1]))
            let bytes = protobufC(Frame(seq: UInt64(i + 1), body: .shareRequest(ShareRequest(destination: "word", item: item))))
            let pooled = bytes.withUnsafeBufferPointer { HotFrames.decode($0, pool: pool) }
            guard case .shareRequest(let request) = try #require(pooled).body else { Issue.record("not a share: \(String(describing: pooled))"); continue }
            #expect(request.item.typeIdentifiers == list, "item \(i)")
            #expect(pooled == hotDecode(bytes), "item \(i)")
            if let last, last == list, !list.isEmpty {
                let same = last.withUnsafeBufferPointer { a in request.item.typeIdentifiers.withUnsafeBufferPointer { $0.baseAddress == a.baseAddress } }
                #expect(same, "item \(i) repeats the list before it: its storage is reused")
            }
            last = request.item.typeIdentifiers
        }
    }

    /// A batch's array, recycled once its frame is handled, spares the next batch of its kind
    /// an allocation: a stream of batches read through one pool makes fewer allocations than
    /// the same batches read through a pool each. What is read is the frame written, a frame of
    /// another kind in between changes nothing, a frame still held elsewhere keeps its items,
    /// and a batch past the kept size is let go (the next one allocates its array again).
    @Test(.enabled(if: mamsim_allocations_counted() == 1, "the allocator is interposed on Linux with glibc only"))
    func aRecycledBatchArraySparesTheNextBatchAnAllocation() throws {
        func shares(_ first: Int, _ count: Int) -> Frame {
            Frame(seq: UInt64(first + count), body: .shareBatch((first..<first + count).map { i in
                BatchedShare(seq: UInt64(i), request: ShareRequest(destination: "word", item: Item(id: "s\(i)", typeIdentifiers: [], payload: .inline([UInt8(i & 255)]))))
            }))
        }
        func deliveries(_ first: Int, _ count: Int) -> Frame {
            Frame(seq: UInt64(first + count), body: .deliverBatch((first..<first + count).map { i in
                BatchedDelivery(seq: UInt64(i), deliver: Deliver(item: Item(id: "d\(i)", typeIdentifiers: [], payload: .inline([1])), senderBundleID: "com.s"))
            }))
        }
        for make in [shares, deliveries] {
            // The frames' bytes made first, so that only reading is counted.
            let stream = [make(1, 16), make(17, 5), make(22, 16), Frame(seq: 40, body: .ping([1, 2])), make(41, 16)]
            let bytes = stream.map(protobufC)
            /// Reads every frame through `pool` (a new one per frame when `nil`), recycling each:
            /// the allocations made.
            func read(through pool: StringPool?) throws -> UInt64 {
                var total: UInt64 = 0
                for (frame, b) in zip(stream, bytes) {
                    let reader = pool ?? StringPool()
                    let before = mamsim_allocations()
                    var read = try #require(b.withUnsafeBufferPointer { HotFrames.decode($0, pool: reader) })
                    total += mamsim_allocations() - before
                    #expect(read == frame, "\(frame.body.name) read through a pool is the frame written")
                    reader.recycle(&read)
                    #expect(read.body == .launchFinished || !(frame.body.name.hasSuffix("batch")), "a recycled frame is left without its batch")
                }
                return total
            }
            // Once first, so that what the runtime makes once per process (a type's metadata the
            // first time it is used) is counted in neither.
            _ = try read(through: StringPool())
            let fresh = try read(through: nil)
            let pooled = try read(through: StringPool())
            // Four batches: the first allocates its array, the next three take the kept one.
            #expect(pooled + 3 <= fresh, "\(stream[0].body.name): \(pooled) allocations through one pool, \(fresh) through a pool each")

            let pool = StringPool()
            var first = try #require(protobufC(make(1, 16)).withUnsafeBufferPointer { HotFrames.decode($0, pool: pool) })
            pool.recycle(&first)
            // A frame still held elsewhere is not emptied under its holder.
            var held = try #require(protobufC(make(41, 3)).withUnsafeBufferPointer { HotFrames.decode($0, pool: pool) })
            let holder = held
            pool.recycle(&held)
            #expect(holder == make(41, 3))
            // Past the kept size, an array is let go: the batch after it allocates one again.
            let large = protobufC(make(100, StringPool.keptBatchItems + 1))
            var big = try #require(large.withUnsafeBufferPointer { HotFrames.decode($0, pool: pool) })
            pool.recycle(&big)
            let small = protobufC(make(400, 2))
            let before = mamsim_allocations()
            let after = try #require(small.withUnsafeBufferPointer { HotFrames.decode($0, pool: pool) })
            let afterLarge = mamsim_allocations() - before
            #expect(after == make(400, 2))
            var again = after
            pool.recycle(&again)
            let beforeKept = mamsim_allocations()
            let kept = try #require(small.withUnsafeBufferPointer { HotFrames.decode($0, pool: pool) })
            let withKept = mamsim_allocations() - beforeKept
            #expect(kept == make(400, 2))
            #expect(withKept < afterLarge, "a batch past the kept size was kept: \(afterLarge) allocations after it, \(withKept) with a kept array")
        }
    }

    /// A ping's array, recycled once its frame is handled, holds the next ping: a stream of pings
    /// up to the kept size read through one pool allocates nothing after the first, each read
    /// with only its bytes (an empty ping, none); a ping still held elsewhere keeps its bytes,
    /// and one past the kept size is let go (the ping after it allocates again).
    @Test(.enabled(if: mamsim_allocations_counted() == 1, "the allocator is interposed on Linux with glibc only"))
    func aRecycledPingArrayHoldsTheNextPing() throws {
        let pool = StringPool()
        let sizes = [1024, 3, 0, 1000, 1024, 17]
        let frames = sizes.map { Frame(seq: UInt64($0), body: .ping([UInt8](repeating: UInt8($0 & 255), count: $0))) }
        let bytes = frames.map(protobufC)
        /// Frame `i` read through the pool, and the allocations its reading made.
        func decoded(_ i: Int) throws -> (Frame, UInt64) {
            let before = mamsim_allocations()
            let read = bytes[i].withUnsafeBufferPointer { HotFrames.decode($0, pool: pool) }
            let allocations = mamsim_allocations() - before
            let frame = try #require(read)
            #expect(frame == frames[i], "a ping of \(sizes[i]) bytes read through the pool is the ping written")
            return (frame, allocations)
        }
        // The whole stream once through a pool of its own first, so that what the runtime makes
        // once per process (a type's metadata the first time it is used) is not counted.
        let warmUp = StringPool()
        for b in bytes {
            var read = try #require(b.withUnsafeBufferPointer { HotFrames.decode($0, pool: warmUp) })
            warmUp.recycle(&read)
        }
        var (first, _) = try decoded(0)
        pool.recycle(&first)
        #expect(first.body == .launchFinished, "a recycled frame is left without its bytes")
        for i in 1..<sizes.count {
            var (ping, allocations) = try decoded(i)
            #expect(allocations == 0, "a ping of \(sizes[i]) bytes read into the kept array allocated \(allocations) times")
            pool.recycle(&ping)
        }
        var (third, _) = try decoded(3)
        let holder = third
        pool.recycle(&third)
        #expect(holder.body == .ping([UInt8](repeating: UInt8(1000 & 255), count: 1000)), "a ping held elsewhere keeps its bytes")
        let largeBytes = protobufC(Frame(seq: 1, body: .ping([UInt8](repeating: 1, count: StringPool.keptPingBytes + 1))))
        var large = try #require(largeBytes.withUnsafeBufferPointer { HotFrames.decode($0, pool: pool) })
        pool.recycle(&large)
        var (small, allocations) = try decoded(1)
        #expect(allocations >= 1, "a ping past the kept size was kept")
        pool.recycle(&small)
    }

    /// An item's id is read as any string is (a NUL, or invalid UTF-8, is left to protobuf-c;
    /// UTF-8 reads as itself) but never goes into the pool: ids as long as a repeated identity,
    /// with its first and last bytes, leave that identity where it was.
    @Test func anItemsIdIsReadAsItselfAndLeavesThePoolAlone() throws {
        let identity = "alice.longname@contoso.onmicrosoft.com"
        let pool = StringPool()
        func read(_ id: [UInt8], identity: String) -> (Frame?, Frame?, Result<Frame, WireError>) {
            // The item's bytes by hand (protobuf-c's encoder would stop at a NUL in the id).
            let item: [UInt8] = [0x0A, UInt8(id.count)] + id + [0x1A, 0x01, 0x01]
            // A share to "d" of that item, with the identity (field 3) unless it is empty.
            var body: [UInt8] = [0x0A, 0x01, UInt8(ascii: "d"), 0x12, UInt8(item.count)] + item
            if !identity.isEmpty { body += [0x1A, UInt8(identity.utf8.count)] + Array(identity.utf8) }
            let bytes: [UInt8] = [0x08, 0x01, 0xA2, 0x01, UInt8(body.count)] + body
            let pooled = bytes.withUnsafeBufferPointer { HotFrames.decode($0, pool: pool) }
            return (pooled, hotDecode(bytes), self.reference(bytes))
        }
        let identityBytes = Array(identity.utf8)
        for (i, id) in ["a", "f12345678", "8a1f2c3d-aaaa-bbbb-cccc-0123456789ab", "naïve-café", "日本語のid"].enumerated() {
            let (pooled, plain, reference) = read(Array(id.utf8), identity: identity)
            let expected = Frame(seq: 1, body: .shareRequest(ShareRequest(destination: "d", item: Item(id: id, typeIdentifiers: [], payload: .inline([1])), identity: identity)))
            #expect(pooled == expected, "\(i)")
            #expect(plain == expected, "\(i)")
            #expect(try reference.get() == expected, "\(i)")
        }
        // Invalid UTF-8 and a NUL, first, inside and last: the hot path declines.
        for bad: [UInt8] in [[0xFF, 0x61], [0x61, 0xC3], [0x00, 0x61], [0x61, 0x00, 0x62], Array("0123456789abcdef".utf8) + [0]] {
            let (pooled, plain, _) = read(bad, identity: identity)
            #expect(pooled == nil && plain == nil, "\(bad)")
        }
        // Then shares without an identity, of ids of the identity's length and ends (its slot
        // in the pool), each another item.
        let sameSlot = (0..<8).map { i in
            [identityBytes.first!] + Array(String(repeating: String(i), count: identityBytes.count - 2).utf8) + [identityBytes.last!]
        }
        for id in sameSlot {
            let (pooled, _, _) = read(id, identity: "")
            #expect(pooled.map { if case .shareRequest(let r) = $0.body { r.item.id } else { "" } } == String(decoding: id, as: UTF8.self))
        }
        let kept = identityBytes.withUnsafeBufferPointer { pool.string($0) }
        #expect(kept == identity, "the identity left the pool")
    }

    /// The owner a pool keeps is compared by its bytes: one read again is the same owner, one
    /// of the same length that differs in a byte reads as itself, and one too large to keep
    /// reads as itself each time.
    @Test func aPoolKeepsAnOwnerByItsBytesUpToItsBound() {
        let pool = StringPool()
        func owner(_ upn: String) -> Ownership {
            Ownership(upn: upn, oid: "o-1", tenant: "t", managed: true, sourceBundle: "com.a")
        }
        let near = StringPool.keptOwnerBytes - 20
        let owners = [owner("alice@contoso.com"), owner("alice@contoso.com"), owner("alicf@contoso.com"), owner("alice@contoso.com"),
                      owner(String(repeating: "a", count: near)), owner(String(repeating: "a", count: near)),
                      owner(String(repeating: "b", count: StringPool.keptOwnerBytes)), owner(String(repeating: "b", count: StringPool.keptOwnerBytes)),
                      owner("alice@contoso.com")]
        for (i, o) in owners.enumerated() {
            let frame = Frame(seq: UInt64(i + 1), body: .deliver(Deliver(
                item: Item(id: "i\(i)", typeIdentifiers: ["public.data"], payload: .inline([1]), ownership: o), senderBundleID: "com.s")))
            let bytes = protobufC(frame)
            let pooled = bytes.withUnsafeBufferPointer { HotFrames.decode($0, pool: pool) }
            #expect(pooled == frame, "owner \(i)")
        }
    }
}
