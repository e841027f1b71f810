internal import CMAMProto
internal import CProtobufC
internal import MAMModel
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Turns the payload of one frame into a `Frame`, or a typed `WireError`.
///
/// protobuf-c's `unpack` allocates every message, string and bytes field; here it allocates
/// them from one arena for the frame (on the stack when the frame is small, so a share costs no
/// malloc until its Swift values are made). Everything is copied into Swift values and the C
/// message is released before this function returns, so no C memory outlives it.
/// Every enum must hold a value the contract defines and every `oneof` must be set: a peer
/// that sends anything else gets a `WireError` naming the field.
public enum FrameParser {
    public static func parse(_ payload: [UInt8]) throws(WireError) -> Frame {
        try payload.withUnsafeBytes { bytes in Result { () throws(WireError) in try parse(bytes) } }.get()
    }

    /// Parses a payload in place (a read buffer's bytes, valid during the call).
    public static func parse(_ payload: UnsafeRawBufferPointer) throws(WireError) -> Frame {
        let bytes = payload.bindMemory(to: UInt8.self)
        try FieldBudget.check(bytes)
        // protobuf-c needs a few hundred bytes of structures besides the frame's own strings
        // and bytes, which it copies.
        let arenaSize = min(payload.count * 2 + 1024, UnpackArena.largest)
        return try withUnsafeTemporaryAllocation(byteCount: arenaSize, alignment: 16) { (block) throws(WireError) -> Frame in
            var arena = UnpackArena(block)
            return try withUnsafeMutablePointer(to: &arena) { (arena) throws(WireError) -> Frame in
                var allocator = ProtobufCAllocator(alloc: UnpackArena.allocate, free: UnpackArena.release, allocator_data: arena)
                guard let message = mamsim__v2__frame__unpack(&allocator, bytes.count, bytes.baseAddress) else {
                    throw .malformed(length: payload.count)
                }
                defer { mamsim__v2__frame__free_unpacked(message, &allocator) }
                let m = message.pointee
                return Frame(seq: m.seq, replyTo: m.reply_to, body: try body(m))
            }
        }
    }

