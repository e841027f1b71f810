import MAMDeviceState
import MAMLoop
import MAMModel
import MAMPolicy
import MAMWire

// One file of about nine hundred lines, on purpose: a shared item's path — route, decide,
// stamp, deliver, acknowledge, answer, and the batches and deadlines around them — is one
// pipeline whose steps share the ledger (`ChildLoopState`) and were tuned together against
// Benchmarks/Thresholds; its functions follow the order an item takes them.

/// `Broker`'s state on its loop's thread (`LoopBound`): its fields are read and
/// written through `Broker`'s properties of the same names.
struct BrokerLoopState {
    var flushHook: FlushHook?
    var batchWork: [ChildConnection] = []
    var batchScratch: [BatchedDelivery] = []
    var spareOutgoing: [PendingDelivery?] = []
    var touched: UInt64 = 0
    var routes: [Broker.RouteKey: Broker.Route] = [:]
    var lastRoute: Broker.Route?
    var lastRouteLent: Unmanaged<Broker.Route>?
    var routesGeneration: UInt64 = .max
    var bytesInFlight: Int = 0
}

/// Routes shares: checks the sender's identity, stamps ownership, asks `Enforcer`, delivers,
/// waits for the acknowledgement, and answers the sender exactly once. Owns the table of
/// deliveries in flight and their deadlines.
///
/// Used on the host's loop thread only: the state every share reads or writes is its
/// `BrokerLoopState` (`LoopBound`), as in `ChildConnection` (the runtime's check of an access
/// to a class's property is a call, paid on every share).
final class Broker: LoopBound<BrokerLoopState> {
    private let supervisor: Supervisor
    private let state: DeviceState
    private let identities: Identities
    private let audit: AuditSink
    private let onEvent: (HostEvent) -> Void
    private let configuration: HostConfiguration
    /// `configuration.deliveryTimeout` in loop time, converted once: converting a `Duration`
    /// on every delivery cost more than the delivery's bookkeeping.
    private let deliveryTimeoutMilliseconds: UInt64
    /// The run around the device: what the user types at a PIN prompt an import brings up.
    private let context: RunContext
    /// `supervisor.loop`, for its clock: read through the supervisor, the loop was retained
    /// and released for each delivery's deadline.
    private let loop: EventLoop

    static let intunePrefix = "com.microsoft.intune.mam."

    init(supervisor: Supervisor, state: DeviceState, audit: AuditSink, context: RunContext, onEvent: @escaping (HostEvent) -> Void) {
        self.context = context
        self.supervisor = supervisor
        loop = supervisor.loop
        registry = supervisor.registry
        self.state = state
        identities = Identities(state: state)
        self.audit = audit
        self.onEvent = onEvent
        configuration = supervisor.configuration
        deliveryTimeoutMilliseconds = configuration.deliveryTimeout.milliseconds
        super.init(BrokerLoopState())
        // Batched deliveries and cumulative answers leave once per loop iteration, just
        // before the loop writes what is queued.
        flushHook = supervisor.loop.addBeforeFlushHook(self) { $0.flushBatches() }
    }

    /// `flushBatches`, armed when a child has batched work.
    private var flushHook: FlushHook? {
        @inline(__always) _read { yield value.flushHook }
        @inline(__always) _modify { yield &value.flushHook }
    }

    /// Children with batched work (deliveries or answers) waiting for the next flush.
    private var batchWork: [ChildConnection] {
        @inline(__always) _read { yield value.batchWork }
        @inline(__always) _modify { yield &value.batchWork }
    }
    /// The array each `deliverBatch` is built in, kept empty between flushes: a new one per
    /// batch was a request larger than glibc's small blocks (1,184 bytes for 16 items), and
    /// each such request first merges the blocks freed into the fast bins (`StringPool.recycle`).
    private var batchScratch: [BatchedDelivery] {
        @inline(__always) _read { yield value.batchScratch }
        @inline(__always) _modify { yield &value.batchScratch }
    }
    /// An empty list of deliveries with room, which the next destination's flush takes.
    private var spareOutgoing: [PendingDelivery?] {
        @inline(__always) _read { yield value.spareOutgoing }
        @inline(__always) _modify { yield &value.spareOutgoing }
    }
    /// What the last range of acknowledgements read ahead (`SeqTable.touchObjects`), kept so
    /// that the reads are made.
    private var touched: UInt64 {
        @inline(__always) _read { yield value.touched }
        @inline(__always) _modify { yield &value.touched }
    }

    /// Allowed routes of inline shares between two apps, by who shares as whom to whom as
    /// whom: a stream of shares between two apps is decided once. Everything the decision
    /// read is device state or the fleet, so the table holds for one `DeviceState.generation`
    /// and is emptied when it moves (a sign-in, an identity switch, a wipe, a policy change,
    /// a clock step that blocks an app). Extensions (activation rules read the item) and files
    /// (owned by the file's owner) are decided every time.
    struct RouteKey: Hashable {
        let sender: AppHandle
        let identity: String
        let target: AppHandle
        let receiveAs: String
    }
    /// What a share's delivery is decided to be: its owner, who receives it, the decision
    /// and the stamp. A class: a stream of shares takes the same plan item after item, and a
    /// reference costs one retain where the accounts it holds cost a dozen.
    final class Plan {
        let owner: Account?
        let receiver: Account?
        let decision: TransferDecision
        /// What the delivery is stamped with (it depends on the fleet and both apps only,
        /// which a route table's generation holds still).
        let ownership: Ownership
        /// The receiver's UPN (`""`: none), which every delivery and record names: read out
        /// of `receiver` it copied the whole account, five strings, twice per share.
        let receiverUPN: String

