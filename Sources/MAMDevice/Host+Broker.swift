import MAMDeviceState
import MAMLoop
import MAMModel
import MAMPolicy
import MAMWire

extension Host {
    /// Routes one share: identity check, ownership stamp, enforcer, delivery. The sender gets
    /// exactly one `ShareResult` for `seq`, now or when the destination acknowledges or fails.
    func share(_ request: ShareRequest, seq: UInt64, from sender: ChildConnection) {
        // One copy of the fleet for the whole decision: each read of `state.fleet` retains
        // every table it holds.
        let fleet = self.fleet
        var record = ShareRecord(
            from: sender.handle, fromBundle: sender.bundleID, identity: request.identity, to: request.destination,
            receivedAs: request.receiveAs, itemID: request.item.id, owner: nil, outcome: .delivered)
        sender.sharesInFlight += 1
        guard sender.sharesInFlight <= configuration.maximumSharesInFlight else {
            return answer(sender, seq, .failed(.badRequest, "\(sender.handle) has \(configuration.maximumSharesInFlight) shares in flight already; wait for answers before sending more"), &record)
        }
        guard let target = spec(named: request.destination) else {
            onEvent(.hostile(handle: sender.handle, what: "shared to \"\(request.destination)\", which does not exist", disconnected: false))
            return answer(sender, seq, .blocked(.unknownApp, "no app or extension named \"\(request.destination)\" is installed on this device"), &record)
        }
        record.to = target.handle
        if let problem = validate(request.item) {
            onEvent(.hostile(handle: sender.handle, what: "shared a bad item: \(problem)", disconnected: false))
            return answer(sender, seq, .failed(.badRequest, problem), &record)
        }
        // The sender's identity must be an account signed in to it (for an extension: to its
        // containing app). A child cannot name an owner it does not have.
        var owner: Account?
        if !request.identity.isEmpty {
            guard let a = accounts(of: sender.spec).first(where: { $0.matches(request.identity) }) else {
                onEvent(.hostile(handle: sender.handle, what: "claimed identity \(request.identity), which is not signed in to it", disconnected: false))
                return answer(sender, seq, .blocked(.notSignedIn, "\(request.identity) is not signed in to \(sender.bundleID), so it cannot own what \(sender.handle) shares"), &record)
            }
            owner = a
        }
        // A file is shared with its bytes and owned by the file's owner (RULES.md §1); the
        // path is resolved inside the sender's own containers only.
        var fileData: [UInt8]?
        if case .file(let path) = request.item.payload {
            do {
                let location = ContainerPath(parsing: path)
                fileData = try state.readFile(app: sender.bundleID, path: location)
                let fileOwner = try state.fileOwner(app: sender.bundleID, path: location)
                owner = state.account(forIdentity: fileOwner)
            } catch {
                return answer(sender, seq, .failed(.badRequest, "\(sender.handle) cannot share \(path): \(error)"), &record)
            }
        }
        if target.descriptor.kind != .app, let accepts = target.activation {
            let verdict = accepts(request.item.typeIdentifiers, fleet.isManaged(owner))
            guard verdict.activated else {
                return answer(sender, seq, .blocked(.notActivated, "\(target.handle)'s activation rule does not accept this item: \(verdict.reason)"), &record)
            }
        }
        record.owner = owner.map {
            Ownership(upn: $0.upn, oid: $0.oid, tenant: $0.tenant, managed: fleet.isManaged($0), sourceBundle: sender.bundleID)
        }
        var receiver: Account?
        if !request.receiveAs.isEmpty {
            guard let a = accounts(of: target).first(where: { $0.matches(request.receiveAs) }) else {
                return answer(sender, seq, .blocked(.notSignedIn, "\(request.receiveAs) is not signed in to \(target.bundleID), so it cannot receive there"), &record)
            }
            receiver = a
        } else {
            receiver = currentIdentity(of: target)
        }
        record.receivedAs = receiver?.upn ?? ""
        let decision = Enforcer.transfer(owner: owner, from: sender.bundleID, to: target.bundleID, receivedAs: receiver, in: fleet)
        guard decision.isAllowed else {
            let d = decision.decision
            let blocked = ShareOutcome.blocked(d.blockedBy ?? .badRequest, d.explanation)
            // A multi-identity destination may switch to its unmanaged identity to take data
            // its managed identity may not receive (RULES.md §2, our reading of "will attempt
            // to switch to an unmanaged account ... if there's none the incoming data is
            // blocked"): only with an unmanaged account signed in, and not when the sender
            // named the receiver.
            if request.receiveAs.isEmpty, receiver != nil, target.descriptor.multiIdentity, isReady(target.handle),
               accounts(of: target).contains(where: { !fleet.isManaged($0) }) {
                let unmanaged = Enforcer.transfer(owner: owner, from: sender.bundleID, to: target.bundleID, receivedAs: nil, in: fleet)
                if unmanaged.isAllowed {
                    return askToSwitchToUnmanaged(target, because: d.explanation) { [weak self, weak sender] accepted in
                        guard let self else { return }
                        guard let sender else { return }
                        if accepted {
                            var switched = record
                            switched.receivedAs = ""
                            deliver(request, fileData: fileData, seq: seq, from: sender, to: target, owner: owner, receiver: nil, decision: unmanaged, record: switched)
                        } else {
                            answer(sender, seq, blocked, &record)
                        }
                    }
                }
            }
            return answer(sender, seq, blocked, &record)
        }
        deliver(request, fileData: fileData, seq: seq, from: sender, to: target, owner: owner, receiver: receiver, decision: decision, record: record)
    }

