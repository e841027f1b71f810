import MAMModel
import Testing
@testable import MAMWire

private let owner = Ownership(
    upn: "alice@contoso.com", oid: "0b6f1c2e-2f4b-4c1e-9a55-3c1f0e6d7a10", tenant: "contoso.onmicrosoft.com",
    managed: true, sourceBundle: "com.contoso.Mail")
private let textItem = Item(
    id: "item-1", typeIdentifiers: ["public.plain-text"], payload: .inline(Array("Q3 numbers".utf8)),
    fileName: "", ownership: owner)
private let fileItem = Item(
    id: "item-2", typeIdentifiers: ["com.adobe.pdf", "public.data"], payload: .file(path: "/dev/c/q3.pdf"),
    fileName: "q3.pdf")
private let emptyItem = Item(id: "item-3", typeIdentifiers: [], payload: .inline([]))

/// One frame of every body kind, with non-default values in every field.
let everyFrame: [Frame] = [
    Frame(seq: 1, body: .hello(Hello(pid: 4242, runtime: "mamsim-app/1"))),
    Frame(seq: 2, replyTo: 1, body: .welcome(Welcome(
        bundleID: "com.contoso.Mail", kind: .app, appHandle: "mail", processIdentity: "alice@contoso.com",
        maxFrameSize: 1 << 20))),
    Frame(seq: 3, body: .welcome(Welcome(bundleID: "com.contoso.word.openin", kind: .actionExtension, appHandle: "x", processIdentity: "", maxFrameSize: 7))),
    Frame(seq: 4, body: .welcome(Welcome(bundleID: "com.contoso.share", kind: .shareExtension, appHandle: "s", processIdentity: "", maxFrameSize: 7))),
    Frame(seq: 5, body: .shareRequest(ShareRequest(destination: "notes", item: textItem, identity: "alice@contoso.com", receiveAs: "bob@outlook.com"))),
    Frame(seq: 6, body: .shareRequest(ShareRequest(destination: "word", item: fileItem, identity: ""))),
    Frame(seq: 7, replyTo: 5, body: .shareResult(.delivered)),
    Frame(seq: 8, replyTo: 5, body: .shareResult(.blocked(.outboundPolicy, "alice's policy says no"))),
    Frame(seq: 9, replyTo: 5, body: .shareResult(.failed(.appNotRunning, "com.example.notes exited"))),
    Frame(seq: 10, body: .deliver(Deliver(item: textItem, senderBundleID: "com.contoso.Mail", receivedAs: "alice@contoso.com"))),
    Frame(seq: 11, body: .deliver(Deliver(item: emptyItem, senderBundleID: "a", receivedAs: ""))),
    Frame(seq: 12, replyTo: 10, body: .deliverAck(DeliverAck(itemID: "item-1", accepted: true))),
    Frame(seq: 13, body: .setIdentity(SetIdentity(scope: .ui, window: "main", account: "alice@contoso.com"))),
    Frame(seq: 14, body: .setIdentity(SetIdentity(scope: .process, account: ""))),
    Frame(seq: 15, body: .identityResult(IdentityResult(status: .success, account: "alice@contoso.com"))),
    Frame(seq: 16, body: .identityResult(IdentityResult(status: .canceled))),
    Frame(seq: 17, body: .identityResult(IdentityResult(status: .notAllowed, reason: "identity-switch-not-allowed"))),
    Frame(seq: 18, body: .identityResult(IdentityResult(status: .failed, reason: "conditional-launch", explanation: "PIN"))),
    Frame(seq: 19, body: .getIdentity(window: "main")),
    Frame(seq: 20, body: .identityInfo(IdentityInfo(processIdentity: "a", uiIdentity: "b", signedIn: ["a", "b", "c"]))),
    Frame(seq: 21, body: .command(Command(verb: "share", args: ["to": "notes", "as": "x"], item: fileItem))),
    Frame(seq: 22, body: .command(Command(verb: "bye"))),
    Frame(seq: 23, body: .commandResult(CommandResult(ok: false, outcome: "blocked", reason: "outbound-policy", explanation: "why"))),
    Frame(seq: 24, body: .error(code: "bad-request", message: "out of order")),
    Frame(seq: 25, body: .bye(reason: "teardown")),
    Frame(seq: UInt64.max, replyTo: UInt64.max - 1, body: .ping(Array(0...255))),
    Frame(seq: 26, body: .ping([])),
    Frame(seq: 27, body: .commandResult(CommandResult(ok: true, outcome: "value", values: ["owner": "alice@contoso.com", "encrypted": "true"], data: [0, 1, 2]))),
    Frame(seq: 28, body: .serviceRequest(ServiceRequest(op: "writeFile", args: ["path": "Documents/q3.txt", "owner": ""], data: Array("Q3".utf8)))),
    Frame(seq: 29, body: .serviceRequest(ServiceRequest(op: "print"))),
    Frame(seq: 30, replyTo: 28, body: .serviceResult(ServiceResult(ok: false, reason: "keychain-entitlement", explanation: "not entitled", values: ["group": "x"], data: [9], status: -34018))),
    Frame(seq: 31, replyTo: 29, body: .serviceResult(ServiceResult(ok: true))),
]

