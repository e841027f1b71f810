import MAMModel
import MAMWire

/// The broker's ledger of one child: with the child's frame reader and sequence, the only
/// loop-bound state a share touches (`ChildLoopState.ledger`). As a destination, what the
/// child was sent and owes an acknowledgement for, what timed out, what waits for its
/// handshake, and its outbox; as a sender, its shares and their bytes in flight and the
/// deliveries kept for its next shares.
///
/// Kept by the broker in the child's own state rather than in a table of the broker's: a share
/// reaches it from the child its frame came from, one address away, where a table was a
/// lookup per item. Its operations are the ledger's rules, and return what ended; answering
/// the sender (the audit, the events, the frames) stays `ShareAnswers`'s.
///
/// Generic over the delivery it keeps (the host's `PendingDelivery`), of which it reads only
/// what `LedgerDelivery` names: its rules are tested with plain objects and no event loop, as
/// swift-nio's `PendingWritesManager` is.
struct DeliveryLedger<Delivery: LedgerDelivery> {
    // As a destination.

    /// Deliveries sent to this child and not yet acknowledged, by the Deliver frame's seq.
    private var pending: SeqTable<Delivery> = SeqTable<Delivery>()
    /// Deliveries that timed out: a late acknowledgement of one is honest, not hostile.
    private var expired: RecentSet<UInt64> = RecentSet<UInt64>(capacity: 4096)
    /// Deliveries waiting for this child to finish its handshake (an extension started on demand).
    private var queued: [Delivery] = []
    /// What leaves for this child at the broker's next flush (`Outbox`, as an app's): the
    /// deliveries decided this loop iteration (weighed by `PendingDelivery.wireSize`), sent
    /// together before the loop writes, and the answers to its batched shares (cumulative
    /// `shareResults`): each share's seq with 0 when it was delivered, else 1 + its outcome's
    /// index in `batchedExceptions` — plain numbers: a `Verdict` in each was a copy and a
    /// destroy of its string per share, though nearly every one is `delivered`. The
    /// deliveries are optional so that a flush moves each one out into `pending`, leaving
    /// `nil` (a copy there, and the list's release of it when emptied, was a retain and a
    /// release per item).
    private var outbox: Outbox<Delivery?, Int> = Outbox<Delivery?, Int>()

    // As a sender.

    /// Shares this child sent that have not been answered yet.
    private(set) var sharesInFlight: Int = 0
    /// Bytes of this child's pending deliveries (`HostConfiguration.maximumBytesInFlight`).
    private(set) var bytesInFlight: Int = 0
    /// This child's pending deliveries whose payload lies in a read buffer.
    private(set) var readBuffersInFlight: Int = 0
    /// Shares the child sent in `shareBatch` frames and not yet answered, by seq.
    private var batchedSharesInFlight: SeqSet = SeqSet()
    /// The outcomes of the outbox's answers other than `delivered`, in the order they came.
    private var batchedExceptions: [Verdict] = []
    /// Answered deliveries of this child's shares, kept for its next shares
    /// (`PendingDelivery.make`). Each holds this child: `drain` lets them go when it
    /// exits.
    private var spare: [Delivery] = []

    /// The most `spare` deliveries kept: a window of shares answered in one acknowledged range.
    private static var keptSpareDeliveries: Int { 1024 }

    /// What an acknowledgement of one seq finds.
    enum Acknowledged {
        /// A delivery in flight, taken out of the ledger: its sender is owed the answer.
        case delivery(Delivery)
        /// One that timed out: its sender was already answered.
        case late
        /// Nothing this child was sent, or already acknowledged.
        case unknown
    }

    /// An acknowledgement of the delivery sent as `seq`.
    mutating func acknowledge(_ seq: UInt64) -> Acknowledged {
        if let delivery = pending.removeValue(forKey: seq) { return .delivery(delivery) }
        return expired.forget(seq) ? .late : .unknown
    }

