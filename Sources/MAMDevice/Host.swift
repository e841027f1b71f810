public import MAMDeviceState
public import MAMLoop
import MAMModel
public import MAMPolicy
import MAMWire
#if canImport(Glibc)
import Glibc
#endif

/// The simulated device's host: supervisor, broker and enforcer's caller.
///
/// It spawns every app as a child with its channel on fd 3, assigns each its bundle id in the
/// handshake, routes every share (checking the sender's identity, stamping ownership, asking
/// `Enforcer`, delivering, waiting for the acknowledgement, answering exactly once), and tears
/// the fleet down: ask, wait, terminate, kill. Every child is untrusted: a malformed, oversized
/// or out-of-order frame, or a lie, gets an error or a disconnect and an event — never a crash.
///
/// Thread rule: a `Host` lives on its loop's thread; `HostController` is the way in from
/// elsewhere.
public final class Host {
    public let loop: EventLoop
    public private(set) var configuration: HostConfiguration
    /// Accounts, identities, files, keychain and audit log, persisted under the device directory.
    public let state: DeviceState
    public var fleet: Fleet { state.fleet }
    /// The PIN the user will type at the next PIN prompt of an app (scenario `switchIdentity.pin`).
    var pinAnswers: [String: String] = [:]
    var pasteboard: Pasteboard?
    let childEnvironment: [String: String]
    /// Items each app or extension accepted, by handle, in order: what it received.
    var receivedItems: [String: [ReceivedItem]] = [:]
    /// Written into each audit record: the scenario and step being run.
    public var auditContext: (scenario: String, step: String) = ("", "")
    var specs: [String: AppSpec] = [:]
    var specOrder: [String] = []
    /// Running (or starting, or stopping) children by handle.
    var children: [String: ChildConnection] = [:]
    let onEvent: (HostEvent) -> Void
    var readyWaiters: [String: [(Result<Int32, HostError>) -> Void]] = [:]
    var shuttingDown = false
    var shutdownCompletion: (() -> Void)?
    private var teardownTimer: Timer?
    var sweepTimer: Timer?
    /// Children replaced in `children` before they exited (an extension told `Bye` that is
    /// started again for the next share): kept until their exit, ended at teardown.
    var retiring: [ObjectIdentifier: ChildConnection] = [:]
    private var signalWatchers: [SignalWatcher] = []

    public init(loop: EventLoop, configuration: HostConfiguration, onEvent: @escaping (HostEvent) -> Void) throws(HostError) {
        self.loop = loop
        self.configuration = configuration
        self.onEvent = onEvent
        childEnvironment = Self.childEnvironment(for: configuration)
        do {
            state = try DeviceState(
                directory: configuration.deviceDirectory, fleet: configuration.fleet, policies: configuration.extraPolicies,
                clockStart: configuration.clockStart ?? DeviceState.defaultClockStart)
        } catch {
            throw .deviceState("\(error)")
        }
        for spec in configuration.apps {
            let key = spec.handle.lowercased()
            guard specs[key] == nil else { throw .duplicateApp(spec.handle) }
            specs[key] = spec
            specOrder.append(key)
        }
    }

    // MARK: - Lookup

    func spec(named name: String) -> AppSpec? {
        // Handles are usually written as declared: try the name as it is before folding case.
        if let s = specs[name] ?? specs[name.lowercased()] { return s }
        let bundle = BundleID(name)
        return configuration.apps.first { $0.bundleID == bundle }
    }

    public var handles: [String] { specOrder.compactMap { specs[$0]?.handle } }

    public func pid(of handle: String) -> Int32? {
        guard let c = children[handle.lowercased()], c.isLive else { return nil }
        return c.pid
    }

    public func isReady(_ handle: String) -> Bool { children[handle.lowercased()]?.state == .ready }

    // MARK: - Spawning

    /// Starts every app that starts with the fleet; `completion` gets the handles that failed.
    public func startFleet(_ completion: @escaping ([String: HostError]) -> Void) {
        let handles = specOrder.filter { specs[$0]!.startsWithFleet }
        guard !handles.isEmpty else { return completion([:]) }
        var remaining = handles.count
        var failures: [String: HostError] = [:]
        for h in handles {
            launch(h) { result in
                if case .failure(let e) = result { failures[h] = e }
                remaining -= 1
                if remaining == 0 { completion(failures) }
            }
        }
    }

