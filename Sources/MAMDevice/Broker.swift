import MAMDeviceState
import MAMLoop
import MAMModel
import MAMPolicy
import MAMWire

// A shared item's path, in the order it takes it: this file routes it (its bounds are
// ItemBounds', the route table RouteTable's) and carries out what ShareDecider decides of a
// share no route takes; ShareDelivery stamps and sends it (a file through the destination's
// Inbox, a batch at the loop's flush through BatchFlush); ShareAnswers matches
// acknowledgements and answers the sender. The steps were tuned together against
// Benchmarks/Thresholds.

/// `Broker`'s state on its loop's thread (`LoopBound`): its fields are read and
/// written through `value` (`Broker.value.field`), checked to be on the loop's thread in debug builds.
struct BrokerLoopState {
    /// The routes shares between two apps took (`RouteTable`).
    var routes = RouteTable()
}

/// Routes shares: checks the sender's identity, stamps ownership, asks `Enforcer`, delivers,
/// and has the sender answered exactly once (`ShareAnswers`), when the destination
/// acknowledges, declines, dies or times out (each child's `DeliveryLedger` holds its
/// deliveries in flight and their deadlines).
///
/// Used on the host's loop thread only: the state every share reads or writes is its
/// `BrokerLoopState` (`LoopBound`), as in `ChildConnection` (the runtime's check of an access
/// to a class's property is a call, paid on every share).
final class Broker: LoopBound<BrokerLoopState> {
    private let supervisor: Supervisor
    private let state: DeviceState
    private let identities: Identities
    /// Every sender's answer, and the bytes of the shares not yet answered.
    let answers: ShareAnswers
    /// A decided share handed to its destination.
    let delivery: ShareDelivery
    /// A multi-identity target asked to switch identity to take a share.
    private let switches: IdentitySwitchAsk
    private let onEvent: (HostEvent) -> Void
    private let configuration: HostConfiguration
    /// `supervisor.loop`, for its read buffers' tally: read through the supervisor, the loop
    /// was retained and released per share.
    private let loop: EventLoop

    init(supervisor: Supervisor, state: DeviceState, audit: AuditSink, context: RunContext, onEvent: @escaping (HostEvent) -> Void) {
        self.supervisor = supervisor
        loop = supervisor.loop
        registry = supervisor.registry
        self.state = state
        identities = Identities(state: state)
        self.onEvent = onEvent
        configuration = supervisor.configuration
        // Batched deliveries and cumulative answers leave once per loop iteration, just
        // before the loop writes what is queued.
        let flush = BatchFlush(loop: supervisor.loop, reportDeliveries: configuration.reportDeliveries) { [unowned supervisor] in supervisor.watchDeadlines() }
        answers = ShareAnswers(audit: audit, flush: flush, configuration: configuration, onEvent: onEvent) { [unowned supervisor] child, why in
            supervisor.end(child, reason: why)
        }
        switches = IdentitySwitchAsk(supervisor: supervisor, state: state, audit: audit, context: context, onEvent: onEvent)
        delivery = ShareDelivery(supervisor: supervisor, inbox: Inbox(state: state, identities: identities), flush: flush, answers: answers)
        super.init(BrokerLoopState(), loop: supervisor.loop)
    }

    /// `supervisor.registry`: read through the supervisor, it was retained and released
    /// around each share's lookup of its destination.
    private let registry: AppRegistry

    /// Routes one share. The sender gets exactly one `ShareResult` for `seq`, now or when the
    /// destination acknowledges, declines, dies or times out.
    /// `batched`: it came in a `shareBatch`, and is answered in a cumulative `shareResults`.
    func share(_ request: ShareRequest, seq: UInt64, from sender: ChildConnection, batched: Bool = false) {
        sender.value.ledger.admit(seq, batched: batched)
        guard sender.value.ledger.sharesInFlight <= configuration.maximumSharesInFlight else {
            return refuse(request, seq: seq, from: sender, to: request.destination, .failed(.badRequest, "\(sender.handle) has \(configuration.maximumSharesInFlight) shares in flight already; wait for answers before sending more"))
        }
        // Backpressure: what the host holds for one sender is bounded in bytes; past it the
        // share is answered at once (the sender's other frames, acknowledgements included, keep
        // flowing: its pipe is never paused).
        guard sender.value.ledger.bytesInFlight + Self.cost(of: request.item) <= configuration.maximumBytesInFlight else {
            return refuse(request, seq: seq, from: sender, to: request.destination, .failed(.busy, "\(sender.handle) has \(sender.value.ledger.bytesInFlight >> 10) KiB of shares not yet answered (the host holds \(configuration.maximumBytesInFlight >> 20) MiB for one app); send again as answers come"))
        }
        // And for all apps together: the read buffers their pending items pin (counted whole,
        // however many items share one) and each item's copy on its way out. A per-app bound
        // alone multiplies with the apps.
        guard loop.readBufferTally.bytes + 2 * (answers.value.bytesInFlight + Self.cost(of: request.item)) <= configuration.maximumHostBytesInFlight else {
            return refuse(request, seq: seq, from: sender, to: request.destination, .failed(.busy, "the host holds \((loop.readBufferTally.bytes + 2 * answers.value.bytesInFlight) >> 20) MiB for shares not yet answered, all apps together (at most \(configuration.maximumHostBytesInFlight >> 20) MiB); send again as answers come"))
        }
        // By reference: the spec is passed on borrowed, never copied out of the registry.
        guard let target = registry.entry(request.destination) else {
            onEvent(.hostile(handle: sender.handle, what: "shared to \"\(request.destination)\", which does not exist", disconnected: false))
            return refuse(request, seq: seq, from: sender, to: request.destination, .blocked(.unknownApp, "no app or extension named \"\(request.destination)\" is installed on this device"))
        }
        if let problem = ItemBounds.problem(with: request.item) {
            onEvent(.hostile(handle: sender.handle, what: "shared a bad item: \(problem)", disconnected: false))
            return refuse(request, seq: seq, from: sender, to: target.spec.handle, .failed(.badRequest, problem))
        }
        route(request, seq: seq, from: sender, to: target)
    }

