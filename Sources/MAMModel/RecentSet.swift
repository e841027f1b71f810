/// The most recent elements remembered, at most `capacity` of them: the oldest is forgotten
/// when a new one comes. For ids and sequence numbers that only matter while recent (a
/// re-sent delivery, a late acknowledgement), so a process that sees a million of them keeps
/// a bounded window.
///
/// A ring of the elements in arrival order with each one's hash, indexed by an open-addressing
/// table of ring positions (linear probing, at most half full, deletion by backward shift).
/// Each slot holds its position and the low half of its element's hash, so a probe and a
/// backward shift read the table alone: reading the hash array at each probed position cost a
/// cache miss each once a hundred apps shared the caches.
/// Each element is hashed once, when it is remembered: forgetting the oldest finds it by its
/// stored hash and moves its neighbours by theirs. (A `Set` beside the ring hashed the oldest
/// again to remove it, and its deletion rehashed every neighbour it moved: a receiving app's
/// largest cost in a flood of deliveries.) Hashes are the process's seeded
/// `hashValue`, so elements a peer chooses cannot be made to collide on purpose.
///
/// Inlinable: every user specialises it for its own element type (a generic table across a
/// module boundary hashed and compared through witness tables).
public struct RecentSet<Element: Hashable>: Sendable where Element: Sendable {
    /// The window in arrival order, a ring once full; `nil` where an element was forgotten.
    @usableFromInline var ring: [Element?] = []
    /// Each ring position's hash.
    @usableFromInline var hashes: [Int] = []
    /// Ring position + 1 in the low 32 bits (0: empty), the element hash's low 32 bits in the
    /// high ones; a power of two long, at least twice the ring (at most 2^32: a home slot is
    /// the hash's low bits).
    @usableFromInline var slots: [UInt64] = []
    /// The ring position the next element replaces once the ring is full.
    @usableFromInline var next = 0
    @usableFromInline var live = 0
    public let capacity: Int

    /// Nothing is reserved up front: most windows never fill (every app and every child
    /// connection has one, and a fleet would otherwise fault in ~200 KiB per app at start).
    @inlinable
    public init(capacity: Int) {
        precondition(capacity > 0 && capacity < Int(Int32.max), "a RecentSet holds between 1 and 2^31 - 2 elements")
        self.capacity = capacity
    }

    @inlinable
    public func contains(_ element: Element) -> Bool { slot(of: element, hash: element.hashValue) != nil }

    /// How many elements are remembered now.
    @inlinable
    public var count: Int { live }

    /// The remembered elements, in no order.
    @inlinable
    public var elements: Set<Element> { Set(ring.lazy.compactMap { $0 }) }

    /// Remembers `element`; `false` if it was remembered already.
    @inlinable @discardableResult
    public mutating func remember(_ element: Element) -> Bool {
        remember(element, hash: element.hashValue)
    }

    /// `remember(element)` with the element's `hashValue` already at hand (see `touch`).
    @inlinable @discardableResult
    public mutating func remember(_ element: Element, hash: Int) -> Bool {
        assert(hash == element.hashValue, "RecentSet.remember was given another hash than the element's")
        guard slot(of: element, hash: hash) == nil else { return false }
        let position: Int
        if ring.count < capacity {
            position = ring.count
            ring.append(element)
            hashes.append(hash)
            if ring.count * 2 > slots.count {
                // The new table indexes the ring as it stands, this element included.
                rebuild(size: max(16, slots.count * 2))
                live += 1
                return true
            }
        } else {
            position = next
            if ring[position] != nil {
                clear(slotOfPosition(position))
                live -= 1
            }
            ring[position] = element
            hashes[position] = hash
            next = next + 1 == capacity ? 0 : next + 1
        }
        insert(position)
        live += 1
        return true
    }

