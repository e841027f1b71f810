import MAMModel
import Testing
@testable import MAMWire

/// Bytes copied into a `ReceiveBuffer` at `offset`, as a read would leave them.
private func received(_ bytes: [UInt8], offset: Int = 0, capacity: Int? = nil) -> ReceivedBytes {
    let buffer = ReceiveBuffer(capacity: capacity ?? offset + bytes.count)
    bytes.withUnsafeBytes { if let base = $0.baseAddress { (buffer.base + offset).copyMemory(from: base, byteCount: bytes.count) } }
    return ReceivedBytes(buffer, offset: offset, count: bytes.count)
}

/// Whether `item`'s inline payload lies inside `buffer`.
private func lies(_ item: Item, in buffer: ReceiveBuffer) -> Bool {
    item.withInlineBytes { bytes in
        guard let start = bytes.baseAddress else { return false }
        return start >= UnsafeRawPointer(buffer.base) && start + bytes.count <= UnsafeRawPointer(buffer.base + buffer.capacity)
    } ?? false
}

private func frameBytes(_ frame: Frame) -> [UInt8] {
    var out: [UInt8] = []
    FrameEncoder.encodeWithProtobufC(frame, appendingTo: &out, withLengthPrefix: false)
    return out
}

private let owner = Ownership(upn: "alice@contoso.com", oid: "0f1e2d3c-aaaa-bbbb-cccc-000000000001", tenant: "contoso", managed: true, sourceBundle: "com.contoso.mail")

private let shares: [BatchedShare] = [
    BatchedShare(seq: 7, request: ShareRequest(destination: "word", item: Item(id: "a", typeIdentifiers: ["public.plain-text"], payload: .inline(Array(repeating: 0x61, count: 1024))), identity: "alice@contoso.com")),
    BatchedShare(seq: 8, request: ShareRequest(destination: "word", item: Item(id: "b", typeIdentifiers: [], payload: .inline([1])))),
    BatchedShare(seq: 9, request: ShareRequest(destination: "word", item: Item(id: "c", typeIdentifiers: ["com.adobe.pdf"], payload: .inline([])))),
    BatchedShare(seq: 10, request: ShareRequest(destination: "notes", item: Item(id: "d", typeIdentifiers: [], payload: .file(path: "Documents/d.pdf"), fileName: "d.pdf"))),
    BatchedShare(seq: 11, request: ShareRequest(destination: "word", item: Item(id: "e", typeIdentifiers: [], payload: .inline(Array(0...255)), ownership: owner))),
]

/// A share read from the buffer it arrived in keeps its payload there, and is the same value
/// as the one read with a copy: equal, with the same hash, payload and text.
@Test func aSharesPayloadStaysInTheBufferItWasReadInto() throws {
    let bytes = frameBytes(Frame(seq: 3, body: .shareBatch(shares)))
    let inBuffer = received(bytes, offset: 37, capacity: bytes.count + 100)
    let kept = try FrameParser.parse(inBuffer)
    let copied = try bytes.withUnsafeBytes { try FrameParser.parse($0) }
    #expect(kept == copied)
    guard case .shareBatch(let read) = kept.body, case .shareBatch(let reference) = copied.body else {
        Issue.record("not a batch: \(kept.body.name)")
        return
    }
    #expect(read.count == shares.count)
    for (a, b) in zip(read, reference) {
        let item = a.request.item
        #expect(item == b.request.item)
        #expect(item.hashValue == b.request.item.hashValue)
        #expect(item.payload == b.request.item.payload)
        #expect(item.text == b.request.item.text)
        #expect(item.inlineByteCount == b.request.item.inlineByteCount)
        #expect(item.filePath == b.request.item.filePath)
        // A payload with bytes is left where it arrived; none for an empty one or a file.
        #expect(lies(item, in: inBuffer.buffer) == (item.inlineByteCount > 0), "\(item.id)")
    }
}

