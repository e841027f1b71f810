// libFuzzer target: bytes from a hostile child through the host's frame decoder and parser.
// Any input must end in frames or a WireError, never a crash (`make fuzz`).
import MAMModel
import MAMWire
import FuzzSupport

/// libFuzzer runs inputs one at a time on one thread.
nonisolated(unsafe) let pool = StringPool()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrames(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var decoder = FrameDecoder(maximumFrameSize: 1 << 20)
    let bytes = UnsafeRawBufferPointer(start: data, count: count)
    // Fed in two chunks, split where the first byte says, so partial frames are exercised.
    let split = count == 0 ? 0 : Int(bytes[0]) % (count + 1)
    // The host reads into buffers that items keep (payloads left where they arrived): the same
    // chunks read that way must give the same frames, and the same end.
    let buffer = ReceiveBuffer(capacity: count)
    if count > 0 { buffer.base.copyMemory(from: data, byteCount: count) }
    var kept = FrameDecoder(maximumFrameSize: 1 << 20)
    var keptFrames: [Frame?] = []
    var keptEnd = false
    for chunk in [ReceivedBytes(buffer, offset: 0, count: split), ReceivedBytes(buffer, offset: split, count: count - split)] where !keptEnd {
        do {
            // As the host reads a child's frames: into `ChildFrame`, which must be the two-way
            // frame read from a child (or its refusal).
            try kept.feed(chunk) { payload in
                var frame = ChildFrame(body: .launchFinished)
                keptFrames.append((try? FrameParser.parse(payload, into: &frame)).map { frame.frame })
            }
        } catch {
            keptEnd = true
        }
    }
    var frames: [Frame?] = []
    defer { precondition(frames == keptFrames, "frames read where they lie differ from frames read from a copy") }
    for chunk in [UnsafeRawBufferPointer(rebasing: bytes[0..<split]), UnsafeRawBufferPointer(rebasing: bytes[split...])] {
        do {
            // The host's own path: each payload parsed in place, in the parse arena.
            try decoder.feed(chunk, onFrameBytes: { payload in
                let frame = try? FrameParser.parse(payload)
                frames.append(frame.flatMap { ChildFrame($0) }.map(\.frame))
                // The frames a share stream is made of are read in one pass (HotFrames): what
                // protobuf-c makes of the same bytes must be the same frame or the same refusal.
                precondition(frame == (try? FrameParser.parseWithProtobufC(payload)), "HotFrames read other than protobuf-c")
                // The pool of recent strings lives across inputs, as a connection's does.
                precondition(frame == (try? FrameParser.parse(payload, strings: pool)), "a pooled read differs")
                // As an app reads the host's frames: the two-way frame, if the host may send it.
                var host = HostFrame(body: .bye(reason: ""))
                let typed = (try? FrameParser.parse(payload, strings: pool, into: &host)) != nil
                precondition(typed == (frame.flatMap { HostFrame($0) } != nil) && (!typed || host.frame == frame), "an app's read differs")
                if let frame {
                    // What parses must encode and parse back to the same frame, in protobuf-c's bytes.
                    let bytes = FrameEncoder.encode(frame)
                    var reference: [UInt8] = []
                    FrameEncoder.encodeWithProtobufC(frame, appendingTo: &reference, withLengthPrefix: false)
                    precondition(bytes == reference, "HotFrames wrote other bytes than protobuf-c for \(frame.body.name)")
                    let again = try? FrameParser.parse(bytes)
                    precondition(again == frame, "round trip changed \(frame.body.name)")
                }
            })
        } catch {
            precondition(keptEnd, "the decoder reading where bytes lie went on where the other stopped")
            return 0
        }
    }
    precondition(!keptEnd && frames.count == keptFrames.count, "the decoder reading where bytes lie stopped where the other went on")
    return 0
}

@_cdecl("FuzzFrames_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzFrames(data, count) }
}