    /// The same for a seq inside a cumulative range: only a delivery sent in a batch is
    /// acknowledged by one (a lone `deliver` needs its own `deliver_ack`).
    mutating func acknowledgeBatched(_ seq: UInt64) -> Acknowledged {
        if let delivery = pending.take(seq, if: { $0.batched }) { return .delivery(delivery) }
        return expired.forget(seq) ? .late : .unknown
    }

    /// The seqs a cumulative acknowledgement of `range` must look up (`lookups`).
    func lookups(in range: ClosedRange<UInt64>) -> SeqLookups {
        MAMWire.lookups(in: range, among: pending, alsoWaiting: expired)
    }

    /// Whether any delivery in flight is past its deadline (loop ms).
    func hasExpired(at now: UInt64) -> Bool {
        pending.contains { $0.deadline <= now }
    }

    /// The deliveries past their deadline, taken out and remembered as expired (their late
    /// acknowledgements are then honest): their senders are owed `failed(timeout)`.
    mutating func expire(at now: UInt64) -> [(UInt64, Delivery)] {
        let ended = pending.entries.filter { $0.value.deadline <= now }
        for (seq, _) in ended {
            pending[seq] = nil
            expired.remember(seq)
        }
        return ended
    }

    /// Every delivery this child still owed an answer for — sent, in its outbox, or waiting
    /// for its handshake — taken out (it is gone), in that order; and the deliveries it kept
    /// for its own next shares let go.
    mutating func drain() -> [Delivery] {
        let owed = pending.entries.map(\.value) + outbox.removeItems().compactMap { $0 } + queued
        pending.removeAll()
        queued.removeAll()
        spare.removeAll()
        return owed
    }

    /// Nothing sent, queued or in the outbox for this child: an extension started for a
    /// delivery may end.
    var isIdle: Bool { pending.isEmpty && queued.isEmpty && !outbox.hasItems }

    /// A share of this child's was answered: where its answer goes — into the outbox when it
    /// came batched and the child can still read it (`live`; the caller schedules a flush),
    /// alone when it came alone and the child can still read it, else nowhere.
    mutating func answered(_ seq: UInt64, _ outcome: borrowing Verdict, live: Bool) -> Answer {
        sharesInFlight -= 1
        guard batchedSharesInFlight.remove(seq) else { return live ? .alone : .nowhere }
        guard live else { return .nowhere }
        if outcome.isDelivered {
            outbox.answer(seq, 0)
        } else {
            batchedExceptions.append(copy outcome)
            outbox.answer(seq, batchedExceptions.count)
        }
        return .batched
    }

    /// Where a share's answer goes.
    enum Answer {
        /// Into the outbox, for the next flush's `shareResults`.
        case batched
        /// Alone, as a `shareResult` replying to the share.
        case alone
        /// Nowhere: the sender can no longer read it.
        case nowhere
    }

    // MARK: Operations (the broker's only way in: each keeps every counter it touches)

    /// A share of this child's is under way (`batched`: answered in a cumulative range).
    @inline(__always)
    mutating func admit(_ seq: UInt64, batched: Bool) {
        if batched { batchedSharesInFlight.insert(seq) }
        sharesInFlight += 1
    }

    /// One of this child's deliveries is made: its bytes, and its read buffer when its payload
    /// still lies in one, count against the child until it is answered (`release`).
    @inline(__always)
    mutating func carry(cost: Int, readBuffer: Bool) {
        bytesInFlight += cost
        if readBuffer { readBuffersInFlight += 1 }
    }

    /// One of this child's deliveries was answered: what `carry` counted is given back.
    @inline(__always)
    mutating func release(cost: Int, readBuffer: Bool) {
        bytesInFlight -= cost
        if readBuffer { readBuffersInFlight -= 1 }
    }

    /// A delivery's payload no longer lies in this child's read buffer (moved out as sent).
    @inline(__always)
    mutating func releaseReadBuffer() { readBuffersInFlight -= 1 }

