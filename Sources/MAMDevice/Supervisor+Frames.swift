import Foundation
import MAMDeviceState
import MAMLoop
import MAMModel
import MAMWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A running child's frames: framing and protocol-order checks, the handshake and launch that
/// make it ready, and the commands and notifications the host sends it.
extension Supervisor {
    /// Bytes from a child: framing, decoding and protocol-order checks. Any violation cuts the
    /// child off; the host and the other children carry on.
    func received(_ chunk: ReceivedBytes, from child: ChildConnection) {
        guard child.isLive else { return }
        var completed = false
        do {
            try child.value.decoder.feed(chunk, onFrame: { payload in
                completed = true
                guard child.isLive else { return }
                var frame = ChildFrame(body: .launchFinished)
                do {
                    try FrameParser.parse(payload, strings: child.strings, into: &frame)
                } catch {
                    // A body only the host sends is named as such, not as unreadable.
                    if case WireError.wrongSender = error { throw HostileFrame("\(error)") }
                    throw HostileFrame("sent an unreadable frame: \(error)")
                }
                try self.dispatch(frame, from: child)
                child.strings.recycle(&frame)
            })
            // The clock of an unfinished frame starts when it started: a child streaming
            // frames back to back (each read ending mid-frame) completes some on every read.
            if child.life.framesRead(buffered: child.value.decoder.bufferedByteCount != 0, completedOne: completed, now: loop.now) {
                watchDeadlines()
            }
        } catch let hostile as HostileFrame {
            disconnect(child, because: hostile.message)
        } catch {
            disconnect(child, because: "sent a bad frame: \(error)")
        }
    }

    func dispatch(_ frame: ChildFrame, from child: ChildConnection) throws {
        // A batch's items take the seqs before the frame's own, one more each.
        var items = 0
        if case .shareBatch(let shares) = frame.body {
            items = shares.count
            for (i, share) in shares.enumerated() where share.seq != child.lastSeqFromChild &+ UInt64(i + 1) {
                throw HostileFrame("sent a share_batch whose share \(i + 1) has seq \(share.seq), not \(child.lastSeqFromChild &+ UInt64(i + 1)) (a batch's shares are numbered on from the last frame)")
            }
        }
        guard frame.seq == child.lastSeqFromChild &+ UInt64(items + 1) else {
            throw HostileFrame("sent frame seq \(frame.seq) after \(child.lastSeqFromChild &+ UInt64(items)) (each frame's seq is one more than the last, from 1)")
        }
        child.lastSeqFromChild = frame.seq
        if child.state == .spawning {
            guard case .hello(let hello) = frame.body else {
                throw HostileFrame("sent \(frame.body.name) before hello")
            }
            guard hello.protocolVersion == Hello.currentProtocolVersion else {
                throw HostileFrame("speaks protocol version \(hello.protocolVersion); this host speaks \(Hello.currentProtocolVersion) (proto/mamsim/v2)")
            }
            child.takesBatches = hello.batches
            welcome(child, seq: frame.seq, finishesLaunching: hello.finishesLaunching)
            return
        }
        switch frame.body {
        case .hello:
            throw HostileFrame("sent a second hello")
        case .launchFinished:
            guard child.life.finishingLaunch else { throw HostileFrame("sent launch_finished without announcing it in hello, or twice") }
            launchFinished(child, late: false)
        case .commandResult(let result):
            guard let pending = child.pendingCommands.removeValue(forKey: frame.replyTo) else {
                throw HostileFrame("answered command \(frame.replyTo), which the host never sent or which timed out")
            }
            guard result.answers(pending.command) else {
                pending.completion(.error(.badRequest, "\(child.handle) answered \(pending.command.name) with \(result.name)"))
                throw HostileFrame("answered command \(pending.command.name) with \(result.name)")
            }
            pending.completion(result)
        case .ping(let bytes):
            child.send(.ping(bytes), replyTo: frame.seq)
        case .bye:
            child.life.saidBye()
        case .error(let code, let message):
            onEvent(.note("\(child.handle) reported an error: \(code): \(message)"))
        case .shareRequest, .deliverAck, .setIdentity, .getIdentity, .serviceRequest, .shareBatch, .deliverAcks:
            try router?.route(frame.body, seq: frame.seq, replyTo: frame.replyTo, from: child)
        }
    }

