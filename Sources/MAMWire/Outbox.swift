/// What one end of a conversation gathers during a loop iteration and writes together just
/// before the loop writes: items (the host's deliveries to an app, an app's shares), cut into
/// batches by count and bytes (`batchRanges`), and answers to the peer's batched frames (the
/// host's to an app's shares, an app's acknowledgements of deliveries), folded into cumulative
/// ranges (`cumulativeRuns`) as they are written. The host and the apps keep one each per
/// conversation, so that a batch is cut, an answer folded and their storage reused one way at
/// both ends.
///
/// What is taken out to be written is handed back emptied (`giveBack`): the storage stays for
/// the next iteration, where a list made anew per flush grew past glibc's small blocks; a list
/// a large burst made large is let go. Taking out, rather than writing through a closure, lets
/// the writer touch the rest of the state this outbox lies in while it writes.
///
/// `@frozen` and `@inlinable`: specialised where it is used, on the path of every item.
@frozen
public struct Outbox<Item, Answer> {
    @usableFromInline var items: [Item] = []
    /// Each item's weight (about its bytes in a frame), for `batchRanges`: measured when the
    /// item was at hand, where weighing it in the list copied it out.
    @usableFromInline var weights: [Int] = []
    @usableFromInline var weightTotal: Int = 0
    @usableFromInline var answers: [(UInt64, Answer)] = []
    @usableFromInline var scheduled: Bool = false

    /// A list whose capacity grew past this (a burst) is let go rather than kept.
    public static var keptCapacity: Int { StringPool.keptBatchItems }

    @inlinable
    public init() {}

    /// Nothing gathered: no item, no answer.
    @inlinable
    public var isEmpty: Bool { items.isEmpty && answers.isEmpty }
    @inlinable
    public var hasItems: Bool { !items.isEmpty }
    @inlinable
    public var hasAnswers: Bool { !answers.isEmpty }
    @inlinable
    public var itemCount: Int { items.count }
    /// The weights of the items gathered and not yet written.
    @inlinable
    public var bytes: Int { weightTotal }

    /// Marks the outbox as waiting for the next flush; `true` when it was not yet (the caller
    /// then arranges that flush, once).
    @inlinable
    public mutating func schedule() -> Bool {
        guard !scheduled else { return false }
        scheduled = true
        return true
    }

    /// The flush has come: the next item or answer schedules one again.
    @inlinable
    public mutating func beginFlush() { scheduled = false }

    /// `weight`: about the item's bytes in a frame.
    @inlinable
    public mutating func append(_ item: consuming Item, weight: Int) {
        weights.append(weight)
        weightTotal += weight
        items.append(item)
    }

    /// An answer to the peer's batched frame `seq`.
    @inlinable
    public mutating func answer(_ seq: UInt64, _ answer: Answer) {
        answers.append((seq, answer))
    }

    /// The items gathered, and the batches to write them in (`batchRanges`; a range of one is
    /// a lone item): this outbox is left with none. Hand the list back (`giveBack`) once written.
    @inlinable
    public mutating func takeItems() -> (items: [Item], batches: [Range<Int>]) {
        var taken: [Item] = []
        swap(&taken, &items)
        let batches = batchRanges(weights) { $0 }
        weights.removeAll(keepingCapacity: true)
        weightTotal = 0
        return (taken, batches)
    }

    /// The answers gathered, in the order they came, for `cumulativeRuns` (given what is still
    /// in flight, which lies beside this outbox: read here, it would be read while this is
    /// written). This outbox is left with none; hand the list back (`giveBack(answers:)`) once
    /// written.
    @inlinable
    public mutating func takeAnswers() -> [(UInt64, Answer)] {
        var taken: [(UInt64, Answer)] = []
        swap(&taken, &answers)
        return taken
    }

    /// Gives back a written list of items, emptied, for the next iteration's: kept unless a
    /// burst made it large, or items were gathered meanwhile.
    @inlinable
    public mutating func giveBack(_ list: inout [Item]) {
        list.removeAll(keepingCapacity: true)
        if items.isEmpty, items.capacity < list.capacity, list.capacity <= Self.keptCapacity { swap(&items, &list) }
    }

    /// The same for a written list of answers.
    @inlinable
    public mutating func giveBack(answers list: inout [(UInt64, Answer)]) {
        list.removeAll(keepingCapacity: true)
        if answers.isEmpty, answers.capacity < list.capacity, list.capacity <= Self.keptCapacity { swap(&answers, &list) }
    }

    /// The items gathered, taken out unwritten (their peer is gone), in their order. The
    /// answers stay: they are the peer's as a sender, written if it may still read them.
    @inlinable
    public mutating func removeItems() -> [Item] {
        let taken = items
        items = []
        weights = []
        weightTotal = 0
        return taken
    }
}

/// The numbers one end of a conversation gives the frames it sends (`Frame.seq`): from 1, one
/// per frame and one per item of a batch (the batch's frame takes the number after its items),
/// never reused. The host keeps one per child, an app one for its channel: numbered one way,
/// a batch's items and its frame read alike at both ends.
@frozen
public struct FrameNumbers: Sendable {
    @usableFromInline var next: UInt64 = 1

    @inlinable
    public init() {}

    /// The number of the next frame (or batched item).
    @inlinable
    public mutating func take() -> UInt64 {
        let seq = next
        next += 1
        return seq
    }

    /// The numbers of a batch's `count` items, in order (none for 0); its frame takes the
    /// next one.
    @inlinable
    public mutating func take(_ count: Int) -> Range<UInt64> {
        let first = next
        next += UInt64(count)
        return first..<next
    }
}
