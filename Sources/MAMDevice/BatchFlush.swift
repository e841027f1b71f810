import MAMLoop
import MAMModel
import MAMWire

/// What the host writes once per loop iteration, just before the loop writes what is queued:
/// each destination's batched deliveries in one frame (a lone one as a plain `deliver`), and
/// each sender's answers to batched shares as cumulative ranges. It owns the children with
/// such work, the hook armed when there is some, and the array each batch is built in; the
/// broker hands it work (`schedule`), and each delivery leaves through `sent`.
///
/// Used on the host's loop thread only (`LoopBound`).
final class BatchFlush: LoopBound<BatchFlush.State> {
    struct State {
        /// `flush`, armed when a child has batched work.
        fileprivate var hook: FlushHook?
        /// Children with batched work waiting for the next flush.
        fileprivate var work: [ChildConnection] = []
        /// The array each `deliverBatch` is built in, kept empty between flushes: a new one per
        /// batch was a request larger than glibc's small blocks (1,184 bytes for 16 items), and
        /// each such request first merges the blocks freed into the fast bins (`StringPool.recycle`).
        fileprivate var scratch: [BatchedDelivery] = []
    }

    /// The host's loop, whose flush this is.
    let loop: EventLoop
    /// `HostConfiguration.reportDeliveries`: a delivery sent stays readable.
    private let reportDeliveries: Bool
    /// The supervisor's: deliveries sent start their deadlines' watch.
    private let watchDeadlines: () -> Void

    init(loop: EventLoop, reportDeliveries: Bool, watchDeadlines: @escaping () -> Void) {
        self.loop = loop
        self.reportDeliveries = reportDeliveries
        self.watchDeadlines = watchDeadlines
        super.init(State(), loop: loop)
        self.value.hook = loop.addBeforeFlushHook(self) { $0.flush() }
    }

    /// A delivery as it is written: moved out of `pending` when nothing reads it afterwards
    /// (only `reportDeliveries` does), so that its payload no longer holds the read buffer it
    /// lies in, which the loop then reads into again. Held to the acknowledgement, the items
    /// in flight of many pairs kept their read buffers too, and the host's peak memory grew
    /// with them.
    func sent(_ pending: PendingDelivery) -> Deliver {
        // A delivery is sent once (by the broker or a flush), so it is still there.
        if reportDeliveries { return pending.deliver! }
        let deliver = pending.take()!
        if pending.keepsReadBuffer {
            pending.keepsReadBuffer = false
            pending.sender.value.ledger.releaseReadBuffer()
        }
        return deliver
    }

    /// `child` has batched work (deliveries or answers): it leaves at this iteration's flush.
    func schedule(_ child: ChildConnection) {
        guard child.value.ledger.scheduleFlush() else { return }
        self.value.work.append(child)
        if let hook = self.value.hook { loop.arm(hook) }
    }

    /// Sends what was batched this iteration: each destination's deliveries in one frame (a
    /// lone one as a plain `deliver`), and each sender's answers to batched shares as
    /// cumulative ranges.
    private func flush() {
        guard !self.value.work.isEmpty else { return }
        let work = self.value.work
        self.value.work.removeAll(keepingCapacity: true)
        for child in work {
            child.value.ledger.beginFlush()
            sendOutgoingDeliveries(of: child)
            sendBatchedAnswers(of: child)
        }
    }

    private func sendOutgoingDeliveries(of child: ChildConnection) {
        guard child.value.ledger.hasOutgoing else { return }
        var (outgoing, batches) = child.value.ledger.takeOutgoing()
        defer { child.value.ledger.giveBack(&outgoing) }
        for range in batches {
            guard range.count > 1 else {
                // (Each delivery of the list is taken once, leaving `nil`.)
                let pending = outgoing[range.lowerBound].take()!
                let deliver = sent(pending)
                child.value.ledger.awaitAcknowledgement(consume pending, at: child.send(.deliver(deliver)))
                continue
            }
            var batch: [BatchedDelivery] = []
            swap(&batch, &self.value.scratch)
            batch.reserveCapacity(range.count)
            for (seq, i) in zip(child.reserveSeqs(range.count), range) {
                let pending = outgoing[i].take()!
                pending.batched = true
                batch.append(BatchedDelivery(seq: seq, deliver: sent(pending)))
                child.value.ledger.awaitAcknowledgement(consume pending, at: seq)
            }
            child.send(.deliverBatch(batch))
            // Written out (`send` encodes it where it is called): the items go, the storage
            // stays for the next batch unless a large batch made it large.
            if batch.capacity <= StringPool.keptBatchItems {
                batch.removeAll(keepingCapacity: true)
                self.value.scratch = batch
            }
        }
        watchDeadlines()
    }

    private func sendBatchedAnswers(of child: ChildConnection) {
        guard child.value.ledger.hasAnswers else { return }
        var (answers, outcomes) = child.value.ledger.takeAnswers()
        defer { child.value.ledger.giveBack(answers: &answers) }
        guard child.isLive || child.state == .closing else { return }
        // (The runs' slices share the list: let go before it is given back.)
        for run in cumulativeRuns(answers, inFlight: { child.value.ledger.isBatchedInFlight($0) }) {
            let exceptions = run.answers.compactMap { $0.1 == 0 ? nil : ShareException(seq: $0.0, outcome: outcomes[$0.1 - 1]) }
            child.send(.shareResults(ShareResults(first: run.first, last: run.last, exceptions: exceptions)))
        }
    }
}
