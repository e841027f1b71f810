import MAMLoop
public import MAMModel
public import MAMWire
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

// One file of about six hundred lines, on purpose: the app's end of the wire — handshake,
// frames read and dispatched, shares batched and answered, deliveries acknowledged, service
// calls — is one connection's state on one loop thread, tuned per item against
// Benchmarks/Thresholds as the host's end is; `MAMApp` is the API over it.

/// `AppChannel`'s state on its loop's thread (`LoopBound`): its fields are read and
/// written through `AppChannel`'s properties of the same names.
public struct AppChannelLoopState {
    var decoder: FrameDecoder = FrameDecoder()
    var nextSeq: UInt64 = 1
    var replyHandlers: [UInt64: (HostFrame) -> Void] = [:]
    var deliveredItemIDs: RecentIDs = RecentIDs(capacity: 4096)
    var batchHashes: [Int] = []
    var touched: UInt64 = 0
    var senderNumbers: [BundleID: UInt32] = [:]
    var lastSenderFolded: String = ""
    var lastSenderNumber: UInt32 = 0
    var queuedShares: [BatchedShare] = []
    var queuedCompletions: [(Verdict) -> Void] = []
    var queuedWeights: [Int] = []
    var batchedShares: SeqTable<(Verdict) -> Void> = SeqTable<(Verdict) -> Void>()
    var answeredDeliveries: [(UInt64, Bool)] = []
    var unansweredDeliveries: SeqSet = SeqSet()
    var flushHook: FlushHook?
    var hostTakesBatches: Bool = false
    var onDeliver: ((Deliver) -> Bool)?
    var onDeliverLater: ((Deliver, _ accept: @escaping (Bool) -> Void) -> Void)?
    var lendsReceivedPayloads: Bool = false
}