    /// Answers a share refused before it was routed, with its record.
    private func refuse(_ request: ShareRequest, seq: UInt64, from sender: ChildConnection, to: String, _ verdict: Verdict) {
        var record = ShareRecord(
            from: sender.handle, fromBundle: sender.bundleID, identity: request.identity, to: to,
            receivedAs: request.receiveAs, itemID: request.item.id, owner: nil, outcome: .delivered)
        answers.answer(sender, seq, verdict, &record)
    }

    /// `entry`: the destination, by reference: a known route reads two of its fields, where
    /// taking its `AppSpec` out would retain every one.
    private func route(_ request: ShareRequest, seq: UInt64, from sender: ChildConnection, to entry: AppRegistry.Entry) {
        // A share the scenario made from a window showing several accounts is decided under
        // the lock-down policy (RULES.md §2, merged windows): never from the route table.
        // (The common path holds no optional account or route key: the compiler destroyed and
        // copied each through its type's metadata, on every share.)
        if let window = configuration.context.takeShareWindow(sender.key) {
            let lockedDown: Account?
            do {
                // The managed account whose policy the window's accounts take the lock-down of.
                lockedDown = try state.lockDownAccount(app: sender.spec.identityOwner, window: window, managedIn: sender.bundleID, in: state.fleet)
            } catch {
                let v = internalFailure(error, doing: "route the share")
                return refuse(request, seq: seq, from: sender, to: entry.spec.handle, .failed(v.reason ?? .internalError, v.explanation))
            }
            if lockedDown != nil { return decideAfresh(request, ShareInFlight(fresh: request, seq: seq, from: sender, to: entry), lockedDown: lockedDown, routeKey: nil) }
        }
        guard entry.spec.descriptor.kind == .app, request.item.isInline else {
            return decideAfresh(request, ShareInFlight(fresh: request, seq: seq, from: sender, to: entry), lockedDown: nil, routeKey: nil)
        }
        self.value.routes.hold(at: state.generationOnLoop())
        if let last = self.value.routes.lastLent, last._withUnsafeGuaranteedRef({ $0.isTaken(by: sender, request, to: entry) }) {
            return last._withUnsafeGuaranteedRef { deliver(request, seq: seq, from: sender, to: entry, on: $0) }
        }
        let key = RouteTable.Key(sender: sender.key, identity: request.identity, target: entry.spec.key, receiveAs: request.receiveAs)
        guard let known = self.value.routes.route(for: key) else {
            return decideAfresh(request, ShareInFlight(fresh: request, seq: seq, from: sender, to: entry), lockedDown: nil, routeKey: key)
        }
        deliver(request, seq: seq, from: sender, to: entry, on: known)
    }

    /// A share on a known route: delivered as its plan says.
    private func deliver(_ request: ShareRequest, seq: UInt64, from sender: ChildConnection, to entry: AppRegistry.Entry, on route: RouteTable.Route) {
        // The route's parties, which the record it was decided with ended with.
        var share = ShareInFlight(seq: seq, sender: sender, destination: entry,
                                  record: ShareRecord(parties: route.parties, itemID: request.item.id, outcome: .delivered))
        delivery.deliver(request, &share, plan: route.plan)
    }

    /// A share decided from the rules, not from a known route.
    private func decideAfresh(_ request: ShareRequest, _ share: consuming ShareInFlight, lockedDown: Account?, routeKey: RouteTable.Key?) {
        var share = share
        do {
            try decide(request, &share, lockedDown: lockedDown, routeKey: routeKey)
        } catch {
            let v = internalFailure(error, doing: "route the share")
            answers.answer(&share, .failed(v.reason ?? .internalError, v.explanation))
        }
    }

