import MAMDeviceState
import MAMLoop
import MAMModel
import MAMPolicy
import MAMWire

extension Host {
    /// Bytes from a child: framing, decoding and protocol-order checks. Any violation cuts the
    /// child off; the host and the other children carry on.
    func received(_ chunk: UnsafeRawBufferPointer, from child: ChildConnection) {
        guard child.isLive else { return }
        do {
            try child.decoder.feed(chunk) { payload in
                guard child.isLive else { return }
                let frame: Frame
                do {
                    frame = try FrameParser.parse(payload)
                } catch {
                    throw HostileFrame("sent an unreadable frame: \(error)")
                }
                try self.dispatch(frame, from: child)
            }
        } catch let hostile as HostileFrame {
            disconnect(child, because: hostile.message)
        } catch {
            disconnect(child, because: "sent a bad frame: \(error)")
        }
    }

    struct HostileFrame: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    private func dispatch(_ frame: Frame, from child: ChildConnection) throws {
        guard frame.seq > child.lastSeqFromChild else {
            throw HostileFrame("sent frame seq \(frame.seq) after \(child.lastSeqFromChild) (sequence numbers must grow)")
        }
        child.lastSeqFromChild = frame.seq
        if child.state == .spawning {
            guard case .hello(let hello) = frame.body else {
                throw HostileFrame("sent \(frame.body.name) before hello")
            }
            guard hello.protocolVersion == Hello.currentProtocolVersion else {
                throw HostileFrame("speaks protocol version \(hello.protocolVersion); this host speaks \(Hello.currentProtocolVersion)")
            }
            welcome(child, hello: hello, seq: frame.seq)
            return
        }
        switch frame.body {
        case .hello:
            throw HostileFrame("sent a second hello")
        case .shareRequest(let request):
            share(request, seq: frame.seq, from: child)
        case .deliverAck(let ack):
            try acknowledged(ack, replyTo: frame.replyTo, from: child)
        case .commandResult(let result):
            guard let pending = child.pendingCommands.removeValue(forKey: frame.replyTo) else {
                throw HostileFrame("answered command \(frame.replyTo), which the host never sent")
            }
            pending.timer?.close()
            pending.completion(result)
        case .setIdentity(let request):
            child.send(.identityResult(setIdentity(request, for: child)), replyTo: frame.seq)
        case .getIdentity(let window):
            let owner = identityOwner(of: child.spec)
            let process = (try? state.processIdentity(app: owner)) ?? nil
            let ui = (try? state.effectiveIdentity(app: owner, window: window, for: .ui)) ?? nil
            child.send(.identityInfo(IdentityInfo(
                processIdentity: process ?? "", uiIdentity: ui ?? "",
                signedIn: accounts(of: child.spec).map(\.upn))), replyTo: frame.seq)
        case .ping(let bytes):
            child.send(.ping(bytes), replyTo: frame.seq)
        case .serviceRequest(let request):
            child.send(.serviceResult(service(request, for: child)), replyTo: frame.seq)
        case .bye:
            child.exitExpected = true
            child.state = .closing
        case .error(let code, let message):
            onEvent(.note("\(child.handle) reported an error: \(code): \(message)"))
        case .welcome, .shareResult, .deliver, .command, .identityResult, .identityInfo, .serviceResult:
            throw HostileFrame("sent \(frame.body.name), which only the host may send")
        }
    }

    private func welcome(_ child: ChildConnection, hello: Hello, seq: UInt64) {
        child.state = .ready
        child.handshakeTimer?.close()
        child.handshakeTimer = nil
        let kind: ChildKind = switch child.spec.descriptor.kind {
        case .app: .app
        case .share: .shareExtension
        case .action: .actionExtension
        }
        let key = child.handle.lowercased()
        let process = (try? state.processIdentity(app: identityOwner(of: child.spec))) ?? nil
        child.send(.welcome(Welcome(
            bundleID: child.bundleID, kind: kind, appHandle: child.handle,
            processIdentity: process ?? "", maxFrameSize: configuration.maximumFrameSize)),
            replyTo: seq)
        onEvent(.ready(handle: child.handle, bundle: child.bundleID, pid: child.pid))
        finishWaiters(key, .success(child.pid))
        let queued = child.queuedDeliveries
        child.queuedDeliveries.removeAll()
        for pending in queued { send(pending, to: child) }
    }

    /// Identity changes an app asks for. A switch to a managed identity runs conditional
    /// launch; the PIN prompt is answered with what the scenario supplied for this app.
    private func setIdentity(_ request: SetIdentity, for child: ChildConnection) -> IdentityResult {
        let owner = identityOwner(of: child.spec)
        let account: String? = request.account.isEmpty ? "" : request.account
        let pin = pinAnswers.removeValue(forKey: child.handle.lowercased())
        do {
            let report = switch request.scope {
            case .process: try state.setProcessAccountId(app: owner, account: account, pin: pin, now: nil)
            case .ui: try state.setUIPolicyAccountId(app: owner, window: request.window, account: account, pin: pin, now: nil)
            }
            let status: IdentityResult.Status = switch report.result {
            case .success: .success
            case .canceled: .canceled
            case .notAllowed: .notAllowed
            case .failed: .failed
            }
            audit(verb: "switchIdentity", source: child.handle, sourceIdentity: request.account, owner: request.account,
                  decision: "\(report.result)", reason: report.decision.blockedBy?.rawValue ?? "", explanation: report.decision.explanation)
            if report.result == .notAllowed, !request.account.isEmpty, !accounts(of: child.spec).contains(where: { $0.matches(request.account) }) {
                onEvent(.hostile(handle: child.handle, what: "asked for identity \(request.account), which is not signed in to it", disconnected: false))
            }
            return IdentityResult(
                status: status, reason: report.decision.blockedBy?.rawValue ?? "",
                explanation: report.decision.explanation, account: request.account)
        } catch {
            return IdentityResult(status: .failed, reason: Reason.badRequest.rawValue, explanation: "\(error)", account: request.account)
        }
    }

    /// The PIN the user types at `app`'s next PIN prompt.
    public func answerNextPinPrompt(_ app: String, with pin: String?) {
        guard let spec = spec(named: app) else { return }
        pinAnswers[spec.handle.lowercased()] = pin
    }

    // MARK: - Commands (scenario steps act through the app's own process)

    /// Sends a scripted command to a running app; `completion` runs exactly once.
    public func command(_ name: String, _ command: Command, _ completion: @escaping (CommandResult) -> Void) {
        guard let spec = spec(named: name) else {
            return completion(CommandResult(ok: false, outcome: "error", reason: Reason.unknownApp.rawValue, explanation: HostError.unknownApp(name).description))
        }
        guard let child = children[spec.handle.lowercased()], child.state == .ready else {
            return completion(CommandResult(ok: false, outcome: "error", reason: Reason.appNotRunning.rawValue, explanation: "\(spec.handle) is not running; launch it first"))
        }
        let seq = child.send(.command(command))
        let pending = PendingCommand(completion: completion)
        child.pendingCommands[seq] = pending
        if let timer = try? Timer(loop: loop) {
            pending.timer = timer
            timer.start(after: configuration.commandTimeout) { [weak child] in
                timer.close()
                guard let child, let p = child.pendingCommands.removeValue(forKey: seq) else { return }
                p.completion(CommandResult(ok: false, outcome: "error", reason: Reason.timeout.rawValue, explanation: "\(spec.handle) did not answer \"\(command.verb)\" within \(self.configuration.commandTimeout) ms"))
            }
        }
    }
}
