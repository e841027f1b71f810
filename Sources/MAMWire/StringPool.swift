internal import MAMModel
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Strings one connection's frames repeat (accounts, bundle ids, type identifiers), kept so
/// each is made once instead of once per item: a stream of shares names the same identity in
/// every item, and a string longer than 15 bytes is a heap allocation. Direct-mapped by
/// length and end bytes; a slot holds the last string that mapped to it. Only strings the
/// reader already validated go in, and a hit is the same bytes, so it is the same string.
/// It also keeps the last owner read (by its bytes) and the last bundle id made (by its
/// spelling), each the same value on a hit. Used on its connection's loop thread only.
public final class StringPool {
    /// Read for most strings of every frame. A pool belongs to one connection and is used on
    /// its loop thread only, so the runtime's exclusivity check of each access to its state
    /// is left out.
    @exclusivity(unchecked) private var slots = [String](repeating: "", count: 64)

    public init() {}

    /// Strings up to 15 bytes are stored inline in a `String` and cost no allocation.
    private static func worthKeeping(_ count: Int) -> Bool { count > 15 && count <= 256 }

    private static func slot(_ count: Int, _ first: UInt8, _ last: UInt8) -> Int {
        (count &* 31 &+ Int(first) &* 7 &+ Int(last)) & 63
    }

