import MAMLoop
import MAMModel
import MAMWire

/// The host's frames: deliveries handed to the app (a re-sent one recognised), answers matched
/// to what waits for them, commands and notices dispatched, and the channel's end.
extension AppChannel {
    /// Hands an item to the app once (a re-sent delivery is acknowledged again but never
    /// shown twice). The app's answer, or `nil` when the app answers later (`onDeliverLater`):
    /// then `acknowledge` runs once with it. An app that answers at once costs no closure per
    /// item.
    private func receive(_ d: Deliver, acknowledge: @escaping (Bool) -> Void) -> Bool? {
        guard let later = onDeliverLater else { return receiveNow(d) }
        // Ids are the sender's to choose: the same id from two senders is two items.
        let key = self.value.delivered.key(sender: d.senderBundleID, id: d.item.id)
        if self.value.delivered.contains(key) { return true }
        var answered = false
        later(d) { [weak self] accepted in
            guard !answered else { return }
            answered = true
            if accepted { self?.value.delivered.remember(key) }
            acknowledge(accepted)
        }
        return nil
    }

    /// `receive` for an app that answers at once (no `onDeliverLater`): its answer. `hash`:
    /// the key's, if already computed (`Item.idHashValue`).
    private func receiveNow(_ d: Deliver, hash: Int? = nil) -> Bool {
        receiveNow(d, hash: hash, handler: onDeliver)
    }

    /// `handler`: `onDeliver` as it was when the frame arrived, read once for a whole batch
    /// (called through the property, its context was retained and released per item).
    private func receiveNow(_ d: Deliver, hash: Int?, handler: ((Deliver) -> Bool)?) -> Bool {
        let key = self.value.delivered.key(sender: d.senderBundleID, id: d.item.id)
        // Remembered before it is shown (one lookup, not two) and forgotten if declined.
        guard self.value.delivered.remember(key, hash: hash) else { return true }
        let accepted = handler?(d) ?? true
        if !accepted { self.value.delivered.forget(key) }
        return accepted
    }

    func handle(_ frame: HostFrame) {
        if frame.replyTo != 0, let handler = self.value.replyHandlers.removeValue(forKey: frame.replyTo) {
            handler(frame)
            return
        }
        switch frame.body {
        case .welcome(let w):
            welcome = w
            self.value.hostTakesBatches = Self.batchesEnabled && w.batches
            onWelcome?(w)
        case .deliver(let d) where onDeliverLater == nil:
            send(.deliverAck(DeliverAck(itemID: d.item.id, accepted: receiveNow(d))), replyTo: frame.seq)
        case .deliver(let d):
            let seq = frame.seq
            let itemID = d.item.id
            let acknowledge = { [weak self] (accepted: Bool) -> Void in
                self?.send(.deliverAck(DeliverAck(itemID: itemID, accepted: accepted)), replyTo: seq)
            }
            if let accepted = receive(d, acknowledge: acknowledge) { acknowledge(accepted) }
        case .deliverBatch(let deliveries):
            // Every item of the batch is unanswered before the first is handed over: an app
            // answering later may answer in any order, and a range must not cover one still
            // waiting.
            if onDeliverLater != nil {
                for i in deliveries.indices { self.value.unansweredDeliveries.insert(deliveries[i].seq) }
            } else if self.value.unansweredDeliveries.isEmpty {
                // Answered at once, item by item, with no closure for an answer to come; each
                // delivery lent where it lies (an element taken out of the array, even by
                // index, is a copy: a dozen retains and as many releases).
                // The window's table is read for the whole batch first (`RecentSet.touch`).
                self.value.delivered.prepare(deliveries)
                var index = 0
                // The handler in place when the batch arrived receives all of it.
                let handler = onDeliver
                deliveries.forEachInPlace { delivery in
                    let accepted = receiveNow(delivery.deliver, hash: self.value.delivered.batchHash(index), handler: handler)
                    self.value.outbox.answer(delivery.seq, accepted)
                    index += 1
                }
                flushBatchesSoon()
                break
            }
            for i in deliveries.indices {
                let seq = deliveries[i].seq
                let accepted = receive(deliveries[i].deliver) { [weak self] accepted in
                    guard let self, self.value.unansweredDeliveries.remove(seq) else { return }
                    self.value.outbox.answer(seq, accepted)
                    flushBatchesSoon()
                }
                if let accepted {
                    if !self.value.unansweredDeliveries.isEmpty { self.value.unansweredDeliveries.remove(seq) }
                    self.value.outbox.answer(seq, accepted)
                    flushBatchesSoon()
                }
            }
        case .shareResults(let results):
            resolve(results)
        case .command(let c):
            let seq = frame.seq
            var answered = false
            if let onCommand {
                onCommand(c) { [weak self] result in
                    guard !answered else { return }
                    answered = true
                    self?.send(.commandResult(result), replyTo: seq)
                }
            } else {
                send(.commandResult(.error(.badRequest, "this app takes no commands")), replyTo: seq)
            }
        case .ping(let bytes):
            send(.ping(bytes), replyTo: frame.seq)
        case .error(let code, let message):
            onError?(code, message)
        case .bye(let reason):
            end("host said bye: \(reason)")
        case .shareResult, .serviceResult, .identityResult, .identityInfo:
            // An answer whose request is not waiting (answered twice, or never asked).
            send(.error(code: .badRequest, message: "\(frame.body.name) answers request \(frame.replyTo), which this app is not waiting for"), replyTo: frame.seq)
        }
    }

    func end(_ why: String) {
        guard !ended else { return }
        ended = true
        pipe.close()
        // Every request still waiting is answered, so no caller waits forever.
        let waiting = self.value.replyHandlers
        self.value.replyHandlers.removeAll()
        for (seq, handler) in waiting.sorted(by: { $0.key < $1.key }) {
            handler(HostFrame(seq: 0, replyTo: seq, body: .error(code: .appNotRunning, message: why)))
        }
        let shares = self.value.batchedShares.entries.map(\.value) + self.value.queuedCompletions
        self.value.batchedShares.removeAll()
        _ = self.value.outbox.removeItems()
        self.value.queuedCompletions.removeAll()
        for completion in shares { completion(.failed(.appNotRunning, why)) }
        onClose?(why)
    }
}
