import MAMLoop
public import MAMModel
public import MAMWire
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The async Swift API a simulated app links: connect to the host on fd 3, share items,
/// receive deliveries, set and read identities.
///
/// The channel lives on a libuv loop in a thread of its own; every call hops there through
/// the loop's waker and resumes the caller when the host answers.
public final class MAMApp: Sendable {
    public let welcome: Welcome
    /// Items delivered to this app, in order, each exactly once. The host hears the app took
    /// an item when the app's code is done with it — it asks for the next one, or stops
    /// iterating — so the step that shared it ends after what the app did on receipt (a file
    /// written, a call made), never racing it.
    public let deliveries: Deliveries
    /// SDK notifications (policy or app configuration changed, restart…), in order; the host
    /// learns the app took each one.
    public let notifications: AsyncStream<SDKNotification>
    private let thread: LoopThread
    private let channel: LoopOnlyBox<AppChannel>
    private let observers: Observers

    /// Code that runs for each SDK notification before the host is told the app took it, so
    /// what the app does about a change is done when the step that changed it completes.
    final class Observers: Sendable {
        private let handlers = Mutex<[Int: @Sendable (SDKNotification) async -> Void]>([:])
        private let next = Atomic<Int>(0)

        func add(_ h: @escaping @Sendable (SDKNotification) async -> Void) -> Int {
            let id = next.add(1, ordering: .relaxed).newValue
            handlers.withLock { $0[id] = h }
            return id
        }

        func remove(_ id: Int) { _ = handlers.withLock { $0.removeValue(forKey: id) } }

        func run(_ n: SDKNotification) async {
            for h in handlers.withLock({ $0.sorted { $0.key < $1.key }.map(\.value) }) { await h(n) }
        }

        /// `IntuneMAMPolicyDelegate restartApplication`'s answer: TRUE, the app restarts on its
        /// own; FALSE (no answer given), the SDK restarts it.
        let restartsItself = Mutex<@Sendable () async -> Bool>({ false })

        /// The app's answers to the host's other commands (its delegates'); `nil` answers
        /// that the app cannot do the command.
        let commands = Mutex<(@Sendable (Command) async -> CommandResult?)?>(nil)

        func answer(_ command: Command) async -> CommandResult {
            guard let handler = commands.withLock({ $0 }), let result = await handler(command) else {
                return .error(.badRequest, "this app answers no \(command.name) command")
            }
            return result
        }
    }

    /// What the loop thread hands the app's handlers, in the order the host sent it.
    private enum Handled {
        case notification(SDKNotification, Handed<(CommandResult) -> Void>)
        case command(Command, Handed<(CommandResult) -> Void>)
    }

    /// Connects on fd 3 and completes the handshake. `finishesLaunching`: the app has launch
    /// work of its own and calls `finishedLaunching()` when it is done; the host's launch of
    /// the app completes then.
    /// Notifications are handled one after the other, in the order the host sent them (as
    /// NotificationCenter and the SDK's delegates are called): a status the delegate hears
    /// second must not overtake the first. Each is answered on the loop thread once its
    /// observers are done.
    private static func handleInOrder(_ handled: AsyncStream<Handled>, observers: Observers, thread threadBox: LoopOnlyBox<LoopThread>) {
        Task {
            for await work in handled {
                switch work {
                case .notification(let n, let answer):
                    await observers.run(n)
                    let itself = n.kind == .restartApplication ? await observers.restartsItself.withLock { $0 }() : false
                    threadBox.value?.submit { answer.value(.notified(restartsItself: itself)) }
                case .command(let command, let answer):
                    let result = await observers.answer(command)
                    threadBox.value?.submit { answer.value(result) }
                }
            }
        }
    }

