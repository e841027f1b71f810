import MAMLoop
import MAMModel
import MAMWire

/// The app's outbox: shares and acknowledgements gathered during a loop iteration and
/// written as one batch each before the loop writes; the host's cumulative answers resolved.
extension AppChannel {
    func flushBatches() {
        if !self.value.queuedShares.isEmpty { flushShares() }
        if !self.value.answeredDeliveries.isEmpty { flushAcknowledgements() }
    }

    /// The shares asked for since the last flush: a lone one as a `shareRequest`, several as
    /// one `shareBatch` numbered just before the frame.
    func flushShares() {
        // Taken out whole and given back emptied: a copy kept while the queue was emptied in
        // place made the queue new storage at every flush. (`send`, below, finds it empty.)
        var queued: [BatchedShare] = []
        var completions: [(Verdict) -> Void] = []
        swap(&queued, &self.value.queuedShares)
        swap(&completions, &self.value.queuedCompletions)
        defer {
            queued.removeAll(keepingCapacity: true)
            completions.removeAll(keepingCapacity: true)
            if self.value.queuedShares.isEmpty { self.value.queuedShares = queued }
            if self.value.queuedCompletions.isEmpty { self.value.queuedCompletions = completions }
        }
        guard queued.count > 1 else {
            self.value.queuedWeights.removeAll(keepingCapacity: true)
            for i in queued.indices { sendShare(queued[i].request, completion: completions[i]) }
            return
        }
        let ranges = batchRanges(self.value.queuedWeights) { $0 }
        self.value.queuedWeights.removeAll(keepingCapacity: true)
        for range in ranges {
            guard range.count > 1 else {
                sendShare(queued[range.lowerBound].request, completion: completions[range.lowerBound])
                continue
            }
            for i in range {
                let seq = self.value.nextSeq
                self.value.nextSeq += 1
                self.value.batchedShares[seq] = completions[i]
                queued[i].seq = seq
            }
            let seq = self.value.nextSeq
            self.value.nextSeq += 1
            // The range is encoded where it lies (the slice lives for this call only, so the
            // next range's numbering does not copy the queue).
            pipe.enqueue { FrameEncoder.encodeShareBatch(seq: seq, queued[range], appendingTo: &$0) }
        }
    }

    func flushAcknowledgements() {
        let answered = self.value.answeredDeliveries
        self.value.answeredDeliveries.removeAll(keepingCapacity: true)
        for run in cumulativeRuns(answered, inFlight: { self.value.unansweredDeliveries.contains($0) }) {
            send(.deliverAcks(DeliverAcks(first: run.first, last: run.last, declined: run.answers.compactMap { $0.1 ? nil : $0.0 })))
        }
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