/// A simulated app's side of the host channel on fd 3, driven by callbacks on its own loop.
///
/// This is the low layer of MAMKit: it does the handshake, numbers frames, matches replies to
/// requests and hands everything else to the app. `MAMApp` puts an async API on top; the
/// generic runtime `mamsim-app` uses this layer directly to stay as fast as a C child.
/// Thread rule: use it only on the loop's thread. Because of that rule the state every share
/// and delivery touches is its `AppChannelLoopState` (`LoopBound`): the runtime's checks of
/// accesses to a class's properties,
/// with the string pool's, were a sizeable part of an app's work per item (the counts:
/// Benchmarks/Thresholds).
public final class AppChannel: LoopBound<AppChannelLoopState> {
    let loop: EventLoop
    private let pipe: Pipe
    private var decoder: FrameDecoder {
        @inline(__always) _read { yield value.decoder }
        @inline(__always) _modify { yield &value.decoder }
    }
    private var nextSeq: UInt64 {
        @inline(__always) _read { yield value.nextSeq }
        @inline(__always) _modify { yield &value.nextSeq }
    }
    private var replyHandlers: [UInt64: (HostFrame) -> Void] {
        @inline(__always) _read { yield value.replyHandlers }
        @inline(__always) _modify { yield &value.replyHandlers }
    }
    /// Ids of items already handed to the app: a re-sent delivery is acknowledged again but
    /// never shown twice.
    private var deliveredItemIDs: RecentIDs {
        @inline(__always) _read { yield value.deliveredItemIDs }
        @inline(__always) _modify { yield &value.deliveredItemIDs }
    }
    /// A batch's keys' hashes, computed once for `RecentSet.touch` and `remember`, and what
    /// the touch read (kept, so that the reads are made).
    private var batchHashes: [Int] {
        @inline(__always) _read { yield value.batchHashes }
        @inline(__always) _modify { yield &value.batchHashes }
    }
    private var touched: UInt64 {
        @inline(__always) _read { yield value.touched }
        @inline(__always) _modify { yield &value.touched }
    }
    /// The senders of delivered items, numbered in the order they first delivered one (the
    /// host stamps them, so there are as many as apps): a remembered item keeps its sender's
    /// number, where a bundle id was two strings to retain and release for every item.
    private var senderNumbers: [BundleID: UInt32] {
        @inline(__always) _read { yield value.senderNumbers }
        @inline(__always) _modify { yield &value.senderNumbers }
    }
    /// The last sender numbered, by its folded spelling: a stream of deliveries has one.
    private var lastSenderFolded: String {
        @inline(__always) _read { yield value.lastSenderFolded }
        @inline(__always) _modify { yield &value.lastSenderFolded }
    }
    private var lastSenderNumber: UInt32 {
        @inline(__always) _read { yield value.lastSenderNumber }
        @inline(__always) _modify { yield &value.lastSenderNumber }
    }
    /// Shares asked for this loop iteration: several leave as one `shareBatch`.
    /// (Requests and completions apart: a pair read out of one array is copied whole, the
    /// closure with the request.)
    /// Held as the batch items they become (numbered when they leave): each is sent from
    /// where it lies, never copied into a batch of its own.
    private var queuedShares: [BatchedShare] {
        @inline(__always) _read { yield value.queuedShares }
        @inline(__always) _modify { yield &value.queuedShares }
    }
    private var queuedCompletions: [(Verdict) -> Void] {
        @inline(__always) _read { yield value.queuedCompletions }
        @inline(__always) _modify { yield &value.queuedCompletions }
    }
    /// Each queued share's `approximateWireSize`, for `batchRanges`.
    private var queuedWeights: [Int] {
        @inline(__always) _read { yield value.queuedWeights }
        @inline(__always) _modify { yield &value.queuedWeights }
    }
    /// Batched shares waiting for their answer (a `shareResults` range), by seq: handed out
    /// in order and mostly answered in order, a `SeqTable` (no hashing per share).
    private var batchedShares: SeqTable<(Verdict) -> Void> {
        @inline(__always) _read { yield value.batchedShares }
        @inline(__always) _modify { yield &value.batchedShares }
    }
    /// Batched deliveries the app has answered, acknowledged together before the loop writes.
    private var answeredDeliveries: [(UInt64, Bool)] {
        @inline(__always) _read { yield value.answeredDeliveries }
        @inline(__always) _modify { yield &value.answeredDeliveries }
    }
    /// Batched deliveries the app has not answered yet (`onDeliverLater`).
    private var unansweredDeliveries: SeqSet {
        @inline(__always) _read { yield value.unansweredDeliveries }
        @inline(__always) _modify { yield &value.unansweredDeliveries }
    }
    /// `flushBatches`, armed when a share is queued or a delivery answered.
    private var flushHook: FlushHook? {
        @inline(__always) _read { yield value.flushHook }
        @inline(__always) _modify { yield &value.flushHook }
    }

    /// Batches are on unless `MAMSIM_BATCHES=0` is in the environment (to measure or debug
    /// the one-frame-per-item path).
    static let batchesEnabled: Bool = {
        guard let value = getenv("MAMSIM_BATCHES") else { return true }
        return String(cString: value) != "0"
    }()

    /// Set once the host answered `Hello`.
    public private(set) var welcome: Welcome?
    /// The host takes `shareBatch` frames and batches are on (read once per share: reading
    /// `welcome` copies all of it).
    private var hostTakesBatches: Bool {
        @inline(__always) _read { yield value.hostTakesBatches }
        @inline(__always) _modify { yield &value.hostTakesBatches }
    }
    /// The strings the host's frames repeat (senders, accounts, type identifiers).
    private let strings = StringPool()
    public var onWelcome: ((Welcome) -> Void)?
    /// An item arrived; return true to accept it (the host is told in the acknowledgement).
    public var onDeliver: ((Deliver) -> Bool)? {
        get { value.onDeliver }
        set { value.onDeliver = newValue }
    }
    /// Like `onDeliver`, for an app that must ask the host something first (e.g. read a
    /// shared file with the `readFile` service): call `accept` once; the acknowledgement
    /// waits for it. Takes precedence over `onDeliver`.
    public var onDeliverLater: ((Deliver, _ accept: @escaping (Bool) -> Void) -> Void)? {
        get { value.onDeliverLater }
        set { value.onDeliverLater = newValue }
    }
    /// A command from the host (a scripted action, an SDK delegate callback); call `reply`
    /// exactly once with the matching `CommandResult` case, or `.error`.
    public var onCommand: ((Command, _ reply: @escaping (CommandResult) -> Void) -> Void)?
    /// The host sent an error about one of our frames.
    public var onError: ((Reason, String) -> Void)?
    /// The channel ended: host closed it, said bye, or sent bytes we cannot read.
    public var onClose: ((String) -> Void)?

