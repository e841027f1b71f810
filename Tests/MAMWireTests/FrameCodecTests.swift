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

/// One frame of every body kind, every command, service and value case, with non-default
/// values in every field.
let everyFrame: [Frame] = {
    let bodies: [Frame.Body] = [
        .hello(Hello(pid: 4242, runtime: "mamsim-app/2")),
        .hello(Hello(pid: 4243, runtime: "ExampleLandmarksApp/1", finishesLaunching: true)),
        .launchFinished,
        .hello(Hello(pid: 4244, runtime: "mamsim-app/2", batches: true)),
        .welcome(Welcome(bundleID: "com.contoso.Mail", kind: .app, appHandle: "mail", processIdentity: "", maxFrameSize: 9, batches: true)),
        .shareBatch([
            BatchedShare(seq: 7, request: ShareRequest(destination: "word", item: textItem, identity: "alice@contoso.com")),
            BatchedShare(seq: 8, request: ShareRequest(destination: "notes", item: fileItem, identity: "", receiveAs: "bob@contoso.com")),
        ]),
        .shareResults(ShareResults(first: 7, last: 12, exceptions: [
            ShareException(seq: 8, outcome: .blocked(.outboundPolicy, "managed to unmanaged")),
            ShareException(seq: 11, outcome: .failed(.timeout, "late")),
        ])),
        .shareResults(ShareResults(first: 3, last: 3)),
        .deliverBatch([
            BatchedDelivery(seq: 4, deliver: Deliver(item: textItem, senderBundleID: "com.contoso.Mail", receivedAs: "alice@contoso.com")),
            BatchedDelivery(seq: 5, deliver: Deliver(item: emptyItem, senderBundleID: "com.example.notes", receivedAs: "")),
        ]),
        .deliverAcks(DeliverAcks(first: 4, last: 9, declined: [5, 9])),
        .deliverAcks(DeliverAcks(first: 1, last: 1)),
        .welcome(Welcome(
            bundleID: "com.contoso.Mail", kind: .app, appHandle: "mail", processIdentity: "alice@contoso.com",
            maxFrameSize: 1 << 20)),
        .welcome(Welcome(bundleID: "com.contoso.word.openin", kind: .actionExtension, appHandle: "x", processIdentity: "", maxFrameSize: 7)),
        .welcome(Welcome(bundleID: "com.contoso.share", kind: .shareExtension, appHandle: "s", processIdentity: "", maxFrameSize: 7)),
        .bye(reason: "teardown"),
        .ping(Array(0...255)),
        .ping([]),
        .error(code: .badRequest, message: "out of order"),
        .shareRequest(ShareRequest(destination: "notes", item: textItem, identity: "alice@contoso.com", receiveAs: "bob@outlook.com")),
        .shareRequest(ShareRequest(destination: "word", item: fileItem, identity: "")),
        .shareResult(.delivered),
        .shareResult(.blocked(.outboundPolicy, "alice's policy says no")),
        .shareResult(.failed(.appNotRunning, "com.example.notes exited")),
        .deliver(Deliver(item: textItem, senderBundleID: "com.contoso.Mail", receivedAs: "alice@contoso.com")),
        .deliver(Deliver(item: emptyItem, senderBundleID: "a", receivedAs: "")),
        .deliverAck(DeliverAck(itemID: "item-1", accepted: true)),
        .setIdentity(SetIdentity(scope: .ui, window: "main", account: "alice@contoso.com")),
        .setIdentity(SetIdentity(scope: .process, account: "")),
        .identityResult(IdentityResult(status: .success, account: "alice@contoso.com")),
        .identityResult(IdentityResult(status: .canceled)),
        .identityResult(IdentityResult(status: .notAllowed, reason: .identitySwitchNotAllowed)),
        .identityResult(IdentityResult(status: .failed, reason: .conditionalLaunch, explanation: "PIN")),
        .getIdentity(window: "main"),
        .identityInfo(IdentityInfo(processIdentity: "a", uiIdentity: "b", signedIn: ["a", "b", "c"])),
        .command(.share(ShareRequest(destination: "notes", item: fileItem, identity: "x", receiveAs: "y"))),
        .command(.setIdentity(SetIdentity(scope: .ui, window: "w", account: "alice@contoso.com"))),
        .command(.addIdentity(account: "alice@contoso.com")),
        .command(.wipeAccountData(account: "bob@outlook.com")),
        .command(.allowedAccountsChanged(allowed: ["alice@contoso.com", "e1"])),
        .command(.allowedAccountsChanged(allowed: [])),
        .command(.allowedAccountsChanged(allowed: nil)),
        .command(.notification(SDKNotification(kind: .policyChanged, account: "alice@contoso.com", detail: "assigned"))),
        .command(.notification(SDKNotification(kind: .complianceStatus, account: "", detail: "compliant"))),
        .command(.identitySwitchRequired(account: "", reason: "policy", cause: IdentitySwitchCause.openURL)),
        .command(.flood(Flood(destination: "b", count: 100_000, size: 1024, window: 512, identity: "alice@contoso.com"))),
        .command(.listReceived),
        .command(.exit(status: -3)),
        .commandResult(.share(.blocked(.inboundPolicy, "why"))),
        .commandResult(.share(.delivered)),
        .commandResult(.setIdentity(IdentityResult(status: .notAllowed, reason: .notSignedIn, explanation: "e", account: "a"))),
        .commandResult(.addIdentity(added: true)),
        .commandResult(.wipeAccountData(wiped: true)),
        .commandResult(.acknowledged),
        .commandResult(.notified(restartsItself: false)), .commandResult(.notified(restartsItself: true)),
        .commandResult(.identitySwitchRequired(accepted: true)),
        .commandResult(.flood(delivered: 99_999, firstProblem: .failed(.timeout, "late"))),
        .commandResult(.flood(delivered: 7, firstProblem: nil)),
        .commandResult(.received([ReceivedEntry(itemID: "i1", owner: "alice@contoso.com"), ReceivedEntry(itemID: "i2", owner: "")])),
        .commandResult(.received([])),
        .commandResult(.error(.badRequest, "unknown")),
        .serviceRequest(.writeFile(path: "Documents/q3.txt", data: Array("Q3".utf8), owner: "")),
        .serviceRequest(.writeFile(path: "group:g/x", data: [], owner: nil)),
        .serviceRequest(.readFile(path: "Inbox/a")),
        .serviceRequest(.policyQuery(.contactSync, as: "alice@contoso.com", accounts: [])),
        .serviceRequest(.policyQuery(.widgets, as: nil, accounts: ["alice@contoso.com", ""])),
        .serviceRequest(.policyQuery(.fileProviderEncryption, as: nil, accounts: []), ServiceContext(window: "w2")),
        .serviceRequest(.fileOwner(path: "Inbox/a")),
        .serviceRequest(.protect(data: [1, 2], owner: "alice@contoso.com")),
        .serviceRequest(.protect(data: [1, 2], owner: nil)),
        .serviceRequest(.unprotect(data: [3])),
        .serviceRequest(.protectionInfo(data: [4])),
        .serviceRequest(.keychainSet(group: "G.shared", key: "k", value: [5])),
        .serviceRequest(.keychainGet(group: "", key: "k")),
        .serviceRequest(.copy(text: "Q3 numbers")),
        .serviceRequest(.copy(text: "Q3 numbers"), ServiceContext(window: "inbox", thread: "alice@contoso.com")),
        .serviceRequest(.print, ServiceContext(window: "", thread: "")),
        .serviceRequest(.appConfig(account: nil)),
        .serviceRequest(.managedConfig(legacy: false)), .serviceRequest(.managedConfig(legacy: true)),
        .serviceRequest(.managedConfigUndecodable("expected Dictionary at managedCollection")),
        .serviceRequest(.managedSecret(kind: .identity, id: "assets-client")),
        .serviceRequest(.managedSecretIds(kind: .password)),
        .serviceRequest(.signWithIdentity(id: "device", data: [1, 2, 3])),
        .serviceRequest(.acquireToken(account: "alice@contoso.com", resource: "Office365", silent: true)),
        .serviceRequest(.remediateCompliance(account: "oid-1", silent: false)),
        .serviceRequest(.appConfig(account: "alice@contoso.com")),
        .serviceRequest(.screenCapture, ServiceContext(window: "side")),
        .serviceRequest(.paste(as: nil)),
        .serviceRequest(.paste(as: "")),
        .serviceRequest(.paste(as: "bob@outlook.com")),
        .serviceRequest(.print),
        .serviceRequest(.notify(account: "alice@contoso.com", text: "hi")),
        .serviceRequest(.shareTargets(types: ["public.plain-text", "public.data"])),
    ] + SaveLocation.allCases.map { .serviceRequest(.canSave($0, account: "alice@contoso.com")) }
      + OpenLocation.allCases.map { .serviceRequest(.canOpen($0, account: "", as: $0 == .camera ? nil : "alice@contoso.com")) }
      + [
        .serviceResult(ServiceResult(.allowed("wrote"), .file(owner: "alice@contoso.com", encrypted: true))),
        .serviceResult(ServiceResult(.allowed("2 policies"), .appConfig([["serverUrl": "https://a", "x": ""], ["__IsDefault": "true"]]))),
        .serviceResult(ServiceResult(.allowed("none"), .appConfig([]))),
        .serviceResult(ServiceResult(.allowed("pw"), .managedSecret(.password(userName: "u", password: "p")))),
        .serviceResult(ServiceResult(.allowed("cert"), .managedSecret(.certificate([0x30, 0x82])))),
        .serviceResult(ServiceResult(.allowed("id"), .managedSecret(.identity(certificate: [0x30])))),
        .serviceResult(ServiceResult(.allowed("ids"), .strings(["a", "b"]))),
        .serviceResult(ServiceResult(.blocked(.protectionPolicyRequired, "remediate"), .token(jwt: "", homeAccountID: "oid.tid"))),
        .serviceResult(ServiceResult(.blocked(.keychainEntitlement, "not entitled"), .keychain(status: .missingEntitlement, group: "x", value: []))),
        .serviceResult(ServiceResult(.allowed("found"), .keychain(status: .success, group: "x", value: [9]))),
        .serviceResult(ServiceResult(.allowed(""), .keychain(status: .itemNotFound, group: "", value: []))),
        .serviceResult(ServiceResult(.allowed("read"), .data([0, 1, 2]))),
        .serviceResult(ServiceResult(.allowed("p"), .protection(ProtectionSummary(owner: "alice@contoso.com", encrypted: true)))),
        .serviceResult(ServiceResult(.allowed("p"), .protection(nil))),
        .serviceResult(ServiceResult(.blocked(.clipboardPolicy, "no"), .paste(text: "placeholder"))),
        .serviceResult(ServiceResult(.allowed("shown"), .notification(shown: "New message"))),
        .serviceResult(ServiceResult(.allowed(""), .shareTargets(["notes", "word"]))),
        .serviceResult(ServiceResult(.failed(.internalError, "disk full"))),
      ]
      + Reason.allCases.map { .error(code: $0, message: "\($0)") }
    return bodies.enumerated().map { Frame(seq: UInt64($0.offset + 1), replyTo: UInt64($0.offset), body: $0.element) }
        + [Frame(seq: UInt64.max, replyTo: UInt64.max - 1, body: .ping([7]))]
}()