    private static func body(_ m: Mamsim__V2__Frame) throws(WireError) -> Frame.Body {
        switch m.body_case {
        case MAMSIM__V2__FRAME__BODY_HELLO:
            let h = m.hello.pointee
            return .hello(Hello(protocolVersion: h.protocol_version, pid: h.pid, runtime: str(h.runtime), finishesLaunching: h.finishes_launching != 0,
                                batches: h.batches != 0))
        case MAMSIM__V2__FRAME__BODY_LAUNCH_FINISHED:
            return .launchFinished
        case MAMSIM__V2__FRAME__BODY_WELCOME:
            let w = m.welcome.pointee
            let kind: ChildKind
            switch w.kind {
            case MAMSIM__V2__CHILD_KIND__CHILD_KIND_APP: kind = .app
            case MAMSIM__V2__CHILD_KIND__CHILD_KIND_SHARE_EXTENSION: kind = .shareExtension
            case MAMSIM__V2__CHILD_KIND__CHILD_KIND_ACTION_EXTENSION: kind = .actionExtension
            default: throw .badEnum(field: "welcome.kind", value: Int32(bitPattern: w.kind.rawValue))
            }
            let bundle = str(w.bundle_id)
            guard !bundle.isEmpty else { throw .missingField("welcome.bundle_id") }
            return .welcome(Welcome(
                bundleID: BundleID(bundle), kind: kind, appHandle: str(w.app_handle),
                processIdentity: str(w.process_identity), maxFrameSize: w.max_frame_size, batches: w.batches != 0))
        case MAMSIM__V2__FRAME__BODY_BYE:
            return .bye(reason: str(m.bye.pointee.reason))
        case MAMSIM__V2__FRAME__BODY_PING:
            return .ping(bytes(m.ping.pointee.payload))
        case MAMSIM__V2__FRAME__BODY_ERROR:
            let e = m.error.pointee
            return .error(code: try WireEnums.reason(e.code, field: "error.code"), message: str(e.message))
        case MAMSIM__V2__FRAME__BODY_SHARE_REQUEST:
            return .shareRequest(try shareRequest(m.share_request, field: "share_request"))
        case MAMSIM__V2__FRAME__BODY_SHARE_RESULT:
            guard let v = m.share_result.pointee.verdict else { throw .missingField("share_result.verdict") }
            return .shareResult(try shareOutcome(v.pointee, field: "share_result.verdict"))
        case MAMSIM__V2__FRAME__BODY_DELIVER:
            return .deliver(try deliver(m.deliver, field: "deliver"))
        case MAMSIM__V2__FRAME__BODY_SHARE_BATCH:
            let b = m.share_batch.pointee
            guard b.n_shares > 0 else { throw .missingField("share_batch.shares") }
            return .shareBatch(try messages(b.shares, b.n_shares, missing: "share_batch.shares") { (e) throws(WireError) in
                guard e.seq != 0 else { throw .missingField("share_batch.shares.seq") }
                return BatchedShare(seq: e.seq, request: try shareRequest(e.request, field: "share_batch.shares.request"))
            })
        case MAMSIM__V2__FRAME__BODY_SHARE_RESULTS:
            let r = m.share_results.pointee
            guard r.first != 0, r.first <= r.last else { throw .missingField("share_results.first") }
            let field = "share_results.exceptions.verdict"
            let exceptions = try messages(r.exceptions, r.n_exceptions, missing: field) { (e) throws(WireError) in
                guard let v = e.verdict else { throw .missingField(field) }
                return ShareException(seq: e.seq, outcome: try shareOutcome(v.pointee, field: field))
            }
            return .shareResults(ShareResults(first: r.first, last: r.last, exceptions: exceptions))
        case MAMSIM__V2__FRAME__BODY_DELIVER_BATCH:
            let b = m.deliver_batch.pointee
            guard b.n_deliveries > 0, b.deliveries != nil else { throw .missingField("deliver_batch.deliveries") }
            return .deliverBatch(try messages(b.deliveries, b.n_deliveries, missing: "deliver_batch.deliveries.seq") { (e) throws(WireError) in
                guard e.seq != 0 else { throw .missingField("deliver_batch.deliveries.seq") }
                return BatchedDelivery(seq: e.seq, deliver: try deliver(e.deliver, field: "deliver_batch.deliveries.deliver"))
            })
        case MAMSIM__V2__FRAME__BODY_DELIVER_ACKS:
            let a = m.deliver_acks.pointee
            guard a.first != 0, a.first <= a.last else { throw .missingField("deliver_acks.first") }
            let declined = (0..<a.n_declined).map { a.declined[$0] }
            return .deliverAcks(DeliverAcks(first: a.first, last: a.last, declined: declined))
        case MAMSIM__V2__FRAME__BODY_DELIVER_ACK:
            let a = m.deliver_ack.pointee
            let id = str(a.item_id)
            guard !id.isEmpty else { throw .missingField("deliver_ack.item_id") }
            return .deliverAck(DeliverAck(itemID: id, accepted: a.accepted != 0))
        case MAMSIM__V2__FRAME__BODY_SET_IDENTITY:
            return .setIdentity(try setIdentity(m.set_identity.pointee, field: "set_identity"))
        case MAMSIM__V2__FRAME__BODY_IDENTITY_RESULT:
            return .identityResult(try identityResult(m.identity_result.pointee, field: "identity_result"))
        case MAMSIM__V2__FRAME__BODY_GET_IDENTITY:
            return .getIdentity(window: str(m.get_identity.pointee.window))
        case MAMSIM__V2__FRAME__BODY_IDENTITY_INFO:
            let i = m.identity_info.pointee
            return .identityInfo(IdentityInfo(
                processIdentity: str(i.process_identity), uiIdentity: str(i.ui_identity),
                signedIn: strings(i.signed_in, i.n_signed_in)))
        case MAMSIM__V2__FRAME__BODY_COMMAND:
            return .command(try command(m.command.pointee))
        case MAMSIM__V2__FRAME__BODY_COMMAND_RESULT:
            return .commandResult(try commandResult(m.command_result.pointee))
        case MAMSIM__V2__FRAME__BODY_SERVICE_REQUEST:
            let r = m.service_request.pointee
            return .serviceRequest(try serviceRequest(r), ServiceContext(window: str(r.window), thread: accountRef(r.thread)))
        case MAMSIM__V2__FRAME__BODY_SERVICE_RESULT:
            return .serviceResult(try serviceResult(m.service_result.pointee))
        default:
            throw .missingField("body")
        }
    }

