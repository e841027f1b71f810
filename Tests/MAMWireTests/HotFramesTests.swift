import CAllocationCount
import MAMModel
import Testing
@testable import MAMWire

/// `HotFrames` reads and writes the frames of a share stream in one pass (generated from the
/// .proto's `hot` keys); protobuf-c is the reference it must match byte for byte and value for
/// value.
@Suite struct HotFramesTests {
    static let hotBodies: Set<String> = ["share_request", "deliver_ack", "share_batch", "deliver_acks", "deliver", "share_results", "deliver_batch", "share_result", "ping"]

    func protobufC(_ frame: Frame) -> [UInt8] {
        var out: [UInt8] = []
        FrameEncoder.encodeWithProtobufC(frame, appendingTo: &out, withLengthPrefix: false)
        return out
    }

    func hot(_ frame: Frame, prefix: Bool = false) -> [UInt8]? {
        var out: [UInt8] = [9, 9]
        guard HotFrames.encode(frame, appendingTo: &out, withLengthPrefix: prefix) else { return nil }
        #expect(out.prefix(2) == [9, 9], "HotFrames wrote over what the buffer held")
        return Array(out.dropFirst(2))
    }

    func hotDecode(_ bytes: [UInt8]) -> Frame? {
        bytes.withUnsafeBufferPointer { HotFrames.decode($0) }
    }

    func reference(_ bytes: [UInt8]) -> Result<Frame, WireError> {
        bytes.withUnsafeBytes { b in Result { () throws(WireError) in try FrameParser.parseWithProtobufC(b) } }
    }

    /// Every frame of the codec tests whose body is hot, written by hand, is protobuf-c's bytes.
    @Test(arguments: everyFrame.filter { hotBodies.contains($0.body.name) })
    func writesTheBytesProtobufCWrites(_ frame: Frame) throws {
        let expected = protobufC(frame)
        #expect(hot(frame) == expected)
        var prefixed: [UInt8] = []
        FrameEncoder.encodeWithProtobufC(frame, appendingTo: &prefixed)
        #expect(hot(frame, prefix: true) == prefixed)
        #expect(hotDecode(expected) == frame)
    }

    @Test func valuesAtTheEdgesOfEveryFieldAreWrittenAsProtobufCWritesThem() throws {
        let owners: [Ownership?] = [nil, Ownership(upn: "", oid: "", tenant: "", managed: false, sourceBundle: ""),
                                    Ownership(upn: "élodie@contoso.fr", oid: "o", tenant: "t", managed: true, sourceBundle: "com.a")]
        let payloads: [Item.Payload] = [.inline([]), .inline(Array(repeating: 0xFF, count: 300)), .file(path: ""), .file(path: "Documents/ü.pdf")]
        let seqs: [UInt64] = [0, 1, 127, 128, 16_383, 16_384, .max]
        var frames: [Frame] = []
        for (i, owner) in owners.enumerated() {
            for payload in payloads {
                let item = Item(id: "i\(i)", typeIdentifiers: ["", "public.data", String(repeating: "x", count: 200)], payload: payload,
                                fileName: i == 1 ? "" : "f.txt", ownership: owner)
                for seq in seqs {
                    frames.append(Frame(seq: seq, replyTo: seq / 2, body: .shareRequest(ShareRequest(destination: "d", item: item, identity: i == 0 ? "" : "alice", receiveAs: i == 2 ? "bob" : ""))))
                    frames.append(Frame(seq: seq, body: .deliver(Deliver(item: item, senderBundleID: i == 0 ? "" : "com.s", receivedAs: i == 1 ? "" : "r"))))
                    frames.append(Frame(seq: seq, body: .deliverBatch([BatchedDelivery(seq: max(seq, 1), deliver: Deliver(item: item, senderBundleID: "com.s"))])))
                    frames.append(Frame(seq: seq, body: .shareBatch([BatchedShare(seq: max(seq, 1), request: ShareRequest(destination: "x", item: item))])))
                }
            }
        }
        for seq in seqs where seq > 0 {
            frames.append(Frame(seq: seq, body: .deliverAcks(DeliverAcks(first: seq, last: .max, declined: [seq, 0, .max, 128]))))
            frames.append(Frame(seq: seq, body: .shareResults(ShareResults(first: seq, last: seq))))
            frames.append(Frame(seq: seq, replyTo: seq, body: .deliverAck(DeliverAck(itemID: "é\(seq)", accepted: seq % 2 == 0))))
            frames.append(Frame(seq: seq, replyTo: seq, body: .shareResult(.allowed(seq % 2 == 0 ? "" : "delivered to é\(seq)"))))
        }
        for count in [0, 1, 127, 128, 300, 16_384] {
            frames.append(Frame(seq: UInt64(count), replyTo: UInt64(count / 2), body: .ping((0..<count).map { UInt8(truncatingIfNeeded: $0) })))
        }
        for frame in frames {
            let expected = protobufC(frame)
            #expect(hot(frame) == expected, "\(frame)")
            #expect(hotDecode(expected) == frame, "\(frame)")
            #expect(try reference(expected).get() == frame)
        }
    }