    public static func connect(runtime: String = "MAMKit/1", fd: Int32 = 3, finishesLaunching: Bool = false) async throws -> MAMApp {
        let box = LoopOnlyBox<AppChannel>()
        let (deliveries, deliveryInput) = AsyncStream.makeStream(of: (Deliver, Deliveries.Acknowledgement).self)
        let (notifications, notificationInput) = AsyncStream.makeStream(of: SDKNotification.self)
        let observers = Observers()
        // Set once, right after the loop thread exists and before any command can arrive
        // (commands follow the handshake).
        let threadBox = LoopOnlyBox<LoopThread>()
        let (handled, handledInput) = AsyncStream.makeStream(of: Handled.self)
        handleInOrder(handled, observers: observers, thread: threadBox)
        let welcome = Mutex<CheckedContinuation<Welcome, any Error>?>(nil)
        let thread = try LoopThread { loop in
            let channel = try AppChannel(loop: loop, fd: fd)
            box.value = channel
            channel.onDeliverLater = { deliver, accept in
                let onLoop = Handed(accept)
                let taken = Deliveries.Acknowledgement { threadBox.value?.submit { onLoop.value(true) } }
                if case .terminated = deliveryInput.yield((deliver, taken)) { accept(true) }
            }
            channel.onCommand = { command, reply in
                // The reply goes back on the loop thread once the app's handlers are done.
                guard case .notification(let n) = command else {
                    handledInput.yield(.command(command, Handed(reply)))
                    return
                }
                notificationInput.yield(n)
                handledInput.yield(.notification(n, Handed(reply)))
            }
            channel.onClose = { why in
                deliveryInput.finish()
                notificationInput.finish()
                handledInput.finish()
                welcome.withLock { $0.take() }?.resume(throwing: MAMKitError.channelClosed(why))
            }
            channel.onWelcome = { w in welcome.withLock { $0.take() }?.resume(returning: w) }
            try channel.start(runtime: runtime, finishesLaunching: finishesLaunching)
        }
        threadBox.value = thread
        let w = try await withCheckedThrowingContinuation { (c: CheckedContinuation<Welcome, any Error>) in
            welcome.withLock { $0 = c }
            thread.submit {
                if let w = box.value?.welcome { welcome.withLock { $0.take() }?.resume(returning: w) }
            }
        }
        let app = MAMApp(welcome: w, deliveries: Deliveries(stream: deliveries), notifications: notifications, thread: thread, channel: box, observers: observers)
        // The process's connection, whichever documented way it was made: the façades'
        // providers (Apple's ManagedApp names) bind to it when the app bound none itself.
        processConnection.withLock { $0 = $0 ?? app }
        return app
    }

    private static let processConnection = Mutex<MAMApp?>(nil)

    /// The first app this process connected (`connect`, or a façade's `run`/`launch`), or `nil`
    /// before any connection.
    public static var connected: MAMApp? { processConnection.withLock { $0 } }

    private init(welcome: Welcome, deliveries: Deliveries, notifications: AsyncStream<SDKNotification>,
                 thread: LoopThread, channel: LoopOnlyBox<AppChannel>, observers: Observers) {
        self.observers = observers
        self.welcome = welcome
        self.deliveries = deliveries
        self.notifications = notifications
        self.thread = thread
        self.channel = channel
    }

    public var bundleID: BundleID { welcome.bundleID }

    /// Runs `handler` for every SDK notification, before the host learns the app took it.
    /// Returns a token for `removeObserver`.
    @discardableResult
    public func observeNotifications(_ handler: @escaping @Sendable (SDKNotification) async -> Void) -> Int {
        observers.add(handler)
    }

    public func removeObserver(_ token: Int) { observers.remove(token) }

    /// How the app answers `restartApplication` (the SDK received policy for the first time, or
    /// a remediation enrolled an account): `true` when it restarts on its own, so the SDK does
    /// not; without an answer the SDK restarts the app (the device ends and relaunches it).
    public func answerRestartApplication(_ answer: @escaping @Sendable () async -> Bool) {
        observers.restartsItself.withLock { $0 = answer }
    }

    /// How the app answers the host's commands to its delegates: `wipeAccountData`,
    /// `identitySwitchRequired`, `addIdentity`, `allowedAccountsChanged`. The host waits for the
    /// answer, in order with the notifications; `nil` (or no handler) answers that the app
    /// cannot do the command, which the host takes as a refusal.
    public func answerCommands(_ handler: @escaping @Sendable (Command) async -> CommandResult?) {
        observers.commands.withLock { $0 = handler }
    }

