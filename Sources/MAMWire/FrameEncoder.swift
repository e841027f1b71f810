internal import CMAMProto
internal import MAMModel
internal import CProtobufC
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Serialises frames with protobuf-c.
///
/// protobuf-c reads C strings and nested message pointers that must stay valid until `pack`
/// returns; `CArena` owns every such allocation for the duration of one encode.
public enum FrameEncoder {
    /// The serialized `mamsim.v1.Frame` without a length prefix.
    public static func encode(_ frame: Frame) -> [UInt8] {
        var out: [UInt8] = []
        encode(frame, appendingTo: &out, withLengthPrefix: false)
        return out
    }

    /// Appends `frame` to `buffer`, preceded by its 4-byte big-endian length when asked:
    /// several frames for one peer can be joined into a single write.
    public static func encode(_ frame: Frame, appendingTo buffer: inout [UInt8], withLengthPrefix: Bool = true) {
        let arena = CArena()
        defer { arena.freeAll() }
        var message = Mamsim__V1__Frame()
        mamsim__v1__frame__init(&message)
        message.seq = frame.seq
        message.reply_to = frame.replyTo
        fill(&message, body: frame.body, arena: arena)
        let size = withUnsafePointer(to: &message) { p in
            p.withMemoryRebound(to: ProtobufCMessage.self, capacity: 1) { protobuf_c_message_get_packed_size($0) }
        }
        if withLengthPrefix { appendFrameHeader(length: size, to: &buffer) }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: size))
        buffer.withUnsafeMutableBufferPointer { out in
            _ = withUnsafePointer(to: &message) { p in
                p.withMemoryRebound(to: ProtobufCMessage.self, capacity: 1) {
                    protobuf_c_message_pack($0, out.baseAddress! + start)
                }
            }
        }
    }

    private static func fill(_ m: inout Mamsim__V1__Frame, body: Frame.Body, arena: CArena) {
        switch body {
        case .hello(let h):
            let p = arena.message(Mamsim__V1__Hello.self, mamsim__v1__hello__init)
            p.pointee.protocol_version = h.protocolVersion
            p.pointee.pid = h.pid
            p.pointee.runtime = arena.string(h.runtime)
            m.body_case = MAMSIM__V1__FRAME__BODY_HELLO
            m.hello = p
        case .welcome(let w):
            let p = arena.message(Mamsim__V1__Welcome.self, mamsim__v1__welcome__init)
            p.pointee.bundle_id = arena.string(w.bundleID.rawValue)
            p.pointee.kind = switch w.kind {
            case .app: MAMSIM__V1__CHILD_KIND__CHILD_KIND_APP
            case .shareExtension: MAMSIM__V1__CHILD_KIND__CHILD_KIND_SHARE_EXTENSION
            case .actionExtension: MAMSIM__V1__CHILD_KIND__CHILD_KIND_ACTION_EXTENSION
            }
            p.pointee.app_handle = arena.string(w.appHandle)
            p.pointee.process_identity = arena.string(w.processIdentity)
            p.pointee.max_frame_size = w.maxFrameSize
            m.body_case = MAMSIM__V1__FRAME__BODY_WELCOME
            m.welcome = p
        case .shareRequest(let r):
            let p = arena.message(Mamsim__V1__ShareRequest.self, mamsim__v1__share_request__init)
            p.pointee.destination = arena.string(r.destination)
            p.pointee.item = item(r.item, arena)
            p.pointee.identity = arena.string(r.identity)
            p.pointee.receive_as = arena.string(r.receiveAs)
            m.body_case = MAMSIM__V1__FRAME__BODY_SHARE_REQUEST
            m.share_request = p
        case .shareResult(let outcome):
            let p = arena.message(Mamsim__V1__ShareResult.self, mamsim__v1__share_result__init)
            switch outcome {
            case .delivered:
                p.pointee.status = MAMSIM__V1__SHARE_STATUS__SHARE_STATUS_DELIVERED
            case .blocked(let reason, let why):
                p.pointee.status = MAMSIM__V1__SHARE_STATUS__SHARE_STATUS_BLOCKED
                p.pointee.reason = arena.string(reason.rawValue)
                p.pointee.explanation = arena.string(why)
            case .failed(let reason, let why):
                p.pointee.status = MAMSIM__V1__SHARE_STATUS__SHARE_STATUS_FAILED
                p.pointee.reason = arena.string(reason.rawValue)
                p.pointee.explanation = arena.string(why)
            }
            m.body_case = MAMSIM__V1__FRAME__BODY_SHARE_RESULT
            m.share_result = p
        case .deliver(let d):
            let p = arena.message(Mamsim__V1__Deliver.self, mamsim__v1__deliver__init)
            p.pointee.item = item(d.item, arena)
            p.pointee.sender_bundle_id = arena.string(d.senderBundleID.rawValue)
            p.pointee.received_as = arena.string(d.receivedAs)
            m.body_case = MAMSIM__V1__FRAME__BODY_DELIVER
            m.deliver = p
        case .deliverAck(let a):
            let p = arena.message(Mamsim__V1__DeliverAck.self, mamsim__v1__deliver_ack__init)
            p.pointee.item_id = arena.string(a.itemID)
            p.pointee.accepted = a.accepted ? 1 : 0
            m.body_case = MAMSIM__V1__FRAME__BODY_DELIVER_ACK
            m.deliver_ack = p
        case .setIdentity(let s):
            let p = arena.message(Mamsim__V1__SetIdentity.self, mamsim__v1__set_identity__init)
            p.pointee.scope = switch s.scope {
            case .process: MAMSIM__V1__SET_IDENTITY__SCOPE__SCOPE_PROCESS
            case .ui: MAMSIM__V1__SET_IDENTITY__SCOPE__SCOPE_UI
            }
            p.pointee.window = arena.string(s.window)
            p.pointee.account = arena.string(s.account)
            m.body_case = MAMSIM__V1__FRAME__BODY_SET_IDENTITY
            m.set_identity = p
        case .identityResult(let r):
            let p = arena.message(Mamsim__V1__IdentityResult.self, mamsim__v1__identity_result__init)
            p.pointee.status = switch r.status {
            case .success: MAMSIM__V1__IDENTITY_RESULT__STATUS__STATUS_SUCCESS
            case .canceled: MAMSIM__V1__IDENTITY_RESULT__STATUS__STATUS_CANCELED
            case .notAllowed: MAMSIM__V1__IDENTITY_RESULT__STATUS__STATUS_NOT_ALLOWED
            case .failed: MAMSIM__V1__IDENTITY_RESULT__STATUS__STATUS_FAILED
            }
            p.pointee.reason = arena.string(r.reason)
            p.pointee.explanation = arena.string(r.explanation)
            p.pointee.account = arena.string(r.account)
            m.body_case = MAMSIM__V1__FRAME__BODY_IDENTITY_RESULT
            m.identity_result = p
        case .getIdentity(let window):
            let p = arena.message(Mamsim__V1__GetIdentity.self, mamsim__v1__get_identity__init)
            p.pointee.window = arena.string(window)
            m.body_case = MAMSIM__V1__FRAME__BODY_GET_IDENTITY
            m.get_identity = p
        case .identityInfo(let i):
            let p = arena.message(Mamsim__V1__IdentityInfo.self, mamsim__v1__identity_info__init)
            p.pointee.process_identity = arena.string(i.processIdentity)
            p.pointee.ui_identity = arena.string(i.uiIdentity)
            p.pointee.n_signed_in = i.signedIn.count
            p.pointee.signed_in = arena.stringArray(i.signedIn)
            m.body_case = MAMSIM__V1__FRAME__BODY_IDENTITY_INFO
            m.identity_info = p
        case .command(let c):
            let p = arena.message(Mamsim__V1__Command.self, mamsim__v1__command__init)
            p.pointee.verb = arena.string(c.verb)
            (p.pointee.n_args, p.pointee.args) = arena.map(c.args, mamsim__v1__command__args_entry__init) {
                $0.pointee.key = $1
                $0.pointee.value = $2
            }
            if let it = c.item { p.pointee.item = item(it, arena) }
            m.body_case = MAMSIM__V1__FRAME__BODY_COMMAND
            m.command = p
        case .commandResult(let r):
            let p = arena.message(Mamsim__V1__CommandResult.self, mamsim__v1__command_result__init)
            p.pointee.ok = r.ok ? 1 : 0
            p.pointee.outcome = arena.string(r.outcome)
            p.pointee.reason = arena.string(r.reason)
            p.pointee.explanation = arena.string(r.explanation)
            (p.pointee.n_values, p.pointee.values) = arena.map(r.values, mamsim__v1__command_result__values_entry__init) {
                $0.pointee.key = $1
                $0.pointee.value = $2
            }
            p.pointee.data = arena.bytes(r.data)
            m.body_case = MAMSIM__V1__FRAME__BODY_COMMAND_RESULT
            m.command_result = p
        case .error(let code, let message):
            let p = arena.message(Mamsim__V1__Error.self, mamsim__v1__error__init)
            p.pointee.code = arena.string(code)
            p.pointee.message = arena.string(message)
            m.body_case = MAMSIM__V1__FRAME__BODY_ERROR
            m.error = p
        case .bye(let reason):
            let p = arena.message(Mamsim__V1__Bye.self, mamsim__v1__bye__init)
            p.pointee.reason = arena.string(reason)
            m.body_case = MAMSIM__V1__FRAME__BODY_BYE
            m.bye = p
        case .ping(let bytes):
            let p = arena.message(Mamsim__V1__Ping.self, mamsim__v1__ping__init)
            p.pointee.payload = arena.bytes(bytes)
            m.body_case = MAMSIM__V1__FRAME__BODY_PING
            m.ping = p
        case .serviceRequest(let r):
            let p = arena.message(Mamsim__V1__ServiceRequest.self, mamsim__v1__service_request__init)
            p.pointee.op = arena.string(r.op)
            (p.pointee.n_args, p.pointee.args) = arena.map(r.args, mamsim__v1__service_request__args_entry__init) {
                $0.pointee.key = $1
                $0.pointee.value = $2
            }
            p.pointee.data = arena.bytes(r.data)
            m.body_case = MAMSIM__V1__FRAME__BODY_SERVICE_REQUEST
            m.service_request = p
        case .serviceResult(let r):
            let p = arena.message(Mamsim__V1__ServiceResult.self, mamsim__v1__service_result__init)
            p.pointee.ok = r.ok ? 1 : 0
            p.pointee.reason = arena.string(r.reason)
            p.pointee.explanation = arena.string(r.explanation)
            (p.pointee.n_values, p.pointee.values) = arena.map(r.values, mamsim__v1__service_result__values_entry__init) {
                $0.pointee.key = $1
                $0.pointee.value = $2
            }
            p.pointee.data = arena.bytes(r.data)
            p.pointee.status = r.status
            m.body_case = MAMSIM__V1__FRAME__BODY_SERVICE_RESULT
            m.service_result = p
        }
    }

    private static func item(_ it: Item, _ arena: CArena) -> UnsafeMutablePointer<Mamsim__V1__Item> {
        let p = arena.message(Mamsim__V1__Item.self, mamsim__v1__item__init)
        p.pointee.id = arena.string(it.id)
        p.pointee.n_type_identifiers = it.typeIdentifiers.count
        p.pointee.type_identifiers = arena.stringArray(it.typeIdentifiers)
        p.pointee.file_name = arena.string(it.fileName)
        switch it.payload {
        case .inline(let bytes):
            p.pointee.payload_case = MAMSIM__V1__ITEM__PAYLOAD_INLINE_DATA
            p.pointee.inline_data = arena.bytes(bytes)
        case .file(let path):
            p.pointee.payload_case = MAMSIM__V1__ITEM__PAYLOAD_FILE_PATH
            p.pointee.file_path = arena.string(path)
        }
        if let o = it.ownership {
            let op = arena.message(Mamsim__V1__Ownership.self, mamsim__v1__ownership__init)
            op.pointee.upn = arena.string(o.upn)
            op.pointee.oid = arena.string(o.oid)
            op.pointee.tenant = arena.string(o.tenant)
            op.pointee.managed = o.managed ? 1 : 0
            op.pointee.source_bundle_id = arena.string(o.sourceBundle.rawValue)
            p.pointee.ownership = op
        }
        return p
    }
}