    /// `identitySwitchRequired("")`: asks a multi-identity app to show its unmanaged identity;
    /// on yes, its main window's UI identity becomes `""`.
    private func askToSwitchToUnmanaged(_ target: AppSpec, because why: String, _ completion: @escaping (Bool) -> Void) {
        command(target.handle, Command(verb: "identitySwitchRequired", args: ["account": "", "reason": why])) { [weak self] result in
            guard let self else { return }
            guard result.ok, result.outcome == "accept" else { return completion(false) }
            do {
                let report = try state.setUIPolicyAccountId(app: identityOwner(of: target), window: "", account: "", pin: nil, now: nil)
                onEvent(.note("\(target.handle) switched to its unmanaged identity to receive an item: \(why)"))
                completion(report.result == .success)
            } catch {
                completion(false)
            }
        }
    }

    /// Stamps the owner and hands the item to the destination (starting an extension on
    /// demand); the sender is answered when the destination acknowledges or fails.
    private func deliver(_ request: ShareRequest, fileData: [UInt8]?, seq: UInt64, from sender: ChildConnection, to target: AppSpec,
                         owner: Account?, receiver: Account?, decision: TransferDecision, record: ShareRecord) {
        var record = record
        let finalOwner = decision.owner(after: owner)
        let ownership = finalOwner.map {
            Ownership(upn: $0.upn, oid: $0.oid, tenant: $0.tenant, managed: fleet.isManaged($0), sourceBundle: sender.bundleID)
        } ?? .unowned(from: sender.bundleID)
        record.owner = ownership
        var item = request.item
        item.ownership = ownership
        // The SDK hands an extension managed data under the `com.microsoft.intune.mam.` twins
        // of its types, the ones its activation rule was checked against.
        if target.descriptor.kind != .app, ownership.managed {
            item.typeIdentifiers = item.typeIdentifiers.map { t in
                t.lowercased().hasPrefix(Self.intunePrefix) ? t : Self.intunePrefix + t
            }
        }
        if let fileData {
            // The destination gets its own copy in its Inbox, owned (and protected) as stamped.
            let name = item.fileName.isEmpty ? "item" : String(item.fileName.split(separator: "/").last ?? "item")
            let inbox = "Inbox/\(item.id)-\(name)"
            // The copy keeps its owner where that account is signed in to the destination;
            // an app without the account (policy allowed the transfer) gets a personal copy.
            let keeps = finalOwner.map { o in accounts(of: target).contains { $0.isSame(as: o) } } ?? false
            do {
                _ = try state.writeFile(app: target.bundleID, path: ContainerPath(parsing: inbox), data: fileData, owner: keeps ? finalOwner?.upn : nil)
            } catch {
                var r = record
                return answer(sender, seq, .failed(.badRequest, "cannot place the file in \(target.handle)'s Inbox: \(error)"), &r)
            }
            item.payload = .file(path: inbox)
        }
        let pending = PendingDelivery(
            sender: sender, requestSeq: seq, record: record,
            deliver: Deliver(item: item, senderBundleID: sender.bundleID, receivedAs: receiver?.upn ?? ""))
        pending.deadline = loop.now + configuration.deliveryTimeout
        let key = target.handle.lowercased()
        if let destination = children[key], destination.isLive {
            if destination.state == .ready {
                send(pending, to: destination)
            } else if destination.state == .spawning {
                destination.queuedDeliveries.append(pending)
            } else {
                answer(pending, .failed(.appNotRunning, "\(target.handle) is shutting down"))
            }
        } else if !target.startsWithFleet {
            // An extension runs when an item is shared to it.
            launch(target.handle) { _ in }
            if let destination = children[key], destination.isLive {
                destination.queuedDeliveries.append(pending)
            } else {
                answer(pending, .failed(.appNotRunning, "\(target.handle) could not be started"))
            }
        } else {
            answer(pending, .failed(.appNotRunning, "\(target.handle) is not running"))
        }
    }