    /// Opens fd 3. Fails with a clear message when the program was not started by a host.
    init(loop: EventLoop, fd: Int32 = 3) throws {
        self.loop = loop
        pipe = try Pipe(loop: loop)
        do {
            try pipe.open(fd: fd)
        } catch {
            pipe.close()
            throw error
        }
        super.init(AppChannelLoopState())
        flushHook = loop.addBeforeFlushHook(self) { $0.flushBatches() }
    }

    /// What was batched leaves at the loop's next flush.
    @inline(__always)
    private func flushBatchesSoon() {
        if let flushHook { loop.arm(flushHook) }
    }

    /// The whole life of a callback-driven child program: opens fd 3 on a new loop, lets
    /// `configure` install the handlers, says hello, runs until the host says bye or closes
    /// the channel, and exits (status 2 with a message on stderr when there is no host).
    public static func runProgram(runtime: String, _ configure: (AppChannel) -> Void) -> Never {
        // The program's entry: a write to a host that went away fails instead of killing us.
        System.ignoreBrokenPipes()
        let loop: EventLoop
        let channel: AppChannel
        do {
            loop = try EventLoop()
            channel = try AppChannel(loop: loop)
            configure(channel)
            let userOnClose = channel.onClose
            channel.onClose = { why in
                userOnClose?(why)
                loop.stop()
            }
            try channel.start(runtime: runtime)
        } catch {
            try? System.writeAll(2, Array("\(runtime): \(error)\n".utf8))
            exit(2)
        }
        loop.run()
        exit(0)
    }

    /// Deliveries' inline payloads are handed to the app where they were read instead of
    /// copied out of the read buffer (an allocation and a copy per item). Only for an app that
    /// keeps no item after `onDeliver` returns: a kept item keeps the whole buffer it was read
    /// into alive (256 KiB, or a large frame's own), which nothing here would bound; such an
    /// app keeps `detached()` copies. Set before the channel starts (in `runProgram`'s
    /// `configure`). The generic runtime keeps ids and owners only, and sets it.
    /// (Read at every read, on the loop thread: without the runtime's check.)
    public var lendsReceivedPayloads: Bool {
        @inline(__always) _read { yield value.lendsReceivedPayloads }
        @inline(__always) _modify { yield &value.lendsReceivedPayloads }
    }

    /// Sends `Hello` and starts reading.
    func start(runtime: String, finishesLaunching: Bool = false) throws {
        try pipe.startReading(onReceive: { [unowned self] chunk in read(chunk) }, onEnd: { [unowned self] error in
            end(error.map { "channel error: \($0)" } ?? "host closed the channel")
        })
        send(.hello(Hello(pid: getpid(), runtime: runtime, finishesLaunching: finishesLaunching, batches: Self.batchesEnabled)))
    }

    /// The frames in what the host wrote: read where they lie in their buffer when the app
    /// takes payloads lent (`lendsReceivedPayloads`), else parsed into values of their own.
    /// (A method: the closure reading each frame holds `self` as the method does, where one
    /// in `start` reached it through the unowned reference once per frame.)
    private func read(_ chunk: ReceivedBytes) {
        do {
            if lendsReceivedPayloads {
                try decoder.feed(chunk, onFrame: { payload in
                    var frame = HostFrame(body: .bye(reason: ""))
                    try FrameParser.parse(payload, strings: strings, into: &frame)
                    handle(frame)
                    strings.recycle(&frame)
                })
            } else {
                try chunk.withUnsafeBytes { bytes in
                    try decoder.feed(bytes, onFrameBytes: { payload in
                        var frame = HostFrame(body: .bye(reason: ""))
                        try FrameParser.parse(payload, strings: strings, into: &frame)
                        handle(frame)
                        strings.recycle(&frame)
                    })
                }
            }
        } catch {
            end("unreadable frame from the host: \(error)")
        }
    }

