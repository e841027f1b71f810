import MAMLoop
import MAMModel
import MAMWire

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