/// Every C allocation made while building one message, freed together after `pack`.
final class CArena {
    /// One block serves the whole message in the common case: a frame's strings, messages and
    /// a small payload fit, so an encode costs one allocation instead of one per field.
    /// Anything that does not fit gets an allocation of its own.
    private static let blockSize = 4096
    private var block: UnsafeMutableRawPointer?
    private var used = 0
    private var overflow: [UnsafeMutableRawPointer] = []

    init() {}

    /// `count` bytes aligned for any C type, valid until `freeAll`.
    private func allocate(_ count: Int) -> UnsafeMutableRawPointer {
        let start = (used + 15) & ~15
        if count <= Self.blockSize - start {
            if block == nil { block = malloc(Self.blockSize)! }
            used = start + count
            return block! + start
        }
        let p = malloc(max(count, 1))!
        overflow.append(p)
        return p
    }

    func string(_ s: String) -> UnsafeMutablePointer<CChar> {
        var s = s
        return s.withUTF8 { utf8 in
            let p = allocate(utf8.count + 1).assumingMemoryBound(to: CChar.self)
            if let base = utf8.baseAddress {
                UnsafeMutableRawPointer(p).copyMemory(from: base, byteCount: utf8.count)
            }
            p[utf8.count] = 0
            return p
        }
    }