    /// Sends a frame; `onReply` runs when the host answers it.
    @discardableResult
    func send(_ body: ChildMessage, replyTo: UInt64 = 0, onReply: ((HostFrame) -> Void)? = nil) -> UInt64 {
        // Shares asked for earlier leave first: the host sees frames in the order asked.
        if !queuedShares.isEmpty { flushShares() }
        let seq = nextSeq
        nextSeq += 1
        if let onReply { replyHandlers[seq] = onReply }
        pipe.enqueue { FrameEncoder.encode(seq: seq, replyTo: replyTo, body: body, appendingTo: &$0) }
        return seq
    }

    /// Asks the broker to share an item; `completion` gets the one outcome. Shares asked for
    /// in one loop iteration leave together in one frame, and their answers come back
    /// together, when the host takes batches.
    /// `consuming`: a request made for the call moves into the queue (taken as borrowed, it
    /// was copied in, a retain per field, and the caller's released).
    public func share(_ request: consuming ShareRequest, completion: @escaping (Verdict) -> Void) {
        guard hostTakesBatches, !ended else { return sendShare(request, completion: completion) }
        // Weighed now, while the request is at hand: weighed in the queue, each was copied
        // out of it for `batchRanges`.
        // Armed by the first share of an iteration (armed, it stays so until the flush).
        if queuedShares.isEmpty { flushBatchesSoon() }
        queuedWeights.append(request.item.approximateWireSize)
        queuedShares.append(BatchedShare(seq: 0, request: request))
        queuedCompletions.append(completion)
    }

    private func sendShare(_ request: ShareRequest, completion: @escaping (Verdict) -> Void) {
        send(.shareRequest(request)) { frame in
            switch frame.body {
            case .shareResult(let outcome): completion(outcome)
            case .error(let code, let message): completion(.failed(code, message))
            default: completion(.failed(.badRequest, "the host answered a share with \(frame.body.name)"))
            }
        }
    }

    /// Asks the host for an OS or SDK service (files, protection, keychain, pasteboard,
    /// save/open checks, printing, notifications, the share sheet).
    public func service(_ request: ServiceRequest, context: ServiceContext = .main, completion: @escaping (ServiceResult) -> Void) {
        send(.serviceRequest(request, context)) { frame in
            switch frame.body {
            // The host answers each call with its own type's value (`ServiceCall.value(of:)`);
            // a typed call reads it back with `answer(from:)`.
            case .serviceResult(let r): completion(r)
            case .error(let code, let message): completion(ServiceResult(.failed(code, message)))
            default: completion(ServiceResult(.failed(.badRequest, "the host answered \(request.name) with \(frame.body.name)")))
            }
        }
    }

    /// A typed service call (`Service.ReadFile`…), answered on the loop thread.
    public func call<Call: ServiceCall>(_ call: Call, context: ServiceContext = .main, completion: @escaping (Reply<Call.Answer>) -> Void) {
        service(call.request, context: context) { completion(Reply($0, for: Call.self)) }
    }

    /// Sets a window's UI identity (`window == nil`: the process identity). `mainThread`: the
    /// thread identity the main thread carries (`nil`: none); the host refuses a switch to
    /// another identity (NotAllowed).
    public func setIdentity(_ account: String, window: String?, mainThread: String? = nil, completion: @escaping (IdentityResult) -> Void) {
        let request = SetIdentity(scope: window == nil ? .process : .ui, window: window ?? "", account: account, mainThread: mainThread)
        send(.setIdentity(request)) { frame in
            switch frame.body {
            case .identityResult(let r): completion(r)
            case .error(let code, let message): completion(IdentityResult(status: .failed, reason: code, explanation: message, account: account))
            default: completion(IdentityResult(status: .failed, reason: .badRequest, explanation: "the host answered set_identity with \(frame.body.name)", account: account))
            }
        }
    }