    /// Tells the host the launch work announced at `connect(finishesLaunching: true)` is done.
    public func finishedLaunching() {
        let box = channel
        thread.submit { box.value?.send(.launchFinished) }
    }

    /// Shares an item through the broker. `identity` is the sender's effective identity
    /// (`""` = unmanaged); the host checks it is signed in to this app.
    public func share(_ item: Item, to destination: String, as identity: String, receiveAs: String = "") async -> Verdict {
        let request = ShareRequest(destination: destination, item: item, identity: identity, receiveAs: receiveAs)
        return await withCheckedContinuation { c in
            let box = channel
            let sent = thread.submit {
                guard let ch = box.value else { return c.resume(returning: .failed(.appNotRunning, "the host channel is closed")) }
                ch.share(request) { c.resume(returning: $0) }
            }
            if !sent { c.resume(returning: .failed(.appNotRunning, "the host channel is closed")) }
        }
    }

    /// Sets a window's UI identity (or the process identity with `window == nil`). A UI switch
    /// made by a task that carries a thread identity (`ThreadIdentity.withAccountId`) other
    /// than `account` is `notAllowed`, as the SDK refuses a UI switch while the main thread's
    /// identity contradicts it.
    public func setIdentity(_ account: String, window: String? = nil) async -> IdentityResult {
        let mainThread = window == nil ? nil : ThreadIdentity.accountId
        return await onChannel(IdentityResult(status: .failed, reason: .appNotRunning, explanation: "the host channel is closed", account: account)) { ch, done in
            ch.setIdentity(account, window: window, mainThread: mainThread, completion: done)
        }
    }

    /// The identities the host holds for this app.
    public func identity(window: String = "") async -> IdentityInfo? {
        await onChannel(nil) { ch, done in ch.identity(window: window, completion: done) }
    }

    /// Any service of the host (see `ServiceRequest`), asked for `window` (`""` = the main
    /// window) with the calling task's thread identity (`ThreadIdentity`): the host decides
    /// UI calls with thread ?? window ?? process, as the SDK does.
    public func service(_ request: ServiceRequest, window: String = "") async -> ServiceResult {
        let context = ServiceContext(window: window, thread: ThreadIdentity.accountId)
        return await onChannel(ServiceResult(.failed(.appNotRunning, "the host channel is closed"))) { ch, done in
            ch.service(request, context: context, completion: done)
        }
    }

    /// A typed service call (`Service.ReadFile`, `Service.PolicyQuery`…): the verdict, and the
    /// answer as the call's own Swift type. Made with the calling task's thread identity, for
    /// `window` (`""` = the main window).
    public func call<Call: ServiceCall>(_ call: Call, window: String = "") async -> Reply<Call.Answer> {
        Reply(await service(call.request, window: window), for: Call.self)
    }

    /// The same call for synchronous code (an SDK-shaped getter such as `isSaveToAllowed`):
    /// it reads the calling thread's identity first, hands the call to the channel's loop and
    /// waits on a semaphore of its own until the host answers.
    ///
    /// Rules (docs/ARCHITECTURE.md, "Blocking calls"): never on the channel's loop thread —
    /// that thread answers the call, so waiting there would wait for ever: it traps, saying so;
    /// it ends with `BlockingCallError.timedOut` after `timeout`, and with `.channelClosed`
    /// when the host goes away. The host answers service calls while one of its commands waits
    /// on this app (a delegate that calls a getter does not deadlock): only this loop must be
    /// free.
    public func callBlocking<Call: ServiceCall>(_ call: Call, window: String = "", timeout: Duration = .seconds(30)) throws(BlockingCallError) -> Reply<Call.Answer> {
        precondition(!thread.isCurrent, """
            callBlocking(\(Call.self)) was made on MAMKit's loop thread, which is the thread that \
            answers it: it would wait for ever. Call it from another thread, or use `await call(_:)`.
            """)
        let context = ServiceContext(window: window, thread: ThreadIdentity.accountId)
        let waiter = BlockingWaiter<ServiceResult>()
        let box = channel
        let request = call.request
        let submitted = thread.submit {
            guard let ch = box.value, !ch.ended else { return waiter.finish(nil) }
            // The channel answers what was waiting when it ends: that is no answer of the host's.
            ch.service(request, context: context) { [weak ch] result in waiter.finish(ch?.ended == false ? result : nil) }
        }
        guard submitted else { throw .channelClosed }
        switch waiter.wait(timeout: timeout) {
        case .answered(let result?): return Reply(result, for: Call.self)
        case .answered(nil): throw .channelClosed
        case .timedOut: throw .timedOut(timeout)
        }
    }