@Test(arguments: everyFrame)
func everyMessageRoundTripsThroughProtobufC(frame: Frame) throws {
    let bytes = FrameEncoder.encode(frame)
    let decoded = try FrameParser.parse(bytes)
    #expect(decoded == frame)
}

/// The generated codec switches over every case of the hand-declared enums (a case without a
/// wire number does not compile); this checks each number comes back as its own case.
@Test func everyCaseOfTheDeclaredEnumsRoundTrips() throws {
    var bodies: [Frame.Body] = []
    bodies += SaveLocation.allCases.map { .serviceRequest(.canSave($0, account: "a")) }
    bodies += OpenLocation.allCases.map { .serviceRequest(.canOpen($0, account: "a", as: nil)) }
    bodies += ManagedSecretKind.allCases.map { .serviceRequest(.managedSecretIds(kind: $0)) }
    bodies += SDKNotification.Kind.allCases.map { .command(.notification(SDKNotification(kind: $0))) }
    bodies += KeychainStatus.allCases.map { .serviceResult(ServiceResult(.allowed(""), .keychain(status: $0, group: "g", value: []))) }
    bodies += ChildKind.allCases.map { .welcome(Welcome(bundleID: "com.contoso.Mail", kind: $0)) }
    for body in bodies {
        let frame = Frame(seq: 1, body: body)
        #expect(try FrameParser.parse(FrameEncoder.encode(frame)) == frame)
    }
}