    /// A range of a sender's queue written where it lies (`encodeShareBatch`) is protobuf-c's
    /// bytes for a batch of that range: every range of queues of 1 to 40 shares.
    @Test func aRangeOfSharesWrittenWhereItLiesIsProtobufCsBytes() {
        let item = Item(id: "é-1", typeIdentifiers: ["public.plain-text"], payload: .inline(Array(repeating: 7, count: 300)),
                        ownership: Ownership(upn: "alice@contoso.com", oid: "o", tenant: "t", managed: true, sourceBundle: "com.a"))
        for count in [1, 2, 17, 40] {
            let queue = (0..<count).map { i in
                BatchedShare(seq: (1 << 20) + UInt64(i) * 100, request: ShareRequest(destination: "app\(i)", item: item, identity: i % 2 == 0 ? "" : "alice@contoso.com"))
            }
            for range in [0..<count, 0..<(count / 2), (count / 2)..<count, (count - 1)..<count] where !range.isEmpty {
                var expected: [UInt8] = [7]
                FrameEncoder.encodeWithProtobufC(Frame(seq: 127, body: .shareBatch(Array(queue[range]))), appendingTo: &expected)
                var written: [UInt8] = [7]
                FrameEncoder.encodeShareBatch(seq: 127, queue[range], appendingTo: &written)
                #expect(written == expected, "shares \(range) of \(count)")
            }
        }
    }

