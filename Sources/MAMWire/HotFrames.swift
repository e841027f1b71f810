internal import MAMModel
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The one-pass codec of the frames a stream of shares is made of. Its readers and writers are
/// generated from the .proto's `hot` keys (Generated/HotCodec.swift); this is the hand-written
/// rest, the arena they reach through those keys: what one frame's reading borrows from its
/// connection's `StringPool` (strings made once, the last list, owner and bundle id read,
/// arrays kept) and what one frame's writing remembers (the owner measured and written last).
enum HotFrames {
    /// The frame, or `nil` when protobuf-c must decide.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, pool: StringPool? = nil, received: ReceivedBytes? = nil) -> Frame? {
        var frame = Frame(body: .launchFinished)
        return decode(bytes, pool: pool, received: received, into: &frame) ? frame : nil
    }

    /// At most this many elements are reserved for a list as its first one is read.
    static let reservedBatchItems = 256

    /// Which fields of a message were read: a field given twice is left to protobuf-c.
    struct Seen {
        private var bits: UInt32 = 0
        /// `true` the first time `number` (1…31) is seen.
        mutating func first(_ number: UInt64) -> Bool {
            let bit: UInt32 = 1 << UInt32(number & 31)
            defer { bits |= bit }
            return bits & bit == 0
        }
    }

    /// One frame's reading, with its connection's pool (if any) and the buffer it lies in.
    struct Reading {
        /// Not retained: `decode`, which alone makes a reading, holds the pool for as long as
        /// its reading is used. A strong reference was retained and released around each use
        /// (a reading is passed by address, and each use loaded it anew).
        private let pool: Unmanaged<StringPool>?
        /// The frame's bytes in their buffer, and where they start in memory.
        private let received: ReceivedBytes?
        private let frameStart: UnsafePointer<UInt8>?

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

        /// A string protobuf-c and `WireCodec` would read the same: valid UTF-8 without a NUL
        /// byte (`String(cString:)` stops at one, and repairs invalid bytes). `pooled`: looked
        /// up in the connection's pool, and kept there when made (an item's id names one item:
        /// kept, it would push out a string that repeats).
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

        /// Whether `bytes` are `s`'s UTF-8, byte for byte (`s` non-empty): the same bytes as a
        /// string read before are that string, valid. (In line: called, it retained the string
        /// it was given.)
        @inline(__always)
        func spells(_ s: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            guard !bytes.isEmpty, s.utf8.count == bytes.count, let base = bytes.baseAddress else { return false }
            return s.utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, base, bytes.count) == 0 } ?? false
        }

        /// A bundle id, the pool's last one when its bytes spell it: a stream of deliveries
        /// names one sender, and a `BundleID` folds its case (an allocation past 15 bytes).
        func bundleID(_ bytes: UnsafeBufferPointer<UInt8>) -> BundleID? {
            if let known = withPool({ $0.bundleID(spelledBy: bytes) }) ?? nil { return known }
            guard let s = text(bytes) else { return nil }
            return withPool { $0.bundleID(s) } ?? BundleID(s)
        }

        /// The `hot=recent` string: a sender's stream shares to one destination, as often as
        /// not named in a string too short for the pool, so the last one is compared by its bytes.
        func recentText(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
            // (Read out once: each read of it is a retain.)
            let last = withPool { $0.recentText } ?? ""
            if spells(last, bytes) { return last }
            guard let made = text(bytes) else { return nil }
            withPool { $0.recentText = made }
            return made
        }

        /// `bytes` as a slice of the buffer the frame was read into, when there is one.
        func inPlace(_ bytes: UnsafeBufferPointer<UInt8>) -> ReceivedBytes? {
            // (Not bound with `if let`: that retained the buffer for the slice besides the
            // slice's own reference.)
            guard received != nil, let frameStart, let start = bytes.baseAddress, !bytes.isEmpty else { return nil }
            return received.unsafelyUnwrapped.slice(offset: start - frameStart, count: bytes.count)
        }

        // The storage a `hot=kept` field is read into: the pool's, emptied (or a new one).
        func spare() -> [BatchedShare] { withPool { $0.spareShares() } ?? [] }
        func spare() -> [BatchedDelivery] { withPool { $0.spareDeliveries() } ?? [] }
        func spare() -> [UInt8] { withPool { $0.sparePing() } ?? [] }
    }

    /// The `hot=recent` list being read: a connection's items name the same types one after
    /// another, so while they match its last list they are counted, not made, and that list is
    /// reused whole (about a quarter of the host's allocations per brokered item).
    /// (Not copyable, and in line where it is used: a copy of its lists, or an element read
    /// through a call, was a retain and a release per item.)
    struct RecentList: ~Copyable {
        private let previous: [String]
        private var matched = 0
        private var diverged = false
        private var list: [String] = []

        @inline(__always)
        init(_ reading: Reading) { previous = reading.withPool { $0.recentList } ?? [] }

        /// How many were read.
        var count: Int { diverged ? list.count : matched }

        @inline(__always)
        mutating func add(_ bytes: UnsafeBufferPointer<UInt8>, _ reading: Reading) -> Bool {
            if !diverged, matched < previous.count, reading.spells(previous[matched], bytes) {
                matched += 1
                return true
            }
            guard let made = reading.text(bytes) else { return false }
            if !diverged {
                list = Array(previous.prefix(matched))
                diverged = true
            }
            list.append(made)
            return true
        }

        /// The list read, kept in the pool for the next item when it is a new one.
        @inline(__always)
        consuming func finish(_ reading: Reading) -> [String] {
            if !diverged, matched == previous.count { return previous }
            let made = diverged ? list : Array(previous.prefix(matched))
            reading.withPool { $0.recentList = made }
            return made
        }
    }

    /// `bytes` in `v` in place of what it held (kept storage: no new storage, one pass).
    static func fill(_ v: inout [UInt8], with bytes: UnsafeBufferPointer<UInt8>) {
        if v.isEmpty { v.append(contentsOf: bytes) } else { v.replaceSubrange(v.startIndex..<v.endIndex, with: bytes) }
    }

    /// A frame's measuring: the `hot=recent` message measured once for a run of elements
    /// stamped with the same one (a route's deliveries share the owner the host stamped).
    struct Measuring {
        private var last: Recent?
        private var lastSize = 0

        mutating func recent(_ v: Recent, _ measure: (Recent) -> Int) -> Int {
            if last == nil || !last.unsafelyUnwrapped.isTriviallyIdentical(to: v) {
                last = v
                lastSize = measure(v)
            }
            return lastSize
        }
    }

    /// A frame's writing: where the `hot=recent` message was last written, which the next
    /// element stamped with the same one copies.
    struct Writing {
        var recent: WrittenRecent?
    }

    struct WrittenRecent {
        let value: Recent
        let bytes: UnsafeMutablePointer<UInt8>
        let count: Int
    }
}
