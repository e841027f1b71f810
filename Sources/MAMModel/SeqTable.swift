/// Values by sequence number, for numbers handed out in increasing order (a connection's
/// frame seqs) and mostly taken back in that order: deliveries waiting for their
/// acknowledgement.
///
/// The entries are kept in seq order in one array; a lookup checks the oldest first and
/// otherwise searches by halves, and a removed entry is left empty until every older one is
/// gone. No hashing: a `Dictionary` keyed by seq hashed each seq on insert, lookup and removal,
/// on every share. A seq given out of order still lands in its place
/// (it costs a shift of the younger entries).
///
/// Inlinable, like `RecentSet`: each user specialises it for its own values.
public struct SeqTable<Value> {
    @usableFromInline var seqs: [UInt64] = []
    @usableFromInline var values: [Value?] = []
    /// Entries before `head` are empty (taken back), waiting to be dropped together.
    @usableFromInline var head = 0
    @usableFromInline var live = 0

    @inlinable
    public init() {}

    /// How many values are held.
    @inlinable
    public var count: Int { live }

    @inlinable
    public var isEmpty: Bool { live == 0 }

    @inlinable
    public subscript(seq: UInt64) -> Value? {
        get { index(of: seq).flatMap { values[$0] } }
        set {
            if let newValue { insert(newValue, at: seq) } else { removeValue(forKey: seq) }
        }
    }

    /// Takes back the value held for `seq`.
    @inlinable @discardableResult
    public mutating func removeValue(forKey seq: UInt64) -> Value? {
        guard let i = index(of: seq), let value = values[i] else { return nil }
        values[i] = nil
        live -= 1
        compact()
        return value
    }

    /// Takes back the value held for `seq` when `predicate` holds for it, moved out of the
    /// table: looked at where it lies and taken once, where a read and then a removal by seq
    /// found it twice and copied it (a retain and a release of a class value).
    @inlinable
    public mutating func take(_ seq: UInt64, if predicate: (Value) -> Bool) -> Value? {
        guard let i = index(of: seq), values[i].map(predicate) == true else { return nil }
        var taken: Value? = nil
        swap(&taken, &values[i])
        live -= 1
        compact()
        return taken
    }

    @inlinable
    public mutating func removeAll() {
        seqs.removeAll()
        values.removeAll()
        head = 0
        live = 0
    }

    /// Whether a value held satisfies `predicate`, oldest first, without copying the table out.
    @inlinable
    public func contains(where predicate: (Value) throws -> Bool) rethrows -> Bool {
        for i in head..<seqs.count { if let v = values[i], try predicate(v) { return true } }
        return false
    }

    /// The values held, by seq.
    @inlinable
    public var entries: [(seq: UInt64, value: Value)] {
        var out: [(seq: UInt64, value: Value)] = []
        out.reserveCapacity(live)
        for i in head..<seqs.count { if let v = values[i] { out.append((seqs[i], v)) } }
        return out
    }

    /// The seqs held inside `range`, in order.
    @inlinable
    public func seqs(in range: ClosedRange<UInt64>) -> [UInt64] {
        var out: [UInt64] = []
        var i = firstIndex(notBelow: range.lowerBound)
        while i < seqs.count, seqs[i] <= range.upperBound {
            if values[i] != nil { out.append(seqs[i]) }
            i += 1
        }
        return out
    }

    /// Holds `value` for `seq` (in place of any value held for it), moved in: a value passed
    /// on borrowed was copied into the table (a retain of a class value, and the caller's
    /// release of its own).
    @inlinable
    public mutating func insert(_ value: consuming Value, at seq: UInt64) {
        if seqs.isEmpty || seq > seqs[seqs.count - 1] {
            seqs.append(seq)
            values.append(consume value)
            live += 1
            return
        }
        let i = firstIndex(notBelow: seq)
        if i < seqs.count, seqs[i] == seq {
            if values[i] == nil { live += 1 }
            values[i] = consume value
            return
        }
        // Out of order: its place among the younger entries.
        seqs.insert(seq, at: i)
        values.insert(consume value, at: i)
        live += 1
    }

