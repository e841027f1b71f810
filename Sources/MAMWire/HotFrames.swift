internal import MAMModel
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The frames a stream of shares is made of, read and written straight from and to their wire
/// bytes: shares and their batches, deliveries and their batches, acknowledgements, the answer
/// to a share that was delivered, and the cumulative answers without exceptions.
///
/// protobuf-c unpacks every field of a frame into C structures that `WireCodec` then copies into
/// Swift values, and packs through a size pass over C structures built from Swift values; for a
/// share that carried 1 KiB those generic passes cost more host time than the decision. These
/// frames, and the ping (its round trip is the latency a channel adds), are read and written
/// here in one pass each, with the same result byte for byte and value for value (tests
/// compare both ways against protobuf-c, and the frame fuzzer checks every input it tries).
/// Reading takes only the canonical shape: any field it does not expect, a field given twice,
/// a string with a NUL byte or invalid UTF-8, a body the sender may not send, or a check that
/// fails answers `nil`, and `FrameParser` hands the bytes to protobuf-c, whose answer (a value
/// or the precise `WireError`) stands.
enum HotFrames {
    // MARK: Reading

    /// The frame, or `nil` when protobuf-c must decide.
    /// `received`: the same bytes inside the buffer they were read into; a share's payload is
    /// then left there (the item keeps the buffer alive) instead of copied.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, from sender: WireParty?, pool: StringPool? = nil, received: ReceivedBytes? = nil) -> Frame? {
        var frame = Frame(body: .launchFinished)
        return decode(bytes, from: sender, pool: pool, received: received, into: &frame) ? frame : nil
    }

    /// The frame read into `frame` (whatever it held is replaced), or `false` when protobuf-c
    /// must decide (`frame` is then left to be overwritten).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, from sender: WireParty?, pool: StringPool? = nil, received: ReceivedBytes? = nil, into frame: inout Frame) -> Bool {
        precondition(received == nil || received!.count == bytes.count, "the received bytes are not the frame's")
        // The pool is held here, by the caller's reference, for as long as `reading` is used.
        let reading = Reading(pool: pool.map(Unmanaged.passUnretained), received: received, frameStart: bytes.baseAddress)
        // The header first and the body last, read in place into the frame's value: `Frame.Body`
        // is as large as its largest case, and each optional or returned copy of a message is
        // one more copy of it (they cost more than the reading itself). The frame is the
        // caller's: returned, it was copied once more and the original destroyed (about 350
        // instructions per frame, an outlined copy and destroy of every case's payload).
        var r = ProtoReader(bytes)
        var seen = Seen()
        frame.seq = 0
        frame.replyTo = 0
        var number: UInt64 = 0
        var body = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        while !r.atEnd {
            guard let (n, wire) = r.key() else { return false }
            switch (n, wire) {
            case (1, 0):
                guard seen.first(1), let v = r.varint() else { return false }
                frame.seq = v
            case (2, 0):
                guard seen.first(2), let v = r.varint() else { return false }
                frame.replyTo = v
            case (_, 2):
                guard number == 0, let sub = r.lengthDelimited() else { return false }
                number = n
                body = sub
            default:
                return false
            }
        }
        switch number {
        case 20 where sender != .host:
            guard let v = reading.readShare(body) else { return false }
            frame.body = .shareRequest(v)
        case 23 where sender != .host:
            var v = DeliverAck(itemID: "")
            guard reading.read(body, into: &v) else { return false }
            frame.body = .deliverAck(v)
        case 70 where sender != .host:
            var v = pool?.spareShares() ?? []
            guard reading.readShares(body, into: &v) else { return false }
            frame.body = .shareBatch(v)
        case 73 where sender != .host:
            var v = DeliverAcks(first: 0)
            guard reading.read(body, into: &v) else { return false }
            frame.body = .deliverAcks(v)
        case 22 where sender != .child:
            guard let v = reading.readDeliver(body) else { return false }
            frame.body = .deliver(v)
        case 21 where sender != .child:
            var why = ""
            guard reading.readAllowed(body, explanation: &why) else { return false }
            frame.body = .shareResult(.allowed(why))
        case 71 where sender != .child:
            var v = ShareResults(first: 0)
            guard reading.read(body, into: &v) else { return false }
            frame.body = .shareResults(v)
        case 72 where sender != .child:
            var v = pool?.spareDeliveries() ?? []
            guard reading.readDeliveries(body, into: &v) else { return false }
            frame.body = .deliverBatch(v)
        case 13:
            var v = pool?.sparePing() ?? []
            guard reading.readPing(body, into: &v) else { return false }
            frame.body = .ping(v)
        default:
            return false
        }
        return true
    }

    /// At most this many items are reserved for a batch as its first one is read.
    static let reservedBatchItems = 256

    /// Which fields of a message were read: a field given twice is left to protobuf-c.
    fileprivate struct Seen {
        private var bits: UInt32 = 0
        /// `true` the first time `number` (1…31) is seen.
        mutating func first(_ number: UInt64) -> Bool {
            let bit: UInt32 = 1 << UInt32(number & 31)
            defer { bits |= bit }
            return bits & bit == 0
        }
    }

    /// The readers, with the connection's pool of recent strings (if any).
    fileprivate struct Reading {
        /// Not retained: `decode`, which alone makes a reading, holds the pool for as long as
        /// its reading is used. Held as a strong reference, the pool was retained and released
        /// around each use (a reading is passed by address, and each use loaded it anew): three
        /// of the host's retains per brokered item. (`unowned(unsafe)` made a strong copy
        /// at each use instead.)
        private let pool: Unmanaged<StringPool>?

        init(pool: Unmanaged<StringPool>?, received: ReceivedBytes?, frameStart: UnsafePointer<UInt8>?) {
            self.pool = pool
            self.received = received
            self.frameStart = frameStart
        }

        /// `body`'s answer with the pool, borrowed (`nil` without a pool).
        @inline(__always) @discardableResult
        func withPool<R>(_ body: (StringPool) -> R) -> R? {
            guard let pool else { return nil }
            return pool._withUnsafeGuaranteedRef(body)
        }
        /// The frame's bytes in their buffer, and where they start in memory.
        let received: ReceivedBytes?
        let frameStart: UnsafePointer<UInt8>?

        /// A string field read once.
        func string(_ r: inout ProtoReader, _ number: UInt64, _ seen: inout Seen, into s: inout String) -> Bool {
            guard seen.first(number), let sub = r.lengthDelimited(), let v = text(sub) else { return false }
            s = v
            return true
        }

        /// Read into fields of its own and made once at the end, as an item is: read into a
        /// placeholder, each share first copied the placeholder's item box and then let it go
        /// (a retain and a release per item).
        func readShare(_ bytes: UnsafeBufferPointer<UInt8>) -> ShareRequest? {
            var r = ProtoReader(bytes)
            var seen = Seen()
            var destination = ""
            var item: Item?
            var identity = ""
            var receiveAs = ""
            while !r.atEnd {
                guard let (number, wire) = r.key(), wire == 2 else { return nil }
                switch number {
                case 1:
                    // A sender's stream shares to one destination, as often as not named in
                    // a string too short for the pool: the last one is compared by its bytes.
                    guard seen.first(1), let sub = r.lengthDelimited() else { return nil }
                    // (Read out once: each read of it is a retain.)
                    let last = withPool { $0.lastDestination } ?? ""
                    if spells(last, sub) {
                        destination = consume last
                    } else {
                        guard let d = text(sub) else { return nil }
                        destination = d
                        withPool { $0.lastDestination = d }
                    }
                case 2:
                    guard seen.first(2), let sub = r.lengthDelimited(), let read = readItem(sub) else { return nil }
                    item = read
                case 3: guard string(&r, 3, &seen, into: &identity) else { return nil }
                case 4: guard string(&r, 4, &seen, into: &receiveAs) else { return nil }
                default: return nil
                }
            }
            guard !destination.isEmpty, let item else { return nil }
            return ShareRequest(destination: destination, item: item, identity: identity, receiveAs: receiveAs)
        }

        /// Read into fields of its own and boxed once at the end: each change to an `Item`
        /// makes a new box.
        func readItem(_ bytes: UnsafeBufferPointer<UInt8>) -> Item? {
            var r = ProtoReader(bytes)
            var seen = Seen()
            var id = ""
            var typeIdentifiers: [String] = []
            // A connection's shares name the same types, one after another: while they match
            // its last list they are counted, not copied, and that list is reused whole, which
            // spares each item its array (about a quarter of the host's allocations per brokered item).
            let previous = withPool { $0.lastTypeIdentifiers } ?? []
            var matched = 0
            var diverged = false
            // The payload's field, kept as where it lies (or the file's path) and made into the
            // item's payload at the end: an optional payload set here and read there was an
            // outlined copy and three destroys of it per item, and a release.
            var hasPayload = false
            var inlineBytes: UnsafeBufferPointer<UInt8>?
            var filePath = ""
            var fileName = ""
            var ownership: Ownership?
            while !r.atEnd {
                guard let (number, wire) = r.key(), wire == 2 else { return nil }
                switch number {
                case 1:
                    // Each id names one item: never found in the pool, and kept there it
                    // would push out a string that repeats.
                    guard seen.first(1), let sub = r.lengthDelimited(), let v = text(sub, pooled: false) else { return nil }
                    id = v
                case 2:
                    // (protobuf-c reads any number; the host refuses more than 64 itself.)
                    guard (diverged ? typeIdentifiers.count : matched) < 64, let sub = r.lengthDelimited() else { return nil }
                    // Compared by their bytes: the same bytes as a string read before are
                    // that string, valid, and making it again was a string per item.
                    if !diverged, matched < previous.count, spells(previous[matched], sub) {
                        matched += 1
                    } else {
                        guard let t = text(sub) else { return nil }
                        if !diverged { typeIdentifiers = Array(previous.prefix(matched)); diverged = true }
                        typeIdentifiers.append(t)
                    }
                case 3:
                    guard !hasPayload, let sub = r.lengthDelimited() else { return nil }
                    hasPayload = true
                    inlineBytes = sub
                case 4:
                    guard !hasPayload, let sub = r.lengthDelimited(), let path = text(sub) else { return nil }
                    hasPayload = true
                    filePath = path
                case 5: guard string(&r, 5, &seen, into: &fileName) else { return nil }
                case 6:
                    guard seen.first(6), let sub = r.lengthDelimited(), let o = self.ownership(sub) else { return nil }
                    ownership = o
                default: return nil
                }
            }
            guard hasPayload, !id.isEmpty else { return nil }
            if !diverged, matched == previous.count {
                // The list itself, moved: a copy was a retain, and the release of `previous`.
                typeIdentifiers = consume previous
            } else {
                if !diverged { typeIdentifiers = Array(previous.prefix(matched)) }
                withPool { $0.lastTypeIdentifiers = typeIdentifiers }
            }
            guard let inlineBytes else {
                return Item(id: consume id, typeIdentifiers: consume typeIdentifiers, payload: .file(path: consume filePath), fileName: consume fileName, ownership: consume ownership)
            }
            // Left in the buffer it was read into, when there is one. (`received` looked at
            // where it lies: bound with `if let`, it was retained for the slice besides the
            // slice's own reference.)
            if received != nil, let frameStart, let start = inlineBytes.baseAddress, !inlineBytes.isEmpty {
                let shared = received.unsafelyUnwrapped.slice(offset: start - frameStart, count: inlineBytes.count)
                return Item(id: consume id, typeIdentifiers: consume typeIdentifiers, received: shared, fileName: consume fileName, ownership: consume ownership)
            }
            return Item(id: consume id, typeIdentifiers: consume typeIdentifiers, payload: .inline(Array(inlineBytes)), fileName: consume fileName, ownership: consume ownership)
        }

        /// Read into fields of its own and boxed once, as an `Item` is; with a pool, the owner
        /// the connection's last item named is the same value when its bytes are the same.
        func ownership(_ bytes: UnsafeBufferPointer<UInt8>) -> Ownership? {
            // (No closure here reads the owner: one that did took a copy of this reading, a
            // retain and a release of its buffer per item.)
            if let known = withPool({ $0.owner(spelledBy: bytes) }) ?? nil { return known }
            guard let read = readOwnership(bytes) else { return nil }
            withPool { $0.keep(read, spelledBy: bytes) }
            return read
        }

        func readOwnership(_ bytes: UnsafeBufferPointer<UInt8>) -> Ownership? {
            var r = ProtoReader(bytes)
            var seen = Seen()
            var upn = "", oid = "", tenant = "", source = ""
            var managed = false
            while !r.atEnd {
                guard let (number, wire) = r.key() else { return nil }
                if number == 4 {
                    guard wire == 0, seen.first(4), let b = r.bool() else { return nil }
                    managed = b
                    continue
                }
                guard wire == 2 else { return nil }
                switch number {
                case 1: guard string(&r, 1, &seen, into: &upn) else { return nil }
                case 2: guard string(&r, 2, &seen, into: &oid) else { return nil }
                case 3: guard string(&r, 3, &seen, into: &tenant) else { return nil }
                case 5: guard string(&r, 5, &seen, into: &source) else { return nil }
                default: return nil
                }
            }
            return Ownership(upn: upn, oid: oid, tenant: tenant, managed: managed, sourceBundle: bundleID(source))
        }

        /// A batch: its items (field 1), each a seq and a message, made by `element` from
        /// both once the seq and the message are found (a seq of 0, or an element `element`
        /// cannot make, fails the batch).
        func batch<T>(_ bytes: UnsafeBufferPointer<UInt8>, into items: inout [T], _ element: (UInt64, UnsafeBufferPointer<UInt8>) -> T?) -> Bool {
            var r = ProtoReader(bytes)
            while !r.atEnd {
                guard let (number, wire) = r.key(), number == 1, wire == 2, let sub = r.lengthDelimited(),
                      let (seq, message) = numbered(sub), let item = element(seq, message) else { return false }
                // The first item's size says about how many follow: one allocation for the
                // batch where doubling made four or five (a third of one per brokered item).
                // Bounded, as a hostile first item may be tiny.
                if items.isEmpty { items.reserveCapacity(min(bytes.count / r.consumed + 1, HotFrames.reservedBatchItems)) }
                // Moved, not copied: a copy of a share or delivery is a dozen retains (and
                // the releases of the one left behind).
                items.append(consume item)
            }
            return !items.isEmpty
        }

        /// A `BatchedShare`'s or `BatchedDelivery`'s seq (not 0) and the bytes of its message.
        func numbered(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UnsafeBufferPointer<UInt8>)? {
            var r = ProtoReader(bytes)
            var seen = Seen()
            var seq: UInt64 = 0
            var message: UnsafeBufferPointer<UInt8>?
            while !r.atEnd {
                guard let (number, wire) = r.key() else { return nil }
                switch (number, wire) {
                case (1, 0):
                    guard seen.first(1), let v = r.varint() else { return nil }
                    seq = v
                case (2, 2):
                    guard seen.first(2), let sub = r.lengthDelimited() else { return nil }
                    message = sub
                default:
                    return nil
                }
            }
            guard seq != 0, let message else { return nil }
            return (seq, message)
        }

        func readShares(_ bytes: UnsafeBufferPointer<UInt8>, into shares: inout [BatchedShare]) -> Bool {
            batch(bytes, into: &shares) { seq, message in readShare(message).map { BatchedShare(seq: seq, request: $0) } }
        }

        /// Made once at the end, as a share is (`readShare`).
        func readDeliver(_ bytes: UnsafeBufferPointer<UInt8>) -> Deliver? {
            var r = ProtoReader(bytes)
            var seen = Seen()
            var item: Item?
            var senderBundleID = BundleID.none
            var receivedAs = ""
            while !r.atEnd {
                guard let (number, wire) = r.key(), wire == 2 else { return nil }
                switch number {
                case 1:
                    guard seen.first(1), let sub = r.lengthDelimited(), let read = readItem(sub) else { return nil }
                    item = read
                case 2:
                    guard seen.first(2), let sub = r.lengthDelimited() else { return nil }
                    // A stream of deliveries names one sender: compared by its bytes, it makes
                    // no string (a quarter of a receiving app's string making per item).
                    if let known = withPool({ $0.bundleID(spelledBy: sub) }) ?? nil {
                        senderBundleID = known
                    } else {
                        guard let sender = text(sub) else { return nil }
                        senderBundleID = bundleID(sender)
                    }
                case 3: guard string(&r, 3, &seen, into: &receivedAs) else { return nil }
                default: return nil
                }
            }
            guard let item else { return nil }
            return Deliver(item: item, senderBundleID: senderBundleID, receivedAs: receivedAs)
        }

        func readDeliveries(_ bytes: UnsafeBufferPointer<UInt8>, into deliveries: inout [BatchedDelivery]) -> Bool {
            batch(bytes, into: &deliveries) { seq, message in readDeliver(message).map { BatchedDelivery(seq: seq, deliver: $0) } }
        }

        func read(_ bytes: UnsafeBufferPointer<UInt8>, into v: inout DeliverAck) -> Bool {
            var r = ProtoReader(bytes)
            var seen = Seen()
            while !r.atEnd {
                guard let (number, wire) = r.key() else { return false }
                switch (number, wire) {
                case (1, 2): guard string(&r, 1, &seen, into: &v.itemID) else { return false }
                case (2, 0):
                    guard seen.first(2), let b = r.bool() else { return false }
                    v.accepted = b
                default: return false
                }
            }
            return !v.itemID.isEmpty
        }

        /// Declined seqs only packed, as protobuf-c writes them.
        func read(_ bytes: UnsafeBufferPointer<UInt8>, into v: inout DeliverAcks) -> Bool {
            var r = ProtoReader(bytes)
            var seen = Seen()
            while !r.atEnd {
                guard let (number, wire) = r.key() else { return false }
                switch (number, wire) {
                case (1, 0):
                    guard seen.first(1), let x = r.varint() else { return false }
                    v.first = x
                case (2, 0):
                    guard seen.first(2), let x = r.varint() else { return false }
                    v.last = x
                case (3, 2):
                    guard seen.first(3), let sub = r.lengthDelimited() else { return false }
                    var p = ProtoReader(sub)
                    while !p.atEnd {
                        guard let x = p.varint() else { return false }
                        v.declined.append(x)
                    }
                default:
                    return false
                }
            }
            return v.first != 0 && v.first <= v.last
        }

        /// A ping's payload (field 1, absent when empty), copied: it is echoed back.
        func readPing(_ bytes: UnsafeBufferPointer<UInt8>, into v: inout [UInt8]) -> Bool {
            var r = ProtoReader(bytes)
            var seen = Seen()
            while !r.atEnd {
                guard let (number, wire) = r.key(), number == 1, wire == 2, seen.first(1), let sub = r.lengthDelimited() else { return false }
                // Into the array given, in place of what it held (a pool's kept one, with the
                // last ping's bytes: no new storage per ping, and one pass over the array).
                if v.isEmpty { v.append(contentsOf: sub) } else { v.replaceSubrange(v.startIndex..<v.endIndex, with: sub) }
            }
            // A ping without bytes has no field: the array given may still hold the last one's.
            if seen.first(1), !v.isEmpty { v.removeAll(keepingCapacity: true) }
            return true
        }

        /// A `ShareResult` whose verdict allows (the answer to a delivered share); a verdict with
        /// a reason is read by protobuf-c and the adapter that checks it.
        func readAllowed(_ bytes: UnsafeBufferPointer<UInt8>, explanation: inout String) -> Bool {
            var r = ProtoReader(bytes)
            var found = false
            while !r.atEnd {
                guard let (number, wire) = r.key(), number == 1, wire == 2, !found, let sub = r.lengthDelimited() else { return false }
                found = true
                var v = ProtoReader(sub)
                var seen = Seen()
                var allowed = false
                while !v.atEnd {
                    guard let (n, w) = v.key() else { return false }
                    switch (n, w) {
                    case (1, 0):
                        guard seen.first(1), v.varint() == 1 else { return false }
                        allowed = true
                    case (3, 2): guard string(&v, 3, &seen, into: &explanation) else { return false }
                    default: return false
                    }
                }
                guard allowed else { return false }
            }
            return found
        }

        /// Only answers without exceptions (each carries a verdict, read by protobuf-c).
        func read(_ bytes: UnsafeBufferPointer<UInt8>, into v: inout ShareResults) -> Bool {
            var r = ProtoReader(bytes)
            var seen = Seen()
            while !r.atEnd {
                guard let (number, wire) = r.key(), wire == 0, number == 1 || number == 2, seen.first(number), let x = r.varint() else { return false }
                if number == 1 { v.first = x } else { v.last = x }
            }
            return v.first != 0 && v.first <= v.last
        }

        /// A bundle id, the pool's last one when it is the same spelling (a `BundleID` folds
        /// its case, which allocates for every id longer than 15 bytes).
        func bundleID(_ s: String) -> BundleID {
            withPool { $0.bundleID(s) } ?? BundleID(s)
        }

        /// Whether `bytes` are `s`'s UTF-8, byte for byte (`s` non-empty).
        func spells(_ s: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            guard !bytes.isEmpty, s.utf8.count == bytes.count, let base = bytes.baseAddress else { return false }
            return s.utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, base, bytes.count) == 0 } ?? false
        }

        /// A string protobuf-c and `WireCodec` would read the same: valid UTF-8 without a NUL
        /// byte (`String(cString:)` stops at one, and repairs invalid bytes). `pooled`: looked
        /// up in the connection's pool, and kept there when made.
        func text(_ bytes: UnsafeBufferPointer<UInt8>, pooled: Bool = true) -> String? {
            if bytes.isEmpty { return "" }
            if pooled, let known = withPool({ $0.string(bytes) }) ?? nil { return known }
            let (nul, ascii) = HotFrames.scan(bytes)
            if nul { return nil }
            // (`String(validating:)` takes any sequence and is the slower of the two.)
            guard let made = ascii ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self) else { return nil }
            if pooled { withPool { $0.keep(made) } }
            return made
        }
    }

    /// Whether `bytes` (not empty) hold a NUL byte, and whether all of them are ASCII: read
    /// eight at a time, because a loop over the bytes cost more than the rest of reading an
    /// item's id of a few bytes.
    @inline(__always)
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> (nul: Bool, ascii: Bool) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var any: UInt64 = 0
        var zero: UInt64 = 0
        // A byte of 0 in `w` sets its high bit in `(w - ones) & ~w`; a borrow can set the high
        // bit of a byte above it too, but only above a byte of 0, so the word has one exactly
        // when that is not 0.
        @inline(__always) func take(_ w: UInt64) {
            any |= w
            zero |= (w &- ones) & ~w
        }
        let raw = UnsafeRawBufferPointer(bytes)
        let count = raw.count
        if count >= 8 {
            var i = 0
            while i &+ 8 <= count {
                take(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                i &+= 8
            }
            // The last bytes, in the word that ends with them (some read twice).
            if i < count { take(raw.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)) }
        } else {
            // Padded with 1s, neither NUL nor above ASCII.
            var w = ones
            withUnsafeMutableBytes(of: &w) { word in
                for i in 0..<count { word[i] = raw[i] }
            }
            take(w)
        }
        return (zero & highs != 0, any & highs == 0)
    }

    // MARK: Writing

    /// Appends `frame` when its body is one of these frames (and, for answers, has no
    /// exceptions); `false` leaves `buffer` untouched for protobuf-c.
    static func encode(_ frame: Frame, appendingTo buffer: inout [UInt8], withLengthPrefix: Bool) -> Bool {
        encode(seq: frame.seq, replyTo: frame.replyTo, body: frame.body, appendingTo: &buffer, withLengthPrefix: withLengthPrefix)
    }

    /// The frame of `seq`, `replyTo` and `body`, written without a `Frame` made of them (which
    /// was a copy of the body, and its destruction, at every frame sent).
    static func encode(seq: UInt64, replyTo: UInt64, body: Frame.Body, appendingTo buffer: inout [UInt8], withLengthPrefix: Bool) -> Bool {
        let number: UInt64
        let bodySize: Int
        switch body {
        case .shareRequest(let v): number = 20; bodySize = size(v)
        case .deliverAck(let v): number = 23; bodySize = size(v)
        case .shareBatch(let v):
            encodeShares(v[...], seq: seq, replyTo: replyTo, appendingTo: &buffer, withLengthPrefix: withLengthPrefix)
            return true
        case .deliverAcks(let v): number = 73; bodySize = size(v)
        case .deliver(let v): number = 22; bodySize = size(v)
        case .shareResults(let v) where v.exceptions.isEmpty: number = 71; bodySize = size(v)
        case .shareResult(.allowed(let why)): number = 21; bodySize = nested(allowedVerdictSize(why))
        case .deliverBatch(let v):
            encodeDeliveries(v, seq: seq, replyTo: replyTo, appendingTo: &buffer, withLengthPrefix: withLengthPrefix)
            return true
        case .ping(let v): number = 13; bodySize = v.isEmpty ? 0 : nested(v.count)
        default: return false
        }
        envelope(number, seq: seq, replyTo: replyTo, bodySize: bodySize, appendingTo: &buffer, withLengthPrefix: withLengthPrefix) { w in
            switch body {
            case .shareRequest(let v): w.write(v, itemSize: size(v.item))
            case .deliverAck(let v): w.write(v)
            case .deliverAcks(let v): w.write(v)
            case .deliver(let v): w.write(v, itemSize: size(v.item))
            case .shareResults(let v):
                w.scalar(1, v.first)
                w.scalar(2, v.last)
            case .shareResult(.allowed(let why)):
                w.key(1, 2)
                w.varint(UInt64(allowedVerdictSize(why)))
                w.scalar(1, 1)
                w.string(3, why)
            case .ping(let v) where !v.isEmpty:
                w.key(1, 2)
                w.varint(UInt64(v.count))
                v.withUnsafeBufferPointer { w.raw($0) }
            default: break
            }
        }
        return true
    }

    /// A `shareBatch` frame of `shares`, with its length prefix: a sender's queue is sent
    /// range by range from where it lies, where an array made of each range copied every
    /// share (a retain per field, and as many releases).
    static func encodeShareBatch(seq: UInt64, _ shares: ArraySlice<BatchedShare>, appendingTo buffer: inout [UInt8]) {
        encodeShares(shares, seq: seq, replyTo: 0, appendingTo: &buffer, withLengthPrefix: true)
    }

    /// The sizes of one message of a batch and of the item inside it, measured once for the
    /// body's length and kept for the writing: measuring again as each one was written was
    /// a second pass over every string of the batch.
    private struct Measured {
        var message: Int
        var item: Int
        var ownership: Int?
    }

    /// Measures an item, its owner measured once for a run of items stamped with the same one
    /// (a route's deliveries share the value the host stamped).
    private struct Measuring {
        private var owner: Ownership?
        private var ownerSize = 0

        mutating func item(_ v: Item) -> (item: Int, ownership: Int?) {
            guard let o = v.ownership else { return (HotFrames.size(v, ownershipSize: nil), nil) }
            if owner == nil || !owner!.isTriviallyIdentical(to: o) {
                owner = o
                ownerSize = HotFrames.size(o)
            }
            return (HotFrames.size(v, ownershipSize: ownerSize), ownerSize)
        }
    }

    /// A batch of `count` messages: `measure` gives each one's sizes, `write` writes message
    /// `i` with them (and the owner written last, to copy).
    private static func encodeBatch(_ number: UInt64, count: Int, seq: UInt64, replyTo: UInt64, appendingTo buffer: inout [UInt8], withLengthPrefix: Bool,
                                    seqOf: (Int) -> UInt64, measure: (Int, inout Measuring) -> Measured,
                                    write: (inout ProtoWriter, Int, Measured, inout ProtoWriter.WrittenOwner?) -> Void) {
        withUnsafeTemporaryAllocation(of: Measured.self, capacity: count) { sizes in
            var measuring = Measuring()
            var bodySize = 0
            for i in 0..<count {
                let m = measure(i, &measuring)
                sizes.initializeElement(at: i, to: m)
                bodySize += nested(scalar(1, seqOf(i)) + nested(m.message))
            }
            envelope(number, seq: seq, replyTo: replyTo, bodySize: bodySize, appendingTo: &buffer, withLengthPrefix: withLengthPrefix) { w in
                var written: ProtoWriter.WrittenOwner?
                for i in 0..<count {
                    let m = sizes[i]
                    batchItem(&w, seq: seqOf(i), size: m.message) { write(&$0, i, m, &written) }
                }
            }
        }
    }

    /// A `shareBatch` of `v`, each share lent where it lies (`withPointeeInPlace`): iterating
    /// copied every share whole (a retain per string and box, and as many releases), and so did
    /// reading one through a pointer for a call.
    private static func encodeShares(_ v: ArraySlice<BatchedShare>, seq: UInt64, replyTo: UInt64, appendingTo buffer: inout [UInt8], withLengthPrefix: Bool) {
        v.withUnsafeBufferPointer { v in
            // (`nil` only for an empty batch, whose frame reads no share.)
            let p = v.baseAddress
            encodeBatch(70, count: v.count, seq: seq, replyTo: replyTo, appendingTo: &buffer, withLengthPrefix: withLengthPrefix,
                        seqOf: { p![$0].seq },
                        measure: { i, measuring in
                            (p! + i).withPointeeInPlace { share in
                                let (item, ownership) = measuring.item(share.request.item)
                                return Measured(message: size(share.request, itemSize: item), item: item, ownership: ownership)
                            }
                        },
                        write: { w, i, m, written in
                            (p! + i).withPointeeInPlace { w.write($0.request, itemSize: m.item, ownershipSize: m.ownership, reusing: &written) }
                        })
        }
    }

    /// A `deliverBatch` of `v`, as `encodeShares`.
    private static func encodeDeliveries(_ v: [BatchedDelivery], seq: UInt64, replyTo: UInt64, appendingTo buffer: inout [UInt8], withLengthPrefix: Bool) {
        v.withUnsafeBufferPointer { v in
            let p = v.baseAddress
            encodeBatch(72, count: v.count, seq: seq, replyTo: replyTo, appendingTo: &buffer, withLengthPrefix: withLengthPrefix,
                        seqOf: { p![$0].seq },
                        measure: { i, measuring in
                            (p! + i).withPointeeInPlace { delivery in
                                let (item, ownership) = measuring.item(delivery.deliver.item)
                                return Measured(message: size(delivery.deliver, itemSize: item), item: item, ownership: ownership)
                            }
                        },
                        write: { w, i, m, written in
                            (p! + i).withPointeeInPlace { w.write($0.deliver, itemSize: m.item, ownershipSize: m.ownership, reusing: &written) }
                        })
        }
    }

    /// A frame's envelope (length prefix, seq, reply, the body's key and length) around the
    /// body `body` writes, which must be `bodySize` bytes.
    private static func envelope(_ number: UInt64, seq: UInt64, replyTo: UInt64, bodySize: Int, appendingTo buffer: inout [UInt8],
                                 withLengthPrefix: Bool, _ body: (inout ProtoWriter) -> Void) {
        let frameSize = scalar(1, seq) + scalar(2, replyTo) + ProtoWriter.keySize(number) + nested(bodySize) - 1
        let total = frameSize + (withLengthPrefix ? 4 : 0)
        buffer.append(count: total) { start in
            var w = ProtoWriter(start)
            if withLengthPrefix {
                for shift in stride(from: 24, through: 0, by: -8) { w.byte(UInt8(truncatingIfNeeded: frameSize >> shift)) }
            }
            w.scalar(1, seq)
            w.scalar(2, replyTo)
            w.key(number, 2)
            w.varint(UInt64(bodySize))
            body(&w)
            precondition(w.position == start + total, "HotFrames wrote a frame of another size than it measured")
        }
    }

    /// One item of a batch (field 1): its seq (field 1), then its message (field 2) of `size`
    /// bytes, which `message` writes.
    private static func batchItem(_ w: inout ProtoWriter, seq: UInt64, size: Int, _ message: (inout ProtoWriter) -> Void) {
        w.key(1, 2)
        w.varint(UInt64(scalar(1, seq) + nested(size)))
        w.scalar(1, seq)
        w.key(2, 2)
        w.varint(UInt64(size))
        message(&w)
    }

    // Sizes, as protobuf-c packs: proto3 fields at their default are left out, a oneof
    // member and a present message are always written.
    private static func scalar(_ number: UInt64, _ v: UInt64) -> Int {
        v == 0 ? 0 : ProtoWriter.keySize(number) + ProtoWriter.varintSize(v)
    }

    private static func string(_ s: String) -> Int {
        let n = s.utf8.count
        return n == 0 ? 0 : 1 + ProtoWriter.varintSize(UInt64(n)) + n
    }

    /// A length-delimited field of `n` bytes with a one-byte key.
    private static func nested(_ n: Int) -> Int { 1 + ProtoWriter.varintSize(UInt64(n)) + n }

    fileprivate static func size(_ v: Ownership) -> Int {
        string(v.upn) + string(v.oid) + string(v.tenant) + (v.managed ? 2 : 0) + string(v.sourceBundle.rawValue)
    }

    fileprivate static func size(_ v: Item) -> Int { size(v, ownershipSize: v.ownership.map(size)) }

    /// `ownershipSize`: its owner's, measured by the caller (`nil`: none).
    fileprivate static func size(_ v: Item, ownershipSize: Int?) -> Int {
        var n = string(v.id)
        for t in v.typeIdentifiers { n += nested(t.utf8.count) }
        n += nested(v.filePath?.utf8.count ?? v.inlineByteCount)
        n += string(v.fileName)
        if let o = ownershipSize { n += nested(o) }
        return n
    }

    fileprivate static func size(_ v: ShareRequest, itemSize: Int? = nil) -> Int {
        string(v.destination) + nested(itemSize ?? size(v.item)) + string(v.identity) + string(v.receiveAs)
    }

    fileprivate static func size(_ v: Deliver, itemSize: Int? = nil) -> Int {
        nested(itemSize ?? size(v.item)) + string(v.senderBundleID.rawValue) + string(v.receivedAs)
    }

    fileprivate static func size(_ v: DeliverAck) -> Int { string(v.itemID) + (v.accepted ? 2 : 0) }

    fileprivate static func size(_ v: DeliverAcks) -> Int {
        let packed = v.declined.reduce(0) { $0 + ProtoWriter.varintSize($1) }
        return scalar(1, v.first) + scalar(2, v.last) + (v.declined.isEmpty ? 0 : nested(packed))
    }

    fileprivate static func size(_ v: ShareResults) -> Int { scalar(1, v.first) + scalar(2, v.last) }

    /// A `Verdict` that allows: its status, no reason, its explanation.
    private static func allowedVerdictSize(_ why: String) -> Int { 2 + string(why) }
}