/// A delivery stamped on a payload that lies in a read buffer is written byte for byte as
/// protobuf-c writes the same delivery with the payload copied.
@Test func aDeliveryWrittenFromAReadBufferIsTheBytesOfACopy() throws {
    let bytes = frameBytes(Frame(seq: 3, body: .shareBatch(shares)))
    let frame = try FrameParser.parse(received(bytes, offset: 5, capacity: bytes.count + 5))
    guard case .shareBatch(let read) = frame.body else {
        Issue.record("not a batch")
        return
    }
    var kept: [BatchedDelivery] = []
    var copied: [BatchedDelivery] = []
    for (i, share) in read.enumerated() {
        var item = share.request.item
        item.ownership = owner
        kept.append(BatchedDelivery(seq: UInt64(i + 1), deliver: Deliver(item: item, senderBundleID: "com.contoso.mail", receivedAs: "alice@contoso.com")))
        var copy = Item(id: item.id, typeIdentifiers: item.typeIdentifiers, payload: item.payload, fileName: item.fileName, ownership: owner)
        copy.ownership = owner
        copied.append(BatchedDelivery(seq: UInt64(i + 1), deliver: Deliver(item: copy, senderBundleID: "com.contoso.mail", receivedAs: "alice@contoso.com")))
    }
    var written: [UInt8] = []
    #expect(HotFrames.encode(Frame(seq: 9, body: .deliverBatch(kept)), appendingTo: &written, withLengthPrefix: true))
    var reference: [UInt8] = []
    FrameEncoder.encodeWithProtobufC(Frame(seq: 9, body: .deliverBatch(copied)), appendingTo: &reference, withLengthPrefix: true)
    #expect(written == reference)
}

/// Fed bytes inside a buffer, the decoder hands out a frame that arrived whole where it lies,
/// and one that spans feeds gathered in a buffer of its own; either way the frame's bytes.
@Test func framesComeOutInsideTheBufferTheyLieIn() throws {
    let payloads: [[UInt8]] = [Array(repeating: 0x11, count: 300), [], [7, 8, 9], Array(0...200)]
    var stream: [UInt8] = []
    for p in payloads {
        appendFrameHeader(length: p.count, to: &stream)
        stream += p
    }
    for cut in [0, 1, 3, 4, 5, 150, 304, 305, 306, stream.count - 1, stream.count] {
        var decoder = FrameDecoder()
        var got: [[UInt8]] = []
        let first = received(Array(stream[..<cut]), offset: 3, capacity: cut + 10)
        let second = received(Array(stream[cut...]), offset: 0)
        for (part, chunk) in [first, second].enumerated() {
            try decoder.feed(chunk) { frame in
                got.append(frame.array)
                let start = chunk.offset
                let end = chunk.offset + chunk.count
                if frame.buffer === chunk.buffer {
                    // In place: inside the bytes fed, not before or after them.
                    #expect(frame.offset >= start && frame.offset + frame.count <= end, "cut \(cut), part \(part)")
                } else {
                    // Gathered: a buffer of its own, just the frame.
                    #expect(frame.offset == 0 && frame.count == frame.buffer.capacity, "cut \(cut), part \(part)")
                }
            }
        }
        #expect(got == payloads, "cut at \(cut)")
        #expect(decoder.bufferedByteCount == 0)
    }
}

/// An item whose payload lies in a buffer and one holding a copy are interchangeable as
/// values: equal, same hash, set membership, and a change of payload lets go of the buffer.
@Test func anItemReadInPlaceIsTheSameValueAsACopy() {
    let bytes: [UInt8] = Array("board minutes".utf8)
    let inBuffer = received(bytes, offset: 16, capacity: 64)
    var kept = Item(id: "x", typeIdentifiers: ["public.plain-text"], received: inBuffer, fileName: "m.txt", ownership: owner)
    let copy = Item(id: "x", typeIdentifiers: ["public.plain-text"], payload: .inline(bytes), fileName: "m.txt", ownership: owner)
    #expect(kept == copy)
    #expect(Set([kept, copy]).count == 1)
    #expect(kept.text == "board minutes")
    #expect(kept.payload == .inline(bytes))
    #expect(kept.isInline && kept.filePath == nil && kept.inlineByteCount == bytes.count)
    #expect(kept != Item(id: "x", typeIdentifiers: ["public.plain-text"], payload: .inline(bytes + [0]), fileName: "m.txt", ownership: owner))
    #expect(kept != Item(id: "x", typeIdentifiers: ["public.plain-text"], payload: .file(path: "board minutes"), fileName: "m.txt", ownership: owner))
    kept.ownership = nil
    #expect(kept != copy)
    kept.payload = .file(path: "Inbox/x-m.txt")
    #expect(kept.filePath == "Inbox/x-m.txt" && !kept.isInline && kept.withInlineBytes { _ in 0 } == nil)
    #expect(kept.id == "x" && kept.fileName == "m.txt")
    #expect(String(reflecting: copy).hasPrefix("Item(id: \"x\", typeIdentifiers: [\"public.plain-text\"], payload: inline(["))
}
