import MAMLoop
import MAMModel
import MAMWire

/// What every share touches of a child, on the host's loop thread (`LoopBound`): its frame
/// reader and sequence, and the broker's ledger of it. Read and written through `value`
/// (`child.value.ledger`), checked to be on the loop's thread in debug builds.
struct ChildLoopState {
    var decoder: FrameDecoder
    var numbers = FrameNumbers()
    var ledger = DeliveryLedger<PendingDelivery>()
}

/// The host's view of one running child: its process, its channel, what it has been told and
/// what it is waiting for. Used on the host's loop thread only.
///
/// The fields every share touches are its `ChildLoopState`: this class never leaves the loop
/// thread, and the runtime's check of each access to them was paid on every share.
final class ChildConnection: LoopBound<ChildLoopState> {
    let spec: AppSpec
    let pipe: Pipe
    var process: ChildProcess?
    /// Where it is in its life and what of it has a deadline (`ChildLifecycle`): changed
    /// only by the supervisor, through the value's operations.
    var life: ChildLifecycle
    var state: ChildLifecycle.State { life.state }
    var pid: Int32 { process?.pid ?? 0 }
    /// The template is forking it: a live child with no process yet (and so no channel).
    var forking: Bool { process == nil && life.state != .exited }
    /// Forked from the built-in runtime's template: mamsim's own runtime, one thread.
    var forkedFromTemplate = false
    /// The highest `seq` seen from the child: sequence numbers must grow.
    var lastSeqFromChild: UInt64 = 0
    /// What runs once its process has exited (the SDK's restart launches the app again).
    var onExit: [() -> Void] = []
    /// Where its stderr goes (a program of its own): the last lines explain a failed start.
    var stderrLog: String?
    /// The cgroup.procs file of its own cgroup, when the host made one (`ChildCgroups`).
    var cgroup: String?

    /// Commands sent to this child, by seq.
    var pendingCommands: [UInt64: PendingCommand] = [:]
    /// An extension is ended once it has no delivery left.
    var endsWhenIdle: Bool
    /// The child takes `deliverBatch` frames (it said so in `Hello`).
    var takesBatches = false
    /// The strings this child's frames repeat (its accounts, its destinations' names).
    let strings = StringPool()
    /// What the callbacks of its own pipe and process, and answers still to come, hold of it.
    let link = ChildLink()

    /// `relaunch`: the process is the Intune SDK's relaunch of the app (`ChildLifecycle.isSDKRelaunch`).
    init(spec: AppSpec, pipe: Pipe, maximumFrameSize: UInt32, relaunch: Bool = false) {
        self.spec = spec
        self.pipe = pipe
        life = ChildLifecycle(isSDKRelaunch: relaunch)
        endsWhenIdle = !spec.startsWithFleet
        super.init(ChildLoopState(decoder: FrameDecoder(maximumFrameSize: maximumFrameSize)), loop: pipe.loop)
        link.child = self
    }

    deinit {
        link.child = nil
    }

    var handle: String { spec.handle }
    var key: AppHandle { spec.key }
    var bundleID: BundleID { spec.bundleID }
    var isLive: Bool { life.isLive }
    /// Anything with a deadline the supervisor's sweep must watch.
    var hasDeadlines: Bool {
        life.hasDeadlines || self.value.ledger.awaitsAcknowledgements || !pendingCommands.isEmpty
    }

    /// Numbers `count` items of a batch from this conversation's sequence; the batch frame
    /// itself takes the next seq.
    func reserveSeqs(_ count: Int) -> Range<UInt64> { self.value.numbers.take(count) }

    /// Signals its process; one still being forked is killed once it exists (it has run
    /// nothing of its own yet, so no gentler signal would mean more).
    func signal(_ signal: Int32) {
        if let process {
            process.kill(signal)
        } else if forking {
            life.killWhileForking()
        }
    }