    func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard Self.worthKeeping(bytes.count), let base = bytes.baseAddress else { return nil }
        var candidate = slots[Self.slot(bytes.count, base[0], base[bytes.count - 1])]
        guard candidate.utf8.count == bytes.count else { return nil }
        let same = candidate.withUTF8 { utf8 in memcmp(utf8.baseAddress!, base, bytes.count) == 0 }
        return same ? candidate : nil
    }

    /// The string of the `hot=recent` field last read (a share's destination), kept whatever
    /// its length.
    @exclusivity(unchecked) var recentText = ""

    /// The list of the `hot=recent` repeated field last read (an item's type identifiers,
    /// which `HotFrames.RecentList` reuses).
    @exclusivity(unchecked) var recentList: [String] = []

    /// The `hot=recent` message last read (an owner), by its bytes: a stream of deliveries
    /// names one owner.
    @exclusivity(unchecked) private var lastRecent: HotFrames.Recent?
    /// The bytes it was read from, in storage the pool owns (allocated with the first owner
    /// kept, freed with the pool): compared through an array property, each item's
    /// comparison retained and released the array.
    @exclusivity(unchecked) private var lastOwnerBytes: UnsafeMutableBufferPointer<UInt8>?
    @exclusivity(unchecked) private var lastOwnerCount = 0

    /// The most bytes of an owner kept.
    static let keptOwnerBytes = 1024

    deinit { lastOwnerBytes?.deallocate() }

    /// The message last kept, when `bytes` are the ones it was read from.
    func recent(spelledBy bytes: UnsafeBufferPointer<UInt8>) -> HotFrames.Recent? {
        // (`memcmp`: `elementsEqual` compares byte by byte through the generic sequence.)
        // (Not bound with `guard let`: the binding was a copy of the owner besides the one
        // returned, a retain and a release per item a receiving app reads.)
        guard lastRecent != nil, !bytes.isEmpty, lastOwnerCount == bytes.count, let base = bytes.baseAddress,
              let kept = lastOwnerBytes?.baseAddress, memcmp(kept, base, bytes.count) == 0 else { return nil }
        return lastRecent
    }

    /// Keeps `value`, read from `bytes`, for the next item (not when its bytes are many).
    func keep(_ value: HotFrames.Recent, spelledBy bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count <= Self.keptOwnerBytes else { return }
        if lastOwnerBytes == nil { lastOwnerBytes = .allocate(capacity: Self.keptOwnerBytes) }
        _ = lastOwnerBytes.unsafelyUnwrapped.initialize(fromContentsOf: bytes)
        lastOwnerCount = bytes.count
        lastRecent = value
    }

    // A batch's array, emptied and kept for the next batch read (`recycle`). A batch of 16
    // shares of 1 KiB is a 1,256-byte array: each such request larger than glibc's small
    // blocks first merges every block freed into its fast bins (`malloc_consolidate`), so the
    // small blocks of the items and deliveries freed meanwhile took the slow path again.
    @exclusivity(unchecked) private var keptShares: [BatchedShare] = []
    @exclusivity(unchecked) private var keptDeliveries: [BatchedDelivery] = []

    /// The array kept for a share batch, empty (or a new one).
    func spareShares() -> [BatchedShare] {
        var spare: [BatchedShare] = []
        swap(&spare, &keptShares)
        return spare
    }

    /// The array kept for a delivery batch, empty (or a new one).
    func spareDeliveries() -> [BatchedDelivery] {
        var spare: [BatchedDelivery] = []
        swap(&spare, &keptDeliveries)
        return spare
    }

    // A ping's array, kept with its bytes for the next ping read to write over: a round trip
    // of 1 KiB was a request above glibc's small blocks at each end, made and freed once per
    // round trip.
    @exclusivity(unchecked) private var keptPing: [UInt8] = []

    /// The array kept for a ping, with the last ping's bytes (or a new one, empty).
    func sparePing() -> [UInt8] {
        var spare: [UInt8] = []
        swap(&spare, &keptPing)
        return spare
    }

    /// The largest ping array kept (a ping may be as large as a frame).
    public static let keptPingBytes = 64 << 10

    /// The most items an array kept for a batch may hold (the most a batch's first item
    /// reserves): a larger one is let go whole, so that one large batch does not stay in memory.
    public static let keptBatchItems = HotFrames.reservedBatchItems

    /// Keeps a batch frame's array (or a ping's) for the next one of its kind this pool reads,
    /// once the frame is read for the last time: its items are let go now, its storage is
    /// not, and the frame is left without a body. (In place: a frame passed by value is a
    /// second reference to the array, and emptying a shared array allocates a new one.)
    public func recycle(_ frame: inout Frame) {
        // Most frames are none of these: they are left to be destroyed where they are (moving
        // a body out costs a copy of as many bytes as its largest kind has).
        switch frame.body {
        case .shareBatch, .deliverBatch, .ping: break
        default: return
        }
        // The array is copied out of the body, and the body let go after the `switch`: a
        // value bound in a `switch` is a second reference until the `switch` ends.
        var body = Frame.Body.launchFinished
        swap(&body, &frame.body)
        var shares: [BatchedShare] = []
        var deliveries: [BatchedDelivery] = []
        switch body {
        case .shareBatch(let batch): shares = batch
        case .deliverBatch(let batch): deliveries = batch
        case .ping(let bytes): return keep(ping: bytes)
        default: return
        }
        body = .launchFinished
        Self.keep(&shares, in: &keptShares)
        Self.keep(&deliveries, in: &keptDeliveries)
    }

    /// `recycle(_:)` for a frame a child sent (its batches are shares).
    public func recycle(_ frame: inout ChildFrame) {
        switch frame.body {
        case .shareBatch, .ping: break
        default: return
        }
        var body = ChildMessage.launchFinished
        swap(&body, &frame.body)
        var shares: [BatchedShare] = []
        switch body {
        case .shareBatch(let batch): shares = batch
        case .ping(let bytes): return keep(ping: bytes)
        default: return
        }
        body = .launchFinished
        Self.keep(&shares, in: &keptShares)
    }

    /// `recycle(_:)` for a frame the host sent (its batches are deliveries).
    public func recycle(_ frame: inout HostFrame) {
        switch frame.body {
        case .deliverBatch, .ping: break
        default: return
        }
        var body = HostMessage.bye(reason: "")
        swap(&body, &frame.body)
        var deliveries: [BatchedDelivery] = []
        switch body {
        case .deliverBatch(let batch): deliveries = batch
        case .ping(let bytes): return keep(ping: bytes)
        default: return
        }
        body = .bye(reason: "")
        Self.keep(&deliveries, in: &keptDeliveries)
    }

    /// Keeps a ping's bytes as they are, not emptied (so a second reference does no harm): the
    /// next ping's bytes replace these where they lie. Not past the kept size.
    private func keep(ping bytes: [UInt8]) {
        if bytes.capacity > 0, bytes.capacity <= Self.keptPingBytes { keptPing = bytes }
    }

    /// Keeps a batch's array in `kept`, emptied of its items, for the next batch of its kind.
    /// Not past the kept size.
    private static func keep<Element>(_ batch: inout [Element], in kept: inout [Element]) {
        guard batch.capacity > 0, batch.capacity <= keptBatchItems else { return }
        batch.removeAll(keepingCapacity: true)
        kept = batch
    }

    /// The bundle id last made, by its spelling.
    @exclusivity(unchecked) private var lastBundleID: BundleID?

    /// The bundle id last made, when `bytes` spell it (they were valid when it was made).
    func bundleID(spelledBy bytes: UnsafeBufferPointer<UInt8>) -> BundleID? {
        guard let last = lastBundleID, let base = bytes.baseAddress else { return nil }
        var spelling = last.rawValue
        let same = spelling.withUTF8 { $0.count == bytes.count && memcmp($0.baseAddress!, base, bytes.count) == 0 }
        return same ? last : nil
    }

    func bundleID(_ s: String) -> BundleID {
        if let last = lastBundleID, last.rawValue == s { return last }
        let made = BundleID(s)
        lastBundleID = made
        return made
    }

    func keep(_ s: String) {
        var s = s
        let count = s.utf8.count
        guard Self.worthKeeping(count) else { return }
        let slot = s.withUTF8 { Self.slot(count, $0[0], $0[count - 1]) }
        slots[slot] = s
    }
}
