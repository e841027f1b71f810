import MAMLoop
import MAMModel
import MAMWire

/// The app's outbox: shares and acknowledgements gathered during a loop iteration and
/// written as one batch each before the loop writes; the host's cumulative answers resolved.
extension AppChannel {
    func flushBatches() {
        if self.value.outbox.hasItems { flushShares() }
        if self.value.outbox.hasAnswers { flushAcknowledgements() }
    }

    /// The shares asked for since the last flush: a lone one as a `shareRequest`, several as
    /// one `shareBatch` numbered just before the frame.
    func flushShares() {
        // Both lists taken out whole and given back emptied: kept in place while written,
        // emptying them made new storage at every flush. (`send`, below, finds the outbox empty.)
        var (queued, ranges) = self.value.outbox.takeItems()
        var completions: [(Verdict) -> Void] = []
        swap(&completions, &self.value.queuedCompletions)
        defer {
            self.value.outbox.giveBack(&queued)
            completions.removeAll(keepingCapacity: true)
            if self.value.queuedCompletions.isEmpty { self.value.queuedCompletions = completions }
        }
        for range in ranges {
            guard range.count > 1 else {
                sendShare(queued[range.lowerBound].request, completion: completions[range.lowerBound])
                continue
            }
            for i in range {
                let seq = self.value.numbers.take()
                self.value.batchedShares[seq] = completions[i]
                queued[i].seq = seq
            }
            let seq = self.value.numbers.take()
            // The range is encoded where it lies (the slice lives for this call only, so the
            // next range's numbering does not copy the queue).
            pipe.enqueue { FrameEncoder.encodeShareBatch(seq: seq, queued[range], appendingTo: &$0) }
        }
    }

    func flushAcknowledgements() {
        var answered = self.value.outbox.takeAnswers()
        do {
            // (The runs' slices share the list: let go before it is given back.)
            for run in cumulativeRuns(answered, inFlight: { self.value.unansweredDeliveries.contains($0) }) {
                send(.deliverAcks(DeliverAcks(first: run.first, last: run.last, declined: run.answers.compactMap { $0.1 ? nil : $0.0 })))
            }
        }
        self.value.outbox.giveBack(answers: &answered)
    }

    /// Answers every batched share in the range: delivered, unless the host said otherwise.
    func resolve(_ results: ShareResults) {
        var exceptions: [UInt64: Verdict] = [:]
        for e in results.exceptions { exceptions[e.seq] = e.outcome }
        for seq in lookups(in: results.first...results.last, among: self.value.batchedShares) {
            if let completion = self.value.batchedShares.removeValue(forKey: seq) { completion(exceptions[seq] ?? .delivered) }
        }
    }
}
