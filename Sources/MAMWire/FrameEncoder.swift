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
    /// The serialized `mamsim.v2.Frame` without a length prefix.
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
        var message = Mamsim__V2__Frame()
        mamsim__v2__frame__init(&message)
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

    private static func fill(_ m: inout Mamsim__V2__Frame, body: Frame.Body, arena: CArena) {
        switch body {
        case .hello(let h):
            let p = arena.message(Mamsim__V2__Hello.self, mamsim__v2__hello__init)
            p.pointee.protocol_version = h.protocolVersion
            p.pointee.pid = h.pid
            p.pointee.runtime = arena.string(h.runtime)
            p.pointee.finishes_launching = h.finishesLaunching ? 1 : 0
            p.pointee.batches = h.batches ? 1 : 0
            m.body_case = MAMSIM__V2__FRAME__BODY_HELLO
            m.hello = p
        case .launchFinished:
            m.body_case = MAMSIM__V2__FRAME__BODY_LAUNCH_FINISHED
            m.launch_finished = arena.message(Mamsim__V2__LaunchFinished.self, mamsim__v2__launch_finished__init)
        case .welcome(let w):
            let p = arena.message(Mamsim__V2__Welcome.self, mamsim__v2__welcome__init)
            p.pointee.bundle_id = arena.string(w.bundleID.rawValue)
            p.pointee.kind = switch w.kind {
            case .app: MAMSIM__V2__CHILD_KIND__CHILD_KIND_APP
            case .shareExtension: MAMSIM__V2__CHILD_KIND__CHILD_KIND_SHARE_EXTENSION
            case .actionExtension: MAMSIM__V2__CHILD_KIND__CHILD_KIND_ACTION_EXTENSION
            }
            p.pointee.app_handle = arena.string(w.appHandle)
            p.pointee.process_identity = arena.string(w.processIdentity)
            p.pointee.max_frame_size = w.maxFrameSize
            p.pointee.batches = w.batches ? 1 : 0
            m.body_case = MAMSIM__V2__FRAME__BODY_WELCOME
            m.welcome = p
        case .bye(let reason):
            let p = arena.message(Mamsim__V2__Bye.self, mamsim__v2__bye__init)
            p.pointee.reason = arena.string(reason)
            m.body_case = MAMSIM__V2__FRAME__BODY_BYE
            m.bye = p
        case .ping(let bytes):
            let p = arena.message(Mamsim__V2__Ping.self, mamsim__v2__ping__init)
            p.pointee.payload = arena.bytes(bytes)
            m.body_case = MAMSIM__V2__FRAME__BODY_PING
            m.ping = p
        case .error(let code, let message):
            m.body_case = MAMSIM__V2__FRAME__BODY_ERROR
            m.error = error(code, message, arena)
        case .shareRequest(let r):
            m.body_case = MAMSIM__V2__FRAME__BODY_SHARE_REQUEST
            m.share_request = shareRequest(r, arena)
        case .shareResult(let outcome):
            let p = arena.message(Mamsim__V2__ShareResult.self, mamsim__v2__share_result__init)
            p.pointee.verdict = verdict(outcome, arena)
            m.body_case = MAMSIM__V2__FRAME__BODY_SHARE_RESULT
            m.share_result = p
        case .deliver(let d):
            m.body_case = MAMSIM__V2__FRAME__BODY_DELIVER
            m.deliver = deliver(d, arena)
        case .deliverAck(let a):
            let p = arena.message(Mamsim__V2__DeliverAck.self, mamsim__v2__deliver_ack__init)
            p.pointee.item_id = arena.string(a.itemID)
            p.pointee.accepted = a.accepted ? 1 : 0
            m.body_case = MAMSIM__V2__FRAME__BODY_DELIVER_ACK
            m.deliver_ack = p
        case .shareBatch(let shares):
            let p = arena.message(Mamsim__V2__ShareBatch.self, mamsim__v2__share_batch__init)
            p.pointee.n_shares = shares.count
            p.pointee.shares = arena.pointerArray(shares) { s in
                let b = arena.message(Mamsim__V2__BatchedShare.self, mamsim__v2__batched_share__init)
                b.pointee.seq = s.seq
                b.pointee.request = shareRequest(s.request, arena)
                return b
            }
            m.body_case = MAMSIM__V2__FRAME__BODY_SHARE_BATCH
            m.share_batch = p
        case .shareResults(let r):
            let p = arena.message(Mamsim__V2__ShareResults.self, mamsim__v2__share_results__init)
            p.pointee.first = r.first
            p.pointee.last = r.last
            p.pointee.n_exceptions = r.exceptions.count
            p.pointee.exceptions = arena.pointerArray(r.exceptions) { e in
                let x = arena.message(Mamsim__V2__ShareException.self, mamsim__v2__share_exception__init)
                x.pointee.seq = e.seq
                x.pointee.verdict = verdict(e.outcome, arena)
                return x
            }
            m.body_case = MAMSIM__V2__FRAME__BODY_SHARE_RESULTS
            m.share_results = p
        case .deliverBatch(let deliveries):
            let p = arena.message(Mamsim__V2__DeliverBatch.self, mamsim__v2__deliver_batch__init)
            p.pointee.n_deliveries = deliveries.count
            p.pointee.deliveries = arena.pointerArray(deliveries) { d in
                let b = arena.message(Mamsim__V2__BatchedDelivery.self, mamsim__v2__batched_delivery__init)
                b.pointee.seq = d.seq
                b.pointee.deliver = deliver(d.deliver, arena)
                return b
            }
            m.body_case = MAMSIM__V2__FRAME__BODY_DELIVER_BATCH
            m.deliver_batch = p
        case .deliverAcks(let a):
            let p = arena.message(Mamsim__V2__DeliverAcks.self, mamsim__v2__deliver_acks__init)
            p.pointee.first = a.first
            p.pointee.last = a.last
            p.pointee.n_declined = a.declined.count
            p.pointee.declined = arena.array(a.declined)
            m.body_case = MAMSIM__V2__FRAME__BODY_DELIVER_ACKS
            m.deliver_acks = p
        case .setIdentity(let s):
            m.body_case = MAMSIM__V2__FRAME__BODY_SET_IDENTITY
            m.set_identity = setIdentity(s, arena)
        case .identityResult(let r):
            m.body_case = MAMSIM__V2__FRAME__BODY_IDENTITY_RESULT
            m.identity_result = identityResult(r, arena)
        case .getIdentity(let window):
            let p = arena.message(Mamsim__V2__GetIdentity.self, mamsim__v2__get_identity__init)
            p.pointee.window = arena.string(window)
            m.body_case = MAMSIM__V2__FRAME__BODY_GET_IDENTITY
            m.get_identity = p
        case .identityInfo(let i):
            let p = arena.message(Mamsim__V2__IdentityInfo.self, mamsim__v2__identity_info__init)
            p.pointee.process_identity = arena.string(i.processIdentity)
            p.pointee.ui_identity = arena.string(i.uiIdentity)
            p.pointee.n_signed_in = i.signedIn.count
            p.pointee.signed_in = arena.stringArray(i.signedIn)
            m.body_case = MAMSIM__V2__FRAME__BODY_IDENTITY_INFO
            m.identity_info = p
        case .command(let c):
            m.body_case = MAMSIM__V2__FRAME__BODY_COMMAND
            m.command = command(c, arena)
        case .commandResult(let r):
            m.body_case = MAMSIM__V2__FRAME__BODY_COMMAND_RESULT
            m.command_result = commandResult(r, arena)
        case .serviceRequest(let r, let context):
            m.body_case = MAMSIM__V2__FRAME__BODY_SERVICE_REQUEST
            let p = serviceRequest(r, arena)
            p.pointee.window = arena.string(context.window)
            p.pointee.thread = accountRef(context.thread, arena)
            m.service_request = p
        case .serviceResult(let r):
            m.body_case = MAMSIM__V2__FRAME__BODY_SERVICE_RESULT
            m.service_result = serviceResult(r, arena)
        }
    }

    private static func error(_ code: Reason, _ message: String, _ arena: CArena) -> UnsafeMutablePointer<Mamsim__V2__Error> {
        let p = arena.message(Mamsim__V2__Error.self, mamsim__v2__error__init)
        p.pointee.code = WireEnums.wire(code)
        p.pointee.message = arena.string(message)
        return p
    }

    private static func verdict(_ v: Verdict, _ arena: CArena) -> UnsafeMutablePointer<Mamsim__V2__Verdict> {
        let p = arena.message(Mamsim__V2__Verdict.self, mamsim__v2__verdict__init)
        switch v {
        case .allowed(let why):
            p.pointee.status = MAMSIM__V2__VERDICT__STATUS__STATUS_ALLOWED
            p.pointee.explanation = arena.string(why)
        case .blocked(let reason, let why):
            p.pointee.status = MAMSIM__V2__VERDICT__STATUS__STATUS_BLOCKED
            p.pointee.reason = WireEnums.wire(reason)
            p.pointee.explanation = arena.string(why)
        case .failed(let reason, let why):
            p.pointee.status = MAMSIM__V2__VERDICT__STATUS__STATUS_FAILED
            p.pointee.reason = WireEnums.wire(reason)
            p.pointee.explanation = arena.string(why)
        }
        return p
    }

    private static func verdict(_ outcome: ShareOutcome, _ arena: CArena) -> UnsafeMutablePointer<Mamsim__V2__Verdict> {
        switch outcome {
        case .delivered: verdict(Verdict.allowed(""), arena)
        case .blocked(let r, let why): verdict(Verdict.blocked(r, why), arena)
        case .failed(let r, let why): verdict(Verdict.failed(r, why), arena)
        }
    }

    private static func deliver(_ d: Deliver, _ arena: CArena) -> UnsafeMutablePointer<Mamsim__V2__Deliver> {
        let p = arena.message(Mamsim__V2__Deliver.self, mamsim__v2__deliver__init)
        p.pointee.item = item(d.item, arena)
        p.pointee.sender_bundle_id = arena.string(d.senderBundleID.rawValue)
        p.pointee.received_as = arena.string(d.receivedAs)
        return p
    }

    private static func shareRequest(_ r: ShareRequest, _ arena: CArena) -> UnsafeMutablePointer<Mamsim__V2__ShareRequest> {
        let p = arena.message(Mamsim__V2__ShareRequest.self, mamsim__v2__share_request__init)
        p.pointee.destination = arena.string(r.destination)
        p.pointee.item = item(r.item, arena)
        p.pointee.identity = arena.string(r.identity)
        p.pointee.receive_as = arena.string(r.receiveAs)
        return p
    }

    private static func setIdentity(_ s: SetIdentity, _ arena: CArena) -> UnsafeMutablePointer<Mamsim__V2__SetIdentity> {
        let p = arena.message(Mamsim__V2__SetIdentity.self, mamsim__v2__set_identity__init)
        p.pointee.scope = switch s.scope {
        case .process: MAMSIM__V2__SET_IDENTITY__SCOPE__SCOPE_PROCESS
        case .ui: MAMSIM__V2__SET_IDENTITY__SCOPE__SCOPE_UI
        }
        p.pointee.window = arena.string(s.window)
        p.pointee.account = arena.string(s.account)
        return p
    }

    private static func identityResult(_ r: IdentityResult, _ arena: CArena) -> UnsafeMutablePointer<Mamsim__V2__IdentityResult> {
        let p = arena.message(Mamsim__V2__IdentityResult.self, mamsim__v2__identity_result__init)
        p.pointee.status = switch r.status {
        case .success: MAMSIM__V2__IDENTITY_RESULT__STATUS__STATUS_SUCCESS
        case .canceled: MAMSIM__V2__IDENTITY_RESULT__STATUS__STATUS_CANCELED
        case .notAllowed: MAMSIM__V2__IDENTITY_RESULT__STATUS__STATUS_NOT_ALLOWED
        case .failed: MAMSIM__V2__IDENTITY_RESULT__STATUS__STATUS_FAILED
        }
        if let reason = r.reason { p.pointee.reason = WireEnums.wire(reason) }
        p.pointee.explanation = arena.string(r.explanation)
        p.pointee.account = arena.string(r.account)
        return p
    }

    private static func command(_ c: Command, _ arena: CArena) -> UnsafeMutablePointer<Mamsim__V2__Command> {
        let p = arena.message(Mamsim__V2__Command.self, mamsim__v2__command__init)
        switch c {
        case .share(let r):
            let s = arena.message(Mamsim__V2__ShareCommand.self, mamsim__v2__share_command__init)
            s.pointee.request = shareRequest(r, arena)
            p.pointee.kind_case = MAMSIM__V2__COMMAND__KIND_SHARE
            p.pointee.share = s
        case .setIdentity(let s):
            p.pointee.kind_case = MAMSIM__V2__COMMAND__KIND_SET_IDENTITY
            p.pointee.set_identity = setIdentity(s, arena)
        case .addIdentity(let account):
            let a = arena.message(Mamsim__V2__AddIdentity.self, mamsim__v2__add_identity__init)
            a.pointee.account = arena.string(account)
            p.pointee.kind_case = MAMSIM__V2__COMMAND__KIND_ADD_IDENTITY
            p.pointee.add_identity = a
        case .wipeAccountData(let account):
            let w = arena.message(Mamsim__V2__WipeAccountData.self, mamsim__v2__wipe_account_data__init)
            w.pointee.account = arena.string(account)
            p.pointee.kind_case = MAMSIM__V2__COMMAND__KIND_WIPE_ACCOUNT_DATA
            p.pointee.wipe_account_data = w
        case .allowedAccountsChanged(let allowed):
            let a = arena.message(Mamsim__V2__AllowedAccountsChanged.self, mamsim__v2__allowed_accounts_changed__init)
            a.pointee.restricted = allowed == nil ? 0 : 1
            a.pointee.n_allowed = allowed?.count ?? 0
            a.pointee.allowed = arena.stringArray(allowed ?? [])
            p.pointee.kind_case = MAMSIM__V2__COMMAND__KIND_ALLOWED_ACCOUNTS_CHANGED
            p.pointee.allowed_accounts_changed = a
        case .identitySwitchRequired(let account, let reason):
            let s = arena.message(Mamsim__V2__IdentitySwitchRequired.self, mamsim__v2__identity_switch_required__init)
            s.pointee.account = arena.string(account)
            s.pointee.reason = arena.string(reason)
            p.pointee.kind_case = MAMSIM__V2__COMMAND__KIND_IDENTITY_SWITCH_REQUIRED
            p.pointee.identity_switch_required = s
        case .flood(let f):
            let q = arena.message(Mamsim__V2__Flood.self, mamsim__v2__flood__init)
            q.pointee.destination = arena.string(f.destination)
            q.pointee.count = f.count
            q.pointee.size = f.size
            q.pointee.window = f.window
            q.pointee.identity = arena.string(f.identity)
            p.pointee.kind_case = MAMSIM__V2__COMMAND__KIND_FLOOD
            p.pointee.flood = q
        case .listReceived:
            p.pointee.kind_case = MAMSIM__V2__COMMAND__KIND_LIST_RECEIVED
            p.pointee.list_received = arena.message(Mamsim__V2__ListReceived.self, mamsim__v2__list_received__init)
        case .exit(let status):
            let e = arena.message(Mamsim__V2__Exit.self, mamsim__v2__exit__init)
            e.pointee.status = status
            p.pointee.kind_case = MAMSIM__V2__COMMAND__KIND_EXIT
            p.pointee.exit = e
        case .notification(let n):
            let q = arena.message(Mamsim__V2__SdkNotification.self, mamsim__v2__sdk_notification__init)
            q.pointee.kind = WireEnums.wire(n.kind)
            q.pointee.account = arena.string(n.account)
            q.pointee.detail = arena.string(n.detail)
            p.pointee.kind_case = MAMSIM__V2__COMMAND__KIND_NOTIFICATION
            p.pointee.notification = q
        }
        return p
    }

    private static func commandResult(_ r: CommandResult, _ arena: CArena) -> UnsafeMutablePointer<Mamsim__V2__CommandResult> {
        let p = arena.message(Mamsim__V2__CommandResult.self, mamsim__v2__command_result__init)
        switch r {
        case .share(let outcome):
            p.pointee.kind_case = MAMSIM__V2__COMMAND_RESULT__KIND_SHARE
            p.pointee.share = verdict(outcome, arena)
        case .setIdentity(let i):
            p.pointee.kind_case = MAMSIM__V2__COMMAND_RESULT__KIND_SET_IDENTITY
            p.pointee.set_identity = identityResult(i, arena)
        case .addIdentity(let added):
            let a = arena.message(Mamsim__V2__AddIdentityResult.self, mamsim__v2__add_identity_result__init)
            a.pointee.added = added ? 1 : 0
            p.pointee.kind_case = MAMSIM__V2__COMMAND_RESULT__KIND_ADD_IDENTITY
            p.pointee.add_identity = a
        case .wipeAccountData(let wiped):
            let w = arena.message(Mamsim__V2__WipeAccountDataResult.self, mamsim__v2__wipe_account_data_result__init)
            w.pointee.wiped = wiped ? 1 : 0
            p.pointee.kind_case = MAMSIM__V2__COMMAND_RESULT__KIND_WIPE_ACCOUNT_DATA
            p.pointee.wipe_account_data = w
        case .acknowledged:
            p.pointee.kind_case = MAMSIM__V2__COMMAND_RESULT__KIND_ALLOWED_ACCOUNTS_CHANGED
            p.pointee.allowed_accounts_changed = arena.message(Mamsim__V2__Acknowledged.self, mamsim__v2__acknowledged__init)
        case .notified:
            p.pointee.kind_case = MAMSIM__V2__COMMAND_RESULT__KIND_NOTIFICATION
            p.pointee.notification = arena.message(Mamsim__V2__Acknowledged.self, mamsim__v2__acknowledged__init)
        case .identitySwitchRequired(let accepted):
            let a = arena.message(Mamsim__V2__IdentitySwitchAnswer.self, mamsim__v2__identity_switch_answer__init)
            a.pointee.accepted = accepted ? 1 : 0
            p.pointee.kind_case = MAMSIM__V2__COMMAND_RESULT__KIND_IDENTITY_SWITCH_REQUIRED
            p.pointee.identity_switch_required = a
        case .flood(let delivered, let firstProblem):
            let f = arena.message(Mamsim__V2__FloodResult.self, mamsim__v2__flood_result__init)
            f.pointee.delivered = delivered
            if let firstProblem { f.pointee.first_problem = verdict(firstProblem, arena) }
            p.pointee.kind_case = MAMSIM__V2__COMMAND_RESULT__KIND_FLOOD
            p.pointee.flood = f
        case .received(let entries):
            let l = arena.message(Mamsim__V2__ReceivedList.self, mamsim__v2__received_list__init)
            let list = arena.pointerArray(Mamsim__V2__ReceivedList__Entry.self, count: entries.count)
            for (i, e) in entries.enumerated() {
                let q = arena.message(Mamsim__V2__ReceivedList__Entry.self, mamsim__v2__received_list__entry__init)
                q.pointee.item_id = arena.string(e.itemID)
                q.pointee.owner = arena.string(e.owner)
                list?[i] = q
            }
            l.pointee.n_items = entries.count
            l.pointee.items = list
            p.pointee.kind_case = MAMSIM__V2__COMMAND_RESULT__KIND_LIST_RECEIVED
            p.pointee.list_received = l
        case .error(let code, let message):
            p.pointee.kind_case = MAMSIM__V2__COMMAND_RESULT__KIND_ERROR
            p.pointee.error = error(code, message, arena)
        }
        return p
    }

    private static func accountRef(_ account: String?, _ arena: CArena) -> UnsafeMutablePointer<Mamsim__V2__AccountRef>? {
        guard let account else { return nil }
        let p = arena.message(Mamsim__V2__AccountRef.self, mamsim__v2__account_ref__init)
        p.pointee.account = arena.string(account)
        return p
    }

    private static func serviceRequest(_ r: ServiceRequest, _ arena: CArena) -> UnsafeMutablePointer<Mamsim__V2__ServiceRequest> {
        let p = arena.message(Mamsim__V2__ServiceRequest.self, mamsim__v2__service_request__init)
        switch r {
        case .writeFile(let path, let data, let owner):
            let w = arena.message(Mamsim__V2__WriteFile.self, mamsim__v2__write_file__init)
            w.pointee.path = arena.string(path)
            w.pointee.data = arena.bytes(data)
            w.pointee.owner = accountRef(owner, arena)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_WRITE_FILE
            p.pointee.write_file = w
        case .readFile(let path):
            let q = arena.message(Mamsim__V2__ReadFile.self, mamsim__v2__read_file__init)
            q.pointee.path = arena.string(path)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_READ_FILE
            p.pointee.read_file = q
        case .fileOwner(let path):
            let q = arena.message(Mamsim__V2__FileOwnerQuery.self, mamsim__v2__file_owner_query__init)
            q.pointee.path = arena.string(path)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_FILE_OWNER
            p.pointee.file_owner = q
        case .protect(let data, let owner):
            let q = arena.message(Mamsim__V2__Protect.self, mamsim__v2__protect__init)
            q.pointee.data = arena.bytes(data)
            q.pointee.owner = accountRef(owner, arena)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_PROTECT
            p.pointee.protect = q
        case .unprotect(let data):
            let q = arena.message(Mamsim__V2__Unprotect.self, mamsim__v2__unprotect__init)
            q.pointee.data = arena.bytes(data)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_UNPROTECT
            p.pointee.unprotect = q
        case .protectionInfo(let data):
            let q = arena.message(Mamsim__V2__ProtectionInfoQuery.self, mamsim__v2__protection_info_query__init)
            q.pointee.data = arena.bytes(data)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_PROTECTION_INFO
            p.pointee.protection_info = q
        case .keychainSet(let group, let key, let value):
            let q = arena.message(Mamsim__V2__KeychainSet.self, mamsim__v2__keychain_set__init)
            q.pointee.group = arena.string(group)
            q.pointee.key = arena.string(key)
            q.pointee.value = arena.bytes(value)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_KEYCHAIN_SET
            p.pointee.keychain_set = q
        case .keychainGet(let group, let key):
            let q = arena.message(Mamsim__V2__KeychainGet.self, mamsim__v2__keychain_get__init)
            q.pointee.group = arena.string(group)
            q.pointee.key = arena.string(key)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_KEYCHAIN_GET
            p.pointee.keychain_get = q
        case .copy(let text):
            let q = arena.message(Mamsim__V2__Copy.self, mamsim__v2__copy__init)
            q.pointee.text = arena.string(text)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_COPY
            p.pointee.copy = q
        case .paste(let receiver):
            let q = arena.message(Mamsim__V2__Paste.self, mamsim__v2__paste__init)
            q.pointee.`as` = accountRef(receiver, arena)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_PASTE
            p.pointee.paste = q
        case .canSave(let location, let account):
            let q = arena.message(Mamsim__V2__CanSave.self, mamsim__v2__can_save__init)
            q.pointee.location = WireEnums.wire(location)
            q.pointee.account = arena.string(account)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_CAN_SAVE
            p.pointee.can_save = q
        case .canOpen(let location, let account, let receiver):
            let q = arena.message(Mamsim__V2__CanOpen.self, mamsim__v2__can_open__init)
            q.pointee.location = WireEnums.wire(location)
            q.pointee.account = arena.string(account)
            q.pointee.`as` = accountRef(receiver, arena)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_CAN_OPEN
            p.pointee.can_open = q
        case .print:
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_PRINT
            p.pointee.print = arena.message(Mamsim__V2__Print.self, mamsim__v2__print__init)
        case .notify(let account, let text):
            let q = arena.message(Mamsim__V2__Notify.self, mamsim__v2__notify__init)
            q.pointee.account = arena.string(account)
            q.pointee.text = arena.string(text)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_NOTIFY
            p.pointee.notify = q
        case .shareTargets(let types):
            let q = arena.message(Mamsim__V2__ShareTargets.self, mamsim__v2__share_targets__init)
            q.pointee.n_type_identifiers = types.count
            q.pointee.type_identifiers = arena.stringArray(types)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_SHARE_TARGETS
            p.pointee.share_targets = q
        case .appConfig(let account):
            let q = arena.message(Mamsim__V2__AppConfigQuery.self, mamsim__v2__app_config_query__init)
            q.pointee.account = accountRef(account, arena)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_APP_CONFIG
            p.pointee.app_config = q
        case .screenCapture:
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_SCREEN_CAPTURE
            p.pointee.screen_capture = arena.message(Mamsim__V2__ScreenCapture.self, mamsim__v2__screen_capture__init)
        case .managedConfig:
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_MANAGED_CONFIG
            p.pointee.managed_config = arena.message(Mamsim__V2__ManagedConfigQuery.self, mamsim__v2__managed_config_query__init)
        case .managedSecret(let kind, let id):
            let q = arena.message(Mamsim__V2__ManagedSecretQuery.self, mamsim__v2__managed_secret_query__init)
            q.pointee.kind = WireEnums.wire(kind)
            q.pointee.identifier = arena.string(id)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_MANAGED_SECRET
            p.pointee.managed_secret = q
        case .managedSecretIds(let kind):
            let q = arena.message(Mamsim__V2__ManagedSecretIdsQuery.self, mamsim__v2__managed_secret_ids_query__init)
            q.pointee.kind = WireEnums.wire(kind)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_MANAGED_SECRET_IDS
            p.pointee.managed_secret_ids = q
        case .signWithIdentity(let id, let data):
            let q = arena.message(Mamsim__V2__SignWithIdentity.self, mamsim__v2__sign_with_identity__init)
            q.pointee.identifier = arena.string(id)
            q.pointee.data = arena.bytes(data)
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_SIGN_WITH_IDENTITY
            p.pointee.sign_with_identity = q
        case .acquireToken(let account, let resource, let silent):
            let q = arena.message(Mamsim__V2__AcquireToken.self, mamsim__v2__acquire_token__init)
            q.pointee.account = arena.string(account)
            q.pointee.resource = arena.string(resource)
            q.pointee.silent = silent ? 1 : 0
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_ACQUIRE_TOKEN
            p.pointee.acquire_token = q
        case .remediateCompliance(let account, let silent):
            let q = arena.message(Mamsim__V2__RemediateCompliance.self, mamsim__v2__remediate_compliance__init)
            q.pointee.account = arena.string(account)
            q.pointee.silent = silent ? 1 : 0
            p.pointee.call_case = MAMSIM__V2__SERVICE_REQUEST__CALL_REMEDIATE_COMPLIANCE
            p.pointee.remediate_compliance = q
        }
        return p
    }

    private static func serviceResult(_ r: ServiceResult, _ arena: CArena) -> UnsafeMutablePointer<Mamsim__V2__ServiceResult> {
        let p = arena.message(Mamsim__V2__ServiceResult.self, mamsim__v2__service_result__init)
        p.pointee.verdict = verdict(r.verdict, arena)
        switch r.value {
        case .none:
            break
        case .file(let owner, let encrypted):
            let f = arena.message(Mamsim__V2__FileInfo.self, mamsim__v2__file_info__init)
            f.pointee.owner = arena.string(owner)
            f.pointee.encrypted = encrypted ? 1 : 0
            p.pointee.value_case = MAMSIM__V2__SERVICE_RESULT__VALUE_FILE
            p.pointee.file = f
        case .data(let bytes):
            p.pointee.value_case = MAMSIM__V2__SERVICE_RESULT__VALUE_DATA
            p.pointee.data = arena.bytes(bytes)
        case .protection(let summary):
            let q = arena.message(Mamsim__V2__ProtectionInfo.self, mamsim__v2__protection_info__init)
            if let summary {
                q.pointee.protected_ = 1
                q.pointee.owner = arena.string(summary.owner)
                q.pointee.encrypted = summary.encrypted ? 1 : 0
            }
            p.pointee.value_case = MAMSIM__V2__SERVICE_RESULT__VALUE_PROTECTION
            p.pointee.protection = q
        case .keychain(let status, let group, let value):
            let k = arena.message(Mamsim__V2__KeychainAnswer.self, mamsim__v2__keychain_answer__init)
            k.pointee.status = Mamsim__V2__KeychainStatus(rawValue: .init(truncatingIfNeeded: status.rawValue))
            k.pointee.group = arena.string(group)
            k.pointee.value = arena.bytes(value)
            p.pointee.value_case = MAMSIM__V2__SERVICE_RESULT__VALUE_KEYCHAIN
            p.pointee.keychain = k
        case .paste(let text):
            let q = arena.message(Mamsim__V2__PasteAnswer.self, mamsim__v2__paste_answer__init)
            q.pointee.text = arena.string(text)
            p.pointee.value_case = MAMSIM__V2__SERVICE_RESULT__VALUE_PASTE
            p.pointee.paste = q
        case .notification(let shown):
            let q = arena.message(Mamsim__V2__NotificationAnswer.self, mamsim__v2__notification_answer__init)
            q.pointee.shown = arena.string(shown)
            p.pointee.value_case = MAMSIM__V2__SERVICE_RESULT__VALUE_NOTIFICATION
            p.pointee.notification = q
        case .shareTargets(let handles):
            let q = arena.message(Mamsim__V2__ShareTargetList.self, mamsim__v2__share_target_list__init)
            q.pointee.n_handles = handles.count
            q.pointee.handles = arena.stringArray(handles)
            p.pointee.value_case = MAMSIM__V2__SERVICE_RESULT__VALUE_SHARE_TARGETS
            p.pointee.share_targets = q
        case .appConfig(let dictionaries):
            let c = arena.message(Mamsim__V2__AppConfigData.self, mamsim__v2__app_config_data__init)
            let list = arena.pointerArray(Mamsim__V2__AppConfigData__Dictionary.self, count: dictionaries.count)
            for (i, dict) in dictionaries.enumerated() {
                let d = arena.message(Mamsim__V2__AppConfigData__Dictionary.self, mamsim__v2__app_config_data__dictionary__init)
                // Sorted, so the same configuration always encodes to the same bytes.
                let pairs = dict.sorted { $0.key < $1.key }
                let entries = arena.pointerArray(Mamsim__V2__KeyValue.self, count: pairs.count)
                for (j, pair) in pairs.enumerated() {
                    let e = arena.message(Mamsim__V2__KeyValue.self, mamsim__v2__key_value__init)
                    e.pointee.key = arena.string(pair.key)
                    e.pointee.value = arena.string(pair.value)
                    entries?[j] = e
                }
                d.pointee.n_entries = pairs.count
                d.pointee.entries = entries
                list?[i] = d
            }
            c.pointee.n_dictionaries = dictionaries.count
            c.pointee.dictionaries = list
            p.pointee.value_case = MAMSIM__V2__SERVICE_RESULT__VALUE_APP_CONFIG
            p.pointee.app_config = c
        case .managedSecret(let secret):
            let m = arena.message(Mamsim__V2__ManagedSecretAnswer.self, mamsim__v2__managed_secret_answer__init)
            switch secret {
            case .password(let user, let password):
                m.pointee.kind = WireEnums.wire(.password)
                m.pointee.user_name = arena.string(user)
                m.pointee.password = arena.string(password)
            case .certificate(let der):
                m.pointee.kind = WireEnums.wire(.certificate)
                m.pointee.certificate = arena.bytes(der)
            case .identity(let der):
                m.pointee.kind = WireEnums.wire(.identity)
                m.pointee.certificate = arena.bytes(der)
            }
            p.pointee.value_case = MAMSIM__V2__SERVICE_RESULT__VALUE_MANAGED_SECRET
            p.pointee.managed_secret = m
        case .strings(let items):
            let l = arena.message(Mamsim__V2__StringList.self, mamsim__v2__string_list__init)
            l.pointee.n_items = items.count
            l.pointee.items = arena.stringArray(items)
            p.pointee.value_case = MAMSIM__V2__SERVICE_RESULT__VALUE_STRINGS
            p.pointee.strings = l
        case .token(let jwt, let home):
            let t = arena.message(Mamsim__V2__TokenAnswer.self, mamsim__v2__token_answer__init)
            t.pointee.token = arena.string(jwt)
            t.pointee.home_account_id = arena.string(home)
            p.pointee.value_case = MAMSIM__V2__SERVICE_RESULT__VALUE_TOKEN
            p.pointee.token = t
        }
        return p
    }

    private static func item(_ it: Item, _ arena: CArena) -> UnsafeMutablePointer<Mamsim__V2__Item> {
        let p = arena.message(Mamsim__V2__Item.self, mamsim__v2__item__init)
        p.pointee.id = arena.string(it.id)
        p.pointee.n_type_identifiers = it.typeIdentifiers.count
        p.pointee.type_identifiers = arena.stringArray(it.typeIdentifiers)
        p.pointee.file_name = arena.string(it.fileName)
        switch it.payload {
        case .inline(let bytes):
            p.pointee.payload_case = MAMSIM__V2__ITEM__PAYLOAD_INLINE_DATA
            p.pointee.inline_data = arena.bytes(bytes)
        case .file(let path):
            p.pointee.payload_case = MAMSIM__V2__ITEM__PAYLOAD_FILE_PATH
            p.pointee.file_path = arena.string(path)
        }
        if let o = it.ownership {
            let op = arena.message(Mamsim__V2__Ownership.self, mamsim__v2__ownership__init)
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
    /// a small payload fit, so an encode costs one allocation instead of one per field. A
    /// message that outgrows it (a batch of deliveries) gets blocks twice as large each time,
    /// so sixteen 1 KiB payloads cost three allocations, not sixteen.
    private static let blockSize = 4096
    private var block: UnsafeMutableRawPointer?
    private var capacity = 0
    private var used = 0
    /// Blocks filled before `block`, freed with it.
    private var filled: [UnsafeMutableRawPointer] = []

    init() {}

    /// `count` bytes aligned for any C type, valid until `freeAll`.
    private func allocate(_ count: Int) -> UnsafeMutableRawPointer {
        let start = (used + 15) & ~15
        if let block, count <= capacity - start {
            used = start + count
            return block + start
        }
        if let block { filled.append(block) }
        capacity = max(capacity * 2, Self.blockSize, count)
        let fresh = malloc(capacity)!
        block = fresh
        used = count
        return fresh
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

    /// An array of message pointers, each made by `make`.
    func pointerArray<E, T>(_ elements: [E], _ make: (E) -> UnsafeMutablePointer<T>) -> UnsafeMutablePointer<UnsafeMutablePointer<T>?>? {
        guard let list = pointerArray(T.self, count: elements.count) else { return nil }
        for (i, e) in elements.enumerated() { list[i] = make(e) }
        return list
    }

    func array(_ values: [UInt64]) -> UnsafeMutablePointer<UInt64>? {
        guard !values.isEmpty else { return nil }
        let p = allocate(MemoryLayout<UInt64>.stride * values.count).bindMemory(to: UInt64.self, capacity: values.count)
        for (i, v) in values.enumerated() { p[i] = v }
        return p
    }

    func stringArray(_ strings: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        guard let list = pointerArray(CChar.self, count: strings.count) else { return nil }
        for (i, s) in strings.enumerated() { list[i] = string(s) }
        return list
    }

    func freeAll() {
        free(block)
        block = nil
        capacity = 0
        used = 0
        for p in filled { free(p) }
        filled.removeAll()
    }
}
