import MAMDeviceState
import MAMLoop
import MAMModel
import MAMPolicy
import MAMWire

// A shared item's path, in the order it takes it: this file routes it (its bounds are
// ItemBounds', the route table RouteTable's); Broker+Decision decides a share no route takes;
// Broker+Delivery stamps and sends it (a file through the destination's Inbox, a batch at the
// loop's flush through BatchFlush); ShareAnswers matches acknowledgements and answers the
// sender. The steps were tuned together against Benchmarks/Thresholds.

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
    let supervisor: Supervisor
    let state: DeviceState
    let identities: Identities
    /// Where shared files land in their destinations.
    let inbox: Inbox
    /// What leaves at the loop's next flush.
    let flush: BatchFlush
    /// Every sender's answer, and the bytes of the shares not yet answered.
    let answers: ShareAnswers
    let audit: AuditSink
    let onEvent: (HostEvent) -> Void
    let configuration: HostConfiguration
    /// `configuration.deliveryTimeout` in loop time, converted once: converting a `Duration`
    /// on every delivery cost more than the delivery's bookkeeping.
    let deliveryTimeoutMilliseconds: UInt64
    /// The run around the device: what the user types at a PIN prompt an import brings up.
    let context: RunContext
    /// `supervisor.loop`, for its clock: read through the supervisor, the loop was retained
    /// and released for each delivery's deadline.
    let loop: EventLoop

    static let intunePrefix = "com.microsoft.intune.mam."

    init(supervisor: Supervisor, state: DeviceState, audit: AuditSink, context: RunContext, onEvent: @escaping (HostEvent) -> Void) {
        self.context = context
        self.supervisor = supervisor
        loop = supervisor.loop
        registry = supervisor.registry
        self.state = state
        identities = Identities(state: state)
        inbox = Inbox(state: state, identities: identities)
        self.audit = audit
        self.onEvent = onEvent
        configuration = supervisor.configuration
        deliveryTimeoutMilliseconds = configuration.deliveryTimeout.milliseconds
        // Batched deliveries and cumulative answers leave once per loop iteration, just
        // before the loop writes what is queued.
        flush = BatchFlush(loop: supervisor.loop, reportDeliveries: configuration.reportDeliveries) { [unowned supervisor] in supervisor.watchDeadlines() }
        answers = ShareAnswers(audit: audit, flush: flush, configuration: configuration, onEvent: onEvent) { [unowned supervisor] child, why in
            supervisor.end(child, reason: why)
        }
        super.init(BrokerLoopState(), loop: supervisor.loop)
    }

    /// `supervisor.registry`: read through the supervisor, it was retained and released
    /// around each share's lookup of its destination.
    let registry: AppRegistry

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
    func refuse(_ request: ShareRequest, seq: UInt64, from sender: ChildConnection, to: String, _ verdict: Verdict) {
        var record = ShareRecord(
            from: sender.handle, fromBundle: sender.bundleID, identity: request.identity, to: to,
            receivedAs: request.receiveAs, itemID: request.item.id, owner: nil, outcome: .delivered)
        answers.answer(sender, seq, verdict, &record)
    }

    /// `entry`: the destination, by reference: a known route reads two of its fields, where
    /// taking its `AppSpec` out would retain every one.
    func route(_ request: ShareRequest, seq: UInt64, from sender: ChildConnection, to entry: AppRegistry.Entry) {
        // A share the scenario made from a window showing several accounts is decided under
        // the lock-down policy (RULES.md §2, merged windows): never from the route table.
        // (The common path holds no optional account or route key: the compiler destroyed and
        // copied each through its type's metadata, on every share.)
        if let window = configuration.context.takeShareWindow(sender.key) {
            let lockedDown: Account?
            do {
                lockedDown = try lockDownAccount(of: sender, window: window)
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
    func deliver(_ request: ShareRequest, seq: UInt64, from sender: ChildConnection, to entry: AppRegistry.Entry, on route: RouteTable.Route) {
        // The route's parties, which the record it was decided with ended with.
        var share = ShareInFlight(seq: seq, sender: sender, destination: entry,
                                  record: ShareRecord(parties: route.parties, itemID: request.item.id, outcome: .delivered))
        deliver(request, &share, plan: route.plan)
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

    /// What a share counts against its sender's bytes in flight.
    @inline(__always)
    static func cost(of item: Item) -> Int { max(item.inlineByteCount, 256) }
}