/// Bodies only the host sends are refused by a child's decoder when a child sends them, and the
/// other way round, naming the body; a ping, a bye or an error reads on either side.
@Test func aBodyFromTheWrongSideIsRefusedByTheDecoder() throws {
    func asChild(_ bytes: [UInt8]) throws(WireError) -> ChildFrame {
        var frame = ChildFrame(body: .launchFinished)
        try bytes.withUnsafeBytes { b in Result { () throws(WireError) in try FrameParser.parse(b, into: &frame) } }.get()
        return frame
    }
    func asHost(_ bytes: [UInt8]) throws(WireError) -> HostFrame {
        var frame = HostFrame(body: .bye(reason: ""))
        try bytes.withUnsafeBytes { b in Result { () throws(WireError) in try FrameParser.parse(b, into: &frame) } }.get()
        return frame
    }
    let welcome = FrameEncoder.encode(Frame(seq: 1, body: .welcome(Welcome(bundleID: "com.contoso.Mail", kind: .app))))
    #expect(throws: WireError.wrongSender(body: "welcome", only: .host)) { try asChild(welcome) }
    #expect(try asHost(welcome).frame.body.sender == .host)
    let hello = FrameEncoder.encode(Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "t"))))
    #expect(throws: WireError.wrongSender(body: "hello", only: .child)) { try asHost(hello) }
    let ping = FrameEncoder.encode(Frame(seq: 1, body: .ping([1])))
    #expect(try asChild(ping).frame == asHost(ping).frame)
    #expect(WireError.wrongSender(body: "welcome", only: .host).description == "sent welcome, which only the host may send")
}

