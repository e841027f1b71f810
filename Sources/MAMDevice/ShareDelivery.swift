import MAMDeviceState
import MAMLoop
import MAMModel
import MAMPolicy
import MAMWire

/// A decided share handed to its destination: stamped with its owner, under the type names
/// the destination expects, a file placed in its Inbox (`Inbox`), then sent at once, batched
/// until the loop's next flush (`BatchFlush`), queued until the destination is ready, or
/// answered (`ShareAnswers`) when it cannot be; an extension is started on demand.
///
/// Used on the host's loop thread only. A class: the broker reaches it through one reference.
final class ShareDelivery {
    /// The prefix of the twins of an extension's types that carry managed data (MAMActivation's
    /// `UTIRegistry.intunePrefix`; the device does not depend on the activation rules' module).
    private static let intunePrefix = "com.microsoft.intune.mam."

    private let supervisor: Supervisor
    private let configuration: HostConfiguration
    /// `configuration.deliveryTimeout` in loop time, converted once: converting a `Duration`
    /// on every delivery cost more than the delivery's bookkeeping.
    private let deliveryTimeoutMilliseconds: UInt64
    /// `supervisor.loop`, for its clock: read through the supervisor, the loop was retained
    /// and released for each delivery's deadline.
    private let loop: EventLoop
    private let inbox: Inbox
    private let flush: BatchFlush
    private let answers: ShareAnswers

    init(supervisor: Supervisor, inbox: Inbox, flush: BatchFlush, answers: ShareAnswers) {
        self.supervisor = supervisor
        configuration = supervisor.configuration
        deliveryTimeoutMilliseconds = configuration.deliveryTimeout.milliseconds
        loop = supervisor.loop
        self.inbox = inbox
        self.flush = flush
        self.answers = answers
    }

    /// Stamps the owner and hands the item to the destination (starting an extension on
    /// demand); the sender is answered when the destination acknowledges or fails.
    /// The share's record is completed where it lies, and moves into the delivery. `share` by
    /// reference: passed as a value it was copied whole and destroyed, record and all, per
    /// share (the compiler's outlined copy of it, about 170 instructions).
    func deliver(_ request: ShareRequest, _ share: inout ShareInFlight, plan: SharePlan) {
        // The record moves out of the share (a copy is a dozen retains); its other fields are
        // read where they lie.
        guard var record = share.record.take() else { return assertionFailure("a share is delivered once") }
        // A constant, made by a function of its own, so that it can move into the delivery
        // below: a variable kept to the end of this function was a retain and a release of
        // the item's box and of its owner per share.
        guard let item = stamped(request, share, plan: plan, record: &record) else { return }
        // The delivery's receiver is its record's: `plan.receiverUPN` in every path here.
        assert(record.receivedAs == plan.receiverUPN)
        // Measured before the item moves into the delivery: read after, the item was a second
        // reference to its box (a retain and a release per share).
        let cost = Broker.cost(of: item)
        let wireSize = item.approximateWireSize
        let keepsReadBuffer = item.isInReadBuffer
        // The record moves into the delivery (a copy is a dozen retains), and nothing is left
        // in its place: an empty record left here was a retain and a release of the shared
        // empty parties per share.
        let pending = PendingDelivery.make(sender: share.sender, requestSeq: share.seq, record: consume record, item: consume item)
        pending.cost = cost
        pending.wireSize = wireSize
        pending.keepsReadBuffer = keepsReadBuffer
        share.sender.value.ledger.carry(cost: cost, readBuffer: keepsReadBuffer)
        answers.carry(cost)
        pending.deadline = loop.now + deliveryTimeoutMilliseconds
        if let destination = supervisor.child(share.destination.spec.key), destination.isLive {
            // (The delivery moves into the destination's tables: kept to the end of this
            // function, it was a retain and a release per share.)
            if destination.state == .ready {
                offer(consume pending, to: destination)
            } else if destination.state == .spawning {
                destination.value.ledger.queue(consume pending)
            } else {
                answers.answer(pending, .failed(.appNotRunning, "\(share.destination.spec.handle) is shutting down"))
            }
        } else if !share.destination.spec.startsWithFleet {
            // An extension runs when an item is shared to it.
            supervisor.launch(share.destination.spec) { _ in }
            if let destination = supervisor.child(share.destination.spec.key), destination.isLive {
                destination.value.ledger.queue(pending)
            } else {
                answers.answer(pending, .failed(.appNotRunning, "\(share.destination.spec.handle) could not be started"))
            }
        } else {
            answers.answer(pending, .failed(.appNotRunning, "\(share.destination.spec.handle) is not running"))
        }
    }