    // MARK: - Messages

    private static func deliver(_ p: UnsafeMutablePointer<Mamsim__V2__Deliver>?, field: String) throws(WireError) -> Deliver {
        guard let d = p?.pointee else { throw .missingField(field) }
        guard let it = d.item else { throw .missingField("\(field).item") }
        return Deliver(
            item: try item(it.pointee, field: "\(field).item"),
            senderBundleID: BundleID(str(d.sender_bundle_id)), receivedAs: str(d.received_as))
    }

    private static func shareRequest(_ p: UnsafeMutablePointer<Mamsim__V2__ShareRequest>?, field: String) throws(WireError) -> ShareRequest {
        guard let r = p?.pointee else { throw .missingField(field) }
        let destination = str(r.destination)
        guard !destination.isEmpty else { throw .missingField("\(field).destination") }
        guard let it = r.item else { throw .missingField("\(field).item") }
        return ShareRequest(
            destination: destination, item: try item(it.pointee, field: "\(field).item"),
            identity: str(r.identity), receiveAs: str(r.receive_as))
    }

    private static func verdict(_ v: Mamsim__V2__Verdict, field: String) throws(WireError) -> Verdict {
        let why = str(v.explanation)
        switch v.status {
        case MAMSIM__V2__VERDICT__STATUS__STATUS_ALLOWED:
            return .allowed(why)
        case MAMSIM__V2__VERDICT__STATUS__STATUS_BLOCKED:
            return .blocked(try WireEnums.reason(v.reason, field: "\(field).reason"), why)
        case MAMSIM__V2__VERDICT__STATUS__STATUS_FAILED:
            return .failed(try WireEnums.reason(v.reason, field: "\(field).reason"), why)
        default:
            throw .badEnum(field: "\(field).status", value: Int32(bitPattern: v.status.rawValue))
        }
    }

    private static func shareOutcome(_ v: Mamsim__V2__Verdict, field: String) throws(WireError) -> ShareOutcome {
        switch try verdict(v, field: field) {
        case .allowed: .delivered
        case .blocked(let r, let why): .blocked(r, why)
        case .failed(let r, let why): .failed(r, why)
        }
    }

    private static func setIdentity(_ s: Mamsim__V2__SetIdentity, field: String) throws(WireError) -> SetIdentity {
        let scope: SetIdentity.Scope
        switch s.scope {
        case MAMSIM__V2__SET_IDENTITY__SCOPE__SCOPE_PROCESS: scope = .process
        case MAMSIM__V2__SET_IDENTITY__SCOPE__SCOPE_UI: scope = .ui
        default: throw .badEnum(field: "\(field).scope", value: Int32(bitPattern: s.scope.rawValue))
        }
        return SetIdentity(scope: scope, window: str(s.window), account: str(s.account))
    }

    private static func identityResult(_ r: Mamsim__V2__IdentityResult, field: String) throws(WireError) -> IdentityResult {
        let status: IdentityResult.Status
        switch r.status {
        case MAMSIM__V2__IDENTITY_RESULT__STATUS__STATUS_SUCCESS: status = .success
        case MAMSIM__V2__IDENTITY_RESULT__STATUS__STATUS_CANCELED: status = .canceled
        case MAMSIM__V2__IDENTITY_RESULT__STATUS__STATUS_NOT_ALLOWED: status = .notAllowed
        case MAMSIM__V2__IDENTITY_RESULT__STATUS__STATUS_FAILED: status = .failed
        default: throw .badEnum(field: "\(field).status", value: Int32(bitPattern: r.status.rawValue))
        }
        let reason = r.reason == MAMSIM__V2__REASON__REASON_UNSPECIFIED
            ? nil : try WireEnums.reason(r.reason, field: "\(field).reason")
        return IdentityResult(status: status, reason: reason, explanation: str(r.explanation), account: str(r.account))
    }