    /// `identity(window:)` for synchronous code (the SDK's identity getters), under the same
    /// rules as `callBlocking`.
    public func identityBlocking(window: String = "", timeout: Duration = .seconds(30)) throws(BlockingCallError) -> IdentityInfo {
        precondition(!thread.isCurrent, "identityBlocking was made on MAMKit's loop thread, which answers it: use `await identity(window:)`.")
        let waiter = BlockingWaiter<IdentityInfo>()
        let box = channel
        let submitted = thread.submit {
            guard let ch = box.value, !ch.ended else { return waiter.finish(nil) }
            ch.identity(window: window) { [weak ch] info in waiter.finish(ch?.ended == false ? info : nil) }
        }
        guard submitted else { throw .channelClosed }
        switch waiter.wait(timeout: timeout) {
        case .answered(let info?): return info
        case .answered(nil): throw .channelClosed
        case .timedOut: throw .timedOut(timeout)
        }
    }

    /// Runs `body` on the channel's loop thread (tests: what a callback of the app's would do).
    func onLoopThreadForTesting(_ body: @escaping @Sendable () -> Void) {
        _ = thread.submit(body)
    }

    /// Runs `body` with the channel on its loop thread and returns what it passes to `done`.
    /// A service call handed to the channel's loop now, on the calling thread, without waiting
    /// for the answer: calls made one after another reach the host in that order (the loop
    /// runs its jobs first in, first out), which separate tasks awaiting `call` do not promise.
    /// `answered` runs on the loop thread with the host's reply.
    public func send<Call: ServiceCall>(_ call: Call, window: String = "", answered: @escaping @Sendable (Reply<Call.Answer>) -> Void = { _ in }) {
        let context = ServiceContext(window: window, thread: ThreadIdentity.accountId)
        let request = call.request
        submitOnChannel(ServiceResult(.failed(.appNotRunning, "the host channel is closed")), { ch, done in
            ch.service(request, context: context, completion: done)
        }, answered: { answered(Reply($0, for: Call.self)) })
    }

    /// `setIdentity` handed to the loop now, in order with `send` (see there).
    public func setIdentity(_ account: String, window: String?, answered: @escaping @Sendable (IdentityResult) -> Void) {
        let mainThread = window == nil ? nil : ThreadIdentity.accountId
        submitOnChannel(IdentityResult(status: .failed, reason: .appNotRunning, explanation: "the host channel is closed", account: account), { ch, done in
            ch.setIdentity(account, window: window, mainThread: mainThread, completion: done)
        }, answered: answered)
    }

    private func submitOnChannel<T: Sendable>(_ fallback: T, _ body: @escaping (AppChannel, @escaping (T) -> Void) -> Void,
                                              answered: @escaping @Sendable (T) -> Void) {
        let box = channel
        let job = Handed { [box] in
            guard let ch = box.value else { return answered(fallback) }
            body(ch) { answered($0) }
        }
        if !thread.submit({ job.value() }) { answered(fallback) }
    }

    private func onChannel<T: Sendable>(_ fallback: T, _ body: @escaping (AppChannel, @escaping (T) -> Void) -> Void) async -> T {
        await withCheckedContinuation { (c: CheckedContinuation<T, Never>) in
            let box = channel
            let job = Handed { [box] in
                guard let ch = box.value else { return c.resume(returning: fallback) }
                body(ch) { c.resume(returning: $0) }
            }
            if !thread.submit({ job.value() }) { c.resume(returning: fallback) }
        }
    }

    /// Closes the channel and waits for the loop thread to finish.
    public func close() {
        let box = channel
        thread.submit {
            box.value?.close()
            box.value = nil
        }
        thread.submit { [thread] in thread.stopAcceptingJobs() }
        _ = thread.join()
    }
}