    static let intunePrefix = "com.microsoft.intune.mam."

    /// Hostile-input bounds on an item a child sends.
    private func validate(_ item: Item) -> String? {
        if item.id.utf8.count > 256 { return "item id is longer than 256 bytes" }
        if item.typeIdentifiers.count > 64 { return "item has \(item.typeIdentifiers.count) type identifiers (at most 64)" }
        if let t = item.typeIdentifiers.first(where: { $0.isEmpty || $0.utf8.count > 256 }) {
            return "type identifier \"\(t.prefix(40))\" is empty or longer than 256 bytes"
        }
        if case .file(let path) = item.payload, path.isEmpty { return "file item has an empty path" }
        return nil
    }

    /// Accounts signed in to an app; an extension acts with its containing app's accounts.
    func accounts(of spec: AppSpec) -> [Account] {
        (try? state.signedInAccounts(app: identityOwner(of: spec))) ?? []
    }

    /// The bundle whose identity state an app or extension uses: an extension's is its
    /// containing app's.
    func identityOwner(of spec: AppSpec) -> BundleID {
        if spec.descriptor.kind != .app, let container = spec.descriptor.containingApp { return container }
        return spec.bundleID
    }

    /// The destination's effective UI identity at delivery (main window, else process).
    func currentIdentity(of spec: AppSpec) -> Account? {
        let id = (try? state.effectiveIdentity(app: identityOwner(of: spec), window: "", for: .ui)) ?? nil
        return state.account(forIdentity: id)
    }

    func send(_ pending: PendingDelivery, to destination: ChildConnection) {
        let seq = destination.send(.deliver(pending.deliver))
        destination.pendingDeliveries[seq] = pending
        ensureSweep()
    }

    func acknowledged(_ ack: DeliverAck, replyTo: UInt64, from destination: ChildConnection) throws {
        guard let pending = destination.pendingDeliveries.removeValue(forKey: replyTo) else {
            throw HostileFrame("acknowledged delivery \(replyTo), which it was never sent or already acknowledged")
        }
        guard ack.itemID == pending.deliver.item.id else {
            throw HostileFrame("acknowledged delivery \(replyTo) with item \(ack.itemID), but it carried \(pending.deliver.item.id)")
        }
        if ack.accepted, configuration.recordDeliveries {
            receivedItems[destination.handle.lowercased(), default: []].append(
                ReceivedItem(item: pending.deliver.item, from: pending.record.from, receivedAs: pending.deliver.receivedAs))
        }
        if ack.accepted {
            answer(pending, .delivered)
        } else {
            answer(pending, .failed(.badRequest, "\(destination.handle) declined the item"))
        }
        endIfIdle(destination)
    }

    /// An extension started for a delivery ends when it has none left.
    private func endIfIdle(_ child: ChildConnection) {
        guard child.endsWhenIdle, child.state == .ready, child.pendingDeliveries.isEmpty, child.queuedDeliveries.isEmpty else { return }
        endGracefully(child, reason: "request completed")
    }