    private static func command(_ c: Mamsim__V2__Command) throws(WireError) -> Command {
        switch c.kind_case {
        case MAMSIM__V2__COMMAND__KIND_SHARE:
            guard let s = c.share?.pointee else { throw .missingField("command.share") }
            return .share(try shareRequest(s.request, field: "command.share.request"))
        case MAMSIM__V2__COMMAND__KIND_SET_IDENTITY:
            return .setIdentity(try setIdentity(c.set_identity.pointee, field: "command.set_identity"))
        case MAMSIM__V2__COMMAND__KIND_ADD_IDENTITY:
            return .addIdentity(account: str(c.add_identity.pointee.account))
        case MAMSIM__V2__COMMAND__KIND_WIPE_ACCOUNT_DATA:
            return .wipeAccountData(account: str(c.wipe_account_data.pointee.account))
        case MAMSIM__V2__COMMAND__KIND_ALLOWED_ACCOUNTS_CHANGED:
            let a = c.allowed_accounts_changed.pointee
            return .allowedAccountsChanged(allowed: a.restricted != 0 ? strings(a.allowed, a.n_allowed) : nil)
        case MAMSIM__V2__COMMAND__KIND_IDENTITY_SWITCH_REQUIRED:
            let s = c.identity_switch_required.pointee
            return .identitySwitchRequired(account: str(s.account), reason: str(s.reason))
        case MAMSIM__V2__COMMAND__KIND_FLOOD:
            let f = c.flood.pointee
            return .flood(Flood(destination: str(f.destination), count: f.count, size: f.size, window: f.window, identity: str(f.identity)))
        case MAMSIM__V2__COMMAND__KIND_LIST_RECEIVED:
            return .listReceived
        case MAMSIM__V2__COMMAND__KIND_EXIT:
            return .exit(status: c.exit.pointee.status)
        case MAMSIM__V2__COMMAND__KIND_NOTIFICATION:
            let n = c.notification.pointee
            return .notification(SDKNotification(kind: try WireEnums.notificationKind(n.kind, field: "command.notification.kind"),
                                                 account: str(n.account), detail: str(n.detail)))
        default:
            throw .missingField("command.kind")
        }
    }

    private static func commandResult(_ r: Mamsim__V2__CommandResult) throws(WireError) -> CommandResult {
        switch r.kind_case {
        case MAMSIM__V2__COMMAND_RESULT__KIND_SHARE:
            return .share(try shareOutcome(r.share.pointee, field: "command_result.share"))
        case MAMSIM__V2__COMMAND_RESULT__KIND_SET_IDENTITY:
            return .setIdentity(try identityResult(r.set_identity.pointee, field: "command_result.set_identity"))
        case MAMSIM__V2__COMMAND_RESULT__KIND_ADD_IDENTITY:
            return .addIdentity(added: r.add_identity.pointee.added != 0)
        case MAMSIM__V2__COMMAND_RESULT__KIND_WIPE_ACCOUNT_DATA:
            return .wipeAccountData(wiped: r.wipe_account_data.pointee.wiped != 0)
        case MAMSIM__V2__COMMAND_RESULT__KIND_ALLOWED_ACCOUNTS_CHANGED:
            return .acknowledged
        case MAMSIM__V2__COMMAND_RESULT__KIND_NOTIFICATION:
            return .notified
        case MAMSIM__V2__COMMAND_RESULT__KIND_IDENTITY_SWITCH_REQUIRED:
            return .identitySwitchRequired(accepted: r.identity_switch_required.pointee.accepted != 0)
        case MAMSIM__V2__COMMAND_RESULT__KIND_FLOOD:
            let f = r.flood.pointee
            let problem = try f.first_problem.map { p throws(WireError) in try shareOutcome(p.pointee, field: "command_result.flood.first_problem") }
            return .flood(delivered: f.delivered, firstProblem: problem)
        case MAMSIM__V2__COMMAND_RESULT__KIND_LIST_RECEIVED:
            let l = r.list_received.pointee
            var entries: [ReceivedEntry] = []
            if let list = l.items {
                entries.reserveCapacity(l.n_items)
                for i in 0..<l.n_items {
                    guard let e = list[i]?.pointee else { continue }
                    entries.append(ReceivedEntry(itemID: str(e.item_id), owner: str(e.owner)))
                }
            }
            return .received(entries)
        case MAMSIM__V2__COMMAND_RESULT__KIND_ERROR:
            let e = r.error.pointee
            return .error(try WireEnums.reason(e.code, field: "command_result.error.code"), str(e.message))
        default:
            throw .missingField("command_result.kind")
        }
    }