    /// A share no known route takes: `ShareDecider` decides it whole (its owner, the
    /// lock-down of `lockedDown`'s window, the rules, the stamp), and this carries it out — a
    /// refusal answered, a delivery with its route kept under `routeKey`, or an identity
    /// switch asked of a multi-identity target.
    private func decide(_ request: ShareRequest, _ share: inout ShareInFlight, lockedDown: Account?, routeKey: RouteTable.Key?) throws {
        let sender = share.sender, target = share.destination.spec
        let question = ShareQuestion(request, from: sender.spec, to: target, lockedDown: lockedDown)
        let context = ShareContext(state: state, identities: identities, sender: sender.spec, target: target, supervisor: supervisor)
        let decided = try ShareDecider.decideReplayably(question, in: state.fleet, context)
        if let hostile = decided.hostile { onEvent(.hostile(handle: sender.handle, what: hostile, disconnected: false)) }
        if let finding = decided.strictFinding { onEvent(.strict(handle: sender.handle, finding)) }
        share.record?.owner = decided.ownership
        if case .some(let receiver) = decided.receiver { share.record?.receivedAs = receiver?.upn ?? "" }
        switch decided.outcome {
        case .refuse(let verdict):
            answers.answer(&share, verdict)
        case .askToSwitch:
            askToSwitch(decided, request, share)
        case .deliver(let decision, let stamp):
            let plan = SharePlan(owner: decided.owner, receiver: decided.receiver ?? nil, decision: decision, ownership: stamp)
            deliverAllowed(request, &share, plan: plan, keptUnder: lockedDown == nil ? routeKey : nil, evicting: routeKey != nil)
        }
    }

    /// A share the rules allow: delivered as `plan` says, its route kept under `routeKey` (a
    /// route table past its bound is emptied first, whenever the share had a key).
    private func deliverAllowed(_ request: ShareRequest, _ share: inout ShareInFlight, plan: SharePlan, keptUnder routeKey: RouteTable.Key?, evicting keyed: Bool) {
        if keyed { self.value.routes.makeRoom() }
        if let routeKey {
            // The parties as `deliver` completes this record: stamped with the plan's owner.
            if let r = share.record {
                let parties = ShareRecord.Parties(from: r.from, fromBundle: r.fromBundle, identity: r.identity, to: r.to,
                                                  receivedAs: plan.receiverUPN, owner: plan.ownership)
                self.value.routes.keep(RouteTable.Route(key: routeKey, plan: plan, parties: parties))
            }
        }
        delivery.deliver(request, &share, plan: plan)
    }

    /// A blocked share a multi-identity target may take after switching identity
    /// (`decided` asks it to): asked, and delivered on yes, refused on no.
    private func askToSwitch(_ decided: ShareDecision, _ request: ShareRequest, _ share: borrowing ShareInFlight) {
        guard case .askToSwitch(let change, let blocked, let because) = decided.outcome else { return assertionFailure("asked to switch without a switch to ask") }
        let target = share.destination.spec, owner = decided.owner
        // The closures hold the sender by its link, not the share: a sender gone while the
        // target was asked is answered no more.
        let senderLink = share.sender.link
        let (seq, destination, record) = (share.seq, share.destination, share.record)
        func resumed(_ sender: ChildConnection) -> ShareInFlight { ShareInFlight(seq: seq, sender: sender, destination: destination, record: record) }
        switch change {
        case .toUnmanaged(let unmanaged, let stamp):
            switches.askUnmanaged(target, because: because) { [weak self] accepted in
                guard let self, let sender = senderLink.child else { return }
                var s = resumed(sender)
                guard accepted else { return answers.answer(&s, blocked) }
                s.record?.receivedAs = ""
                delivery.deliver(request, &s, plan: SharePlan(owner: owner, receiver: nil, decision: unmanaged, ownership: stamp))
            }
        case .to(let account, let managed, let stamp):
            switches.ask(target, to: account, because: because) { [weak self] accepted, why in
                guard let self, let sender = senderLink.child else { return }
                var s = resumed(sender)
                guard accepted else {
                    let said = why.map { "\(because); \(target.handle) did not switch to \(account): \($0)" } ?? because
                    return answers.answer(&s, .blocked(blocked.blockedBy ?? .badRequest, said))
                }
                s.record?.receivedAs = account.upn
                delivery.deliver(request, &s, plan: SharePlan(owner: owner, receiver: account, decision: managed, ownership: stamp))
            }
        }
    }

    /// What a share counts against its sender's bytes in flight.
    @inline(__always)
    static func cost(of item: Item) -> Int { max(item.inlineByteCount, 256) }
}
