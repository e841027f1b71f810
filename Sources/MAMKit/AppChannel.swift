public import MAMLoop
public import MAMModel
public import MAMWire
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

// The app's end of the wire, on one loop thread and tuned per item against
// Benchmarks/Thresholds as the host's end is: this file holds the connection, the handshake,
// the calls an app makes and a template's warm-up, and at its end the outbox (shares and
// acknowledgements batched until the loop's next flush); AppChannel+Receiving the host's
// frames (deliveries, answers, commands); DeliveredItems what it remembers of the items handed
// to the app. `MAMApp` is the API over it.

/// `AppChannel`'s state on its loop's thread (`LoopBound`): its fields are read and
/// written through `value` (`AppChannel.value.field`), checked to be on the loop's thread in debug builds.
public struct AppChannelLoopState {
    var decoder: FrameDecoder = FrameDecoder()
    var numbers = FrameNumbers()
    var replyHandlers: [UInt64: (HostFrame) -> Void] = [:]
    /// The items already handed to the app (`DeliveredItems`): a re-sent delivery is
    /// acknowledged again but never shown twice.
    var delivered = DeliveredItems(capacity: 4096)
    /// What leaves at the loop's next flush (`Outbox`, as the host's): the shares asked for this
    /// iteration (several leave as one `shareBatch`), held as the batch items they become
    /// (numbered when they leave, each sent from where it lies), and the answers to batched
    /// deliveries (`deliverAcks` ranges, `true` when accepted).
    var outbox: Outbox<BatchedShare, Bool> = Outbox<BatchedShare, Bool>()
    /// The queued shares' completions, in the outbox's order. (Apart from the requests: a
    /// pair read out of one array is copied whole, the closure with the request.)
    var queuedCompletions: [(Verdict) -> Void] = []
    /// Batched shares waiting for their answer (a `shareResults` range), by seq: handed out
    /// in order and mostly answered in order, a `SeqTable` (no hashing per share).
    var batchedShares: SeqTable<(Verdict) -> Void> = SeqTable<(Verdict) -> Void>()
    /// Batched deliveries the app has not answered yet (`onDeliverLater`).
    var unansweredDeliveries: SeqSet = SeqSet()
    /// `flushBatches`, armed when a share is queued or a delivery answered.
    var flushHook: FlushHook?
    /// The host takes `shareBatch` frames and batches are on (read once per share: reading
    /// `welcome` copies all of it).
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
    package let loop: EventLoop
    let pipe: Pipe

    /// Batches are on unless `MAMSIM_BATCHES=0` is in the environment (to measure or debug
    /// the one-frame-per-item path).
    static let batchesEnabled: Bool = {
        guard let value = getenv("MAMSIM_BATCHES") else { return true }
        return String(cString: value) != "0"
    }()

    /// Set once the host answered `Hello`.
    public internal(set) var welcome: Welcome?
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
        super.init(AppChannelLoopState(), loop: loop)
        self.value.flushHook = loop.addBeforeFlushHook(self) { $0.flushBatches() }
    }

    /// What was batched leaves at the loop's next flush.
    @inline(__always)
    func flushBatchesSoon() {
        if let flushHook = self.value.flushHook { loop.arm(flushHook) }
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
                try self.value.decoder.feed(chunk, onFrame: { payload in
                    var frame = HostFrame(body: .bye(reason: ""))
                    try FrameParser.parse(payload, strings: strings, into: &frame)
                    handle(frame)
                    strings.recycle(&frame)
                })
            } else {
                try chunk.withUnsafeBytes { bytes in
                    try self.value.decoder.feed(bytes, onFrameBytes: { payload in
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
        if self.value.outbox.hasItems { flushShares() }
        let seq = self.value.numbers.take()
        if let onReply { self.value.replyHandlers[seq] = onReply }
        pipe.enqueue { FrameEncoder.encode(seq: seq, replyTo: replyTo, body: body, appendingTo: &$0) }
        return seq
    }

    /// Asks the broker to share an item; `completion` gets the one outcome. Shares asked for
    /// in one loop iteration leave together in one frame, and their answers come back
    /// together, when the host takes batches.
    /// `consuming`: a request made for the call moves into the queue (taken as borrowed, it
    /// was copied in, a retain per field, and the caller's released).
    public func share(_ request: consuming ShareRequest, completion: @escaping (Verdict) -> Void) {
        guard self.value.hostTakesBatches, !ended else { return sendShare(request, completion: completion) }
        // Weighed now, while the request is at hand: weighed in the queue, each was copied
        // out of it for `batchRanges`.
        // Armed by the first share of an iteration (armed, it stays so until the flush).
        if !self.value.outbox.hasItems { flushBatchesSoon() }
        let weight = request.item.approximateWireSize
        self.value.outbox.append(BatchedShare(seq: 0, request: request), weight: weight)
        self.value.queuedCompletions.append(completion)
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

    /// The channel ended (`end`): set once, by the host's bye, a broken pipe or `close`.
    var ended = false
}

// MARK: - A template's warm-up

extension AppChannel {
    /// The channel's part of a template's warm-up (`TemplateWarmUp`): the collections a
    /// channel fills on its first shares and deliveries, each built once with one element.
    package static func prepareTemplate() {
        TemplateWarmUp.prepareLoop()
        var delivered = DeliveredItems(capacity: 4)
        delivered.remember(delivered.key(sender: BundleID("template.warm-up"), id: "warm-up"))
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

/// The app's outbox: shares and acknowledgements gathered during a loop iteration and
/// written as one batch each before the loop writes; the host's cumulative answers resolved.
extension AppChannel {
    private func flushBatches() {
        if self.value.outbox.hasItems { flushShares() }
        if self.value.outbox.hasAnswers { flushAcknowledgements() }
    }

    /// The shares asked for since the last flush: a lone one as a `shareRequest`, several as
    /// one `shareBatch` numbered just before the frame.
    private func flushShares() {
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

    private func flushAcknowledgements() {
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
