import MAMDeviceState
import MAMLoop
import MAMModel
import MAMPolicy
import MAMWire

/// Answering through each child's delivery ledger (`DeliveryLedger`): the destination's
/// acknowledgements matched to the deliveries in flight, the sender answered exactly once (at
/// once, or through its batched answers at the loop's flush), the record audited, and the
/// deadlines and exits that end a delivery no acknowledgement will. It owns the bytes of every
/// app's shares not yet answered, which the broker's bound for all apps reads.
///
/// Used on the host's loop thread only (`LoopBound`).
final class ShareAnswers: LoopBound<ShareAnswers.State> {
    struct State {
        /// Bytes of every app's shares not yet answered (`Broker.cost`), for the host's
        /// overall bound.
        fileprivate(set) var bytesInFlight: Int = 0
        /// What the last range of acknowledgements read ahead (`SeqTable.touchObjects`), kept
        /// so that the reads are made.
        fileprivate var touched: UInt64 = 0
    }

    private let audit: AuditSink
    private let onEvent: (HostEvent) -> Void
    private let flush: BatchFlush
    /// `HostConfiguration.reportDeliveries`: each item accepted is reported (`received`).
    private let reportDeliveries: Bool
    private let deliveryTimeout: Duration
    /// The supervisor's: an extension started for a delivery ends when it has none left.
    private let end: (ChildConnection, String) -> Void

    /// On the loop `flush` flushes.
    init(audit: AuditSink, flush: BatchFlush, configuration: HostConfiguration,
         onEvent: @escaping (HostEvent) -> Void, end: @escaping (ChildConnection, String) -> Void) {
        self.audit = audit
        self.onEvent = onEvent
        self.flush = flush
        reportDeliveries = configuration.reportDeliveries
        deliveryTimeout = configuration.deliveryTimeout
        self.end = end
        super.init(State(), loop: flush.loop)
    }

    /// A delivery of `cost` bytes is on its way: counted until its sender is answered.
    func carry(_ cost: Int) { self.value.bytesInFlight += cost }

    func acknowledged(_ ack: DeliverAck, replyTo: UInt64, from destination: ChildConnection) throws {
        let pending: PendingDelivery
        switch destination.value.ledger.acknowledge(replyTo) {
        case .delivery(let p): pending = p
        case .late:
            // The sender was already told `failed(timeout)`; an honest app that answers late is
            // not hostile, and its answer changes nothing.
            onEvent(.note("\(destination.handle) acknowledged delivery \(replyTo) after its deadline; its sender was already told it timed out"))
            return
        case .unknown:
            if replyTo == 0 {
                throw HostileFrame("sent deliver_ack without reply_to: an acknowledgement must name its Deliver frame's seq in reply_to")
            }
            throw HostileFrame("acknowledged delivery \(replyTo), which it was never sent or already acknowledged")
        }
        guard ack.itemID == pending.itemID else {
            // Put back: the child is cut off for this, and its exit answers the sender, which
            // taken out here was never answered at all.
            destination.value.ledger.putBack(pending, at: replyTo)
            throw HostileFrame("acknowledged delivery \(replyTo) with item \(ack.itemID), but it carried \(pending.itemID)")
        }
        finish(pending, accepted: ack.accepted, by: destination)
        PendingDelivery.keep(consume pending)
        endIfIdle(destination)
    }

    /// A cumulative acknowledgement: every batched delivery in the range, declined ones
    /// excepted, was accepted. Seqs of other frames inside the range are not deliveries and
    /// are passed over; a range that acknowledges nothing the child was sent is hostile.
    func acknowledged(_ acks: DeliverAcks, from destination: ChildConnection) throws {
        let range = acks.first...acks.last
        if let outside = acks.declined.first(where: { !range.contains($0) }) {
            throw HostileFrame("declined delivery \(outside) outside its acknowledged range \(acks.first)…\(acks.last)")
        }
        let declined = Set(acks.declined)
        var matched = 0
        var late = 0
        // The range's deliveries are read from memory together first (`touchObjects`).
        self.value.touched = destination.value.ledger.touch(range, bytes: PendingDelivery.touchedBytes)
        for seq in destination.value.ledger.lookups(in: range) {
            switch destination.value.ledger.acknowledgeBatched(seq) {
            case .delivery(let pending):
                matched += 1
                finish(pending, accepted: !declined.contains(seq), by: destination)
                PendingDelivery.keep(consume pending)
            case .late: late += 1
            case .unknown: break
            }
        }
        if late > 0 {
            onEvent(.note("\(destination.handle) acknowledged \(late) deliveries after their deadline; their senders were already told they timed out"))
        }
        guard matched + late > 0 else {
            throw HostileFrame("acknowledged deliveries \(acks.first)…\(acks.last), none of which it was sent in a batch or still owed")
        }
        endIfIdle(destination)
    }

