import MAMModel
import Testing
@testable import MAMKit

@Test func recentIDsForgetTheOldestBeyondTheirCapacity() {
    var ids = RecentSet<String>(capacity: 3)
    for id in ["a", "b", "c"] { ids.remember(id) }
    #expect(ids.contains("a") && ids.contains("b") && ids.contains("c"))
    ids.remember("b")  // already known: nothing is evicted
    ids.remember("d")
    #expect(!ids.contains("a"))
    #expect(ids.contains("b") && ids.contains("c") && ids.contains("d"))
    ids.remember("e")
    #expect(!ids.contains("b"))
    #expect(ids.contains("e"))
}

@Test func theSameItemIDFromTwoSendersIsTwoItems() {
    var ids = RecentIDs(capacity: 8)
    ids.remember(DeliveredItem(sender: 0, id: "x"))
    #expect(ids.contains(DeliveredItem(sender: 0, id: "x")))
    #expect(!ids.contains(DeliveredItem(sender: 1, id: "x")))
}

/// Elements whose hashes collide in threes, so probing and backward-shift deletion run long.
private struct Colliding: Hashable, Sendable {
    let value: Int
    func hash(into hasher: inout Hasher) { hasher.combine(value % 3) }
}

/// What a window remembers, written the slow way: a ring scanned from end to end.
private struct SlowWindow<Element: Equatable> {
    var ring: [Element?] = []
    var next = 0
    let capacity: Int
    func contains(_ e: Element) -> Bool { ring.contains { $0 == e } }
    mutating func remember(_ e: Element) -> Bool {
        if contains(e) { return false }
        if ring.count < capacity { ring.append(e) } else { ring[next] = e; next = (next + 1) % capacity }
        return true
    }
    mutating func forget(_ e: Element) -> Bool {
        guard let i = ring.firstIndex(where: { $0 == e }) else { return false }
        ring[i] = nil
        return true
    }
}

private func checkAgainstTheSlowWindow<E: Hashable & Sendable>(capacity: Int, steps: Int, seed: UInt64, _ make: (Int) -> E) {
    var state = seed
    func random(_ n: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(n))
    }
    var window = RecentSet<E>(capacity: capacity)
    var slow = SlowWindow<E>(capacity: capacity)
    let domain = capacity * 3
    for step in 0..<steps {
        let e = make(random(domain))
        switch random(4) {
        case 0: #expect(window.forget(e) == slow.forget(e), "forget, step \(step)")
        case 1: #expect(window.contains(e) == slow.contains(e), "contains, step \(step)")
        default: #expect(window.remember(e) == slow.remember(e), "remember, step \(step)")
        }
        #expect(window.count == slow.ring.compactMap { $0 }.count, "count, step \(step)")
    }
    for v in 0..<domain { #expect(window.contains(make(v)) == slow.contains(make(v))) }
    #expect(window.elements == Set(slow.ring.compactMap { $0 }))
}

@Test(arguments: [1, 2, 3, 7, 8, 64, 300])
func aWindowRemembersWhatTheSlowWindowRemembers(capacity: Int) {
    checkAgainstTheSlowWindow(capacity: capacity, steps: 4000, seed: UInt64(capacity)) { $0 }
    checkAgainstTheSlowWindow(capacity: capacity, steps: 4000, seed: UInt64(capacity) + 99) { Colliding(value: $0) }
    checkAgainstTheSlowWindow(capacity: capacity, steps: 2000, seed: UInt64(capacity) + 7) { "item-\($0)-with-an-id-longer-than-fifteen-bytes" }
}

@Test func anItemRememberedAgainAfterItWasForgottenKeepsItsNewPlace() {
    var ids = RecentSet<String>(capacity: 2)
    ids.remember("a")
    ids.forget("a")
    ids.remember("b")   // the ring is full: a's old place, then b
    ids.remember("a")   // replaces a's old place
    #expect(ids.contains("a") && ids.contains("b"))
    ids.remember("c")   // replaces b
    #expect(ids.contains("a") && !ids.contains("b") && ids.contains("c"))
}

/// A channel remembers a batch's ids with their hashes computed first and the table read for
/// all of them (`touch`): the window must come out as remembering them one at a time would.
@Test(arguments: [1, 3, 8, 300])
func aBatchTouchedFirstIsRememberedAsOneAtATime(capacity: Int) {
    var state = UInt64(capacity) &* 0x9E37_79B9_7F4A_7C15
    func random(_ n: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(n))
    }
    var window = RecentSet<String>(capacity: capacity)
    var slow = SlowWindow<String>(capacity: capacity)
    for round in 0..<500 {
        let batch: [String] = (0...random(12)).map { _ in "id-\(random(capacity * 3))" }
        let hashes = batch.map(\.hashValue)
        let before = window.elements
        _ = hashes.withUnsafeBufferPointer { window.touch(hashes: $0) }
        #expect(window.elements == before, "touch changed the window, round \(round)")
        for (id, hash) in zip(batch, hashes) {
            #expect(window.remember(id, hash: hash) == slow.remember(id), "remember \(id), round \(round)")
        }
        if random(4) == 0 {
            let id = "id-\(random(capacity * 3))"
            #expect(window.forget(id) == slow.forget(id), "forget \(id), round \(round)")
        }
    }
    #expect(window.elements == Set(slow.ring.compactMap { $0 }))
}

/// What the channel computes for a batch is the hash its window's keys have.
@Test func anItemsIDHashIsTheHashOfItsDeliveredKey() {
    for id in ["", "a", "f123", "item-with-an-id-longer-than-fifteen-bytes", "é-ünïcödé-✓"] {
        let item = Item(id: id, typeIdentifiers: ["public.data"], payload: .inline([1]))
        #expect(item.idHashValue == DeliveredItem(sender: 7, id: id).hashValue, "id \(id)")
    }
}