@Test func aRangeThatEndsBeforeItStartsIsRefused() {
    let results = FrameEncoder.encode(Frame(seq: 1, body: .shareResults(ShareResults(first: 9, last: 3))))
    #expect(throws: WireError.invalidField("share_results.first", "first <= last does not hold")) { try FrameParser.parse(results) }
    let acks = FrameEncoder.encode(Frame(seq: 1, body: .deliverAcks(DeliverAcks(first: 9, last: 3))))
    #expect(throws: WireError.invalidField("deliver_acks.first", "first <= last does not hold")) { try FrameParser.parse(acks) }
}

/// Each service call is one Swift type, answered by the type its `.proto` line names
/// (`answers=`): the request carries the call itself, and the answer is read back typed (a value
/// of another call's type reads as none). A command's answer is its twin (or an error).
@Test func eachCallKnowsItsAnswer() {
    let write = Service.WriteFile(path: "Documents/a", data: [], owner: nil)
    #expect(write.request == .writeFile(path: "Documents/a", data: [], owner: nil))
    #expect(Service.WriteFile.answer(from: .file(owner: "o", encrypted: true)).map { [$0.owner, "\($0.encrypted)"] } == ["o", "true"])
    #expect(Service.WriteFile.answer(from: .data([1])) == nil)
    #expect(Service.Print.answer(from: .none) != nil && Service.Print().request == .print)
    #expect(Service.AcquireToken.answer(from: .token(jwt: "j", homeAccountID: "h"))?.jwt == "j")
    #expect(Service.AcquireToken.answer(from: .strings([])) == nil)
    if case .readFile(let call) = ServiceRequest.readFile(path: "Inbox/a") { #expect(call == Service.ReadFile(path: "Inbox/a")) } else { Issue.record("not a read") }
    #expect(CommandResult.notified(restartsItself: false).answers(.notification(SDKNotification(kind: .policyChanged))))
    #expect(!CommandResult.notified(restartsItself: false).answers(.listReceived))
    #expect(CommandResult.error(.badRequest, "no").answers(.listReceived))
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
    // share_result (field 21) { verdict (1) { status (1) = 9 } }
    #expect(throws: WireError.badEnum(field: "share_result.verdict.status", value: 9)) {
        try FrameParser.parse([0xAA, 0x01, 0x04, 0x0A, 0x02, 0x08, 0x09])
    }
}

@Test func undefinedReasonCodeIsRejected() {
    // share_result { verdict { status = BLOCKED (2), reason = 99 } }
    #expect(throws: WireError.badEnum(field: "share_result.verdict.reason", value: 99)) {
        try FrameParser.parse([0xAA, 0x01, 0x06, 0x0A, 0x04, 0x08, 0x02, 0x10, 0x63])
    }
}