    // MARK: - Inside

    /// Where `seq` is held (its value may have been taken back).
    @inlinable
    func index(of seq: UInt64) -> Int? {
        // Acknowledgements come mostly in order: the oldest entry first.
        if head < seqs.count, seqs[head] == seq { return head }
        let i = firstIndex(notBelow: seq)
        return i < seqs.count && seqs[i] == seq ? i : nil
    }

    /// The first index at or after `head` whose seq is at least `seq`.
    @inlinable
    func firstIndex(notBelow seq: UInt64) -> Int {
        var low = head, high = seqs.count
        while low < high {
            let mid = low + (high - low) / 2
            if seqs[mid] < seq { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Drops the empty entries at both ends; the array itself is shortened only when its
    /// empty front outweighs the rest, so taking back in order costs no shift per value.
    @inlinable
    mutating func compact() {
        while head < seqs.count, values[head] == nil { head += 1 }
        while seqs.count > head, values[seqs.count - 1] == nil {
            seqs.removeLast()
            values.removeLast()
        }
        if head == seqs.count {
            seqs.removeAll(keepingCapacity: true)
            values.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= seqs.count {
            seqs.removeFirst(head)
            values.removeFirst(head)
            head = 0
        }
    }
}

extension SeqTable: Sendable where Value: Sendable {}

extension SeqTable where Value: AnyObject {
    /// Reads, all at once, one byte of each 64-byte line of the first `bytes` bytes of every
    /// object held for a seq inside `range` (`bytes`: at most the objects' size). Changes
    /// nothing, and takes no reference: the objects' addresses are read from the table's
    /// memory as words, so no count is touched before the objects are needed.
    ///
    /// Answering a range of acknowledgements reads each delivery's object, which was made a
    /// window of items earlier and has left the cache by then: one at a time, each waited for
    /// its own misses, which grew with the pairs. Loads that do not depend on each other
    /// overlap, so a range waits for its misses about once. The sum only keeps the loads from
    /// being dropped.
    @inlinable
    public func touchObjects(in range: ClosedRange<UInt64>, bytes: Int) -> UInt64 {
        assert(MemoryLayout<Value?>.size == MemoryLayout<UInt>.size, "a class value's optional is its address")
        var sum: UInt64 = 0
        let first = firstIndex(notBelow: range.lowerBound)
        guard first < seqs.count else { return 0 }
        values.withUnsafeBytes { raw in
            // `Value?` for a class is one word: the object's address, or 0 for nil.
            var i = first
            while i < seqs.count, seqs[i] <= range.upperBound {
                let address = raw.load(fromByteOffset: i * MemoryLayout<Value?>.stride, as: UInt.self)
                if let object = UnsafeRawPointer(bitPattern: address) {
                    var offset = 0
                    while offset < bytes {
                        sum &+= UInt64(object.load(fromByteOffset: offset, as: UInt8.self))
                        offset += 64
                    }
                }
                i += 1
            }
        }
        return sum
    }
}

/// A set of sequence numbers handed out in increasing order and mostly taken back in that
/// order (a connection's batched shares not yet answered): a `SeqTable` of presence. A
/// `Set<UInt64>` hashed each seq on insert and removal and rehashed its neighbours on every
/// removal, on every brokered item.
public struct SeqSet {
    @usableFromInline var table = SeqTable<Bool>()

    @inlinable
    public init() {}

    @inlinable
    public var count: Int { table.count }

    @inlinable
    public var isEmpty: Bool { table.isEmpty }

    @inlinable
    public func contains(_ seq: UInt64) -> Bool { table[seq] != nil }

    @inlinable
    public mutating func insert(_ seq: UInt64) { table.insert(true, at: seq) }

    /// Takes `seq` back; whether it was there.
    @inlinable @discardableResult
    public mutating func remove(_ seq: UInt64) -> Bool { table.removeValue(forKey: seq) != nil }

    @inlinable
    public mutating func removeAll() { table.removeAll() }
}

extension SeqSet: Sendable {}