    private static func serviceRequest(_ r: Mamsim__V2__ServiceRequest) throws(WireError) -> ServiceRequest {
        switch r.call_case {
        case MAMSIM__V2__SERVICE_REQUEST__CALL_WRITE_FILE:
            let w = r.write_file.pointee
            return .writeFile(path: str(w.path), data: bytes(w.data), owner: accountRef(w.owner))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_READ_FILE:
            return .readFile(path: str(r.read_file.pointee.path))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_FILE_OWNER:
            return .fileOwner(path: str(r.file_owner.pointee.path))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_PROTECT:
            let p = r.protect.pointee
            return .protect(data: bytes(p.data), owner: accountRef(p.owner))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_UNPROTECT:
            return .unprotect(data: bytes(r.unprotect.pointee.data))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_PROTECTION_INFO:
            return .protectionInfo(data: bytes(r.protection_info.pointee.data))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_KEYCHAIN_SET:
            let k = r.keychain_set.pointee
            return .keychainSet(group: str(k.group), key: str(k.key), value: bytes(k.value))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_KEYCHAIN_GET:
            let k = r.keychain_get.pointee
            return .keychainGet(group: str(k.group), key: str(k.key))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_COPY:
            return .copy(text: str(r.copy.pointee.text))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_PASTE:
            return .paste(as: accountRef(r.paste.pointee.`as`))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_CAN_SAVE:
            let s = r.can_save.pointee
            return .canSave(try WireEnums.saveLocation(s.location, field: "service_request.can_save.location"), account: str(s.account))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_CAN_OPEN:
            let o = r.can_open.pointee
            return .canOpen(try WireEnums.openLocation(o.location, field: "service_request.can_open.location"),
                            account: str(o.account), as: accountRef(o.`as`))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_PRINT:
            return .print
        case MAMSIM__V2__SERVICE_REQUEST__CALL_NOTIFY:
            let n = r.notify.pointee
            return .notify(account: str(n.account), text: str(n.text))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_SHARE_TARGETS:
            let s = r.share_targets.pointee
            return .shareTargets(types: strings(s.type_identifiers, s.n_type_identifiers))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_APP_CONFIG:
            return .appConfig(account: accountRef(r.app_config.pointee.account))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_SCREEN_CAPTURE:
            return .screenCapture
        case MAMSIM__V2__SERVICE_REQUEST__CALL_MANAGED_CONFIG:
            return .managedConfig
        case MAMSIM__V2__SERVICE_REQUEST__CALL_MANAGED_SECRET:
            let q = r.managed_secret.pointee
            return .managedSecret(kind: try WireEnums.secretKind(q.kind, field: "service_request.managed_secret.kind"), id: str(q.identifier))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_MANAGED_SECRET_IDS:
            return .managedSecretIds(kind: try WireEnums.secretKind(r.managed_secret_ids.pointee.kind, field: "service_request.managed_secret_ids.kind"))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_SIGN_WITH_IDENTITY:
            let q = r.sign_with_identity.pointee
            return .signWithIdentity(id: str(q.identifier), data: bytes(q.data))
        case MAMSIM__V2__SERVICE_REQUEST__CALL_ACQUIRE_TOKEN:
            let q = r.acquire_token.pointee
            return .acquireToken(account: str(q.account), resource: str(q.resource), silent: q.silent != 0)
        case MAMSIM__V2__SERVICE_REQUEST__CALL_REMEDIATE_COMPLIANCE:
            let q = r.remediate_compliance.pointee
            return .remediateCompliance(account: str(q.account), silent: q.silent != 0)
        default:
            throw .missingField("service_request.call")
        }
    }