    func welcome(_ child: ChildConnection, seq: UInt64, finishesLaunching: Bool) {
        child.life.welcomed(finishesLaunching: finishesLaunching)
        let kind: ChildKind = switch child.spec.descriptor.kind {
        case .app: .app
        case .share: .shareExtension
        case .action: .actionExtension
        case .keyboard: .keyboardExtension
        // The v1.4 kinds receive and send items as a share extension does (RULES.md §1); the
        // wire's kinds name the ones the SDK treats apart.
        case .fileProvider, .widget, .autofill, .intents, .notificationService, .notificationContent, .broadcastUpload, .messages, .contentBlocker:
            .shareExtension
        }
        let process: String?
        do {
            process = try state.processIdentity(app: child.spec.identityOwner)
        } catch {
            onEvent(.note("\(child.handle): its process identity cannot be read: \(error)"))
            process = nil
        }
        child.send(.welcome(Welcome(
            bundleID: child.bundleID, kind: kind, appHandle: child.handle,
            processIdentity: process ?? "", maxFrameSize: configuration.maximumFrameSize, batches: true, delegate: child.spec.delegate)),
            replyTo: seq)
        onEvent(.ready(handle: child.handle, bundle: child.bundleID, pid: child.pid))
        router?.childBecameReady(child)
        if !finishesLaunching { finishWaiters(child.key, .success(child.pid)) }
    }

    /// The app's own launch work is done (or its time is up): its launch completes.
    func launchFinished(_ child: ChildConnection, late: Bool) {
        guard child.life.finishLaunch() else { return }
        if late { onEvent(.note("\(child.handle) did not finish launching within \(configuration.handshakeTimeout); its launch completes anyway")) }
        finishWaiters(child.key, .success(child.pid))
    }

    // MARK: - Commands

    /// Sends a command to a ready child; `completion` runs exactly once, with the child's
    /// answer, or `.error` if it is not running, dies, or does not answer in time.
    func command(_ spec: AppSpec, _ command: Command, _ completion: @escaping (CommandResult) -> Void) {
        guard let child = readyChild(spec.key) else {
            return completion(.error(.appNotRunning, "\(spec.handle) is not running; launch it first"))
        }
        let seq = child.send(.command(command))
        if case .exit = command { return completion(.acknowledged) }
        child.pendingCommands[seq] = PendingCommand(
            command: command, deadline: loop.now + configuration.commandTimeout.milliseconds, completion: completion)
        watchDeadlines()
    }

    /// Tells a running app an SDK notification; `completion` runs once the app took it (or
    /// could not: not running, gone, timed out). Apps not running are not told.
    func notify(_ spec: AppSpec, _ n: SDKNotification, _ completion: @escaping () -> Void = {}) {
        guard readyChild(spec.key) != nil else { return completion() }
        command(spec, .notification(n)) { [weak self] result in
            if case .notified = result { self?.onEvent(.notified(handle: spec.handle, name: n.kind.rawValue, account: n.account)) }
            completion()
        }
    }

    /// `restartApplication`, and the SDK's restart when the app does not restart on its own
    /// (`IntuneMAMPolicyDelegate.h`): the app is told; if its answer leaves the restart to the
    /// SDK, the device ends it and launches it again. `completion` runs once the app is back
    /// (or was not running, or restarts itself), with whether the device restarted it.
    func restartApplication(_ spec: AppSpec, _ n: SDKNotification, _ completion: @escaping (Bool) -> Void) {
        guard readyChild(spec.key) != nil else { return completion(false) }
        command(spec, .notification(n)) { [weak self] result in
            guard let self else { return completion(false) }
            guard case .notified(let itself) = result else { return completion(false) }
            onEvent(.notified(handle: spec.handle, name: n.kind.rawValue, account: n.account))
            guard !itself, let child = readyChild(spec.key) else { return completion(false) }
            onEvent(.note("\(spec.handle) leaves the restart to the Intune SDK: the device ends it and launches it again"))
            // A relaunch, not a failure: whoever waits for the app's launch (its launch work
            // was not finished yet, at a first policy during launch) waits for the new process —
            // unless every launch has ended in a restart so far: then they are told.
            let (again, overLimit) = launches.restarted(spec.key)
            if overLimit {
                finishWaiters(spec.key, .failure(.exitedBeforeFinishingLaunch(
                    spec.handle, "the Intune SDK restarted it \(again) times before it finished launching (each launch ended in another restart: an app wiped at launch that enrolls again, or a policy that restarts it each time)")))
            }
            child.life.endForRelaunch()
            child.onExit.append { [weak self] in
                guard let self else { return completion(false) }
                launches.relaunch(spec.key, underWay: true)
                launch(spec) { [weak self] _ in
                    self?.launches.relaunch(spec.key, underWay: false)
                    completion(true)
                }
            }
            end(child, reason: "the Intune SDK restarts the app (restartApplication)")
        }
    }

    // MARK: - Deadlines
}