    /// The item `deliver` hands over: stamped with its owner, under the type names its
    /// destination expects, a file's bytes read from the sender's container (now, not when
    /// the share was decided) and placed in the destination's Inbox; `nil` once the sender was
    /// answered that the file could not be placed.
    private func stamped(_ request: ShareRequest, _ share: borrowing ShareInFlight, plan: SharePlan, record: inout ShareRecord) -> Item? {
        let ownership = plan.ownership
        // (Already so on a known route's parties, which other records share.)
        if record.owner.map({ !$0.isTriviallyIdentical(to: ownership) }) ?? true { record.owner = ownership }
        let managed = ownership.managed
        var item = request.item
        item.ownership = consume ownership
        // The SDK hands an extension managed data under the `com.microsoft.intune.mam.` twins
        // of its types, the ones its activation rule was checked against.
        if share.destination.spec.descriptor.kind != .app, managed {
            item.typeIdentifiers = item.typeIdentifiers.map { t in
                t.lowercased().hasPrefix(Self.intunePrefix) ? t : Self.intunePrefix + t
            }
        }
        if let path = request.item.filePath {
            switch inbox.place(path, of: item, from: share.sender.spec, in: share.destination.spec, finalOwner: plan.decision.owner(after: plan.owner)) {
            case .success(let inbox): item.payload = .file(path: inbox)
            case .failure(let notPlaced):
                answers.answer(share.sender, share.seq, notPlaced.verdict, &record)
                return nil
            }
        }
        // Past its share of read buffers, a sender's payload is copied out of the one it came in.
        if item.isInReadBuffer, share.sender.value.ledger.readBuffersInFlight >= configuration.maximumReadBuffersInFlight { item = item.detached() }
        return item
    }

    /// Sends a delivery if the destination's channel has room for it, else answers its sender
    /// `failed(busy)`. Deliveries fill at most half of what a receiver's channel may hold
    /// unread, whoever sends them: several senders, each within its own bytes, cannot get a
    /// receiver that reads slowly cut off (`maximumBacklog`), and the other half stays for
    /// its answers.
    private func offer(_ pending: consuming PendingDelivery, to destination: ChildConnection) {
        let unread = destination.pipe.backlogByteCount + destination.value.ledger.outboxBytes
        guard unread + pending.cost <= configuration.maximumBacklog / 2 else {
            return answers.answer(pending, .failed(.busy, "\(destination.handle) has not read \(unread >> 10) KiB the host sent it (deliveries may fill \(configuration.maximumBacklog >> 21) MiB of its channel); send again as it reads"))
        }
        send(pending, to: destination)
    }

    private func send(_ pending: consuming PendingDelivery, to destination: ChildConnection) {
        if destination.takesBatches {
            let weight = pending.wireSize
            destination.value.ledger.enqueue(consume pending, weight: weight)
            flush.schedule(destination)
            return
        }
        let seq = destination.send(.deliver(flush.sent(pending)))
        destination.value.ledger.awaitAcknowledgement(consume pending, at: seq)
        supervisor.watchDeadlines()
    }

    /// The destination finished its handshake: what waited for it leaves now.
    func destinationReady(_ child: ChildConnection) {
        for pending in child.value.ledger.takeQueued() { offer(pending, to: child) }
    }
}