        init(owner: Account?, receiver: Account?, decision: TransferDecision, ownership: Ownership) {
            self.owner = owner
            self.receiver = receiver
            self.decision = decision
            self.ownership = ownership
            receiverUPN = receiver?.upn ?? ""
        }
    }

    final class Route {
        let key: RouteKey
        let plan: Plan
        /// Who shares to whom as whom, owned by whom, as every record of the route says it:
        /// each record refers to these.
        let parties: ShareRecord.Parties

        init(key: RouteKey, plan: Plan, parties: ShareRecord.Parties) {
            self.key = key
            self.plan = plan
            self.parties = parties
        }

        /// Whether a share takes this route, compared field by field where they lie: a key
        /// built for the comparison retains four strings.
        func isTaken(by sender: ChildConnection, _ request: ShareRequest, to target: AppRegistry.Entry) -> Bool {
            key.identity == request.identity && key.receiveAs == request.receiveAs && key.sender == sender.spec.key && key.target == target.spec.key
        }
    }
    private var routes: [RouteKey: Route] {
        @inline(__always) _read { yield value.routes }
        @inline(__always) _modify { yield &value.routes }
    }
    /// The route the last share took: a stream repeats it, and comparing four strings costs
    /// less than hashing them.
    private var lastRoute: Route? {
        get { value.lastRoute }
        set {
            value.lastRoute = newValue
            lastRouteLent = newValue.map(Unmanaged.passUnretained)
        }
    }
    /// `lastRoute`, lent to the share that takes it without a retain and a release per share:
    /// `lastRoute` and `routes` hold it, and only `route` and `decide` change them. A share
    /// reads its route (the parties and the plan) only until its item is stamped, before any
    /// answer or event could lead to another share.
    private var lastRouteLent: Unmanaged<Route>? {
        @inline(__always) _read { yield value.lastRouteLent }
        @inline(__always) _modify { yield &value.lastRouteLent }
    }
    private var routesGeneration: UInt64 {
        @inline(__always) _read { yield value.routesGeneration }
        @inline(__always) _modify { yield &value.routesGeneration }
    }
    /// Bytes of every app's shares not yet answered (`cost`), for the host's overall bound.
    private var bytesInFlight: Int {
        @inline(__always) _read { yield value.bytesInFlight }
        @inline(__always) _modify { yield &value.bytesInFlight }
    }
    /// A child naming the same account in ever new spellings cannot grow the table past this.
    private static let maximumRoutes = 1024

    /// `supervisor.registry`: read through the supervisor, it was retained and released
    /// around each share's lookup of its destination.
    private let registry: AppRegistry