@Test(arguments: everyFrame)
func everyMessageRoundTripsThroughProtobufC(frame: Frame) throws {
    let bytes = FrameEncoder.encode(frame)
    let decoded = try FrameParser.parse(bytes)
    #expect(decoded == frame)
}

@Test func framesJoinedInOneBufferDecodeInOrder() throws {
    var stream: [UInt8] = []
    for f in everyFrame { FrameEncoder.encode(f, appendingTo: &stream) }
    var decoder = FrameDecoder()
    var decoded: [Frame] = []
    try decoder.feed(stream) { decoded.append(try FrameParser.parse($0)) }
    #expect(decoded == everyFrame)
}

@Test func garbageIsATypedMalformedError() {
    // A field header announcing a length-delimited field longer than the buffer.
    #expect(throws: WireError.malformed(length: 3)) { try FrameParser.parse([0x52, 0x7F, 0x01]) }
}

@Test func frameWithoutBodyIsMissingField() {
    // seq = 1 only.
    #expect(throws: WireError.missingField("body")) { try FrameParser.parse([0x08, 0x01]) }
}

@Test func undefinedEnumValueIsRejected() {
    // share_result (field 13) { status (1) = 9 }
    #expect(throws: WireError.badEnum(field: "share_result.status", value: 9)) {
        try FrameParser.parse([0x6A, 0x02, 0x08, 0x09])
    }
}

@Test func shareRequestWithoutItemIsMissingField() {
    // share_request (field 12) { destination (1) = "n" }
    #expect(throws: WireError.missingField("share_request.item")) {
        try FrameParser.parse([0x62, 0x03, 0x0A, 0x01, 0x6E])
    }
}

@Test func itemWithoutPayloadIsMissingField() {
    // share_request { destination "n", item (2) { id (1) "i" } }
    #expect(throws: WireError.missingField("share_request.item.payload")) {
        try FrameParser.parse([0x62, 0x08, 0x0A, 0x01, 0x6E, 0x12, 0x03, 0x0A, 0x01, 0x69])
    }
}

@Test func unknownReasonCodeInAResultIsRejected() {
    let bytes = FrameEncoder.encode(Frame(seq: 1, body: .shareResult(.blocked(.badRequest, "x"))))
    // Corrupt the reason string "bad-request" into "bad-reqXest".
    var corrupted = bytes
    if let i = corrupted.firstIndex(of: UInt8(ascii: "u")) { corrupted[i] = UInt8(ascii: "X") }
    #expect(throws: WireError.invalidField("share_result.reason", "unknown reason code \"bad-reqXest\"")) {
        try FrameParser.parse(corrupted)
    }
}

@Test func serviceRequestWithoutAnOperationIsMissingField() {
    // service_request (field 25) { data (3) = [1] }
    #expect(throws: WireError.missingField("service_request.op")) {
        try FrameParser.parse([0xCA, 0x01, 0x03, 0x1A, 0x01, 0x01])
    }
}