@Test func shareResultWithoutVerdictIsMissingField() {
    #expect(throws: WireError.missingField("share_result.verdict")) { try FrameParser.parse([0xAA, 0x01, 0x00]) }
}

@Test func shareRequestWithoutItemIsMissingField() {
    // share_request (field 20) { destination (1) = "n" }
    #expect(throws: WireError.missingField("share_request.item")) {
        try FrameParser.parse([0xA2, 0x01, 0x03, 0x0A, 0x01, 0x6E])
    }
}

@Test func itemWithoutPayloadIsMissingField() {
    // share_request { destination "n", item (2) { id (1) "i" } }
    #expect(throws: WireError.missingField("share_request.item.payload")) {
        try FrameParser.parse([0xA2, 0x01, 0x08, 0x0A, 0x01, 0x6E, 0x12, 0x03, 0x0A, 0x01, 0x69])
    }
}

@Test func serviceRequestWithoutACallIsMissingField() {
    // service_request (field 50) {}
    #expect(throws: WireError.missingField("service_request.call")) { try FrameParser.parse([0x92, 0x03, 0x00]) }
}

@Test func commandWithoutAKindIsMissingField() {
    // command (field 40) {}
    #expect(throws: WireError.missingField("command.kind")) { try FrameParser.parse([0xC2, 0x02, 0x00]) }
}

@Test func undefinedLocationIsRejected() {
    // service_request { can_save (11) { location (1) = 40 } }
    #expect(throws: WireError.badEnum(field: "service_request.can_save.location", value: 40)) {
        try FrameParser.parse([0x92, 0x03, 0x04, 0x5A, 0x02, 0x08, 0x28])
    }
}

@Test func everyCommandIsAnsweredByItsOwnResultCase() {
    let pairs: [(Command, CommandResult)] = [
        (.share(ShareRequest(destination: "b", item: emptyItem, identity: "")), .share(.delivered)),
        (.setIdentity(SetIdentity(scope: .process, account: "")), .setIdentity(IdentityResult(status: .success))),
        (.addIdentity(account: "a"), .addIdentity(added: false)),
        (.wipeAccountData(account: "a"), .wipeAccountData(wiped: false)),
        (.allowedAccountsChanged(allowed: nil), .acknowledged),
        (.notification(SDKNotification(kind: .restartApplication)), .notified(restartsItself: false)),
        (.identitySwitchRequired(account: "", reason: "", cause: IdentitySwitchCause.documentImport), .identitySwitchRequired(accepted: false)),
        (.flood(Flood(destination: "b", count: 1)), .flood(delivered: 1, firstProblem: nil)),
        (.listReceived, .received([])),
    ]
    for (i, (command, result)) in pairs.enumerated() {
        #expect(result.answers(command))
        #expect(CommandResult.error(.badRequest, "no").answers(command))
        let other = pairs[(i + 1) % pairs.count].1
        #expect(!other.answers(command), "\(other.name) must not answer \(command.name)")
    }
}

@Test func aFrameRepeatingAFieldMillionsOfTimesIsRefusedBeforeItIsUnpacked() throws {
    let many = Item(id: "x", typeIdentifiers: Array(repeating: "", count: 100_000), payload: .inline([]))
    let bytes = FrameEncoder.encode(Frame(seq: 1, body: .shareRequest(ShareRequest(destination: "b", item: many, identity: ""))))
    #expect(throws: WireError.tooManyElements(maximum: 65_536)) { try FrameParser.parse(bytes) }
    // Large payloads are one field each, whatever their bytes look like: 4 MiB of what reads
    // as repeated tags inside a bytes field is not counted.
    let tags = [UInt8](repeating: 0x12, count: 4 << 20)
    let big = Item(id: "y", typeIdentifiers: ["public.data"], payload: .inline(tags))
    let frame = Frame(seq: 2, body: .deliver(Deliver(item: big, senderBundleID: "a", receivedAs: "")))
    #expect(try FrameParser.parse(FrameEncoder.encode(frame)) == frame)
    // Up to the budget, a list is fine.
    let fine = Item(id: "z", typeIdentifiers: Array(repeating: "t", count: 60_000), payload: .inline([]))
    let ok = Frame(seq: 3, body: .shareRequest(ShareRequest(destination: "b", item: fine, identity: "")))
    #expect(try FrameParser.parse(FrameEncoder.encode(ok)) == ok)
}

