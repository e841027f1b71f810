import Testing
@testable import MAMWire

private func framed(_ payloads: [[UInt8]]) -> [UInt8] {
    var out: [UInt8] = []
    for p in payloads {
        appendFrameHeader(length: p.count, to: &out)
        out += p
    }
    return out
}

private let samplePayloads: [[UInt8]] = [
    [1, 2, 3], [], Array(repeating: 0xAB, count: 1000), [42], Array(0...255),
]

@Test func framesDripFedOneByteAtATimeComeOutWhole() throws {
    var decoder = FrameDecoder()
    var got: [[UInt8]] = []
    for byte in framed(samplePayloads) {
        try decoder.feed([byte]) { got.append($0) }
    }
    #expect(got == samplePayloads)
    #expect(decoder.bufferedByteCount == 0)
    try decoder.finish()
}

@Test func manyFramesInOneBufferAreAllDelivered() throws {
    var decoder = FrameDecoder()
    var got: [[UInt8]] = []
    let many = (0..<500).map { i in [UInt8](repeating: UInt8(i & 0xFF), count: i % 17) }
    try decoder.feed(framed(many)) { got.append($0) }
    #expect(got == many)
}

@Test func framesSplitAtEveryPossibleBoundary() throws {
    let bytes = framed(samplePayloads)
    for cut in 0...bytes.count {
        var decoder = FrameDecoder()
        var got: [[UInt8]] = []
        try decoder.feed(Array(bytes[..<cut])) { got.append($0) }
        try decoder.feed(Array(bytes[cut...])) { got.append($0) }
        #expect(got == samplePayloads, "cut at \(cut)")
    }
}

@Test func oversizedFrameIsRefusedBeforeAllocating() throws {
    var decoder = FrameDecoder(maximumFrameSize: 1024)
    // 0xFFFFFFFF announced: allocating would be 4 GiB; the decoder must refuse from the header.
    #expect(throws: WireError.frameTooLarge(length: 0xFFFF_FFFF, maximum: 1024)) {
        try decoder.feed([0xFF, 0xFF, 0xFF, 0xFF]) { _ in Issue.record("no frame expected") }
    }
    #expect(decoder.bufferedByteCount == 0)
    // The stream cannot be resynchronised: later bytes keep failing.
    #expect(throws: WireError.self) { try decoder.feed([0, 0, 0, 1, 7]) { _ in } }
}

@Test func frameAtTheLimitPassesAndOneByteMoreFails() throws {
    var ok = FrameDecoder(maximumFrameSize: 8)
    var got: [[UInt8]] = []
    try ok.feed(framed([[UInt8](repeating: 1, count: 8)])) { got.append($0) }
    #expect(got.count == 1)
    var tooBig = FrameDecoder(maximumFrameSize: 8)
    #expect(throws: WireError.frameTooLarge(length: 9, maximum: 8)) {
        try tooBig.feed(framed([[UInt8](repeating: 1, count: 9)])) { _ in }
    }
}

@Test func truncatedFrameIsReportedAtEndOfStream() throws {
    var decoder = FrameDecoder()
    try decoder.feed([0, 0, 0, 10, 1, 2, 3]) { _ in Issue.record("frame is incomplete") }
    #expect(throws: WireError.truncated(missing: 7)) { try decoder.finish() }
    var headerOnly = FrameDecoder()
    try headerOnly.feed([0, 0]) { _ in }
    #expect(throws: WireError.truncated(missing: 2)) { try headerOnly.finish() }
}

/// The in-place path: whole payloads are passed without a copy, split ones from the decoder's
/// own buffer — the same bytes either way, at every cut, and the next frame starts clean.
@Test func inPlacePayloadsAreTheSameBytesAtEveryCut() throws {
    let bytes = framed(samplePayloads)
    for cut in 0...bytes.count {
        var decoder = FrameDecoder()
        var got: [[UInt8]] = []
        for part in [Array(bytes[..<cut]), Array(bytes[cut...])] {
            try part.withUnsafeBytes { try decoder.feed($0, onFrameBytes: { got.append([UInt8]($0)) }) }
        }
        #expect(got == samplePayloads, "cut at \(cut)")
        #expect(decoder.bufferedByteCount == 0)
    }
}

/// A frame whose handler throws is still consumed whole: the decoder is at the next frame.
@Test func aHandlerThatThrowsLeavesTheDecoderAtTheNextFrame() throws {
    struct Refused: Error {}
    let bytes = framed([[1, 2, 3], [4, 5]])
    var decoder = FrameDecoder()
    // The first frame arrives in two reads (the buffered path), and its handler throws.
    #expect(throws: Refused.self) {
        try Array(bytes[..<5]).withUnsafeBytes { try decoder.feed($0, onFrameBytes: { _ in throw Refused() }) }
        try Array(bytes[5..<7]).withUnsafeBytes { try decoder.feed($0, onFrameBytes: { _ in throw Refused() }) }
    }
    var got: [[UInt8]] = []
    try Array(bytes[7...]).withUnsafeBytes { try decoder.feed($0, onFrameBytes: { got.append([UInt8]($0)) }) }
    #expect(got == [[4, 5]])
}