/// Reads protobuf's wire format; every read answers `nil` past the end or on a varint longer
/// than ten bytes. Keys, lengths and booleans are read only as protobuf-c writes them (the
/// shortest encoding, a key or length in at most five bytes, a field number above 0, a
/// boolean in one byte): other spellings, which protobuf-c reads by rules of its own, are
/// left to it.
struct ProtoReader {
    private let base: UnsafePointer<UInt8>?
    private var i = 0
    private let end: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        base = bytes.baseAddress
        end = bytes.count
    }

    var atEnd: Bool { i >= end }
    /// How many bytes were read so far.
    var consumed: Int { i }

    /// One byte read in line, the rest by `longVarint`: a key of a field below 16, and most
    /// lengths, are one byte, and a loop called for each was about a tenth of the readers'
    /// instructions per item.
    @inline(__always)
    mutating func varint() -> UInt64? {
        guard let base else { return nil }
        if i < end, base[i] < 0x80 {
            i += 1
            return UInt64(base[i - 1])
        }
        return longVarint(base)
    }

    private mutating func longVarint(_ base: UnsafePointer<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while i < end, shift < 70 {
            let byte = base[i]
            i += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

    /// A varint of at most five bytes in its shortest encoding (no trailing zero groups).
    @inline(__always)
    private mutating func shortVarint() -> UInt64? {
        // (One byte is always the shortest encoding.)
        if let base, i < end, base[i] < 0x80 {
            i += 1
            return UInt64(base[i - 1])
        }
        return longShortVarint()
    }

    private mutating func longShortVarint() -> UInt64? {
        let start = i
        guard let v = varint(), i - start <= 5, i - start == 1 || base![i - 1] != 0 else { return nil }
        return v
    }

    /// Field number (at least 1) and wire type.
    @inline(__always)
    mutating func key() -> (UInt64, UInt64)? {
        guard let k = shortVarint(), k >> 3 != 0 else { return nil }
        return (k >> 3, k & 7)
    }

    /// A boolean written in one byte.
    mutating func bool() -> Bool? {
        guard let base, i < end, base[i] < 0x80 else { return nil }
        i += 1
        return base[i - 1] != 0
    }

    @inline(__always)
    mutating func lengthDelimited() -> UnsafeBufferPointer<UInt8>? {
        guard let n = shortVarint(), n <= UInt64(end - i), let base else { return nil }
        let sub = UnsafeBufferPointer(start: base + i, count: Int(n))
        i += Int(n)
        return sub
    }
}

/// Writes protobuf's wire format into memory measured beforehand.
struct ProtoWriter {
    private(set) var position: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) { position = start }

    static func varintSize(_ v: UInt64) -> Int {
        v == 0 ? 1 : (64 - v.leadingZeroBitCount + 6) / 7
    }

    static func keySize(_ number: UInt64) -> Int { varintSize(number << 3) }

    mutating func byte(_ b: UInt8) {
        position.pointee = b
        position += 1
    }

    mutating func varint(_ v: UInt64) {
        var v = v
        while v >= 0x80 {
            byte(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        byte(UInt8(v))
    }

    mutating func key(_ number: UInt64, _ wire: UInt64) { varint(number << 3 | wire) }

    /// A varint field unless it is 0.
    mutating func scalar(_ number: UInt64, _ v: UInt64) {
        guard v != 0 else { return }
        key(number, 0)
        varint(v)
    }

    mutating func bool(_ number: UInt64, _ v: Bool) {
        guard v else { return }
        key(number, 0)
        byte(1)
    }

    mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        raw(UnsafeRawBufferPointer(bytes))
    }

    mutating func raw(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        UnsafeMutableRawPointer(position).copyMemory(from: base, byteCount: bytes.count)
        position += bytes.count
    }

    /// A length-delimited field, written even when empty.
    mutating func field(_ number: UInt64, _ s: String) {
        key(number, 2)
        // Borrowed where the string is contiguous (always, natively): `withUTF8` needs a
        // mutable copy, a retain and release per field.
        if s.utf8.withContiguousStorageIfAvailable({ lengthPrefixed($0) }) == nil {
            var s = s
            s.withUTF8 { lengthPrefixed($0) }
        }
    }

    private mutating func lengthPrefixed(_ bytes: UnsafeBufferPointer<UInt8>) {
        varint(UInt64(bytes.count))
        raw(bytes)
    }

    /// A string field unless it is empty.
    mutating func string(_ number: UInt64, _ s: String) {
        guard !s.isEmpty else { return }
        field(number, s)
    }

    mutating func write(_ v: Ownership) {
        string(1, v.upn)
        string(2, v.oid)
        string(3, v.tenant)
        bool(4, v.managed)
        string(5, v.sourceBundle.rawValue)
    }

    /// Where the last owner of a batch was written, which the next item stamped with the
    /// same one copies.
    struct WrittenOwner {
        let owner: Ownership
        let bytes: UnsafeMutablePointer<UInt8>
        let count: Int
    }

    /// `ownershipSize`: the owner's, as `HotFrames.size` measures it.
    mutating func write(_ v: Item, ownershipSize: Int?, reusing written: inout WrittenOwner?) {
        string(1, v.id)
        for t in v.typeIdentifiers { field(2, t) }
        if let path = v.filePath {
            field(4, path)
        } else {
            key(3, 2)
            varint(UInt64(v.inlineByteCount))
            // From where the bytes lie: the buffer they were read into, on the host.
            v.withInlineBytes { raw($0) }
        }
        string(5, v.fileName)
        if let o = v.ownership, let n = ownershipSize {
            key(6, 2)
            varint(UInt64(n))
            if let last = written, last.owner.isTriviallyIdentical(to: o) {
                raw(UnsafeRawBufferPointer(start: last.bytes, count: last.count))
            } else {
                let start = position
                write(o)
                written = WrittenOwner(owner: o, bytes: start, count: n)
            }
        }
    }

    mutating func write(_ v: ShareRequest, itemSize: Int) {
        var none: WrittenOwner?
        write(v, itemSize: itemSize, ownershipSize: v.item.ownership.map(HotFrames.size), reusing: &none)
    }

    mutating func write(_ v: ShareRequest, itemSize: Int, ownershipSize: Int?, reusing written: inout WrittenOwner?) {
        string(1, v.destination)
        key(2, 2)
        varint(UInt64(itemSize))
        write(v.item, ownershipSize: ownershipSize, reusing: &written)
        string(3, v.identity)
        string(4, v.receiveAs)
    }

    mutating func write(_ v: Deliver, itemSize: Int) {
        var none: WrittenOwner?
        write(v, itemSize: itemSize, ownershipSize: v.item.ownership.map(HotFrames.size), reusing: &none)
    }

    mutating func write(_ v: Deliver, itemSize: Int, ownershipSize: Int?, reusing written: inout WrittenOwner?) {
        key(1, 2)
        varint(UInt64(itemSize))
        write(v.item, ownershipSize: ownershipSize, reusing: &written)
        string(2, v.senderBundleID.rawValue)
        string(3, v.receivedAs)
    }

    mutating func write(_ v: DeliverAck) {
        string(1, v.itemID)
        bool(2, v.accepted)
    }

    mutating func write(_ v: DeliverAcks) {
        scalar(1, v.first)
        scalar(2, v.last)
        guard !v.declined.isEmpty else { return }
        key(3, 2)
        varint(UInt64(v.declined.reduce(0) { $0 + Self.varintSize($1) }))
        for d in v.declined { varint(d) }
    }
}

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

    /// The destination of the share last read, kept whatever its length.
    @exclusivity(unchecked) var lastDestination = ""

    /// The type identifiers of the item last read (`Reading.read(_:into: Item)` reuses them).
    @exclusivity(unchecked) var lastTypeIdentifiers: [String] = []

    /// The owner last read, by its bytes: a stream of deliveries names one owner.
    @exclusivity(unchecked) private var lastOwner: Ownership?
    /// The bytes it was read from, in storage the pool owns (allocated with the first owner
    /// kept, freed with the pool): compared through an array property, each item's
    /// comparison retained and released the array.
    @exclusivity(unchecked) private var lastOwnerBytes: UnsafeMutableBufferPointer<UInt8>?
    @exclusivity(unchecked) private var lastOwnerCount = 0

    /// The most bytes of an owner kept.
    static let keptOwnerBytes = 1024

    deinit { lastOwnerBytes?.deallocate() }

    /// The owner last kept, when `bytes` are the ones it was read from.
    func owner(spelledBy bytes: UnsafeBufferPointer<UInt8>) -> Ownership? {
        // (`memcmp`: `elementsEqual` compares byte by byte through the generic sequence.)
        // (Not bound with `guard let`: the binding was a copy of the owner besides the one
        // returned, a retain and a release per item a receiving app reads.)
        guard lastOwner != nil, !bytes.isEmpty, lastOwnerCount == bytes.count, let base = bytes.baseAddress,
              let kept = lastOwnerBytes?.baseAddress, memcmp(kept, base, bytes.count) == 0 else { return nil }
        return lastOwner
    }

    /// Keeps `owner`, read from `bytes`, for the next item (not when its bytes are many).
    func keep(_ owner: Ownership, spelledBy bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count <= Self.keptOwnerBytes else { return }
        if lastOwnerBytes == nil { lastOwnerBytes = .allocate(capacity: Self.keptOwnerBytes) }
        _ = lastOwnerBytes.unsafelyUnwrapped.initialize(fromContentsOf: bytes)
        lastOwnerCount = bytes.count
        lastOwner = owner
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
        case .ping(let bytes):
            // Kept as it is, not emptied (so the second reference does no harm): the next
            // ping's bytes replace these where they lie.
            if bytes.capacity > 0, bytes.capacity <= Self.keptPingBytes { keptPing = bytes }
            return
        default: return
        }
        body = .launchFinished
        if shares.capacity > 0, shares.capacity <= Self.keptBatchItems {
            shares.removeAll(keepingCapacity: true)
            keptShares = shares
        }
        if deliveries.capacity > 0, deliveries.capacity <= Self.keptBatchItems {
            deliveries.removeAll(keepingCapacity: true)
            keptDeliveries = deliveries
        }
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
