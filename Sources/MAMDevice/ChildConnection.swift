import MAMLoop
import MAMModel
import MAMWire

/// The host's view of one running child: its process, its channel, what it has been told and
/// what it is waiting for. Used on the host's loop thread only.
final class ChildConnection {
    enum State { case spawning, ready, closing, exited }

    let spec: AppSpec
    let pipe: Pipe
    var process: ChildProcess?
    var decoder: FrameDecoder
    var state: State = .spawning
    var pid: Int32 { process?.pid ?? 0 }
    private var nextSeq: UInt64 = 1
    /// The highest `seq` seen from the child: sequence numbers must grow.
    var lastSeqFromChild: UInt64 = 0
    /// Set when the host itself asked the child to go (bye, kill, teardown).
    var exitExpected = false
    var handshakeTimer: Timer?
    /// Escalates an ignored `Bye` (SIGTERM, then SIGKILL); closed when the child exits.
    var byeTimer: Timer?

    /// Deliveries sent to this child and not yet acknowledged, by the Deliver frame's seq.
    var pendingDeliveries: [UInt64: PendingDelivery] = [:]
    /// Deliveries waiting for this child to finish its handshake (an extension started on demand).
    var queuedDeliveries: [PendingDelivery] = []
    /// Shares this child sent that have not been answered yet.
    var sharesInFlight = 0
    /// Scripted commands sent to this child, by seq.
    var pendingCommands: [UInt64: PendingCommand] = [:]
    /// An extension is ended once it has no delivery left.
    var endsWhenIdle: Bool

    init(spec: AppSpec, pipe: Pipe, maximumFrameSize: UInt32) {
        self.spec = spec
        self.pipe = pipe
        decoder = FrameDecoder(maximumFrameSize: maximumFrameSize)
        endsWhenIdle = !spec.startsWithFleet
    }

    var handle: String { spec.handle }
    var bundleID: BundleID { spec.bundleID }
    var isLive: Bool { state == .spawning || state == .ready }

    @discardableResult
    func send(_ body: Frame.Body, replyTo: UInt64 = 0) -> UInt64 {
        let seq = nextSeq
        nextSeq += 1
        let frame = Frame(seq: seq, replyTo: replyTo, body: body)
        pipe.enqueue { FrameEncoder.encode(frame, appendingTo: &$0) }
        return seq
    }
}

/// A delivery the broker owes its sender an answer for.
final class PendingDelivery {
    weak var sender: ChildConnection?
    /// The sender's ShareRequest seq: the answer's `replyTo`.
    let requestSeq: UInt64
    var record: ShareRecord
    let deliver: Deliver
    /// Loop time (ms) after which the sender is told `failed(timeout)`.
    var deadline: UInt64 = 0
    var answered = false

    init(sender: ChildConnection, requestSeq: UInt64, record: ShareRecord, deliver: Deliver) {
        self.sender = sender
        self.requestSeq = requestSeq
        self.record = record
        self.deliver = deliver
    }
}

final class PendingCommand {
    let completion: (CommandResult) -> Void
    var timer: Timer?
    init(completion: @escaping (CommandResult) -> Void) { self.completion = completion }
}