    private static func serviceResult(_ r: Mamsim__V2__ServiceResult) throws(WireError) -> ServiceResult {
        guard let v = r.verdict else { throw .missingField("service_result.verdict") }
        let verdict = try verdict(v.pointee, field: "service_result.verdict")
        let value: ServiceValue
        switch r.value_case {
        case MAMSIM__V2__SERVICE_RESULT__VALUE__NOT_SET:
            value = .none
        case MAMSIM__V2__SERVICE_RESULT__VALUE_FILE:
            let f = r.file.pointee
            value = .file(owner: str(f.owner), encrypted: f.encrypted != 0)
        case MAMSIM__V2__SERVICE_RESULT__VALUE_DATA:
            value = .data(bytes(r.data))
        case MAMSIM__V2__SERVICE_RESULT__VALUE_PROTECTION:
            let p = r.protection.pointee
            value = .protection(p.protected_ != 0 ? ProtectionSummary(owner: str(p.owner), encrypted: p.encrypted != 0) : nil)
        case MAMSIM__V2__SERVICE_RESULT__VALUE_KEYCHAIN:
            let k = r.keychain.pointee
            guard let status = KeychainStatus(rawValue: Int32(truncatingIfNeeded: k.status.rawValue)) else {
                throw .badEnum(field: "service_result.keychain.status", value: Int32(truncatingIfNeeded: k.status.rawValue))
            }
            value = .keychain(status: status, group: str(k.group), value: bytes(k.value))
        case MAMSIM__V2__SERVICE_RESULT__VALUE_PASTE:
            value = .paste(text: str(r.paste.pointee.text))
        case MAMSIM__V2__SERVICE_RESULT__VALUE_NOTIFICATION:
            value = .notification(shown: str(r.notification.pointee.shown))
        case MAMSIM__V2__SERVICE_RESULT__VALUE_SHARE_TARGETS:
            let s = r.share_targets.pointee
            value = .shareTargets(strings(s.handles, s.n_handles))
        case MAMSIM__V2__SERVICE_RESULT__VALUE_APP_CONFIG:
            let c = r.app_config.pointee
            var dictionaries: [[String: String]] = []
            if let list = c.dictionaries {
                dictionaries.reserveCapacity(c.n_dictionaries)
                for i in 0..<c.n_dictionaries {
                    var d: [String: String] = [:]
                    if let dict = list[i]?.pointee, let entries = dict.entries {
                        for j in 0..<dict.n_entries {
                            guard let e = entries[j]?.pointee else { continue }
                            d[str(e.key)] = str(e.value)
                        }
                    }
                    dictionaries.append(d)
                }
            }
            value = .appConfig(dictionaries)
        case MAMSIM__V2__SERVICE_RESULT__VALUE_MANAGED_SECRET:
            let m = r.managed_secret.pointee
            switch try WireEnums.secretKind(m.kind, field: "service_result.managed_secret.kind") {
            case .password: value = .managedSecret(.password(userName: str(m.user_name), password: str(m.password)))
            case .certificate: value = .managedSecret(.certificate(bytes(m.certificate)))
            case .identity: value = .managedSecret(.identity(certificate: bytes(m.certificate)))
            }
        case MAMSIM__V2__SERVICE_RESULT__VALUE_TOKEN:
            let t = r.token.pointee
            value = .token(jwt: str(t.token), homeAccountID: str(t.home_account_id))
        case MAMSIM__V2__SERVICE_RESULT__VALUE_STRINGS:
            let l = r.strings.pointee
            value = .strings(strings(l.items, l.n_items))
        default:
            throw .badEnum(field: "service_result.value", value: Int32(bitPattern: r.value_case.rawValue))
        }
        return ServiceResult(verdict, value)
    }