    /// The identities the host holds for this app (`nil` if it could not say).
    public func identity(window: String, completion: @escaping (IdentityInfo?) -> Void) {
        send(.getIdentity(window: window)) { frame in
            if case .identityInfo(let i) = frame.body { completion(i) } else { completion(nil) }
        }
    }

    public func close() {
        pipe.close()
    }

    // MARK: - Batches

    private func flushBatches() {
        if !queuedShares.isEmpty { flushShares() }
        if !answeredDeliveries.isEmpty { flushAcknowledgements() }
    }

    /// The shares asked for since the last flush: a lone one as a `shareRequest`, several as
    /// one `shareBatch` numbered just before the frame.
    private func flushShares() {
        // Taken out whole and given back emptied: a copy kept while the queue was emptied in
        // place made the queue new storage at every flush. (`send`, below, finds it empty.)
        var queued: [BatchedShare] = []
        var completions: [(Verdict) -> Void] = []
        swap(&queued, &queuedShares)
        swap(&completions, &queuedCompletions)
        defer {
            queued.removeAll(keepingCapacity: true)
            completions.removeAll(keepingCapacity: true)
            if queuedShares.isEmpty { queuedShares = queued }
            if queuedCompletions.isEmpty { queuedCompletions = completions }
        }
        guard queued.count > 1 else {
            queuedWeights.removeAll(keepingCapacity: true)
            for i in queued.indices { sendShare(queued[i].request, completion: completions[i]) }
            return
        }
        let ranges = batchRanges(queuedWeights) { $0 }
        queuedWeights.removeAll(keepingCapacity: true)
        for range in ranges {
            guard range.count > 1 else {
                sendShare(queued[range.lowerBound].request, completion: completions[range.lowerBound])
                continue
            }
            for i in range {
                let seq = nextSeq
                nextSeq += 1
                batchedShares[seq] = completions[i]
                queued[i].seq = seq
            }
            let seq = nextSeq
            nextSeq += 1
            // The range is encoded where it lies (the slice lives for this call only, so the
            // next range's numbering does not copy the queue).
            pipe.enqueue { FrameEncoder.encodeShareBatch(seq: seq, queued[range], appendingTo: &$0) }
        }
    }

    private func flushAcknowledgements() {
        let answered = answeredDeliveries
        answeredDeliveries.removeAll(keepingCapacity: true)
        for run in cumulativeRuns(answered, inFlight: { unansweredDeliveries.contains($0) }) {
            send(.deliverAcks(DeliverAcks(first: run.first, last: run.last, declined: run.answers.compactMap { $0.1 ? nil : $0.0 })))
        }
    }

    /// Answers every batched share in the range: delivered, unless the host said otherwise.
    private func resolve(_ results: ShareResults) {
        var exceptions: [UInt64: Verdict] = [:]
        for e in results.exceptions { exceptions[e.seq] = e.outcome }
        for seq in lookups(in: results.first...results.last, among: batchedShares) {
            if let completion = batchedShares.removeValue(forKey: seq) { completion(exceptions[seq] ?? .delivered) }
        }
    }

    /// Hands an item to the app once (a re-sent delivery is acknowledged again but never
    /// shown twice). The app's answer, or `nil` when the app answers later (`onDeliverLater`):
    /// then `acknowledge` runs once with it. An app that answers at once costs no closure per
    /// item.
    private func receive(_ d: Deliver, acknowledge: @escaping (Bool) -> Void) -> Bool? {
        guard let later = onDeliverLater else { return receiveNow(d) }
        // Ids are the sender's to choose: the same id from two senders is two items.
        let key = DeliveredItem(sender: senderNumber(d.senderBundleID), id: d.item.id)
        if deliveredItemIDs.contains(key) { return true }
        var answered = false
        later(d) { [weak self] accepted in
            guard !answered else { return }
            answered = true
            if accepted { self?.deliveredItemIDs.remember(key) }
            acknowledge(accepted)
        }
        return nil
    }