    /// A batch writes an owner once and copies its bytes for the next item stamped with the
    /// same value; owners that change, come back, are absent, or are equal but made apart are
    /// each written as protobuf-c writes them.
    @Test func aBatchThatRepeatsAnOwnerIsProtobufCsBytes() {
        let alice = Ownership(upn: "alice@contoso.com", oid: "o-1", tenant: "t", managed: true, sourceBundle: "com.a")
        let aliceAgain = Ownership(upn: "alice@contoso.com", oid: "o-1", tenant: "t", managed: true, sourceBundle: "com.A")
        let bob = Ownership(upn: "bob@fabrikam.com", oid: "o-22", tenant: "u", managed: false, sourceBundle: "com.b")
        let owners: [Ownership?] = [alice, alice, bob, nil, alice, aliceAgain, aliceAgain, .unowned(from: "com.c"), bob]
        let deliveries = owners.enumerated().map { i, owner in
            BatchedDelivery(seq: UInt64(100 + i), deliver: Deliver(
                item: Item(id: "d\(i)", typeIdentifiers: ["public.data"], payload: .inline(Array(repeating: UInt8(i), count: 40 * i)), ownership: owner),
                senderBundleID: "com.s", receivedAs: i % 2 == 0 ? "" : "r"))
        }
        let shares = owners.enumerated().map { i, owner in
            BatchedShare(seq: UInt64(100 + i), request: ShareRequest(
                destination: "app", item: Item(id: "s\(i)", typeIdentifiers: [], payload: .file(path: "Documents/\(i)"), ownership: owner)))
        }
        // (And empty batches, which no one sends but which are written all the same.)
        for frame in [Frame(seq: 200, body: .deliverBatch(deliveries)), Frame(seq: 200, body: .shareBatch(shares)),
                      Frame(seq: 201, body: .deliverBatch([])), Frame(seq: 201, body: .shareBatch([]))] {
            #expect(hot(frame) == protobufC(frame), "\(frame.body.name)")
            #expect(hot(frame, prefix: true).map { Array($0.dropFirst(4)) } == protobufC(frame))
            if frame.body != .deliverBatch([]), frame.body != .shareBatch([]) { #expect(hotDecode(protobufC(frame)) == frame) }
        }
    }

    /// A batch is reserved for as many items as its first one's size suggests, at most
    /// `reservedBatchItems`: a tiny first item before large ones, a large one before tiny
    /// ones, and more items than the bound are all read whole, as protobuf-c reads them.
    @Test func aBatchIsReadWholeWhateverItsFirstItemSuggests() {
        func share(_ i: Int, bytes: Int) -> BatchedShare {
            BatchedShare(seq: UInt64(1 + i), request: ShareRequest(destination: "a", item: Item(id: "\(i)", typeIdentifiers: [], payload: .inline(Array(repeating: 1, count: bytes)))))
        }
        func delivery(_ i: Int, bytes: Int) -> BatchedDelivery {
            BatchedDelivery(seq: UInt64(1 + i), deliver: Deliver(item: Item(id: "\(i)", typeIdentifiers: [], payload: .inline(Array(repeating: 2, count: bytes))), senderBundleID: "com.s"))
        }
        let many = HotFrames.reservedBatchItems * 3 + 1
        let layouts: [[Int]] = [[0] + Array(repeating: 2_000, count: 40), [4_000] + Array(repeating: 0, count: 300), Array(repeating: 3, count: many), [7]]
        for sizes in layouts {
            let frames = [Frame(seq: UInt64(sizes.count + 1), body: .shareBatch(sizes.enumerated().map { share($0, bytes: $1) })),
                          Frame(seq: UInt64(sizes.count + 1), body: .deliverBatch(sizes.enumerated().map { delivery($0, bytes: $1) }))]
            for frame in frames {
                let bytes = protobufC(frame)
                let read = hotDecode(bytes)
                #expect(read == frame, "\(frame.body.name) of \(sizes.count) items")
                #expect(read.map { try? reference(bytes).get() == $0 } == true)
            }
        }
    }

    /// What it reads, protobuf-c reads the same; what it declines, protobuf-c decides. Every
    /// single-byte change, cut and insertion of hot frames is tried.
    @Test func whateverItReadsProtobufCReadsTheSame() {
        var inputs: [[UInt8]] = []
        for frame in everyFrame where Self.hotBodies.contains(frame.body.name) {
            let bytes = protobufC(frame)
            inputs.append(bytes)
            for i in bytes.indices {
                for value: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFF, bytes[i] ^ 0x08, bytes[i] &+ 1] {
                    var m = bytes
                    m[i] = value
                    inputs.append(m)
                }
                inputs.append(Array(bytes[..<i]))
                var inserted = bytes
                inserted.insert(bytes[i], at: i)
                inputs.append(inserted)
            }
        }
        var read = 0
        for input in inputs {
            guard let frame = hotDecode(input) else { continue }
            read += 1
            #expect((try? reference(input).get()) == frame, "\(input)")
            // Read where the bytes lie (payloads left in their buffer): the same frame.
            let received = ReceivedBytes(copying: input, offset: 3)
            let inPlace = HotFrames.decode(UnsafeBufferPointer(start: (received.buffer.base + 3).assumingMemoryBound(to: UInt8.self), count: input.count),
                                           received: received)
            #expect(inPlace == frame, "\(input)")
        }
        #expect(read > 1000, "the mutations left almost nothing readable: \(read)")
    }

    /// `scan` reads eight bytes at a time: a NUL or a byte above ASCII is found at every
    /// position of every length up to 40 (across whole words, the last partial word and the
    /// padded short one), as a loop over the bytes finds it.
    @Test func aScanFindsEveryNulAndEveryByteAboveASCIIWhereverItLies() {
        func byteByByte(_ bytes: [UInt8]) -> (nul: Bool, ascii: Bool) {
            (bytes.contains(0), bytes.allSatisfy { $0 < 0x80 })
        }
        var cases = 0
        for count in 1...40 {
            let plain = (0..<count).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            var inputs = [plain, [UInt8](repeating: 0x01, count: count), [UInt8](repeating: 0x7F, count: count)]
            for at in 0..<count {
                for odd: UInt8 in [0x00, 0x80, 0xC3, 0xFF] {
                    var bytes = plain
                    bytes[at] = odd
                    inputs.append(bytes)
                }
                // A NUL beside a byte of 1 (a borrow's neighbour) and beside one above ASCII.
                var ones = [UInt8](repeating: 0x01, count: count)
                ones[at] = 0
                inputs.append(ones)
                var high = [UInt8](repeating: 0x80, count: count)
                high[at] = 0
                inputs.append(high)
            }
            for bytes in inputs {
                let scanned = bytes.withUnsafeBufferPointer { HotFrames.scan($0) }
                let expected = byteByByte(bytes)
                #expect(scanned.nul == expected.nul && scanned.ascii == expected.ascii, "\(bytes)")
                cases += 1
            }
        }
        #expect(cases > 4000)
    }