    private func finish(_ pending: PendingDelivery, accepted: Bool, by destination: ChildConnection) {
        if accepted {
            if reportDeliveries, let item = pending.value.item {
                onEvent(.received(handle: destination.handle, ReceivedItem(
                    item: item, from: pending.value.record?.from ?? "", receivedAs: pending.value.record?.receivedAs ?? "")))
            }
            answer(pending, .delivered)
        } else {
            answer(pending, .failed(.badRequest, "\(destination.handle) declined the item"))
        }
    }

    /// An extension started for a delivery ends when it has no delivery left.
    private func endIfIdle(_ child: ChildConnection) {
        guard child.endsWhenIdle, child.state == .ready, child.value.ledger.isIdle else { return }
        end(child, "request completed")
    }

    func answer(_ pending: PendingDelivery, _ outcome: Verdict) {
        guard !pending.answered else { return }
        pending.answered = true
        pending.sender.value.ledger.release(cost: pending.cost, readBuffer: pending.keepsReadBuffer)
        self.value.bytesInFlight -= pending.cost
        // The record moves out (a copy of it is a dozen retains), leaving none: an answered
        // delivery has no record.
        switch pending.value.record.take() {
        case .some(let record): answer(pending.sender, pending.value.requestSeq, outcome, taking: record)
        case .none:
            // Not reached (a delivery not yet answered has its record); its sender is answered
            // all the same.
            assertionFailure("a delivery not yet answered has its record")
            answer(pending.sender, pending.value.requestSeq, outcome, taking: ShareRecord(
                from: pending.sender.handle, fromBundle: pending.sender.bundleID, identity: "", to: "", receivedAs: "",
                itemID: "", owner: nil, outcome: .delivered))
        }
    }

    /// Answers a share with its record, which is left empty (the slower paths').
    func answer(_ share: inout ShareInFlight, _ outcome: consuming Verdict) {
        guard let record = share.record.take() else { return assertionFailure("a share is answered once") }
        answer(share.sender, share.seq, outcome, taking: record)
    }

    /// Answers with `record`, which is left empty (the slower paths' records).
    func answer(_ sender: ChildConnection, _ seq: UInt64, _ outcome: consuming Verdict, _ record: inout ShareRecord) {
        answer(sender, seq, outcome, taking: record.taken())
    }

    /// (`outcome` is consumed: its last use moves it into the record.)
    func answer(_ sender: ChildConnection, _ seq: UInt64, _ outcome: consuming Verdict, taking record: consuming ShareRecord) {
        switch sender.value.ledger.answered(seq, outcome, live: sender.isLive || sender.state == .closing) {
        case .batched: flush.schedule(sender)
        case .alone: sender.send(.shareResult(copy outcome), replyTo: seq)
        case .nowhere: break
        }
        record.outcome = outcome
        audit.record(record)
        // The record's last use: it moves into the event.
        onEvent(.share(consume record))
    }

    /// A child is gone: every delivery it owed an answer for fails now.
    func failOutstandingWork(of child: ChildConnection, how: String) {
        let why = "\(child.handle) ended before acknowledging the item: \(how)"
        for p in child.value.ledger.drain() { answer(p, .failed(.appNotRunning, why)) }
    }

    /// Deliveries past their deadline: the sender is told `failed(timeout)`, and the
    /// destination's late acknowledgement will be ignored.
    func expireDeliveries(of child: ChildConnection, now: UInt64) {
        // Every 50 ms of a flood, most of a thousand deliveries in flight, none late: looked
        // through where they lie, not copied out (a retain, a release and a tuple's destroy
        // each).
        guard child.value.ledger.hasExpired(at: now) else { return }
        for (_, p) in child.value.ledger.expire(at: now) {
            answer(p, .failed(.timeout, "\(child.handle) did not acknowledge the item within \(deliveryTimeout)"))
        }
    }
}