/// Frames whose unpacked fields outgrow the parse arena (a payload past its 64 KiB, thousands
/// of strings) take the rest from malloc and come out the same, parsed from an array or in place.
@Test(arguments: [
    Item(id: "big", typeIdentifiers: ["public.data"], payload: .inline((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })),
    Item(id: "many", typeIdentifiers: (0..<5000).map { "com.contoso.type-\($0)" }, payload: .inline([1, 2, 3])),
    Item(id: "edge", typeIdentifiers: ["public.data"], payload: .inline([UInt8](repeating: 9, count: 64 << 10))),
])
func framesLargerThanTheParseArenaRoundTrip(item: Item) throws {
    let frame = Frame(seq: 9, body: .shareRequest(ShareRequest(destination: "app1", item: item, identity: "alice@contoso.com")))
    let bytes = FrameEncoder.encode(frame)
    #expect(try FrameParser.parse(bytes) == frame)
    #expect(try bytes.withUnsafeBytes { try FrameParser.parse($0) } == frame)
}

/// Parsing into a frame the caller holds replaces everything it held: its seq, its reply
/// number and its body, whichever decoder reads the bytes (every kind of frame, read into one
/// frame after another, in place and from a buffer of their own), and equals parsing afresh.
@Test func parsingIntoAFrameReplacesWhatItHeld() throws {
    var held = Frame(seq: 99, replyTo: 98, body: .ping([9, 9, 9]))
    var inPlace = Frame(seq: 97, replyTo: 96, body: .shareBatch([]))
    for frame in everyFrame + [Frame(seq: 5, body: .ping([1, 2])), Frame(seq: 6, body: .launchFinished)] {
        let bytes = FrameEncoder.encode(frame)
        try bytes.withUnsafeBytes { try FrameParser.parse($0, into: &held) }
        #expect(held == frame, "\(frame.body.name)")
        try FrameParser.parse(ReceivedBytes(copying: bytes, offset: 0), into: &inPlace)
        #expect(inPlace == frame, "\(frame.body.name), in place")
    }
    // A frame that is not one throws, as parsing afresh does.
    #expect(throws: WireError.self) { try [UInt8]([0xFF, 0xFF]).withUnsafeBytes { try FrameParser.parse($0, into: &held) } }
}

/// A frame written from its parts is the frame written whole, byte for byte, for every kind
/// (those `HotFrames` writes and those left to protobuf-c).
@Test func aFrameWrittenFromItsPartsIsTheFrameWrittenWhole() {
    for frame in everyFrame + [Frame(seq: 5, replyTo: 3, body: .ping([1, 2])), Frame(seq: 6, body: .ping([]))] {
        var whole: [UInt8] = [], parts: [UInt8] = []
        FrameEncoder.encode(frame, appendingTo: &whole)
        FrameEncoder.encode(seq: frame.seq, replyTo: frame.replyTo, body: frame.body, appendingTo: &parts)
        #expect(parts == whole, "\(frame.body.name)")
    }
}

/// A NUL byte inside a name (security issue 83): protobuf-c keeps strings as C strings, so a
/// destination `notes\0word` was read as `notes`. The control, `notesXword`, reads whole; with
/// the NUL, both the one-pass reading and protobuf-c's refuse the frame, naming the field.
@Test func aNameWithANulByteIsRefused() throws {
    let frame = Frame(seq: 1, body: .shareRequest(ShareRequest(destination: "notesXword", item: textItem)))
    var bytes = FrameEncoder.encode(frame)
    #expect(try FrameParser.parse(bytes) == frame)
    let at = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("notesXword".utf8)) })
    bytes[at + 5] = 0
    func asHost() throws(WireError) -> ChildFrame {
        var read = ChildFrame(body: .launchFinished)
        try bytes.withUnsafeBytes { b in Result { () throws(WireError) in try FrameParser.parse(b, into: &read) } }.get()
        return read
    }
    #expect { try asHost() } throws: { "\($0)".contains("destination") && "\($0)".contains("NUL") }
    #expect { try bytes.withUnsafeBytes { try FrameParser.parseWithProtobufC($0) } } throws: { "\($0)".contains("NUL") }
}