    func answer(_ pending: PendingDelivery, _ outcome: ShareOutcome) {
        guard !pending.answered else { return }
        pending.answered = true
        var record = pending.record
        guard let sender = pending.sender else {
            record.outcome = outcome
            audit(record)
            onEvent(.share(record))
            return
        }
        answer(sender, pending.requestSeq, outcome, &record)
    }

    private func answer(_ sender: ChildConnection, _ seq: UInt64, _ outcome: ShareOutcome, _ record: inout ShareRecord) {
        sender.sharesInFlight -= 1
        record.outcome = outcome
        if sender.isLive || sender.state == .closing { sender.send(.shareResult(outcome), replyTo: seq) }
        audit(record)
        onEvent(.share(record))
    }

    private func audit(_ record: ShareRecord) {
        let decision: String = switch record.outcome {
        case .delivered: "delivered"
        case .blocked: "blocked"
        case .failed: "failed"
        }
        audit(verb: "share", source: record.from, sourceIdentity: record.identity, destination: record.to,
              destinationIdentity: record.receivedAs, owner: record.owner?.upn ?? "", decision: decision,
              reason: record.outcome.reason?.rawValue ?? "", explanation: record.outcome.explanation)
    }

    /// One line of the audit log (device store), stamped with the simulated time and the
    /// scenario step being run.
    func audit(verb: String, source: String, sourceIdentity: String = "", destination: String = "",
               destinationIdentity: String = "", owner: String = "", decision: String, reason: String = "", explanation: String) {
        guard configuration.auditDecisions else { return }
        let event = AuditEvent(
            time: state.now, scenario: auditContext.scenario, step: auditContext.step, verb: verb,
            sourceApp: source, sourceIdentity: sourceIdentity, destinationApp: destination,
            destinationIdentity: destinationIdentity, owner: owner, decision: decision, reason: reason, explanation: explanation)
        do {
            try state.appendAudit(event)
        } catch {
            onEvent(.note("could not write the audit log: \(error)"))
        }
    }

    func audit(verb: String, source: String, sourceIdentity: String = "", owner: String = "", _ d: Decision) {
        audit(verb: verb, source: source, sourceIdentity: sourceIdentity, owner: owner,
              decision: d.isAllowed ? "allowed" : "blocked", reason: d.blockedBy?.rawValue ?? "", explanation: d.explanation)
    }

    /// A child is gone: everything it owed or was owed is answered now.
    func failOutstandingWork(of child: ChildConnection, exit: ChildProcess.Exit) {
        let why = "\(child.handle) \(exit) before acknowledging the item"
        let pending = child.pendingDeliveries.sorted { $0.key < $1.key }.map(\.value) + child.queuedDeliveries
        child.pendingDeliveries.removeAll()
        child.queuedDeliveries.removeAll()
        for p in pending { answer(p, .failed(.appNotRunning, why)) }
        let commands = child.pendingCommands
        child.pendingCommands.removeAll()
        for (_, c) in commands.sorted(by: { $0.key < $1.key }) {
            c.timer?.close()
            c.completion(CommandResult(ok: false, outcome: "failed", reason: Reason.appNotRunning.rawValue, explanation: "\(child.handle) \(exit)"))
        }
    }

    /// One timer for every delivery deadline: cheaper than a timer per delivery.
    func ensureSweep() {
        guard sweepTimer == nil, let timer = try? Timer(loop: loop) else { return }
        sweepTimer = timer
        timer.start(after: 200, repeat: 200) { [weak self] in
            guard let self else { return }
            let now = loop.now
            var anyPending = false
            for child in children.values {
                let expired = child.pendingDeliveries.filter { $0.value.deadline <= now }
                for (seq, p) in expired.sorted(by: { $0.key < $1.key }) {
                    child.pendingDeliveries[seq] = nil
                    answer(p, .failed(.timeout, "\(child.handle) did not acknowledge the item within \(configuration.deliveryTimeout) ms"))
                }
                if !child.pendingDeliveries.isEmpty || !child.queuedDeliveries.isEmpty { anyPending = true }
            }
            if !anyPending {
                sweepTimer?.close()
                sweepTimer = nil
            }
        }
    }
}