    func bytes(_ b: [UInt8]) -> ProtobufCBinaryData {
        guard !b.isEmpty else { return ProtobufCBinaryData(len: 0, data: nil) }
        let p = allocate(b.count).assumingMemoryBound(to: UInt8.self)
        b.withUnsafeBufferPointer { p.update(from: $0.baseAddress!, count: b.count) }
        return ProtobufCBinaryData(len: b.count, data: p)
    }

    func message<T>(_: T.Type, _ initialise: (UnsafeMutablePointer<T>?) -> Void) -> UnsafeMutablePointer<T> {
        let p = allocate(MemoryLayout<T>.stride).bindMemory(to: T.self, capacity: 1)
        initialise(p)
        return p
    }

    func pointerArray<T>(_: T.Type, count: Int) -> UnsafeMutablePointer<UnsafeMutablePointer<T>?>? {
        guard count > 0 else { return nil }
        return allocate(MemoryLayout<UnsafeMutablePointer<T>?>.stride * count)
            .bindMemory(to: UnsafeMutablePointer<T>?.self, capacity: count)
    }

    /// A protobuf map as its entry messages, sorted by key so equal maps encode to equal bytes.
    func map<E>(
        _ dict: [String: String], _ initialise: (UnsafeMutablePointer<E>?) -> Void,
        _ fill: (UnsafeMutablePointer<E>, UnsafeMutablePointer<CChar>, UnsafeMutablePointer<CChar>) -> Void
    ) -> (Int, UnsafeMutablePointer<UnsafeMutablePointer<E>?>?) {
        let entries = dict.sorted { $0.key < $1.key }
        let list = pointerArray(E.self, count: entries.count)
        for (i, (k, v)) in entries.enumerated() {
            let e = message(E.self, initialise)
            fill(e, string(k), string(v))
            list?[i] = e
        }
        return (entries.count, list)
    }

    func stringArray(_ strings: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        guard let list = pointerArray(CChar.self, count: strings.count) else { return nil }
        for (i, s) in strings.enumerated() { list[i] = string(s) }
        return list
    }

    func freeAll() {
        free(block)
        block = nil
        used = 0
        for p in overflow { free(p) }
        overflow.removeAll()
    }
}