    /// Routes one share. The sender gets exactly one `ShareResult` for `seq`, now or when the
    /// destination acknowledges, declines, dies or times out.
    /// `batched`: it came in a `shareBatch`, and is answered in a cumulative `shareResults`.
    func share(_ request: ShareRequest, seq: UInt64, from sender: ChildConnection, batched: Bool = false) {
        if batched { sender.batchedSharesInFlight.insert(seq) }
        sender.sharesInFlight += 1
        guard sender.sharesInFlight <= configuration.maximumSharesInFlight else {
            return refuse(request, seq: seq, from: sender, to: request.destination, .failed(.badRequest, "\(sender.handle) has \(configuration.maximumSharesInFlight) shares in flight already; wait for answers before sending more"))
        }
        // Backpressure: what the host holds for one sender is bounded in bytes; past it the
        // share is answered at once (the sender's other frames, acknowledgements included, keep
        // flowing: its pipe is never paused).
        guard sender.bytesInFlight + Self.cost(of: request.item) <= configuration.maximumBytesInFlight else {
            return refuse(request, seq: seq, from: sender, to: request.destination, .failed(.busy, "\(sender.handle) has \(sender.bytesInFlight >> 10) KiB of shares not yet answered (the host holds \(configuration.maximumBytesInFlight >> 20) MiB for one app); send again as answers come"))
        }
        // And for all apps together: the read buffers their pending items pin (counted whole,
        // however many items share one) and each item's copy on its way out. A per-app bound
        // alone multiplies with the apps.
        guard loop.readBufferTally.bytes + 2 * (bytesInFlight + Self.cost(of: request.item)) <= configuration.maximumHostBytesInFlight else {
            return refuse(request, seq: seq, from: sender, to: request.destination, .failed(.busy, "the host holds \((loop.readBufferTally.bytes + 2 * bytesInFlight) >> 20) MiB for shares not yet answered, all apps together (at most \(configuration.maximumHostBytesInFlight >> 20) MiB); send again as answers come"))
        }
        // By reference: the spec is passed on borrowed, never copied out of the registry.
        guard let target = registry.entry(request.destination) else {
            onEvent(.hostile(handle: sender.handle, what: "shared to \"\(request.destination)\", which does not exist", disconnected: false))
            return refuse(request, seq: seq, from: sender, to: request.destination, .blocked(.unknownApp, "no app or extension named \"\(request.destination)\" is installed on this device"))
        }
        if let problem = validate(request.item) {
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
        answer(sender, seq, verdict, &record)
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
                lockedDown = try lockDownAccount(of: sender, window: window)
            } catch {
                let v = internalFailure(error, doing: "route the share")
                return refuse(request, seq: seq, from: sender, to: entry.spec.handle, .failed(v.reason ?? .internalError, v.explanation))
            }
            if lockedDown != nil { return decideAfresh(request, seq: seq, from: sender, to: entry, lockedDown: lockedDown, routeKey: nil) }
        }
        guard entry.spec.descriptor.kind == .app, request.item.isInline else {
            return decideAfresh(request, seq: seq, from: sender, to: entry, lockedDown: nil, routeKey: nil)
        }
        if routesGeneration != state.generationOnLoop() {
            routes.removeAll(keepingCapacity: true)
            lastRoute = nil
            routesGeneration = state.generationOnLoop()
        }
        if let last = lastRouteLent, last._withUnsafeGuaranteedRef({ $0.isTaken(by: sender, request, to: entry) }) {
            return last._withUnsafeGuaranteedRef { deliver(request, seq: seq, from: sender, to: entry, on: $0) }
        }
        let key = RouteKey(sender: sender.key, identity: request.identity, target: entry.spec.key, receiveAs: request.receiveAs)
        guard let known = routes[key] else {
            return decideAfresh(request, seq: seq, from: sender, to: entry, lockedDown: nil, routeKey: key)
        }
        lastRoute = known
        deliver(request, seq: seq, from: sender, to: entry, on: known)
    }

    /// A share on a known route: delivered as its plan says.
    private func deliver(_ request: ShareRequest, seq: UInt64, from sender: ChildConnection, to entry: AppRegistry.Entry, on route: Route) {
        // The route's parties, which the record it was decided with ended with.
        deliver(request, fileData: nil, seq: seq, from: sender, to: entry, plan: route.plan,
                record: ShareRecord(parties: route.parties, itemID: request.item.id, outcome: .delivered))
    }

    /// A share decided from the rules, not from a known route.
    private func decideAfresh(_ request: ShareRequest, seq: UInt64, from sender: ChildConnection, to entry: AppRegistry.Entry,
                              lockedDown: Account?, routeKey: RouteKey?) {
        var record = ShareRecord(
            from: sender.handle, fromBundle: sender.bundleID, identity: request.identity, to: entry.spec.handle,
            receivedAs: request.receiveAs, itemID: request.item.id, owner: nil, outcome: .delivered)
        do {
            try decide(request, seq: seq, from: sender, to: entry, lockedDown: lockedDown, routeKey: routeKey, record: &record)
        } catch {
            let v = internalFailure(error, doing: "route the share")
            answer(sender, seq, .failed(v.reason ?? .internalError, v.explanation), &record)
        }
    }

    /// A share no known route takes: decided, and its route kept under `routeKey`.
    private func decide(_ request: ShareRequest, seq: UInt64, from sender: ChildConnection, to entry: AppRegistry.Entry,
                        lockedDown: Account?, routeKey: RouteKey?, record: inout ShareRecord) throws {
        let target = entry.spec
        // One copy of the fleet for the whole decision: each read of `state.fleet` retains
        // every table it holds.
        let fleet = lockedDown.map { state.fleet.lockingDown($0) } ?? state.fleet
        // The sender's identity must be an account signed in to it (for an extension: to its
        // containing app). A child cannot name an owner it does not have.
        var owner: Account?
        if !request.identity.isEmpty {
            guard let a = try identities.signedIn(request.identity, to: sender.spec) else {
                onEvent(.hostile(handle: sender.handle, what: "claimed identity \(request.identity), which is not signed in to it", disconnected: false))
                return answer(sender, seq, .blocked(.notSignedIn, "\(request.identity) is not signed in to \(sender.bundleID), so it cannot own what \(sender.handle) shares"), &record)
            }
            owner = a
        }
        // A file is shared with its bytes and owned by the file's owner (RULES.md §1); the
        // path is resolved inside the sender's own containers only.
        var fileData: [UInt8]?
        if let path = request.item.filePath {
            do {
                let location = ContainerPath(parsing: path)
                fileData = try state.readFile(app: sender.bundleID, path: location)
                owner = state.account(forIdentity: try state.fileOwner(app: sender.bundleID, path: location))
            } catch let error as DeviceStateError where error.reason != .internalError {
                return answer(sender, seq, .failed(.badRequest, "\(sender.handle) cannot share \(path): \(error)"), &record)
            }
        }
        // Strict Mode (docs/STRICT.md): decided once per route, as the share is.
        if owner == nil, request.item.filePath == nil, sender.spec.descriptor.multiIdentity,
           let shown = try identities.current(of: sender.spec), fleet.isManaged(shown, in: sender.bundleID),
           let finding = ItemSharedWithoutOwner.finding(target: target.handle, multiIdentity: true, ownerNamed: false, isFile: false,
                                                        shownManaged: shown.description) {
            onEvent(.strict(handle: sender.handle, finding))
        }
        // The extension's activation rule, decided now and reported after the policy: a
        // transfer the policy forbids is the policy's answer, whatever the rule says.
        var notActivated: String?
        // Only the share sheet's targets (share and action extensions) have a rule to pass; the
        // other kinds receive data as their app gives it (v1.4).
        if target.descriptor.kind.isShareSheetTarget || target.descriptor.kind == .keyboard, let accepts = target.activation {
            let verdict = accepts(request.item.typeIdentifiers, fleet.isManaged(owner, in: sender.bundleID))
            if !verdict.activated { notActivated = verdict.reason }
        }
        record.owner = owner.map {
            Ownership(upn: $0.upn, oid: $0.oid, tenant: $0.tenant, managed: fleet.isManaged($0, in: sender.bundleID), sourceBundle: sender.bundleID)
        }
        // An app whose conditional launch failed has no access to org data (RULES.md §8).
        if let owner, fleet.isManaged(owner, in: sender.bundleID), let why = try state.accessBlock(app: sender.bundleID) {
            return answer(sender, seq, .blocked(.conditionalLaunch, "\(sender.bundleID) has no access to \(owner)'s data: \(why)"), &record)
        }
        var receiver: Account?
        if !request.receiveAs.isEmpty {
            guard let a = try identities.signedIn(request.receiveAs, to: target) else {
                return answer(sender, seq, .blocked(.notSignedIn, "\(request.receiveAs) is not signed in to \(target.bundleID), so it cannot receive there"), &record)
            }
            receiver = a
        } else {
            receiver = try identities.receiver(of: target)
        }
        record.receivedAs = receiver?.upn ?? ""
        if let receiver, fleet.isManaged(receiver, in: target.bundleID), let why = try state.accessBlock(app: target.bundleID) {
            return answer(sender, seq, .blocked(.conditionalLaunch, "\(target.bundleID) cannot receive as \(receiver): \(why)"), &record)
        }
        let decision = Enforcer.transfer(owner: owner, from: sender.bundleID, to: target.bundleID, receivedAs: receiver,
                                         isFile: fileData != nil, in: fleet)
        guard decision.isAllowed else {
            let d = decision.decision
            var why = d.explanation
            if let notActivated { why += "; \(target.handle)'s activation rule would not accept the item either (\(notActivated))" }
            let blocked = Verdict.blocked(d.blockedBy ?? .badRequest, why)
            // A multi-identity destination may switch to its unmanaged identity to take data
            // its managed identity may not receive (RULES.md §2, our reading of "will attempt
            // to switch to an unmanaged account ... if there's none the incoming data is
            // blocked"): only with an unmanaged account signed in, and not when the sender
            // named the receiver.
            if notActivated == nil, request.receiveAs.isEmpty, receiver != nil, target.descriptor.multiIdentity, supervisor.readyChild(target.key) != nil,
               try identities.accounts(of: target).contains(where: { !fleet.isManaged($0, in: target.bundleID) }) {
                let unmanaged = Enforcer.transfer(owner: owner, from: sender.bundleID, to: target.bundleID, receivedAs: nil,
                                                  isFile: fileData != nil, in: fleet)
                if unmanaged.isAllowed {
                    let pendingRecord = record
                    let senderLink = sender.link
                    return askToSwitchToUnmanaged(target, because: d.explanation) { [weak self] accepted in
                        guard let self, let sender = senderLink.child else { return }
                        var r = pendingRecord
                        if accepted {
                            r.receivedAs = ""
                            let plan = Plan(owner: owner, receiver: nil, decision: unmanaged,
                                            ownership: stamp(owner, after: unmanaged, from: sender.spec, to: target, in: state.fleet))
                            deliver(request, fileData: fileData, seq: seq, from: sender, to: entry, plan: plan, record: r)
                        } else {
                            answer(sender, seq, blocked, &r)
                        }
                    }
                }
            }
            // The other way (IntuneMAMIdentitySwitchDocumentImport): a multi-identity
            // destination showing another identity may switch to the item's managed owner
            // when that account is signed in there; the switch runs conditional launch.
            if notActivated == nil, request.receiveAs.isEmpty, let owner, fleet.isManaged(owner, in: sender.bundleID), !(receiver?.isSame(as: owner) ?? false),
               target.descriptor.multiIdentity, supervisor.readyChild(target.key) != nil,
               let signedIn = try identities.signedIn(owner.description, to: target) {
                let managed = Enforcer.transfer(owner: owner, from: sender.bundleID, to: target.bundleID, receivedAs: signedIn,
                                                isFile: fileData != nil, in: fleet)
                if managed.isAllowed {
                    let pendingRecord = record
                    let senderLink = sender.link
                    return askToSwitch(target, to: signedIn, because: d.explanation) { [weak self] accepted, why in
                        guard let self, let sender = senderLink.child else { return }
                        var r = pendingRecord
                        if accepted {
                            r.receivedAs = signedIn.upn
                            let plan = Plan(owner: owner, receiver: signedIn, decision: managed,
                                            ownership: stamp(owner, after: managed, from: sender.spec, to: target, in: state.fleet))
                            deliver(request, fileData: fileData, seq: seq, from: sender, to: entry, plan: plan, record: r)
                        } else {
                            answer(sender, seq, .blocked(d.blockedBy ?? .badRequest, why.map { "\(d.explanation); \(target.handle) did not switch to \(signedIn): \($0)" } ?? d.explanation), &r)
                        }
                    }
                }
            }
            return answer(sender, seq, blocked, &record)
        }
        if let notActivated {
            return answer(sender, seq, .blocked(.notActivated, "\(target.handle)'s activation rule does not accept this item: \(notActivated)"), &record)
        }
        let ownership = stamp(owner, after: decision, from: sender.spec, to: target, in: fleet)
        if routeKey != nil {
            if routes.count >= Self.maximumRoutes {
                routes.removeAll(keepingCapacity: true)
                lastRoute = nil
            }
        }
        let plan = Plan(owner: owner, receiver: receiver, decision: decision, ownership: ownership)
        if let routeKey, lockedDown == nil {
            // The parties as `deliver` completes this record: stamped with the plan's owner.
            let parties = ShareRecord.Parties(from: record.from, fromBundle: record.fromBundle, identity: record.identity, to: record.to,
                                              receivedAs: plan.receiverUPN, owner: ownership)
            routes[routeKey] = Route(key: routeKey, plan: plan, parties: parties)
        }
        deliver(request, fileData: fileData, seq: seq, from: sender, to: entry, plan: plan, record: record.taken())
    }

    /// `identitySwitchRequired(account)`: asks a multi-identity app to show a managed
    /// account to import an item. The app's consent is not enough: the switch runs
    /// conditional launch (the PIN prompt is answered as the run scripted it).
    /// `completion(accepted, why not)`.
    private func askToSwitch(_ target: AppSpec, to account: Account, because why: String, _ completion: @escaping (Bool, String?) -> Void) {
        supervisor.command(target, .identitySwitchRequired(account: account.upn.isEmpty ? account.oid : account.upn, reason: why, cause: IdentitySwitchCause.documentImport)) { [weak self] result in
            guard let self else { return }
            guard case .identitySwitchRequired(accepted: true) = result else { return completion(false, "the app declined") }
            do {
                let pin = context.takePinAnswer(target.key)
                let report = try state.setUIPolicyAccountId(app: target.identityOwner, window: "", account: account.description, pin: pin, now: nil)
                audit.record(verb: .switchIdentity, source: target.handle, sourceIdentity: account.description, owner: account.description,
                             decision: AuditDecision(report.result), reason: report.decision.blockedBy, explanation: "to import an item: \(report.decision.explanation)")
                guard report.result == .success else { return completion(false, report.decision.explanation) }
                onEvent(.note("\(target.handle) switched to \(account) to import an item: \(why)"))
                completion(true, nil)
            } catch {
                completion(false, "\(error)")
            }
        }
    }

    /// `identitySwitchRequired("")`: asks a multi-identity app to show its unmanaged identity;
    /// on yes, its main window's UI identity becomes `""`.
    private func askToSwitchToUnmanaged(_ target: AppSpec, because why: String, _ completion: @escaping (Bool) -> Void) {
        supervisor.command(target, .identitySwitchRequired(account: "", reason: why, cause: IdentitySwitchCause.documentImport)) { [weak self] result in
            guard let self else { return }
            guard case .identitySwitchRequired(accepted: true) = result else { return completion(false) }
            do {
                let report = try state.setUIPolicyAccountId(app: target.identityOwner, window: "", account: "", pin: nil, now: nil)
                onEvent(.note("\(target.handle) switched to its unmanaged identity to receive an item: \(why)"))
                completion(report.result == .success)
            } catch {
                onEvent(.note("\(target.handle) could not switch to its unmanaged identity: \(error)"))
                completion(false)
            }
        }
    }

    /// Stamps the owner and hands the item to the destination (starting an extension on
    /// demand); the sender is answered when the destination acknowledges or fails.
    /// `entry` by reference, as in `route`; `record` is completed where it lies, and moves
    /// into the delivery.
    private func deliver(_ request: ShareRequest, fileData: [UInt8]?, seq: UInt64, from sender: ChildConnection, to entry: AppRegistry.Entry,
                         plan: Plan, record: consuming ShareRecord) {
        // A constant, made by a function of its own, so that it can move into the delivery
        // below: a variable kept to the end of this function was a retain and a release of
        // the item's box and of its owner per share.
        guard let item = stamped(request, fileData: fileData, seq: seq, from: sender, to: entry, plan: plan, record: &record) else { return }
        // The delivery's receiver is its record's: `plan.receiverUPN` in every path here.
        assert(record.receivedAs == plan.receiverUPN)
        // Measured before the item moves into the delivery: read after, the item was a second
        // reference to its box (a retain and a release per share).
        let cost = Self.cost(of: item)
        let wireSize = item.approximateWireSize
        let keepsReadBuffer = item.isInReadBuffer
        // The record moves into the delivery (a copy is a dozen retains), and nothing is left
        // in its place: an empty record left here was a retain and a release of the shared
        // empty parties per share.
        let pending = PendingDelivery.make(sender: sender, requestSeq: seq, record: consume record, item: consume item)
        pending.cost = cost
        pending.wireSize = wireSize
        pending.keepsReadBuffer = keepsReadBuffer
        sender.bytesInFlight += cost
        bytesInFlight += cost
        if keepsReadBuffer { sender.readBuffersInFlight += 1 }
        pending.deadline = loop.now + deliveryTimeoutMilliseconds
        if let destination = supervisor.child(entry.spec.key), destination.isLive {
            // (The delivery moves into the destination's tables: kept to the end of this
            // function, it was a retain and a release per share.)
            if destination.state == .ready {
                offer(consume pending, to: destination)
            } else if destination.state == .spawning {
                destination.queuedDeliveries.append(consume pending)
            } else {
                answer(pending, .failed(.appNotRunning, "\(entry.spec.handle) is shutting down"))
            }
        } else if !entry.spec.startsWithFleet {
            // An extension runs when an item is shared to it.
            supervisor.launch(entry.spec) { _ in }
            if let destination = supervisor.child(entry.spec.key), destination.isLive {
                destination.queuedDeliveries.append(pending)
            } else {
                answer(pending, .failed(.appNotRunning, "\(entry.spec.handle) could not be started"))
            }
        } else {
            answer(pending, .failed(.appNotRunning, "\(entry.spec.handle) is not running"))
        }
    }

    /// The item `deliver` hands over: stamped with its owner, under the type names its
    /// destination expects, its file placed in the destination's Inbox; `nil` once the sender
    /// was answered that the file could not be placed.
    private func stamped(_ request: ShareRequest, fileData: [UInt8]?, seq: UInt64, from sender: ChildConnection, to entry: AppRegistry.Entry,
                         plan: Plan, record: inout ShareRecord) -> Item? {
        let ownership = plan.ownership
        // (Already so on a known route's parties, which other records share.)
        if record.owner.map({ !$0.isTriviallyIdentical(to: ownership) }) ?? true { record.owner = ownership }
        let managed = ownership.managed
        var item = request.item
        item.ownership = consume ownership
        // The SDK hands an extension managed data under the `com.microsoft.intune.mam.` twins
        // of its types, the ones its activation rule was checked against.
        if entry.spec.descriptor.kind != .app, managed {
            item.typeIdentifiers = item.typeIdentifiers.map { t in
                t.lowercased().hasPrefix(Self.intunePrefix) ? t : Self.intunePrefix + t
            }
        }
        if let fileData {
            let target = entry.spec
            // The destination gets its own copy in its Inbox, owned (and protected) as stamped.
            let inbox: String
            do {
                // The copy keeps its owner where that account is signed in to the destination;
                // an app without the account (policy allowed the transfer) gets a personal copy.
                let finalOwner = plan.decision.owner(after: plan.owner)
                let keeps = try finalOwner.map { o in try identities.accounts(of: target).contains { $0.isSame(as: o) } } ?? false
                inbox = try inboxPath(for: item, in: target)
                _ = try state.writeFile(app: target.bundleID, path: ContainerPath(parsing: inbox), data: fileData, owner: keeps ? finalOwner?.upn : nil)
            } catch {
                let v = internalFailure(error, doing: "place the file in \(target.handle)'s Inbox")
                answer(sender, seq, .failed(v.reason ?? .internalError, v.explanation), &record)
                return nil
            }
            item.payload = .file(path: inbox)
        }
        // Past its share of read buffers, a sender's payload is copied out of the one it came in.
        if item.isInReadBuffer, sender.readBuffersInFlight >= configuration.maximumReadBuffersInFlight { item = item.detached() }
        return item
    }

    /// What a delivery is stamped with: its owner after the decision (a transfer may re-own
    /// it), managed where the owner's policy targets the app it leaves or, re-owned on
    /// arrival, the app it reaches.
    /// The managed account whose policy a window of several accounts replaces by the lock-down
    /// policy (`window`: the one the share was made from, when the scenario said); `nil` else.
    private func lockDownAccount(of sender: ChildConnection, window: String) throws -> Account? {
        try state.lockDownAccount(app: sender.spec.identityOwner, window: window, managedIn: sender.bundleID, in: state.fleet)
    }

    private func stamp(_ owner: Account?, after decision: TransferDecision, from sender: AppSpec, to target: AppSpec, in fleet: Fleet) -> Ownership {
        guard let finalOwner = decision.owner(after: owner) else { return .unowned(from: sender.bundleID) }
        return Ownership(upn: finalOwner.upn, oid: finalOwner.oid, tenant: finalOwner.tenant,
                         managed: fleet.isManaged(finalOwner, in: decision.reowned == nil ? sender.bundleID : target.bundleID),
                         sourceBundle: sender.bundleID)
    }

    /// Where a delivered file lands in the destination's Inbox. The host names it:
    /// `Inbox/<item id>-<file name>` (ids are validated, the name is its last component made
    /// safe), and a name already taken gets a number (`Inbox/<id>-2-<name>`), so a sender can
    /// never replace a file delivered earlier.
    private func inboxPath(for item: Item, in target: AppSpec) throws -> String {
        let last = item.fileName.split(separator: "/").last.map(String.init) ?? ""
        let safe = String(last.unicodeScalars.map { $0.properties.generalCategory == .control || $0 == "\\" ? "_" : Character($0) }.prefix(128))
        let name = safe.isEmpty || safe == "." || safe == ".." ? "item" : safe
        var candidate = "Inbox/\(item.id)-\(name)"
        var n = 2
        while try state.fileOwner(app: target.bundleID, path: ContainerPath(parsing: candidate)) != nil {
            candidate = "Inbox/\(item.id)-\(n)-\(name)"
            n += 1
        }
        return candidate
    }

    /// Hostile-input bounds on an item a child sends.
    private func validate(_ item: Item) -> String? {
        if item.id.utf8.count > 256 { return "item id is longer than 256 bytes" }
        // One pass over the bytes where they lie (the view's iterator cost three times as
        // much); only an id with non-ASCII bytes asks Unicode's categories (C1 controls),
        // which costs more than the rest of the check on every share.
        let scan = item.id.utf8.withContiguousStorageIfAvailable(Self.scanID) ?? Array(item.id.utf8).withUnsafeBufferPointer(Self.scanID)
        var bad = scan.bad
        if !bad, !scan.ascii { bad = item.id.unicodeScalars.contains { $0.properties.generalCategory == .control } }
        if bad {
            return "item id \"\(item.id.prefix(40))\" contains a path separator, a control character or a leading dot"
        }
        if item.typeIdentifiers.count > 64 { return "item has \(item.typeIdentifiers.count) type identifiers (at most 64)" }
        if let t = item.typeIdentifiers.first(where: { $0.isEmpty || $0.utf8.count > 256 }) {
            return "type identifier \"\(t.prefix(40))\" is empty or longer than 256 bytes"
        }
        if item.filePath?.isEmpty == true { return "file item has an empty path" }
        return nil
    }

    /// Whether an id's bytes hold a leading dot, a path separator or an ASCII control
    /// character (`bad`), and whether they are all ASCII.
    private static func scanID(_ bytes: UnsafeBufferPointer<UInt8>) -> (bad: Bool, ascii: Bool) {
        if bytes.first == UInt8(ascii: ".") { return (true, true) }
        var ascii = true
        for byte in bytes {
            if byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") { return (true, ascii) }
            if byte >= 0x80 { ascii = false }
        }
        return (false, ascii)
    }

    /// Sends a delivery if the destination's channel has room for it, else answers its sender
    /// `failed(busy)`. Deliveries fill at most half of what a receiver's channel may hold
    /// unread, whoever sends them: several senders, each within its own bytes, cannot get a
    /// receiver that reads slowly cut off (`maximumBacklog`), and the other half stays for
    /// its answers.
    private func offer(_ pending: consuming PendingDelivery, to destination: ChildConnection) {
        let unread = destination.pipe.backlogByteCount + destination.outgoingDeliveryBytes
        guard unread + pending.cost <= configuration.maximumBacklog / 2 else {
            return answer(pending, .failed(.busy, "\(destination.handle) has not read \(unread >> 10) KiB the host sent it (deliveries may fill \(configuration.maximumBacklog >> 21) MiB of its channel); send again as it reads"))
        }
        send(pending, to: destination)
    }

    private func send(_ pending: consuming PendingDelivery, to destination: ChildConnection) {
        if destination.takesBatches {
            destination.outgoingDeliveryBytes += pending.cost
            destination.outgoingDeliveries.append(consume pending)
            scheduleBatchWork(destination)
            return
        }
        let seq = destination.send(.deliver(sent(pending)))
        destination.pendingDeliveries.insert(consume pending, at: seq)
        supervisor.watchDeadlines()
    }

    /// A delivery as it is written: moved out of `pending` when nothing reads it afterwards
    /// (only `reportDeliveries` does), so that its payload no longer holds the read buffer it
    /// lies in, which the loop then reads into again. Held to the acknowledgement, the items
    /// in flight of many pairs kept their read buffers too, and the host's peak memory grew
    /// with them.
    private func sent(_ pending: PendingDelivery) -> Deliver {
        // A delivery is sent once (by `send` or a flush), so it is still there.
        if configuration.reportDeliveries { return pending.deliver! }
        let deliver = pending.take()!
        if pending.keepsReadBuffer {
            pending.keepsReadBuffer = false
            pending.sender.readBuffersInFlight -= 1
        }
        return deliver
    }

    private func scheduleBatchWork(_ child: ChildConnection) {
        guard !child.batchWorkScheduled else { return }
        child.batchWorkScheduled = true
        batchWork.append(child)
        if let flushHook { supervisor.loop.arm(flushHook) }
    }

    /// Sends what was batched this iteration: each destination's deliveries in one frame (a
    /// lone one as a plain `deliver`), and each sender's answers to batched shares as
    /// cumulative ranges.
    private func flushBatches() {
        guard !batchWork.isEmpty else { return }
        let work = batchWork
        batchWork.removeAll(keepingCapacity: true)
        for child in work {
            child.batchWorkScheduled = false
            sendOutgoingDeliveries(of: child)
            sendBatchedAnswers(of: child)
        }
    }

    private func sendOutgoingDeliveries(of child: ChildConnection) {
        guard !child.outgoingDeliveries.isEmpty else { return }
        // The child's list is swapped with an empty one that has room, and kept emptied for
        // the next child: a list started anew each flush grew past glibc's small blocks.
        var outgoing = spareOutgoing
        swap(&outgoing, &child.outgoingDeliveries)
        spareOutgoing = []
        defer {
            if outgoing.capacity <= StringPool.keptBatchItems {
                outgoing.removeAll(keepingCapacity: true)
                spareOutgoing = outgoing
            }
        }
        child.outgoingDeliveryBytes = 0
        for range in batchRanges(outgoing, weight: { $0?.wireSize ?? 0 }) {
            guard range.count > 1 else {
                // (Each delivery of the list is taken once, leaving `nil`.)
                let pending = outgoing[range.lowerBound].take()!
                let deliver = sent(pending)
                child.pendingDeliveries.insert(consume pending, at: child.send(.deliver(deliver)))
                continue
            }
            var batch: [BatchedDelivery] = []
            swap(&batch, &batchScratch)
            batch.reserveCapacity(range.count)
            for (seq, i) in zip(child.reserveSeqs(range.count), range) {
                let pending = outgoing[i].take()!
                pending.batched = true
                batch.append(BatchedDelivery(seq: seq, deliver: sent(pending)))
                child.pendingDeliveries.insert(consume pending, at: seq)
            }
            child.send(.deliverBatch(batch))
            // Written out (`send` encodes it where it is called): the items go, the storage
            // stays for the next batch unless a large batch made it large.
            if batch.capacity <= StringPool.keptBatchItems {
                batch.removeAll(keepingCapacity: true)
                batchScratch = batch
            }
        }
        supervisor.watchDeadlines()
    }

    private func sendBatchedAnswers(of child: ChildConnection) {
        guard !child.batchedAnswers.isEmpty else { return }
        // Taken out whole and given back emptied: a copy kept while the child's list was
        // emptied in place made that list new storage at every flush.
        var answers: [(UInt64, Int)] = []
        swap(&answers, &child.batchedAnswers)
        let outcomes = child.batchedExceptions
        child.batchedExceptions.removeAll()
        defer {
            answers.removeAll(keepingCapacity: true)
            if child.batchedAnswers.isEmpty { child.batchedAnswers = answers }
        }
        guard child.isLive || child.state == .closing else { return }
        for run in cumulativeRuns(answers, inFlight: { child.batchedSharesInFlight.contains($0) }) {
            let exceptions = run.answers.compactMap { $0.1 == 0 ? nil : ShareException(seq: $0.0, outcome: outcomes[$0.1 - 1]) }
            child.send(.shareResults(ShareResults(first: run.first, last: run.last, exceptions: exceptions)))
        }
    }

    /// The destination finished its handshake: what waited for it leaves now.
    func destinationReady(_ child: ChildConnection) {
        let queued = child.queuedDeliveries
        child.queuedDeliveries.removeAll()
        for pending in queued { offer(pending, to: child) }
    }

    func acknowledged(_ ack: DeliverAck, replyTo: UInt64, from destination: ChildConnection) throws {
        guard let pending = destination.pendingDeliveries.removeValue(forKey: replyTo) else {
            // The sender was already told `failed(timeout)`; an honest app that answers late is
            // not hostile, and its answer changes nothing.
            if destination.expiredDeliveries.forget(replyTo) {
                onEvent(.note("\(destination.handle) acknowledged delivery \(replyTo) after its deadline; its sender was already told it timed out"))
                return
            }
            if replyTo == 0 {
                throw HostileFrame("sent deliver_ack without reply_to: an acknowledgement must name its Deliver frame's seq in reply_to")
            }
            throw HostileFrame("acknowledged delivery \(replyTo), which it was never sent or already acknowledged")
        }
        guard ack.itemID == pending.itemID else {
            // Put back: the child is cut off for this, and its exit answers the sender, which
            // taken out here was never answered at all.
            destination.pendingDeliveries[replyTo] = pending
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
        touched = destination.pendingDeliveries.touchObjects(in: range, bytes: PendingDelivery.touchedBytes)
        for seq in lookups(in: range, among: destination.pendingDeliveries, alsoWaiting: destination.expiredDeliveries) {
            if let pending = destination.pendingDeliveries.take(seq, if: { $0.batched }) {
                matched += 1
                finish(pending, accepted: !declined.contains(seq), by: destination)
                PendingDelivery.keep(consume pending)
            } else if destination.expiredDeliveries.forget(seq) {
                late += 1
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
            if configuration.reportDeliveries, let item = pending.value.item {
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
        guard child.endsWhenIdle, child.state == .ready, child.pendingDeliveries.isEmpty, child.queuedDeliveries.isEmpty,
              child.outgoingDeliveries.isEmpty else { return }
        supervisor.end(child, reason: "request completed")
    }

    /// What a share counts against its sender's bytes in flight.
    @inline(__always)
    static func cost(of item: Item) -> Int { max(item.inlineByteCount, 256) }

    private func answer(_ pending: PendingDelivery, _ outcome: Verdict) {
        guard !pending.answered else { return }
        pending.answered = true
        pending.sender.bytesInFlight -= pending.cost
        bytesInFlight -= pending.cost
        if pending.keepsReadBuffer { pending.sender.readBuffersInFlight -= 1 }
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

    /// Answers with `record`, which is left empty (the slower paths' records).
    private func answer(_ sender: ChildConnection, _ seq: UInt64, _ outcome: consuming Verdict, _ record: inout ShareRecord) {
        answer(sender, seq, outcome, taking: record.taken())
    }

    /// (`outcome` is consumed: its last use moves it into the record.)
    private func answer(_ sender: ChildConnection, _ seq: UInt64, _ outcome: consuming Verdict, taking record: consuming ShareRecord) {
        sender.sharesInFlight -= 1
        if sender.batchedSharesInFlight.remove(seq) {
            if sender.isLive || sender.state == .closing {
                if outcome.isDelivered {
                    sender.batchedAnswers.append((seq, 0))
                } else {
                    sender.batchedExceptions.append(copy outcome)
                    sender.batchedAnswers.append((seq, sender.batchedExceptions.count))
                }
                scheduleBatchWork(sender)
            }
        } else if sender.isLive || sender.state == .closing {
            sender.send(.shareResult(copy outcome), replyTo: seq)
        }
        record.outcome = outcome
        audit.record(record)
        // The record's last use: it moves into the event.
        onEvent(.share(consume record))
    }

    /// A child is gone: every delivery it owed an answer for fails now.
    func failOutstandingWork(of child: ChildConnection, how: String) {
        let why = "\(child.handle) ended before acknowledging the item: \(how)"
        child.dropSpareDeliveries()
        let pending = child.pendingDeliveries.entries.map(\.value) + child.outgoingDeliveries.compactMap { $0 } + child.queuedDeliveries
        child.pendingDeliveries.removeAll()
        child.outgoingDeliveries.removeAll()
        child.outgoingDeliveryBytes = 0
        child.queuedDeliveries.removeAll()
        for p in pending { answer(p, .failed(.appNotRunning, why)) }
    }

    /// Deliveries past their deadline: the sender is told `failed(timeout)`, and the
    /// destination's late acknowledgement will be ignored.
    func expireDeliveries(of child: ChildConnection, now: UInt64) {
        // Every 50 ms of a flood, most of a thousand deliveries in flight, none late: looked
        // through where they lie, not copied out (a retain, a release and a tuple's destroy
        // each).
        guard child.pendingDeliveries.contains(where: { $0.deadline <= now }) else { return }
        let expired = child.pendingDeliveries.entries.filter { $0.value.deadline <= now }
        for (seq, p) in expired {
            child.pendingDeliveries[seq] = nil
            child.expiredDeliveries.remember(seq)
            answer(p, .failed(.timeout, "\(child.handle) did not acknowledge the item within \(configuration.deliveryTimeout)"))
        }
    }
}
