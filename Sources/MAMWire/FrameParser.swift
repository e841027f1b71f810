internal import CMAMProto
internal import CProtobufC
internal import MAMModel

/// Turns the payload of one frame into a `Frame`, or a typed `WireError`.
///
/// protobuf-c's `unpack` mallocs every string and bytes field; everything is copied into Swift
/// values and the C message is freed before this function returns, so no C memory outlives it.
public enum FrameParser {
    public static func parse(_ payload: [UInt8]) throws(WireError) -> Frame {
        let message: UnsafeMutablePointer<Mamsim__V1__Frame>? = payload.withUnsafeBufferPointer {
            mamsim__v1__frame__unpack(nil, $0.count, $0.baseAddress)
        }
        guard let message else { throw .malformed(length: payload.count) }
        defer { mamsim__v1__frame__free_unpacked(message, nil) }
        let m = message.pointee
        return Frame(seq: m.seq, replyTo: m.reply_to, body: try body(m))
    }

    private static func body(_ m: Mamsim__V1__Frame) throws(WireError) -> Frame.Body {
        switch m.body_case {
        case MAMSIM__V1__FRAME__BODY_HELLO:
            let h = m.hello.pointee
            return .hello(Hello(protocolVersion: h.protocol_version, pid: h.pid, runtime: str(h.runtime)))
        case MAMSIM__V1__FRAME__BODY_WELCOME:
            let w = m.welcome.pointee
            let kind: ChildKind
            switch w.kind {
            case MAMSIM__V1__CHILD_KIND__CHILD_KIND_APP: kind = .app
            case MAMSIM__V1__CHILD_KIND__CHILD_KIND_SHARE_EXTENSION: kind = .shareExtension
            case MAMSIM__V1__CHILD_KIND__CHILD_KIND_ACTION_EXTENSION: kind = .actionExtension
            default: throw .badEnum(field: "welcome.kind", value: Int32(bitPattern: w.kind.rawValue))
            }
            let bundle = str(w.bundle_id)
            guard !bundle.isEmpty else { throw .missingField("welcome.bundle_id") }
            return .welcome(Welcome(
                bundleID: BundleID(bundle), kind: kind, appHandle: str(w.app_handle),
                processIdentity: str(w.process_identity), maxFrameSize: w.max_frame_size))
        case MAMSIM__V1__FRAME__BODY_SHARE_REQUEST:
            let r = m.share_request.pointee
            let destination = str(r.destination)
            guard !destination.isEmpty else { throw .missingField("share_request.destination") }
            guard let it = r.item else { throw .missingField("share_request.item") }
            return .shareRequest(ShareRequest(
                destination: destination, item: try item(it.pointee, field: "share_request.item"),
                identity: str(r.identity), receiveAs: str(r.receive_as)))
        case MAMSIM__V1__FRAME__BODY_SHARE_RESULT:
            let r = m.share_result.pointee
            switch r.status {
            case MAMSIM__V1__SHARE_STATUS__SHARE_STATUS_DELIVERED:
                return .shareResult(.delivered)
            case MAMSIM__V1__SHARE_STATUS__SHARE_STATUS_BLOCKED, MAMSIM__V1__SHARE_STATUS__SHARE_STATUS_FAILED:
                let code = str(r.reason)
                guard let reason = Reason(rawValue: code) else {
                    throw .invalidField("share_result.reason", "unknown reason code \"\(code)\"")
                }
                let why = str(r.explanation)
                return .shareResult(r.status == MAMSIM__V1__SHARE_STATUS__SHARE_STATUS_BLOCKED
                    ? .blocked(reason, why) : .failed(reason, why))
            default:
                throw .badEnum(field: "share_result.status", value: Int32(bitPattern: r.status.rawValue))
            }
        case MAMSIM__V1__FRAME__BODY_DELIVER:
            let d = m.deliver.pointee
            guard let it = d.item else { throw .missingField("deliver.item") }
            return .deliver(Deliver(
                item: try item(it.pointee, field: "deliver.item"),
                senderBundleID: BundleID(str(d.sender_bundle_id)), receivedAs: str(d.received_as)))
        case MAMSIM__V1__FRAME__BODY_DELIVER_ACK:
            let a = m.deliver_ack.pointee
            let id = str(a.item_id)
            guard !id.isEmpty else { throw .missingField("deliver_ack.item_id") }
            return .deliverAck(DeliverAck(itemID: id, accepted: a.accepted != 0))
        case MAMSIM__V1__FRAME__BODY_SET_IDENTITY:
            let s = m.set_identity.pointee
            let scope: SetIdentity.Scope
            switch s.scope {
            case MAMSIM__V1__SET_IDENTITY__SCOPE__SCOPE_PROCESS: scope = .process
            case MAMSIM__V1__SET_IDENTITY__SCOPE__SCOPE_UI: scope = .ui
            default: throw .badEnum(field: "set_identity.scope", value: Int32(bitPattern: s.scope.rawValue))
            }
            return .setIdentity(SetIdentity(scope: scope, window: str(s.window), account: str(s.account)))
        case MAMSIM__V1__FRAME__BODY_IDENTITY_RESULT:
            let r = m.identity_result.pointee
            let status: IdentityResult.Status
            switch r.status {
            case MAMSIM__V1__IDENTITY_RESULT__STATUS__STATUS_SUCCESS: status = .success
            case MAMSIM__V1__IDENTITY_RESULT__STATUS__STATUS_CANCELED: status = .canceled
            case MAMSIM__V1__IDENTITY_RESULT__STATUS__STATUS_NOT_ALLOWED: status = .notAllowed
            case MAMSIM__V1__IDENTITY_RESULT__STATUS__STATUS_FAILED: status = .failed
            default: throw .badEnum(field: "identity_result.status", value: Int32(bitPattern: r.status.rawValue))
            }
            return .identityResult(IdentityResult(
                status: status, reason: str(r.reason), explanation: str(r.explanation), account: str(r.account)))
        case MAMSIM__V1__FRAME__BODY_GET_IDENTITY:
            return .getIdentity(window: str(m.get_identity.pointee.window))
        case MAMSIM__V1__FRAME__BODY_IDENTITY_INFO:
            let i = m.identity_info.pointee
            return .identityInfo(IdentityInfo(
                processIdentity: str(i.process_identity), uiIdentity: str(i.ui_identity),
                signedIn: strings(i.signed_in, i.n_signed_in)))
        case MAMSIM__V1__FRAME__BODY_COMMAND:
            let c = m.command.pointee
            let verb = str(c.verb)
            guard !verb.isEmpty else { throw .missingField("command.verb") }
            let args = map(c.args, c.n_args) { ($0.key, $0.value) }
            let it = try c.item.map { p throws(WireError) in try item(p.pointee, field: "command.item") }
            return .command(Command(verb: verb, args: args, item: it))
        case MAMSIM__V1__FRAME__BODY_COMMAND_RESULT:
            let r = m.command_result.pointee
            return .commandResult(CommandResult(
                ok: r.ok != 0, outcome: str(r.outcome), reason: str(r.reason), explanation: str(r.explanation),
                values: map(r.values, r.n_values) { ($0.key, $0.value) }, data: bytes(r.data)))
        case MAMSIM__V1__FRAME__BODY_SERVICE_REQUEST:
            let r = m.service_request.pointee
            let op = str(r.op)
            guard !op.isEmpty else { throw .missingField("service_request.op") }
            return .serviceRequest(ServiceRequest(op: op, args: map(r.args, r.n_args) { ($0.key, $0.value) }, data: bytes(r.data)))
        case MAMSIM__V1__FRAME__BODY_SERVICE_RESULT:
            let r = m.service_result.pointee
            return .serviceResult(ServiceResult(
                ok: r.ok != 0, reason: str(r.reason), explanation: str(r.explanation),
                values: map(r.values, r.n_values) { ($0.key, $0.value) }, data: bytes(r.data), status: r.status))
        case MAMSIM__V1__FRAME__BODY_ERROR:
            let e = m.error.pointee
            return .error(code: str(e.code), message: str(e.message))
        case MAMSIM__V1__FRAME__BODY_BYE:
            return .bye(reason: str(m.bye.pointee.reason))
        case MAMSIM__V1__FRAME__BODY_PING:
            return .ping(bytes(m.ping.pointee.payload))
        default:
            throw .missingField("body")
        }
    }

