internal import MAMModel

/// The frames a stream of shares is made of, read and written straight from and to their wire
/// bytes: shares and their batches, deliveries and their batches, acknowledgements, and the
/// cumulative answers without exceptions.
///
/// protobuf-c unpacks every field of a frame into C structures that `WireCodec` then copies into
/// Swift values, and packs through a size pass over C structures built from Swift values; for a
/// share that carried 1 KiB those generic passes cost more host time than the decision. These
/// frames are read and written here in one pass each, with the same result byte for byte and
/// value for value (tests compare both ways against protobuf-c, and the frame fuzzer checks
/// every input it tries). Reading takes only the canonical shape: any field it does not expect,
/// a field given twice, a string with a NUL byte or invalid UTF-8, a body the sender may not
/// send, or a check that fails answers `nil`, and `FrameParser` hands the bytes to protobuf-c,
/// whose answer (a value or the precise `WireError`) stands.
enum HotFrames {
    // MARK: Reading

    /// The frame, or `nil` when protobuf-c must decide.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, from sender: WireParty?) -> Frame? {
        var r = ProtoReader(bytes)
        var seq: UInt64?
        var replyTo: UInt64?
        var body: Frame.Body?
        while !r.atEnd {
            guard let (number, wire) = r.key() else { return nil }
            switch (number, wire) {
            case (1, 0):
                guard seq == nil, let v = r.varint() else { return nil }
                seq = v
            case (2, 0):
                guard replyTo == nil, let v = r.varint() else { return nil }
                replyTo = v
            case (_, 2):
                guard body == nil, let sub = r.lengthDelimited() else { return nil }
                switch number {
                case 20 where sender != .host: body = shareRequest(sub).map { .shareRequest($0) }
                case 23 where sender != .host: body = deliverAck(sub).map { .deliverAck($0) }
                case 70 where sender != .host: body = shareBatch(sub).map { .shareBatch($0) }
                case 73 where sender != .host: body = deliverAcks(sub).map { .deliverAcks($0) }
                case 22 where sender != .child: body = deliver(sub).map { .deliver($0) }
                case 71 where sender != .child: body = shareResults(sub).map { .shareResults($0) }
                case 72 where sender != .child: body = deliverBatch(sub).map { .deliverBatch($0) }
                default: return nil
                }
                if body == nil { return nil }
            default:
                return nil
            }
        }
        guard let body else { return nil }
        return Frame(seq: seq ?? 0, replyTo: replyTo ?? 0, body: body)
    }

    private static func shareRequest(_ bytes: UnsafeBufferPointer<UInt8>) -> ShareRequest? {
        var r = ProtoReader(bytes)
        var destination: String?, identity: String?, receiveAs: String?
        var item: Item?
        while !r.atEnd {
            guard let (number, wire) = r.key(), wire == 2, let sub = r.lengthDelimited() else { return nil }
            switch number {
            case 1 where destination == nil: destination = text(sub)
            case 2 where item == nil: item = self.item(sub)
            case 3 where identity == nil: identity = text(sub)
            case 4 where receiveAs == nil: receiveAs = text(sub)
            default: return nil
            }
            if destination == nil && number == 1 || item == nil && number == 2 || identity == nil && number == 3
                || receiveAs == nil && number == 4 { return nil }
        }
        guard let destination, !destination.isEmpty, let item else { return nil }
        return ShareRequest(destination: destination, item: item, identity: identity ?? "", receiveAs: receiveAs ?? "")
    }

    /// An item without ownership (a child's is ignored by the host but protobuf-c reads it).
    private static func item(_ bytes: UnsafeBufferPointer<UInt8>) -> Item? {
        var r = ProtoReader(bytes)
        var id: String?, fileName: String?
        var types: [String] = []
        var payload: Item.Payload?
        var ownership: Ownership?
        while !r.atEnd {
            guard let (number, wire) = r.key(), wire == 2, let sub = r.lengthDelimited() else { return nil }
            switch number {
            case 1 where id == nil:
                guard let v = text(sub) else { return nil }
                id = v
            case 2:
                guard types.count < 64, let v = text(sub) else { return nil }
                types.append(v)
            case 3 where payload == nil:
                payload = .inline(Array(sub))
            case 4 where payload == nil:
                guard let v = text(sub) else { return nil }
                payload = .file(path: v)
            case 5 where fileName == nil:
                guard let v = text(sub) else { return nil }
                fileName = v
            case 6 where ownership == nil:
                guard let v = self.ownership(sub) else { return nil }
                ownership = v
            default:
                return nil
            }
        }
        guard let id, !id.isEmpty, let payload else { return nil }
        return Item(id: id, typeIdentifiers: types, payload: payload, fileName: fileName ?? "", ownership: ownership)
    }

    private static func ownership(_ bytes: UnsafeBufferPointer<UInt8>) -> Ownership? {
        var r = ProtoReader(bytes)
        var upn: String?, oid: String?, tenant: String?, source: String?
        var managed: Bool?
        while !r.atEnd {
            guard let (number, wire) = r.key() else { return nil }
            if number == 4 {
                guard wire == 0, managed == nil, let v = r.varint() else { return nil }
                managed = v != 0
                continue
            }
            guard wire == 2, let sub = r.lengthDelimited(), let v = text(sub) else { return nil }
            switch number {
            case 1 where upn == nil: upn = v
            case 2 where oid == nil: oid = v
            case 3 where tenant == nil: tenant = v
            case 5 where source == nil: source = v
            default: return nil
            }
        }
        return Ownership(upn: upn ?? "", oid: oid ?? "", tenant: tenant ?? "", managed: managed ?? false, sourceBundle: BundleID(source ?? ""))
    }

    private static func shareBatch(_ bytes: UnsafeBufferPointer<UInt8>) -> [BatchedShare]? {
        var r = ProtoReader(bytes)
        var shares: [BatchedShare] = []
        while !r.atEnd {
            guard let (number, wire) = r.key(), number == 1, wire == 2, let sub = r.lengthDelimited() else { return nil }
            var s = ProtoReader(sub)
            var seq: UInt64?
            var request: ShareRequest?
            while !s.atEnd {
                guard let (n, w) = s.key() else { return nil }
                switch (n, w) {
                case (1, 0) where seq == nil: seq = s.varint()
                case (2, 2) where request == nil: request = s.lengthDelimited().flatMap(shareRequest)
                default: return nil
                }
                if n == 1 && seq == nil || n == 2 && request == nil { return nil }
            }
            guard let seq, seq != 0, let request else { return nil }
            shares.append(BatchedShare(seq: seq, request: request))
        }
        return shares.isEmpty ? nil : shares
    }

    private static func deliver(_ bytes: UnsafeBufferPointer<UInt8>) -> Deliver? {
        var r = ProtoReader(bytes)
        var item: Item?
        var sender: String?, receivedAs: String?
        while !r.atEnd {
            guard let (number, wire) = r.key(), wire == 2, let sub = r.lengthDelimited() else { return nil }
            switch number {
            case 1 where item == nil: item = self.item(sub)
            case 2 where sender == nil: sender = text(sub)
            case 3 where receivedAs == nil: receivedAs = text(sub)
            default: return nil
            }
            if item == nil && number == 1 || sender == nil && number == 2 || receivedAs == nil && number == 3 { return nil }
        }
        guard let item else { return nil }
        return Deliver(item: item, senderBundleID: BundleID(sender ?? ""), receivedAs: receivedAs ?? "")
    }

    private static func deliverBatch(_ bytes: UnsafeBufferPointer<UInt8>) -> [BatchedDelivery]? {
        var r = ProtoReader(bytes)
        var deliveries: [BatchedDelivery] = []
        while !r.atEnd {
            guard let (number, wire) = r.key(), number == 1, wire == 2, let sub = r.lengthDelimited() else { return nil }
            var s = ProtoReader(sub)
            var seq: UInt64?
            var deliver: Deliver?
            while !s.atEnd {
                guard let (n, w) = s.key() else { return nil }
                switch (n, w) {
                case (1, 0) where seq == nil: seq = s.varint()
                case (2, 2) where deliver == nil: deliver = s.lengthDelimited().flatMap(self.deliver)
                default: return nil
                }
                if n == 1 && seq == nil || n == 2 && deliver == nil { return nil }
            }
            guard let seq, seq != 0, let deliver else { return nil }
            deliveries.append(BatchedDelivery(seq: seq, deliver: deliver))
        }
        return deliveries.isEmpty ? nil : deliveries
    }

    private static func deliverAck(_ bytes: UnsafeBufferPointer<UInt8>) -> DeliverAck? {
        var r = ProtoReader(bytes)
        var itemID: String?
        var accepted: Bool?
        while !r.atEnd {
            guard let (number, wire) = r.key() else { return nil }
            switch (number, wire) {
            case (1, 2) where itemID == nil:
                guard let sub = r.lengthDelimited(), let v = text(sub) else { return nil }
                itemID = v
            case (2, 0) where accepted == nil:
                guard let v = r.varint() else { return nil }
                accepted = v != 0
            default:
                return nil
            }
        }
        guard let itemID, !itemID.isEmpty else { return nil }
        return DeliverAck(itemID: itemID, accepted: accepted ?? false)
    }

    /// Declined seqs only packed, as protobuf-c writes them.
    private static func deliverAcks(_ bytes: UnsafeBufferPointer<UInt8>) -> DeliverAcks? {
        var r = ProtoReader(bytes)
        var first: UInt64?, last: UInt64?
        var declined: [UInt64]?
        while !r.atEnd {
            guard let (number, wire) = r.key() else { return nil }
            switch (number, wire) {
            case (1, 0) where first == nil: first = r.varint()
            case (2, 0) where last == nil: last = r.varint()
            case (3, 2) where declined == nil:
                guard let sub = r.lengthDelimited() else { return nil }
                var p = ProtoReader(sub)
                var seqs: [UInt64] = []
                while !p.atEnd {
                    guard let v = p.varint() else { return nil }
                    seqs.append(v)
                }
                declined = seqs
            default:
                return nil
            }
            if number == 1 && first == nil || number == 2 && last == nil { return nil }
        }
        guard let first, first != 0, first <= last ?? 0 else { return nil }
        return DeliverAcks(first: first, last: last ?? 0, declined: declined ?? [])
    }

    /// Only answers without exceptions (each carries a verdict, read by protobuf-c).
    private static func shareResults(_ bytes: UnsafeBufferPointer<UInt8>) -> ShareResults? {
        var r = ProtoReader(bytes)
        var first: UInt64?, last: UInt64?
        while !r.atEnd {
            guard let (number, wire) = r.key(), wire == 0 else { return nil }
            switch number {
            case 1 where first == nil: first = r.varint()
            case 2 where last == nil: last = r.varint()
            default: return nil
            }
            if number == 1 && first == nil || number == 2 && last == nil { return nil }
        }
        guard let first, first != 0, first <= last ?? 0 else { return nil }
        return ShareResults(first: first, last: last ?? 0)
    }

    /// A string protobuf-c and `WireCodec` would read the same: valid UTF-8 without a NUL
    /// byte (`String(cString:)` stops at one, and repairs invalid bytes).
    private static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if bytes.isEmpty { return "" }
        var ascii = true
        for byte in bytes {
            if byte == 0 { return nil }
            if byte >= 0x80 { ascii = false }
        }
        if ascii { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    // MARK: Writing

    /// Appends `frame` when its body is one of these frames (and, for answers, has no
    /// exceptions); `false` leaves `buffer` untouched for protobuf-c.
    static func encode(_ frame: Frame, appendingTo buffer: inout [UInt8], withLengthPrefix: Bool) -> Bool {
        let number: UInt64
        let bodySize: Int
        switch frame.body {
        case .shareRequest(let v): number = 20; bodySize = size(v)
        case .deliverAck(let v): number = 23; bodySize = size(v)
        case .shareBatch(let v): number = 70; bodySize = v.reduce(0) { $0 + nested(size($1)) }
        case .deliverAcks(let v): number = 73; bodySize = size(v)
        case .deliver(let v): number = 22; bodySize = size(v)
        case .shareResults(let v) where v.exceptions.isEmpty: number = 71; bodySize = size(v)
        case .deliverBatch(let v): number = 72; bodySize = v.reduce(0) { $0 + nested(size($1)) }
        default: return false
        }
        let frameSize = scalar(1, frame.seq) + scalar(2, frame.replyTo) + ProtoWriter.keySize(number) + nested(bodySize) - 1
        let start = buffer.count
        let total = frameSize + (withLengthPrefix ? 4 : 0)
        buffer.append(contentsOf: repeatElement(0, count: total))
        buffer.withUnsafeMutableBufferPointer { out in
            var w = ProtoWriter(out.baseAddress! + start)
            if withLengthPrefix {
                for shift in stride(from: 24, through: 0, by: -8) { w.byte(UInt8(truncatingIfNeeded: frameSize >> shift)) }
            }
            w.scalar(1, frame.seq)
            w.scalar(2, frame.replyTo)
            w.key(number, 2)
            w.varint(UInt64(bodySize))
            switch frame.body {
            case .shareRequest(let v): w.write(v)
            case .deliverAck(let v): w.write(v)
            case .shareBatch(let v):
                for s in v {
                    w.key(1, 2)
                    w.varint(UInt64(size(s)))
                    w.scalar(1, s.seq)
                    w.key(2, 2)
                    w.varint(UInt64(size(s.request)))
                    w.write(s.request)
                }
            case .deliverAcks(let v): w.write(v)
            case .deliver(let v): w.write(v)
            case .shareResults(let v):
                w.scalar(1, v.first)
                w.scalar(2, v.last)
            case .deliverBatch(let v):
                for d in v {
                    w.key(1, 2)
                    w.varint(UInt64(size(d)))
                    w.scalar(1, d.seq)
                    w.key(2, 2)
                    w.varint(UInt64(size(d.deliver)))
                    w.write(d.deliver)
                }
            default: break
            }
            precondition(w.position == out.baseAddress! + start + total, "HotFrames wrote a frame of another size than it measured")
        }
        return true
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

    fileprivate static func size(_ v: Item) -> Int {
        var n = string(v.id)
        for t in v.typeIdentifiers { n += nested(t.utf8.count) }
        switch v.payload {
        case .inline(let bytes): n += nested(bytes.count)
        case .file(let path): n += nested(path.utf8.count)
        }
        n += string(v.fileName)
        if let o = v.ownership { n += nested(size(o)) }
        return n
    }

    fileprivate static func size(_ v: ShareRequest) -> Int {
        string(v.destination) + nested(size(v.item)) + string(v.identity) + string(v.receiveAs)
    }

    fileprivate static func size(_ v: BatchedShare) -> Int { scalar(1, v.seq) + nested(size(v.request)) }

    fileprivate static func size(_ v: Deliver) -> Int {
        nested(size(v.item)) + string(v.senderBundleID.rawValue) + string(v.receivedAs)
    }

    fileprivate static func size(_ v: BatchedDelivery) -> Int { scalar(1, v.seq) + nested(size(v.deliver)) }

    fileprivate static func size(_ v: DeliverAck) -> Int { string(v.itemID) + (v.accepted ? 2 : 0) }

    fileprivate static func size(_ v: DeliverAcks) -> Int {
        let packed = v.declined.reduce(0) { $0 + ProtoWriter.varintSize($1) }
        return scalar(1, v.first) + scalar(2, v.last) + (v.declined.isEmpty ? 0 : nested(packed))
    }

    fileprivate static func size(_ v: ShareResults) -> Int { scalar(1, v.first) + scalar(2, v.last) }
}

/// Reads protobuf's wire format; every read answers `nil` past the end or on a varint longer
/// than ten bytes.
struct ProtoReader {
    private let base: UnsafePointer<UInt8>?
    private var i = 0
    private let end: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        base = bytes.baseAddress
        end = bytes.count
    }

    var atEnd: Bool { i >= end }

    mutating func varint() -> UInt64? {
        guard let base else { return nil }
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

    /// Field number and wire type.
    mutating func key() -> (UInt64, UInt64)? {
        guard let k = varint() else { return nil }
        return (k >> 3, k & 7)
    }

    mutating func lengthDelimited() -> UnsafeBufferPointer<UInt8>? {
        guard let n = varint(), n <= UInt64(end - i), let base else { return nil }
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
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        position.update(from: base, count: bytes.count)
        position += bytes.count
    }

    /// A length-delimited field, written even when empty.
    mutating func field(_ number: UInt64, _ s: String) {
        key(number, 2)
        var s = s
        s.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            raw(utf8)
        }
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

    mutating func write(_ v: Item) {
        string(1, v.id)
        for t in v.typeIdentifiers { field(2, t) }
        switch v.payload {
        case .inline(let bytes):
            key(3, 2)
            varint(UInt64(bytes.count))
            bytes.withUnsafeBufferPointer { raw($0) }
        case .file(let path):
            field(4, path)
        }
        string(5, v.fileName)
        if let o = v.ownership {
            key(6, 2)
            varint(UInt64(HotFrames.size(o)))
            write(o)
        }
    }

    mutating func write(_ v: ShareRequest) {
        string(1, v.destination)
        key(2, 2)
        varint(UInt64(HotFrames.size(v.item)))
        write(v.item)
        string(3, v.identity)
        string(4, v.receiveAs)
    }

    mutating func write(_ v: Deliver) {
        key(1, 2)
        varint(UInt64(HotFrames.size(v.item)))
        write(v.item)
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