    @Test func whatItDeclinesIsLeftToProtobufC() throws {
        let item = Item(id: "i", typeIdentifiers: [], payload: .inline([1]))
        let request = protobufC(Frame(seq: 1, body: .shareRequest(ShareRequest(destination: "d", item: item))))
        // A body the sender may not send: the typed decoder names it.
        var asHost = HostFrame(body: .bye(reason: ""))
        #expect(request.withUnsafeBufferPointer { HostFrame.decode($0, pool: nil, received: nil, into: &asHost) } == false)
        #expect(throws: WireError.wrongSender(body: "share_request", only: .child)) {
            try request.withUnsafeBytes { b in Result { () throws(WireError) in try FrameParser.parse(b, into: &asHost) } }.get()
        }
        // An unknown field (17, varint 1) appended to the frame.
        #expect(hotDecode(request + [0x88, 0x01, 0x01]) == nil)
        #expect(try FrameParser.parse(request + [0x88, 0x01, 0x01]) == Frame(seq: 1, body: .shareRequest(ShareRequest(destination: "d", item: item))))
        // A NUL in a string: protobuf-c's C string would end there, reading `d\0x` as `d`, a
        // name other than the one sent; refused, naming the field (security issue 83).
        // (protobuf-c never writes one: its encoder stops at the NUL too.)
        let itemBytes: [UInt8] = [0x0A, 0x01, UInt8(ascii: "i"), 0x1A, 0x01, 0x01]
        let requestBytes: [UInt8] = [0x0A, 0x03, UInt8(ascii: "d"), 0, UInt8(ascii: "x"), 0x12, UInt8(itemBytes.count)] + itemBytes
        let nul: [UInt8] = [0x08, 0x01, 0xA2, 0x01, UInt8(requestBytes.count)] + requestBytes
        #expect(hotDecode(nul) == nil)
        #expect(throws: WireError.invalidField("share_request.destination", "holds a NUL byte, which no name or text may hold")) { try FrameParser.parse(nul) }
        // Keys and lengths spelled longer than protobuf-c writes them, a field numbered 0 and a
        // boolean in two bytes: protobuf-c reads those by rules of its own, and decides.
        let ack = protobufC(Frame(seq: 1, replyTo: 1, body: .deliverAck(DeliverAck(itemID: "i", accepted: true))))
        let longLength = [0x08, 0x01, 0x10, 0x01, 0xBA, 0x01] + [0x85, 0x80, 0x80, 0x80, 0x80, 0x00] + ack.suffix(5)
        let paddedLength = [0x08, 0x01, 0x10, 0x01, 0xBA, 0x01] + [0x85, 0x00] + ack.suffix(5)
        let fieldZero: [UInt8] = [0x02, 0x00] + ack
        let twoByteBool = [0x08, 0x01, 0x10, 0x01, 0xBA, 0x01, 0x06, 0x0A, 0x01, UInt8(ascii: "i"), 0x10, 0x81, 0x00]
        #expect(Array(ack.suffix(5)) == [0x0A, 0x01, UInt8(ascii: "i"), 0x10, 0x01], "the ack's body as these cases assume")
        for bytes in [longLength, paddedLength, fieldZero, twoByteBool] {
            #expect(hotDecode(bytes) == nil, "\(bytes)")
            #expect((try? FrameParser.parse(bytes)) == (try? reference(bytes).get()), "\(bytes)")
        }
        // A missing required field: protobuf-c's path names it.
        let noID = protobufC(Frame(seq: 1, body: .shareRequest(ShareRequest(destination: "d", item: Item(id: "", typeIdentifiers: [], payload: .inline([]))))))
        #expect(hotDecode(noID) == nil)
        #expect(throws: WireError.missingField("share_request.item.id")) { try FrameParser.parse(noID) }
    }
}