    private static func item(_ it: Mamsim__V1__Item, field: String) throws(WireError) -> Item {
        let id = str(it.id)
        guard !id.isEmpty else { throw .missingField("\(field).id") }
        let payload: Item.Payload
        switch it.payload_case {
        case MAMSIM__V1__ITEM__PAYLOAD_INLINE_DATA:
            let b = it.inline_data
            payload = .inline(b.len == 0 ? [] : Array(UnsafeBufferPointer(start: b.data, count: b.len)))
        case MAMSIM__V1__ITEM__PAYLOAD_FILE_PATH:
            payload = .file(path: str(it.file_path))
        default:
            throw .missingField("\(field).payload")
        }
        var ownership: Ownership?
        if let o = it.ownership?.pointee {
            ownership = Ownership(
                upn: str(o.upn), oid: str(o.oid), tenant: str(o.tenant), managed: o.managed != 0,
                sourceBundle: BundleID(str(o.source_bundle_id)))
        }
        return Item(
            id: id, typeIdentifiers: strings(it.type_identifiers, it.n_type_identifiers),
            payload: payload, fileName: str(it.file_name), ownership: ownership)
    }

    private static func bytes(_ b: ProtobufCBinaryData) -> [UInt8] {
        b.len == 0 ? [] : Array(UnsafeBufferPointer(start: b.data, count: b.len))
    }

    /// A protobuf map's entries as a dictionary (a repeated key keeps its last value, as
    /// protobuf specifies).
    private static func map<E>(
        _ list: UnsafeMutablePointer<UnsafeMutablePointer<E>?>?, _ n: Int,
        _ pair: (E) -> (UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<CChar>?)
    ) -> [String: String] {
        guard let list, n > 0 else { return [:] }
        var out: [String: String] = [:]
        for i in 0..<n {
            guard let e = list[i] else { continue }
            let (k, v) = pair(e.pointee)
            out[str(k)] = str(v)
        }
        return out
    }

    @inline(__always)
    private static func str(_ p: UnsafeMutablePointer<CChar>?) -> String {
        guard let p else { return "" }
        return String(cString: p)
    }

    private static func strings(_ list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ n: Int) -> [String] {
        guard let list, n > 0 else { return [] }
        return (0..<n).map { str(list[$0]) }
    }
}