    /// `sender`'s number for `DeliveredItem` (a bundle id compares folded, so the same app in
    /// two spellings is one sender).
    private func senderNumber(_ sender: BundleID) -> UInt32 {
        if !lastSenderFolded.isEmpty, sender.folded == lastSenderFolded { return lastSenderNumber }
        let number: UInt32
        if let known = senderNumbers[sender] {
            number = known
        } else {
            number = UInt32(truncatingIfNeeded: senderNumbers.count)
            senderNumbers[sender] = number
        }
        lastSenderFolded = sender.folded
        lastSenderNumber = number
        return number
    }

    /// `receive` for an app that answers at once (no `onDeliverLater`): its answer. `hash`:
    /// the key's, if already computed (`Item.idHashValue`).
    private func receiveNow(_ d: Deliver, hash: Int? = nil) -> Bool {
        receiveNow(d, hash: hash, handler: onDeliver)
    }

    /// `handler`: `onDeliver` as it was when the frame arrived, read once for a whole batch
    /// (called through the property, its context was retained and released per item).
    private func receiveNow(_ d: Deliver, hash: Int?, handler: ((Deliver) -> Bool)?) -> Bool {
        let key = DeliveredItem(sender: senderNumber(d.senderBundleID), id: d.item.id)
        // Remembered before it is shown (one lookup, not two) and forgotten if declined.
        guard deliveredItemIDs.remember(key, hash: hash ?? key.hashValue) else { return true }
        let accepted = handler?(d) ?? true
        if !accepted { deliveredItemIDs.forget(key) }
        return accepted
    }