    /// Reads, all at once, the table's slots that remembering elements of these hashes in
    /// this order will read first: where each is looked up, and, once the window is full,
    /// where each of as many oldest elements is found to be forgotten. Changes nothing.
    ///
    /// Remembered one at a time, each element waited for its own cache misses: with fifty
    /// receiving apps taking turns on one CPU, each one's table (64 KiB at 4,096) has left the
    /// cache by its next turn, so many pairs paid a miss per element. Loads that do not depend
    /// on each other overlap, so a batch waits for its misses about once. The sum only keeps
    /// the loads from being dropped.
    @inlinable
    public func touch(hashes: UnsafeBufferPointer<Int>) -> UInt64 {
        guard !slots.isEmpty, !hashes.isEmpty else { return 0 }
        let mask = slots.count - 1
        var sum: UInt64 = 0
        slots.withUnsafeBufferPointer { table in
            for hash in hashes { sum &+= table[hash & mask] }
            guard ring.count == capacity else { return }
            self.hashes.withUnsafeBufferPointer { ringHashes in
                var position = next
                for _ in 0..<min(hashes.count, capacity) {
                    sum &+= table[ringHashes[position] & mask]
                    position = position + 1 == capacity ? 0 : position + 1
                }
            }
        }
        return sum
    }

    /// Forgets `element` now; `false` if it was not remembered. (Its slot in the window is
    /// reused in turn: an element remembered again after `forget` may be forgotten early.)
    @inlinable @discardableResult
    public mutating func forget(_ element: Element) -> Bool {
        guard let i = slot(of: element, hash: element.hashValue) else { return false }
        let position = Self.position(slots[i])
        clear(i)
        ring[position] = nil
        live -= 1
        return true
    }

    // MARK: - The table

    /// A slot's ring position (`nil` when empty) and its home slot under `mask`.
    @inlinable
    static func position(_ s: UInt64) -> Int { Int(truncatingIfNeeded: s & 0xFFFF_FFFF) - 1 }

    @inlinable
    static func home(_ s: UInt64, _ mask: Int) -> Int { Int(truncatingIfNeeded: s >> 32) & mask }

    @inlinable
    static func entry(position: Int, hash: Int) -> UInt64 {
        UInt64(truncatingIfNeeded: position + 1) | UInt64(truncatingIfNeeded: hash) << 32
    }

    @inlinable
    func slot(of element: Element, hash: Int) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        let fragment = UInt64(truncatingIfNeeded: hash) << 32
        var i = hash & mask
        while true {
            let s = slots[i]
            if s == 0 { return nil }
            if s & 0xFFFF_FFFF_0000_0000 == fragment {
                let position = Self.position(s)
                if hashes[position] == hash, ring[position] == element { return i }
            }
            i = (i + 1) & mask
        }
    }

    /// The slot holding ring position `position`, if any.
    @inlinable
    func slot(ofPosition position: Int) -> Int? {
        let mask = slots.count - 1
        let wanted = UInt64(truncatingIfNeeded: position + 1)
        var i = hashes[position] & mask
        while true {
            let s = slots[i]
            if s == 0 { return nil }
            if s & 0xFFFF_FFFF == wanted { return i }
            i = (i + 1) & mask
        }
    }

    @inlinable
    func slotOfPosition(_ position: Int) -> Int {
        guard let i = slot(ofPosition: position) else { preconditionFailure("RecentSet lost the slot of a remembered element") }
        return i
    }

    @inlinable
    mutating func insert(_ position: Int) {
        let mask = slots.count - 1
        var i = hashes[position] & mask
        while slots[i] != 0 { i = (i + 1) & mask }
        slots[i] = Self.entry(position: position, hash: hashes[position])
    }

    /// Empties slot `i` and moves back each following entry that the hole would otherwise
    /// hide from its probe (backward-shift deletion: no tombstones).
    @inlinable
    mutating func clear(_ i: Int) {
        let mask = slots.count - 1
        var hole = i
        var j = i
        while true {
            j = (j + 1) & mask
            let s = slots[j]
            if s == 0 { break }
            let home = Self.home(s, mask)
            // The entry at j may fill the hole when the hole lies on its probe, between its
            // home slot and j (cyclically).
            if (j &- home) & mask >= (j &- hole) & mask {
                slots[hole] = s
                hole = j
            }
        }
        slots[hole] = 0
    }

    @inlinable
    mutating func rebuild(size: Int) {
        slots = [UInt64](repeating: 0, count: size)
        for position in ring.indices where ring[position] != nil { insert(position) }
    }
}
