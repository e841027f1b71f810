import MAMLoop
public import MAMModel
public import MAMWire
import Synchronization

/// The async way in to a `Host` from any thread: the host and its loop run on a thread of
/// their own, and each call here hops onto it and resumes when the host has answered.
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
    public init(configuration: HostConfiguration, onEvent: (@Sendable (HostEvent) -> Void)? = nil) throws {
        let box = HostBox()
        thread = try LoopThread { loop in
            box.host = try Host(loop: loop, configuration: configuration) { event in onEvent?(event) }
        }
        self.box = box
    }

    private func onHost<T: Sendable>(_ body: @escaping @Sendable (Host, @escaping @Sendable (T) -> Void) -> Void, orElse fallback: T) async -> T {
        await withCheckedContinuation { (c: CheckedContinuation<T, Never>) in
            let box = self.box
            let once = Once(c)
            let sent = thread.submit {
                guard let host = box.host else { return once.resume(fallback) }
                body(host) { once.resume($0) }
            }
            if !sent { once.resume(fallback) }
        }
    }

    /// Starts every app of the fleet and waits until each completed its handshake.
    /// Returns the apps that could not start, with why.
    public func startFleet() async -> [String: HostError] {
        await onHost({ host, done in host.startFleet { done($0) } }, orElse: ["*": .shuttingDown])
    }

    public func launch(_ app: String) async -> Result<Int32, HostError> {
        await onHost({ host, done in host.launch(app) { done($0) } }, orElse: .failure(.shuttingDown))
    }

    /// Kills an app as a crash would; returns false if it was not running.
    public func kill(_ app: String, signal: Int32 = 9) async -> Bool {
        await onHost({ host, done in done(host.kill(app, signal: signal)) }, orElse: false)
    }

    public func pid(of app: String) async -> Int32? {
        await onHost({ host, done in done(host.pid(of: app)) }, orElse: nil)
    }

    public func signIn(_ app: String, account: String) async -> Decision {
        await onHost({ host, done in done(host.signIn(app, account: account)) }, orElse: .blocked(.appNotRunning, because: "the device is shut down"))
    }

    public func signOut(_ app: String, account: String) async -> Decision {
        await onHost({ host, done in host.signOut(app, account: account) { done($0) } }, orElse: .blocked(.appNotRunning, because: "the device is shut down"))
    }

    /// Runs `body` on the host's loop thread with the host, and returns what it passes to
    /// `done`. For callers (the scenario runner) that need several host calls in one hop.
    public func withHost<T: Sendable>(_ body: @escaping @Sendable (Host, @escaping @Sendable (T) -> Void) -> Void, orElse fallback: T) async -> T {
        await onHost(body, orElse: fallback)
    }

    /// Sends a scripted command to an app's process.
    public func command(_ app: String, _ command: Command) async -> CommandResult {
        await onHost({ host, done in host.command(app, command) { done($0) } },
                     orElse: CommandResult(ok: false, outcome: "error", reason: Reason.appNotRunning.rawValue, explanation: "the device is shut down"))
    }

    /// Makes `app` share `item` to `destination` as `identity`, through its own process and
    /// the broker, and returns the outcome the app was told.
    public func share(from app: String, to destination: String, item: Item, identity: String = "", receiveAs: String = "") async -> ShareOutcome {
        var args = ["to": destination, "identity": identity]
        if !receiveAs.isEmpty { args["receiveAs"] = receiveAs }
        let result = await command(app, Command(verb: "share", args: args, item: item))
        return ShareOutcome(result)
    }

    /// Tears the fleet down (bye, wait, SIGTERM, SIGKILL), closes every handle and the loop.
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
                    thread.waker.close()
                    once.resume(())
                }
            }
            if !sent { once.resume(()) }
        }
        return thread.join()
    }
}

extension ShareOutcome {
    /// Reads the outcome an app runtime reported for a `share` command.
    public init(_ result: CommandResult) {
        let reason = Reason(rawValue: result.reason) ?? .badRequest
        switch result.outcome {
        case "delivered": self = .delivered
        case "blocked": self = .blocked(reason, result.explanation)
        default: self = .failed(reason, result.explanation.isEmpty ? result.outcome : result.explanation)
        }
    }
}

/// Resumes a continuation at most once, from whichever path gets there first.
final class Once<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, Never>?>
    init(_ c: CheckedContinuation<T, Never>) { continuation = Mutex(c) }
    func resume(_ value: T) { continuation.withLock { $0.take() }?.resume(returning: value) }
}