    /// Spawns one app (if not running) and calls `completion` once it completed the handshake.
    public func launch(_ name: String, _ completion: @escaping (Result<Int32, HostError>) -> Void) {
        guard let spec = spec(named: name) else { return completion(.failure(.unknownApp(name))) }
        let key = spec.handle.lowercased()
        if let c = children[key], c.isLive {
            if c.state == .ready { return completion(.success(c.pid)) }
            readyWaiters[key, default: []].append(completion)
            return
        }
        guard !shuttingDown else { return completion(.failure(.shuttingDown)) }
        readyWaiters[key, default: []].append(completion)
        do {
            try spawn(spec)
        } catch {
            finishWaiters(key, .failure(error))
        }
    }

    private func spawn(_ spec: AppSpec) throws(HostError) {
        let key = spec.handle.lowercased()
        let pipe: Pipe
        do { pipe = try Pipe(loop: loop) } catch { throw .spawnFailed(spec.handle, "\(error)") }
        let child = ChildConnection(spec: spec, pipe: pipe, maximumFrameSize: configuration.maximumFrameSize)
        let program = spec.executable ?? configuration.appRuntime
        do {
            child.process = try ChildProcess(
                loop: loop, executable: program, arguments: spec.arguments, environment: childEnvironment, channel: pipe,
                quiet: configuration.quietChildren
            ) { [weak self, weak child] exit in
                guard let self, let child else { return }
                self.childExited(child, exit)
            }
        } catch {
            pipe.close()
            onEvent(.spawnFailed(handle: spec.handle, error: "\(program): \(error)"))
            throw .spawnFailed(spec.handle, "\(program): \(error)")
        }
        if let old = children[key], old !== child { retiring[ObjectIdentifier(old)] = old }
        children[key] = child
        // A new process: window identities start empty, a single-identity app runs as its
        // enrolled account again (what the store acknowledged survives).
        _ = try? state.appLaunched(app: spec.bundleID)
        onEvent(.spawned(handle: spec.handle, pid: child.pid))
        do {
            try pipe.startReading(onRead: { [weak self, weak child] chunk in
                guard let self, let child else { return }
                self.received(chunk, from: child)
            }, onEnd: { [weak self, weak child] error in
                guard let self, let child else { return }
                self.channelEnded(child, error)
            })
        } catch {
            disconnect(child, because: "cannot read its channel: \(error)")
            return
        }
        if let timer = try? Timer(loop: loop) {
            child.handshakeTimer = timer
            timer.start(after: configuration.handshakeTimeout) { [weak self, weak child] in
                guard let self else { return }
                guard let child else { return }
                child.handshakeTimer?.close()
                child.handshakeTimer = nil
                if child.state == .spawning {
                    self.disconnect(child, because: "sent no hello within \(self.configuration.handshakeTimeout) ms")
                }
            }
        }
    }

    func finishWaiters(_ key: String, _ result: Result<Int32, HostError>) {
        guard let waiters = readyWaiters.removeValue(forKey: key) else { return }
        for w in waiters { w(result) }
    }

    // MARK: - Exits and disconnects

    /// Cuts a child off: tells it why (best effort), stops listening, and kills it.
    func disconnect(_ child: ChildConnection, because why: String, hostile: Bool = true) {
        guard child.state != .exited else { return }
        if hostile { onEvent(.hostile(handle: child.handle, what: why, disconnected: true)) }
        if child.state != .closing {
            child.send(.error(code: Reason.badRequest.rawValue, message: why))
            child.pipe.flush()
            child.state = .closing
        }
        child.pipe.stopReading()
        child.exitExpected = true
        child.process?.kill(SIGKILL)
    }

    func channelEnded(_ child: ChildConnection, _ error: UVError?) {
        // The process exit callback does the bookkeeping; a child whose channel closed but
        // that keeps running is of no use to anyone.
        if child.state == .spawning || child.state == .ready {
            child.state = .closing
            if !child.exitExpected, error != nil {
                onEvent(.note("\(child.handle): channel ended: \(error!)"))
            }
            child.process?.kill(SIGTERM)
        }
    }

    func childExited(_ child: ChildConnection, _ exit: ChildProcess.Exit) {
        let key = child.handle.lowercased()
        child.state = .exited
        child.handshakeTimer?.close()
        child.handshakeTimer = nil
        child.byeTimer?.close()
        child.byeTimer = nil
        onEvent(.exited(handle: child.handle, pid: child.pid, exit: exit, expected: child.exitExpected))
        failOutstandingWork(of: child, exit: exit)
        child.pipe.close()
        child.process?.close()
        retiring[ObjectIdentifier(child)] = nil
        // A newer instance of the same extension may be starting: its waiters are not ours.
        if children[key] === child {
            children[key] = nil
            finishWaiters(key, .failure(.exitedDuringHandshake(child.handle, "\(exit)")))
        }
        if shuttingDown { teardownProgress() }
    }

