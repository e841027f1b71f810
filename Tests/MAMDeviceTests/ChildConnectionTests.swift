#if canImport(Glibc)
import CAllocationCount
import Glibc
#endif
import MAMLoop
@testable import MAMDevice
import MAMModel
import MAMWire
import Testing

/// The callbacks a child's own pipe and process keep, and answers that may come after it ended,
/// reach it through its `ChildLink`: it names the child while the child lives and nothing once
/// the child is gone, so a late callback finds no child instead of a freed one.
@Suite struct ChildLinkTests {
    @Test func aLinkNamesItsChildUntilTheChildIsGone() throws {
        let loop = try EventLoop()
        let spec = AppSpec(handle: "app0", descriptor: AppDescriptor(bundleID: "com.contoso.app0"))
        var child: ChildConnection? = ChildConnection(spec: spec, pipe: try Pipe(loop: loop), maximumFrameSize: 1 << 20)
        let link = try #require(child?.link)
        #expect(link.child === child)
        #expect(link.child?.handle == "app0")
        child = nil
        #expect(link.child == nil)
        #expect(loop.close() == 0)
    }

    /// Each child has a link of its own: a later launch of the same app is not reached through
    /// the link of the one before it.
    @Test func aRelaunchedAppHasANewLink() throws {
        let loop = try EventLoop()
        let spec = AppSpec(handle: "app0", descriptor: AppDescriptor(bundleID: "com.contoso.app0"))
        var first: ChildConnection? = ChildConnection(spec: spec, pipe: try Pipe(loop: loop), maximumFrameSize: 1 << 20)
        let firstLink = try #require(first?.link)
        first = nil
        let second = ChildConnection(spec: spec, pipe: try Pipe(loop: loop), maximumFrameSize: 1 << 20)
        #expect(firstLink.child == nil)
        #expect(second.link !== firstLink)
        #expect(second.link.child === second)
        #expect(loop.close() == 0)
    }
}

/// A delivery waiting for its acknowledgement: one per delivered item, thousands at once.
@Suite struct PendingDeliveryTests {
    /// Its item id is its record's (no copy of its own), its frame's sender and receiver are its
    /// sender's and its record's, and the object stays as small as its comment says: 116 bytes,
    /// a 128-byte block, which glibc keeps in its fast bins (120 usable).
    @Test func aPendingDeliveryNamesItsItemThroughItsRecordAndStaysSmall() throws {
        let loop = try EventLoop()
        let spec = AppSpec(handle: "app0", descriptor: AppDescriptor(bundleID: "com.contoso.app0"))
        let sender = ChildConnection(spec: spec, pipe: try Pipe(loop: loop), maximumFrameSize: 1 << 20)
        let item = textItem("item-7", "hello")
        let record = ShareRecord(from: "app0", fromBundle: "com.contoso.app0", identity: "", to: "app1", receivedAs: "bob@contoso.com",
                                 itemID: item.id, owner: nil, outcome: .delivered)
        let pending = PendingDelivery(sender: sender, requestSeq: 9, record: record, item: item)
        #expect(pending.itemID == "item-7")
        #expect(pending.deliver == Deliver(item: item, senderBundleID: "com.contoso.app0", receivedAs: "bob@contoso.com"))
        #expect(pending.take() == Deliver(item: item, senderBundleID: "com.contoso.app0", receivedAs: "bob@contoso.com"))
        #expect(pending.value.item == nil && pending.deliver == nil && pending.take() == nil, "a delivery is let go once taken")
        #expect(pending.itemID == "item-7", "the id an acknowledgement must name outlives the delivery it was sent in")
        pending.value.record = nil
        #expect(pending.itemID == "", "an answered delivery has no record")
        #if canImport(Glibc)
        // (Not in the Glibc module's headers: looked up as the C function it is.)
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        let symbol = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size"))
        // The smallest block of many: glibc may hand out a block a little larger than asked for
        // (one whose remainder is too small to split off), which says nothing of the object. In a
        // full, parallel test run the heap held enough such chunks that 17 came out 16 bytes
        // larger each; 256 reach past them to blocks cut to size.
        let others = (0..<255).map { _ in PendingDelivery(sender: sender, requestSeq: 9, record: record, item: item) }
        let usable = ([pending] + others).map { unsafeBitCast(symbol, to: UsableSize.self)(Unmanaged.passUnretained($0).toOpaque()) }.min()!
        // A debug build adds LoopBound's reference to its loop (a word, for the thread check),
        // which a release build does not have: the release object is one malloc step smaller.
        #if DEBUG
        let debugOnly = 16
        #else
        let debugOnly = 0
        #endif
        #expect(usable - debugOnly >= 116)
        #expect(usable - debugOnly <= 120, "a pending delivery now takes \(usable - debugOnly) bytes of the heap in a release build (116 when this was written): past 120, glibc's small bins serve it")
        #endif
        #expect(PendingDelivery.touchedBytes <= 120)
        #expect(loop.close() == 0)
    }