    @discardableResult
    func send(_ body: HostMessage, replyTo: UInt64 = 0) -> UInt64 {
        let seq = self.value.numbers.take()
        pipe.enqueue { FrameEncoder.encode(seq: seq, replyTo: replyTo, body: body, appendingTo: &$0) }
        return seq
    }
}

/// A reference to a child that does not keep it alive, for what the child itself keeps (its
/// pipe's and its process's callbacks: a strong capture would be a cycle) and for answers that
/// may come after it ended.
///
/// Not a weak reference: the first weak reference to an object gives it a side table, and from
/// then on every retain and release of it takes the runtime's slow path — two of each per
/// share, since each pending delivery holds its sender. The child clears
/// this in its `deinit`, before anything of it is destroyed; both live on the loop thread only.
final class ChildLink {
    fileprivate(set) unowned(unsafe) var child: ChildConnection?
}

/// What is set again each time a `PendingDelivery` is reused, on the loop thread
/// (`LoopBound`), read and written where it lies (`pending.value.record`): forwarded through
/// properties of its own, each was an accessor coroutine whose frame the record made the
/// heap's, a `malloc` and a `free` per item.
struct PendingDeliveryLoopState {
    /// The sender's ShareRequest seq: the answer's `replyTo`.
    var requestSeq: UInt64
    /// The item delivered. Once sent it is let go when nothing reads it again
    /// (`Broker.sent`): its payload lies in the loop's read buffer, which the loop reads into
    /// again only when nothing refers to it. The rest of the `Deliver` frame is the sender's
    /// bundle id and the record's `receivedAs`, put with it as it is written (`deliver`).
    /// (Spelled `Optional<Item>`, not `Item?`, which starts as `nil`: the initialiser's
    /// assignment then destroyed that `nil` through the type's metadata, on every item.)
    var item: Optional<Item>
    /// Completed where it lies, and moved out when the delivery is answered: `nil` then. Its
    /// `itemID` is the one a lone acknowledgement must name, also once `item` is let go.
    var record: ShareRecord?
}

/// A delivery the broker owes its sender an answer for.
final class PendingDelivery: LoopBound<PendingDeliveryLoopState> {
    // The flags first: laid out right after the record, which ends in a byte of its verdict's,
    // they take its padding (see "One of these is made per delivered item" below).
    var answered = false
    /// Sent in a `deliverBatch`: acknowledged by a `deliverAcks` range.
    var batched = false
    /// Whether it keeps a read buffer.
    var keepsReadBuffer = false
    /// Held strongly (a weak reference cost every share two atomic updates of the sender's
    /// side table): a delivery lives only in its destination's tables until it is answered,
    /// and every way out of them (acknowledgement, deadline, the destination's exit, which
    /// teardown waits for) answers it, so it never keeps a sender alive past that. One kept
    /// for reuse in its sender's ledger (`DeliveryLedger.spare`) holds it too, until the sender exits.
    let sender: ChildConnection
    /// Loop time (ms) after which the sender is told `failed(timeout)`.
    var deadline: UInt64 = 0
    /// What it counts in its sender's `bytesInFlight` (`Broker.cost`), and about how many
    /// bytes its item takes in a frame (`Item.approximateWireSize`, what a flush batches
    /// deliveries by): measured while the item was the broker's own to read, as a flush
    /// reading the item out of here copied it (a retain and a release of its box and of its
    /// owner per item). In 32 bits each, where `cost` alone was an `Int`, so the object
    /// keeps its size; both are at most a frame's size.
    private var costBytes: UInt32 = 0
    private var wireBytes: UInt32 = 0
    var cost: Int {
        get { Int(costBytes) }
        set { costBytes = UInt32(clamping: newValue) }
    }
    var wireSize: Int {
        get { Int(wireBytes) }
        set { wireBytes = UInt32(clamping: newValue) }
    }
    /// The id of the item delivered (`""` once answered), read where it lies.
    var itemID: String {
        _read {
            if value.record != nil { yield value.record!.itemID } else { yield "" }
        }
    }

