import MAMModel
import MAMWire

/// An item delivered to the app: ids are the sender's to choose.
struct DeliveredItem: Hashable, Sendable {
    /// The sender's number on this channel (`DeliveredItems.key`).
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

/// What a channel remembers of the items handed to its app, so that a re-sent delivery is
/// acknowledged again but never shown twice: the most recent items, each keyed by its sender's
/// number and its id, and the senders numbered in the order they first delivered one (the host
/// stamps them, so there are as many as apps: a remembered item keeps a number, where a bundle
/// id was two strings to retain and release for every item). On the channel's loop thread, in
/// its `AppChannelLoopState`.
struct DeliveredItems {
    private var recent: RecentIDs
    private var senderNumbers: [BundleID: UInt32] = [:]
    /// The last sender numbered, by its folded spelling: a stream of deliveries has one.
    private var lastSenderFolded = ""
    private var lastSenderNumber: UInt32 = 0
    /// A batch's keys' hashes, computed once for `RecentSet.touch` and `remember`, and what
    /// the touch read (kept, so that the reads are made).
    private var batchHashes: [Int] = []
    private var touched: UInt64 = 0

    init(capacity: Int) { recent = RecentIDs(capacity: capacity) }

    /// The key of an item `sender` delivered (a bundle id compares folded, so the same app in
    /// two spellings is one sender).
    mutating func key(sender: BundleID, id: String) -> DeliveredItem {
        DeliveredItem(sender: number(sender), id: id)
    }

    private mutating func number(_ sender: BundleID) -> UInt32 {
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

    /// Whether the item was handed to the app already.
    func contains(_ key: DeliveredItem) -> Bool { recent.contains(key) }

    /// Remembers the item: `false` when it was remembered already (a re-sent delivery).
    /// `hash`: the key's, when computed already (`Item.idHashValue`, `batchHash`).
    @discardableResult
    mutating func remember(_ key: DeliveredItem, hash: Int? = nil) -> Bool {
        recent.remember(key, hash: hash ?? key.hashValue)
    }

    /// The app declined it: a new delivery of it is shown again.
    mutating func forget(_ key: DeliveredItem) { recent.forget(key) }

    /// A batch of deliveries is about to be handed over: their keys' hashes are computed once
    /// (`batchHash`) and the window's table is read for all of them first (`RecentSet.touch`).
    mutating func prepare(_ deliveries: borrowing [BatchedDelivery]) {
        batchHashes.removeAll(keepingCapacity: true)
        deliveries.forEachInPlace { delivery in batchHashes.append(delivery.deliver.item.idHashValue) }
        touched = batchHashes.withUnsafeBufferPointer { recent.touch(hashes: $0) }
    }

    /// The hash of the key of the batch's `index`th delivery (`prepare`).
    func batchHash(_ index: Int) -> Int { batchHashes[index] }
}