    /// An answered delivery that nothing else holds is kept by its sender, and its next share
    /// costs no delivery allocation, with nothing of the last share left in what it gets; one
    /// still held elsewhere, or not yet answered, or of a sender that no longer runs, is not
    /// kept. (Which kept object serves the next share is the pool's own business.)
    @Test func anAnsweredDeliveryIsKeptByItsSenderAndMadeNewForTheNextShare() throws {
        let loop = try EventLoop()
        let spec = AppSpec(handle: "app0", descriptor: AppDescriptor(bundleID: "com.contoso.app0"))
        let sender = ChildConnection(spec: spec, pipe: try Pipe(loop: loop), maximumFrameSize: 1 << 20)
        sender.life.welcomed(finishesLaunching: false)
        func record(_ id: String) -> ShareRecord {
            ShareRecord(from: "app0", fromBundle: "com.contoso.app0", identity: "", to: "app1", receivedAs: "bob@contoso.com",
                        itemID: id, owner: nil, outcome: .delivered)
        }
        let first = PendingDelivery.make(sender: sender, requestSeq: 3, record: record("item-1"), item: textItem("item-1", "one"))
        #expect(first.itemID == "item-1" && first.value.record?.receivedAs == "bob@contoso.com", "the record moves into the delivery")
        first.deadline = 500
        first.cost = 70
        first.wireSize = 170
        first.batched = true
        first.keepsReadBuffer = true
        PendingDelivery.keep(first)
        #expect(sender.value.ledger.sparesKept == 0, "not kept before it is answered")
        // (As `Broker.answer` leaves it: answered, its record moved out for the audit.)
        first.answered = true
        first.value.record = nil
        var holder: PendingDelivery? = first
        PendingDelivery.keep(first)
        #expect(sender.value.ledger.sparesKept == 0, "not kept while something else holds it")
        #expect(holder != nil)
        holder = nil
        PendingDelivery.keep(consume first)
        try #require(sender.value.ledger.sparesKept == 1)
        #expect(sender.value.ledger.keptSpare?.value.item == nil, "what it held is let go when it is kept")

        // The next share's delivery, made with one kept and (a sender of its own) with none:
        // the kept one spares at least the delivery's own allocation.
        let item2 = textItem("item-2", "two"), record2 = record("item-2")
        let fresh = ChildConnection(spec: spec, pipe: try Pipe(loop: loop), maximumFrameSize: 1 << 20)
        fresh.life.welcomed(finishesLaunching: false)
        var allocations: (kept: UInt64, none: UInt64) = (0, 0)
        var before = mamsim_allocations()
        let second = PendingDelivery.make(sender: sender, requestSeq: 4, record: record2, item: item2)
        allocations.kept = mamsim_allocations() - before
        before = mamsim_allocations()
        let other = PendingDelivery.make(sender: fresh, requestSeq: 4, record: record2, item: item2)
        allocations.none = mamsim_allocations() - before
        if mamsim_allocations_counted() == 1 { #expect(allocations.kept + 1 <= allocations.none, "\(allocations)") }
        #expect(sender.value.ledger.sparesKept == 0)
        _ = other
        #expect(second.value.requestSeq == 4 && second.itemID == "item-2" && second.value.record?.from == "app0")
        #expect(second.deadline == 0 && second.cost == 0 && second.wireSize == 0 && !second.answered && !second.batched && !second.keepsReadBuffer)
        #expect(second.take() == Deliver(item: textItem("item-2", "two"), senderBundleID: "com.contoso.app0", receivedAs: "bob@contoso.com"))

        second.answered = true
        second.value.record = nil
        sender.life.exited()
        PendingDelivery.keep(consume second)
        #expect(sender.value.ledger.sparesKept == 0, "a sender that no longer runs keeps nothing (what it kept holds it)")
        #expect(loop.close() == 0)
    }

    /// A sender's exit lets go of the deliveries it kept, and with them of itself.
    @Test func aSendersExitLetsGoOfWhatItKept() throws {
        let loop = try EventLoop()
        let spec = AppSpec(handle: "app0", descriptor: AppDescriptor(bundleID: "com.contoso.app0"))
        var sender: ChildConnection? = ChildConnection(spec: spec, pipe: try Pipe(loop: loop), maximumFrameSize: 1 << 20)
        weak let gone = sender
        sender!.life.welcomed(finishesLaunching: false)
        let record = ShareRecord(from: "app0", fromBundle: "com.contoso.app0", identity: "", to: "app1", receivedAs: "",
                                 itemID: "item-1", owner: nil, outcome: .delivered)
        let pending = PendingDelivery.make(sender: sender!, requestSeq: 3, record: record, item: textItem("item-1", "one"))
        pending.answered = true
        pending.value.record = nil
        PendingDelivery.keep(consume pending)
        try #require(sender!.value.ledger.sparesKept == 1)
        sender!.life.exited()
        #expect(sender!.value.ledger.drain().isEmpty, "it owed nothing")
        sender = nil
        #expect(gone == nil)
        #expect(loop.close() == 0)
    }
}

