import MAMModel
import Testing
@testable import MAMWire

/// Frames typed by direction: a child's frames are read into `ChildFrame` and the host's into
/// `HostFrame`, whose messages have no case the other side alone sends. Every frame of the
/// codec tests reads into the side that sends it as the two-way `Frame` reads, and is refused
/// by the other side's decoder, naming the body; written from either side's message, it is the
/// two-way frame's bytes.
@Suite struct DirectionTests {
    /// The frame's payload (no length prefix).
    private func bytes(_ frame: Frame) -> [UInt8] { FrameEncoder.encode(frame) }

    /// The frame as it is sent, its length first.
    private func sent(_ frame: Frame) -> [UInt8] {
        var out: [UInt8] = []
        FrameEncoder.encode(frame, appendingTo: &out)
        return out
    }

    @Test(arguments: everyFrame)
    func eachSideReadsWhatItSendsAndRefusesTheRest(_ frame: Frame) throws {
        let payload = bytes(frame)
        var child = ChildFrame(body: .launchFinished)
        var host = HostFrame(body: .bye(reason: ""))
        let childRead = payload.withUnsafeBytes { b in Result { () throws(WireError) in try FrameParser.parse(b, into: &child) } }
        let hostRead = payload.withUnsafeBytes { b in Result { () throws(WireError) in try FrameParser.parse(b, into: &host) } }
        if let message = ChildMessage(frame.body) {
            try childRead.get()
            #expect(child == ChildFrame(seq: frame.seq, replyTo: frame.replyTo, body: message))
            #expect(child.frame == frame)
        } else {
            #expect(throws: WireError.wrongSender(body: frame.body.name, only: .host)) { try childRead.get() }
        }
        if let message = HostMessage(frame.body) {
            try hostRead.get()
            #expect(host == HostFrame(seq: frame.seq, replyTo: frame.replyTo, body: message))
        } else {
            #expect(throws: WireError.wrongSender(body: frame.body.name, only: .child)) { try hostRead.get() }
        }
        #expect(ChildMessage(frame.body) != nil || HostMessage(frame.body) != nil, "\(frame.body.name) is sent by neither side")
    }

    @Test(arguments: everyFrame)
    func eitherSidesMessageIsWrittenAsTheTwoWayFrame(_ frame: Frame) {
        if let message = ChildMessage(frame.body) {
            var out: [UInt8] = []
            FrameEncoder.encode(seq: frame.seq, replyTo: frame.replyTo, body: message, appendingTo: &out)
            #expect(out == sent(frame), "\(frame.body.name) from a child")
        }
        if let message = HostMessage(frame.body) {
            var out: [UInt8] = []
            FrameEncoder.encode(seq: frame.seq, replyTo: frame.replyTo, body: message, appendingTo: &out)
            #expect(out == sent(frame), "\(frame.body.name) from the host")
        }
    }

    /// A share's payload read for the host stays in the buffer it was read into, as the two-way
    /// frame's does.
    @Test func aChildsShareReadForTheHostKeepsItsPayloadInPlace() throws {
        let item = Item(id: "i", typeIdentifiers: ["public.data"], payload: .inline([UInt8](repeating: 7, count: 300)))
        let payload = bytes(Frame(seq: 3, body: .shareRequest(ShareRequest(destination: "d", item: item))))
        let received = ReceivedBytes(copying: payload)
        var frame = ChildFrame(body: .launchFinished)
        try FrameParser.parse(received, into: &frame)
        guard case .shareRequest(let request) = frame.body else { Issue.record("not a share: \(frame.body.name)"); return }
        #expect(request.item == item)
        #expect(request.item.isInReadBuffer, "the payload was copied out of the buffer it was read into")
    }
}