    private func handle(_ frame: HostFrame) {
        if frame.replyTo != 0, let handler = replyHandlers.removeValue(forKey: frame.replyTo) {
            handler(frame)
            return
        }
        switch frame.body {
        case .welcome(let w):
            welcome = w
            hostTakesBatches = Self.batchesEnabled && w.batches
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
                for i in deliveries.indices { unansweredDeliveries.insert(deliveries[i].seq) }
            } else if unansweredDeliveries.isEmpty {
                // Answered at once, item by item, with no closure for an answer to come; each
                // delivery lent where it lies (an element taken out of the array, even by
                // index, is a copy: a dozen retains and as many releases).
                // The window's table is read for the whole batch first (`RecentSet.touch`).
                batchHashes.removeAll(keepingCapacity: true)
                deliveries.forEachInPlace { delivery in batchHashes.append(delivery.deliver.item.idHashValue) }
                touched = batchHashes.withUnsafeBufferPointer { deliveredItemIDs.touch(hashes: $0) }
                var index = 0
                // The handler in place when the batch arrived receives all of it.
                let handler = onDeliver
                deliveries.forEachInPlace { delivery in
                    answeredDeliveries.append((delivery.seq, receiveNow(delivery.deliver, hash: batchHashes[index], handler: handler)))
                    index += 1
                }
                flushBatchesSoon()
                break
            }
            for i in deliveries.indices {
                let seq = deliveries[i].seq
                let accepted = receive(deliveries[i].deliver) { [weak self] accepted in
                    guard let self, unansweredDeliveries.remove(seq) else { return }
                    answeredDeliveries.append((seq, accepted))
                    flushBatchesSoon()
                }
                if let accepted {
                    if !unansweredDeliveries.isEmpty { unansweredDeliveries.remove(seq) }
                    answeredDeliveries.append((seq, accepted))
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

    private(set) var ended = false
    private func end(_ why: String) {
        guard !ended else { return }
        ended = true
        pipe.close()
        // Every request still waiting is answered, so no caller waits forever.
        let waiting = replyHandlers
        replyHandlers.removeAll()
        for (seq, handler) in waiting.sorted(by: { $0.key < $1.key }) {
            handler(HostFrame(seq: 0, replyTo: seq, body: .error(code: .appNotRunning, message: why)))
        }
        let shares = batchedShares.entries.map(\.value) + queuedCompletions
        batchedShares.removeAll()
        queuedShares.removeAll()
        queuedCompletions.removeAll()
        queuedWeights.removeAll()
        for completion in shares { completion(.failed(.appNotRunning, why)) }
        onClose?(why)
    }
}

/// An item delivered to the app: ids are the sender's to choose.
struct DeliveredItem: Hashable, Sendable {
    /// The sender's number on this channel (`AppChannel.senderNumber`).
    let sender: UInt32
    let id: String

    /// By id alone (equality still compares the sender): ids are unique per sender, and
    /// hashing whole items was a large part of a receiving app's work in a flood. So an
    /// item's `idHashValue` is the `hashValue` of its key.
    func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// The most recent items handed to the app. A re-sent delivery arrives while its first copy
/// is still recent, so a bounded window is enough, and an app that receives a million items
/// does not keep a million ids.
typealias RecentIDs = RecentSet<DeliveredItem>

extension AppChannel {
    /// The channel's part of a template's warm-up (`TemplateWarmUp`): the collections a
    /// channel fills on its first shares and deliveries, each built once with one element.
    package static func prepareTemplate() {
        TemplateWarmUp.prepareLoop()
        var delivered = RecentIDs(capacity: 4)
        delivered.remember(DeliveredItem(sender: 0, id: "warm-up"))
        var senders: [BundleID: UInt32] = [:]
        senders[BundleID("template.warm-up")] = 0
        var completions: [(Verdict) -> Void] = []
        completions.append { _ in }
        var batched = SeqTable<(Verdict) -> Void>()
        batched[1] = { _ in }
        var answered: [(UInt64, Bool)] = []
        answered.append((1, true))
        var unanswered = SeqSet()
        unanswered.insert(1)
        var replies: [UInt64: (HostFrame) -> Void] = [:]
        replies[1] = { _ in }
        var requests: [BatchedShare] = []
        requests.reserveCapacity(1)
        // As `end` answers what is still waiting.
        let waiting = replies.sorted(by: { $0.key < $1.key })
        let shares = batched.entries.map(\.value) + completions
        var ring: [DeliveredItem?] = [DeliveredItem(sender: 0, id: "ring")]
        ring.append(nil)
        TemplateWarmUp.keep(waiting)
        TemplateWarmUp.keep(shares)
        TemplateWarmUp.keep(ring)
        TemplateWarmUp.keep(senders)
        // As `handle` keeps the host's `Welcome` and reads its lists.
        let noWelcome: Welcome? = nil
        TemplateWarmUp.keep(noWelcome as Any)
        TemplateWarmUp.keep([Int]())
        TemplateWarmUp.keep(delivered)
        TemplateWarmUp.keep(completions)
        TemplateWarmUp.keep(batched)
        TemplateWarmUp.keep(answered)
        TemplateWarmUp.keep(unanswered)
        TemplateWarmUp.keep(replies)
        TemplateWarmUp.keep(requests)
        TemplateWarmUp.keep(readsAFrameInPlace())
    }

    /// As a channel that lends payloads reads the host's first frame where it lies, with its
    /// length prefix as the host writes it: the decoder's and the parser's generic pieces for
    /// bytes in a buffer, each instantiated once here rather than in every forked app (their
    /// metadata was some 16 KiB of each idle app's own memory). Whether the frame was read.
    package static func readsAFrameInPlace() -> Bool {
        var welcome: [UInt8] = []
        FrameEncoder.encode(Frame(seq: 1, replyTo: 1, body: .welcome(Welcome(bundleID: "template.warm-up", kind: .app))), appendingTo: &welcome)
        var decoder = FrameDecoder()
        let strings = StringPool()
        var read = false
        try? decoder.feed(ReceivedBytes(copying: welcome)) { bytes in
            if case .welcome = try FrameParser.parse(bytes, strings: strings).body { read = true }
        }
        return read
    }
}