    /// A delivery kept from an answered share, for the next one (`PendingDelivery.make`).
    @inline(__always)
    mutating func reuseSpare() -> Delivery? { spare.popLast() }

    /// Whether another answered delivery may be kept.
    @inline(__always)
    var keepsMoreSpares: Bool { spare.count < Self.keptSpareDeliveries }

    @inline(__always)
    mutating func keepSpare(_ delivery: consuming Delivery) { spare.append(delivery) }

    /// How many answered deliveries are kept, and the last of them (what a test looks at).
    var sparesKept: Int { spare.count }
    var keptSpare: Delivery? { spare.last }

    /// A delivery waits for this child's handshake.
    @inline(__always)
    mutating func queue(_ delivery: consuming Delivery) { queued.append(delivery) }

    /// What waited for the handshake, in order; none is left.
    mutating func takeQueued() -> [Delivery] {
        let waiting = queued
        queued.removeAll()
        return waiting
    }

    /// A delivery sent to this child under `seq` awaits its acknowledgement.
    @inline(__always)
    mutating func awaitAcknowledgement(_ delivery: consuming Delivery, at seq: UInt64) { pending.insert(delivery, at: seq) }

    /// A delivery taken out by `acknowledge` goes back, its acknowledgement refused.
    mutating func putBack(_ delivery: Delivery, at seq: UInt64) { pending[seq] = delivery }

    /// Whether any delivery sent to this child awaits its acknowledgement, and how many do.
    var awaitsAcknowledgements: Bool { !pending.isEmpty }
    var awaitingAcknowledgement: Int { pending.count }

    /// Reads the deliveries of `range` from memory together (`SeqTable.touchObjects`).
    func touch(_ range: ClosedRange<UInt64>, bytes: Int) -> UInt64 { pending.touchObjects(in: range, bytes: bytes) }

    /// Bytes of deliveries waiting in the outbox.
    @inline(__always)
    var outboxBytes: Int { outbox.bytes }

    /// A delivery leaves at the next flush.
    @inline(__always)
    mutating func enqueue(_ delivery: consuming Delivery, weight: Int) { outbox.append(delivery, weight: weight) }

    /// Whether the outbox asks for a flush now (the first work since the last).
    @inline(__always)
    mutating func scheduleFlush() -> Bool { outbox.schedule() }

    @inline(__always)
    mutating func beginFlush() { outbox.beginFlush() }

    @inline(__always)
    var hasOutgoing: Bool { outbox.hasItems }

    /// The deliveries of this flush and their batches; give the list back (`giveBack`).
    @inline(__always)
    mutating func takeOutgoing() -> ([Delivery?], [Range<Int>]) { outbox.takeItems() }

    @inline(__always)
    mutating func giveBack(_ outgoing: inout [Delivery?]) { outbox.giveBack(&outgoing) }

    @inline(__always)
    var hasAnswers: Bool { outbox.hasAnswers }

    /// The answers to this child's batched shares and the exceptions they point to; give the
    /// list back (`giveBack(answers:)`).
    mutating func takeAnswers() -> (answers: [(UInt64, Int)], exceptions: [Verdict]) {
        let exceptions = batchedExceptions
        batchedExceptions.removeAll()
        return (outbox.takeAnswers(), exceptions)
    }

    @inline(__always)
    mutating func giveBack(answers: inout [(UInt64, Int)]) { outbox.giveBack(answers: &answers) }

    /// Whether `seq` is one of this child's batched shares still unanswered.
    @inline(__always)
    func isBatchedInFlight(_ seq: UInt64) -> Bool { batchedSharesInFlight.contains(seq) }
}

/// What the ledger reads of a delivery it keeps: whether it went in a batch (acknowledged by a
/// range) and when it times out. The rest of a delivery is its owner's.
protocol LedgerDelivery: AnyObject {
    var batched: Bool { get }
    var deadline: UInt64 { get }
}

extension PendingDelivery: LedgerDelivery {}