    // MARK: - Teardown

    /// Ask every child to leave (`Bye`), wait, then SIGTERM, then SIGKILL; close every handle.
    /// `completion` runs when no child is left.
    public func shutdown(_ completion: @escaping () -> Void) {
        if shuttingDown {
            let previous = shutdownCompletion
            shutdownCompletion = { previous?(); completion() }
            return
        }
        shuttingDown = true
        shutdownCompletion = completion
        for child in children.values where child.isLive {
            child.exitExpected = true
            child.send(.bye(reason: "the device is shutting down"))
            child.state = .closing
        }
        if let timer = try? Timer(loop: loop) {
            teardownTimer = timer
            timer.start(after: configuration.byeGrace) { [weak self] in
                guard let self else { return }
                for child in Array(self.children.values) + self.retiring.values { child.process?.kill(SIGTERM) }
                timer.start(after: self.configuration.terminateGrace) { [weak self] in
                    guard let self else { return }
                    for child in Array(self.children.values) + self.retiring.values { child.process?.kill(SIGKILL) }
                }
            }
        }
        teardownProgress()
    }

    private func teardownProgress() {
        guard shuttingDown, children.isEmpty, retiring.isEmpty else { return }
        teardownTimer?.close()
        teardownTimer = nil
        sweepTimer?.close()
        sweepTimer = nil
        for w in signalWatchers { w.close() }
        signalWatchers.removeAll()
        let done = shutdownCompletion
        shutdownCompletion = nil
        done?()
    }

    /// Asks one child to leave (`Bye`); SIGTERM after `byeGrace`, SIGKILL after
    /// `terminateGrace`, so an extension that ignores its idle `Bye` does not linger.
    func endGracefully(_ child: ChildConnection, reason: String) {
        guard child.isLive else { return }
        child.exitExpected = true
        child.state = .closing
        child.send(.bye(reason: reason))
        guard let timer = try? Timer(loop: loop) else { return }
        child.byeTimer = timer
        let terminateGrace = configuration.terminateGrace
        timer.start(after: configuration.byeGrace) { [weak child] in
            guard let child else { return }
            child.process?.kill(SIGTERM)
            timer.start(after: terminateGrace) { [weak child] in
                child?.process?.kill(SIGKILL)
            }
        }
    }

    /// SIGINT and SIGTERM to the host tear the fleet down gracefully, then call `then`.
    public func handleTerminationSignals(then: @escaping (Int32) -> Void) throws {
        for sig in [SIGINT, SIGTERM] {
            let watcher = try SignalWatcher(loop: loop)
            try watcher.start(signal: sig) { [weak self] s in
                guard let self else { return }
                self.onEvent(.note("signal \(s): tearing the fleet down"))
                self.shutdown { then(s) }
            }
            signalWatchers.append(watcher)
        }
    }

    /// Kills a child as a crash would (SIGKILL by default). Its pending work fails.
    public func kill(_ name: String, signal: Int32 = SIGKILL) -> Bool {
        guard let spec = spec(named: name), let child = children[spec.handle.lowercased()], child.isLive else { return false }
        child.process?.kill(signal)
        return true
    }
}

/// Errors a host operation can meet; each a sentence naming the app.
public enum HostError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownApp(String)
    case duplicateApp(String)
    case spawnFailed(String, String)
    case exitedDuringHandshake(String, String)
    case notRunning(String)
    case shuttingDown
    case timedOut(String)
    case deviceState(String)

    public var description: String {
        switch self {
        case .unknownApp(let a): "no app or extension named \"\(a)\" is installed on this device"
        case .duplicateApp(let a): "two apps use the handle \"\(a)\"; give each a distinct id"
        case .spawnFailed(let a, let why): "could not start \(a): \(why)"
        case .exitedDuringHandshake(let a, let how): "\(a) \(how) before completing the handshake"
        case .notRunning(let a): "\(a) is not running"
        case .shuttingDown: "the device is shutting down"
        case .timedOut(let what): "\(what) timed out"
        case .deviceState(let why): "the device state cannot be opened: \(why)"
        }
    }
}
