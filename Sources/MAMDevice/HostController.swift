import Foundation
import MAMLoop
public import MAMDeviceState
import MAMDeclarations
public import MAMModel
import MAMPolicy
public import MAMWire
import Synchronization

/// The async way in to a `Host` from any thread: the host and its loop run on a thread of
/// their own, and each call here hops onto it and resumes when the host has answered.
///
/// What an app does itself (share, switch identity) goes through the app's own process;
/// what the device decides (pasteboard, locations, printing, notifications, keychain, the
/// share sheet, files) is asked of the host directly, as typed calls.
public final class HostController: Sendable {
    private let thread: LoopThread
    private let box: HostBox

    /// `@unchecked Sendable` is safe: `host` is written once on the loop thread during setup,
    /// before `init` returns, and read only by jobs running on that same thread.
    private final class HostBox: @unchecked Sendable {
        var host: Host?
    }

    /// Creates the host on a new loop thread. `onEvent`, if given, is called on the loop
    /// thread for every event, in order (logs, progress displays, tests); it must be quick.
    /// If the host cannot be made, the loop thread closes its loop and ends before this throws.
    public init(configuration: HostConfiguration, onEvent: (@Sendable (HostEvent) -> Void)? = nil) throws {
        let box = HostBox()
        thread = try LoopThread { loop in
            box.host = try Host(loop: loop, configuration: configuration) { event in onEvent?(event) }
        }
        self.box = box
    }

    /// Runs `body` on the loop thread with the host and returns what it answers. A thrown
    /// error, an unknown app or a device already shut down become the answer type's own
    /// failure (`HostAnswer.unanswered`), the same way for every call.
    public func run<T: HostAnswer & Sendable>(_ body: @escaping @Sendable (Host) throws -> T) async -> T {
        await complete { host, done in done(try body(host)) }
    }

    /// Runs `body` on the loop thread with the host and a completion it calls exactly once,
    /// when the host has answered (after notifying apps, waiting for a child…).
    public func complete<T: HostAnswer & Sendable>(_ body: @escaping @Sendable (Host, @escaping @Sendable (T) -> Void) throws -> Void) async -> T {
        await withCheckedContinuation { (c: CheckedContinuation<T, Never>) in
            let box = self.box
            let once = Once(c)
            let sent = thread.submit {
                guard let host = box.host else { return once.resume(.unanswered(.shutDown)) }
                do { try body(host) { once.resume($0) } } catch { once.resume(.unanswered(HostFailure(error))) }
            }
            if !sent { once.resume(.unanswered(.shutDown)) }
        }
    }

    /// Runs a throwing `body` on the loop thread: its value, or what it threw as a
    /// `DeviceStateError` (a state read, an admin change, a file's protection).
    public func result<T: Sendable>(_ body: @escaping @Sendable (Host) throws -> T) async -> Result<T, DeviceStateError> {
        await run { .success(try body($0)) }
    }

    /// `run` for an answer that is not a `HostAnswer` (a pair, a flag): `fallback` when the
    /// device is shut down.
    public func run<T: Sendable>(orElse fallback: T, _ body: @escaping @Sendable (Host) -> T) async -> T {
        await complete { host, done in done(Optional(body(host))) } ?? fallback
    }

    // MARK: - Processes

    /// Starts every app of the fleet and waits until each completed its handshake.
    /// Returns the apps that could not start, with why.
    public func startFleet() async -> [String: HostError] {
        await complete { host, done in host.startFleet { done(Optional($0)) } } ?? ["*": .shuttingDown]
    }

    /// Spawns an app if it is not running and waits for its handshake.
    public func launch(_ app: String) async -> Result<Int32, HostFailure> {
        await complete { host, done in host.launch(app) { done($0.mapError(HostFailure.init)) } }
    }

    // MARK: - What apps do themselves (through their own process)

    /// Sends a command to an app's own process and returns its answer.
    public func command(_ app: String, _ command: Command) async -> CommandResult {
        await complete { host, done in host.command(app, command, done) }
    }

    /// Makes `app` share `item` to `destination` as `identity`, through its own process and
    /// the broker, and returns the outcome the app was told.
    /// `pin`: what the user types if the destination must switch to a managed identity to
    /// import the item and a PIN prompt appears.
    public func share(from app: String, to destination: String, item: Item, identity: String = "", receiveAs: String = "",
                      pin: String? = nil, window: String? = nil) async -> Verdict {
        if let pin { await answerNextPinPrompt(destination, with: pin) }
        // The window the share is made from reaches the broker beside the frame.
        let context = await run(orElse: nil) { Optional($0.configuration.context) }
        if let window { context?.nextShare(of: app, fromWindow: window) }
        defer { if window != nil { context?.nextShare(of: app, fromWindow: nil) } }
        let request = ShareRequest(destination: destination, item: item, identity: identity, receiveAs: receiveAs)
        let outcome: Verdict = switch await command(app, .share(request)) {
        case .share(let outcome): outcome
        case .error(let r, let why): .failed(r, why)
        case let other: .failed(.badRequest, "\(app) answered share with \(other.name)")
        }
        // An answer no prompt used must not answer a later one.
        if pin != nil { await answerNextPinPrompt(destination, with: nil) }
        return outcome
    }

    /// Makes `app` switch identity (`window == nil`: its process identity) through its own
    /// process; the user types `pin` at a PIN prompt, if one appears.
    /// `mainThread`: the thread identity the app's main thread carries as it switches (`nil`: none).
    public func setIdentity(_ app: String, account: String, window: String?, pin: String?, mainThread: String? = nil,
                            newPin: String? = nil) async -> IdentityResult {
        await answerNextPinPrompt(app, with: pin, newPin: newPin)
        let request = SetIdentity(scope: window == nil ? .process : .ui, window: window ?? "", account: account, mainThread: mainThread)
        switch await command(app, .setIdentity(request)) {
        case .setIdentity(let r): return r
        case .error(let r, let why): return IdentityResult(status: .failed, reason: r, explanation: why, account: account)
        case let other: return IdentityResult(status: .failed, reason: .badRequest, explanation: "\(app) answered set_identity with \(other.name)", account: account)
        }
    }

    /// What the user types at `app`'s next PIN prompt (`nil`: no scripted answer).
    private func answerNextPinPrompt(_ app: String, with pin: String?, newPin: String? = nil) async {
        let context = await run(orElse: nil) { Optional($0.configuration.context) }
        context?.answerNextPinPrompt(app, with: pin, newPin: newPin)
    }

    /// Tears the fleet down (`HostConfiguration.teardown`), closes every handle and the loop.
    /// Returns `uv_loop_close`'s status: 0 when nothing was left open.
    public func shutdown() async -> Int32 {
        let box = self.box
        let thread = self.thread
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let once = Once(c)
            let sent = thread.submit {
                guard let host = box.host else { return once.resume(()) }
                host.shutdown {
                    box.host = nil
                    thread.stopAcceptingJobs()
                    once.resume(())
                }
            }
            if !sent { once.resume(()) }
        }
        return thread.join()
    }
}

/// Resumes a continuation at most once, from whichever path gets there first.
final class Once<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, Never>?>
    init(_ c: CheckedContinuation<T, Never>) { continuation = Mutex(c) }
    func resume(_ value: T) { continuation.withLock { $0.take() }?.resume(returning: value) }
}