    private static func item(_ it: Mamsim__V2__Item, field: String) throws(WireError) -> Item {
        let id = str(it.id)
        guard !id.isEmpty else { throw .missingField("\(field).id") }
        let payload: Item.Payload
        switch it.payload_case {
        case MAMSIM__V2__ITEM__PAYLOAD_INLINE_DATA:
            payload = .inline(bytes(it.inline_data))
        case MAMSIM__V2__ITEM__PAYLOAD_FILE_PATH:
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

    // MARK: - Fields

    /// An optional account: absent = `nil`, present = its account (`""` = unmanaged).
    private static func accountRef(_ p: UnsafeMutablePointer<Mamsim__V2__AccountRef>?) -> String? {
        p.map { str($0.pointee.account) }
    }

    private static func bytes(_ b: ProtobufCBinaryData) -> [UInt8] {
        b.len == 0 ? [] : Array(UnsafeBufferPointer(start: b.data, count: b.len))
    }

    @inline(__always)
    private static func str(_ p: UnsafeMutablePointer<CChar>?) -> String {
        guard let p else { return "" }
        return String(cString: p)
    }

    /// The `n` elements of a repeated message field, each made by `make`; a missing list or
    /// element is `missing`.
    private static func messages<C, T>(
        _ list: UnsafeMutablePointer<UnsafeMutablePointer<C>?>?, _ n: Int, missing field: String,
        _ make: (C) throws(WireError) -> T
    ) throws(WireError) -> [T] {
        guard n > 0 else { return [] }
        guard let list else { throw .missingField(field) }
        var elements: [T] = []
        elements.reserveCapacity(n)
        for i in 0..<n {
            guard let e = list[i]?.pointee else { throw .missingField(field) }
            elements.append(try make(e))
        }
        return elements
    }

    private static func strings(_ list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ n: Int) -> [String] {
        guard let list, n > 0 else { return [] }
        return (0..<n).map { str(list[$0]) }
    }
}

/// Where protobuf-c unpacks one frame: allocations are carved from one block in order and
/// freed all at once with it; what does not fit is malloc'd and freed one by one, as
/// protobuf-c does by itself.
struct UnpackArena {
    /// The largest block asked for: bigger frames take their large fields from malloc.
    static let largest = 64 << 10

    let base: UnsafeMutableRawPointer
    let capacity: Int
    var used = 0

    init(_ block: UnsafeMutableRawBufferPointer) {
        base = block.baseAddress!
        capacity = block.count
    }

    static let allocate: @convention(c) (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer? = { data, size in
        let arena = data!.assumingMemoryBound(to: UnpackArena.self)
        let start = (arena.pointee.used + 15) & ~15
        if size <= arena.pointee.capacity - start {
            arena.pointee.used = start + size
            return arena.pointee.base + start
        }
        return malloc(max(size, 1))
    }

    static let release: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { data, pointer in
        guard let pointer else { return }
        let arena = data!.assumingMemoryBound(to: UnpackArena.self)
        let base = arena.pointee.base
        if pointer >= base && pointer < base + arena.pointee.capacity { return }
        free(pointer)
    }
}

extension FrameParser {
    /// protobuf-c's own unpack and free of `payload` with its default allocator, nothing made
    /// of it: the floor that `parse` is measured against (`mamsim bench`). `false` if the
    /// bytes are not a frame.
    public static func unpackOnly(_ payload: UnsafeRawBufferPointer) -> Bool {
        let bytes = payload.bindMemory(to: UInt8.self)
        guard let message = mamsim__v2__frame__unpack(nil, bytes.count, bytes.baseAddress) else { return false }
        mamsim__v2__frame__free_unpacked(message, nil)
        return true
    }
}