    // One of these is made per delivered item and thousands wait at once, made a batch at a
    // time and freed a window later, far more than glibc's per-thread cache keeps. So the
    // object is kept within glibc's fast bins (blocks of at most 128 bytes, which are reused
    // as they were freed, never merged with their neighbours): it holds the item, not a whole
    // `Deliver` whose sender and receiver are already here; its item's id is the record's;
    // and the record, which ends in a byte of its verdict's, is followed by the flags instead
    // of being padded up to the next word. Larger, it went to glibc's bins for small blocks,
    // which sort and merge them on the way, at a cost per block.

    /// At most this object's size: its header and its stored properties' sizes, without the
    /// padding between them (`SeqTable.touchObjects`).
    static let touchedBytes = 16 + MemoryLayout<ChildConnection>.size + MemoryLayout<UInt64>.size
        + MemoryLayout<Optional<Item>>.size + MemoryLayout<UInt64>.size + 2 * MemoryLayout<UInt32>.size + MemoryLayout<ShareRecord?>.size
        + 3 * MemoryLayout<Bool>.size

    init(sender: ChildConnection, requestSeq: UInt64, record: ShareRecord, item: Item) {
        self.sender = sender
        super.init(PendingDeliveryLoopState(requestSeq: requestSeq, item: item, record: record))
    }

    /// A delivery of `sender`'s: one it keeps from an answered delivery, made new as this
    /// one, or a new one: not a block made and freed per item (`malloc`, `free` and the
    /// runtime's allocation and deallocation on every brokered item).
    /// `record` moves into it (a kept delivery has none: it moved out when it was answered).
    static func make(sender: ChildConnection, requestSeq: UInt64, record: consuming ShareRecord, item: consuming Item) -> PendingDelivery {
        guard let kept = sender.value.ledger.reuseSpare() else {
            return PendingDelivery(sender: sender, requestSeq: requestSeq, record: record, item: item)
        }
        kept.value.requestSeq = requestSeq
        kept.value.record = consume record
        kept.value.item = item
        kept.deadline = 0
        kept.cost = 0
        kept.wireSize = 0
        kept.answered = false
        kept.batched = false
        kept.keepsReadBuffer = false
        return kept
    }

    /// Keeps an answered delivery for its sender's next share, when nothing else holds it
    /// and the sender still runs (its exit lets go of what it kept: `DeliveryLedger.drain`).
    static func keep(_ pending: consuming PendingDelivery) {
        guard pending.answered, pending.sender.isLive, isKnownUniquelyReferenced(&pending),
              pending.sender.value.ledger.keepsMoreSpares else { return }
        // What it holds goes now, not when it is reused: the item's read buffer above all.
        // (Its record moved out when it was answered.)
        pending.value.item = nil
        assert(pending.value.record == nil, "a delivery answered keeps no record")
        // Appended by the sender lent, not retained (a retain and a release of it per item): the
        // delivery holds it, before and after it moves into the sender's own list.
        let sender = Unmanaged.passUnretained(pending.sender)
        var moving: PendingDelivery? = consume pending
        sender._withUnsafeGuaranteedRef { $0.value.ledger.keepSpare(moving.take()!) }
    }

    /// The frame that delivers the item: the item, from its sender, to its receiver.
    var deliver: Deliver? { value.item.map(frame(delivering:)) }

    /// The delivery, its item moved out and let go (see `item`).
    func take() -> Deliver? {
        var taken: Item?
        swap(&taken, &value.item)
        guard let taken else { return nil }
        return frame(delivering: taken)
    }

    private func frame(delivering item: Item) -> Deliver {
        Deliver(item: item, senderBundleID: sender.bundleID, receivedAs: value.record?.receivedAs ?? "")
    }
}

/// A command the host sent a child and the completion waiting for its answer.
final class PendingCommand {
    let command: Command
    let deadline: UInt64
    let completion: (CommandResult) -> Void
    init(command: Command, deadline: UInt64, completion: @escaping (CommandResult) -> Void) {
        self.command = command
        self.deadline = deadline
        self.completion = completion
    }
}
