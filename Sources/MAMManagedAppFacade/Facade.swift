import Foundation
public import MAMKit
import Synchronization

// UNOFFICIAL. This module re-declares, for tests, the public names and shapes of Apple's
// ManagedApp framework (iOS 18.4+, developer.apple.com/documentation/managedapp) and the few
// Security calls its secrets are used with, so that an app's own code written against them
// builds on Linux and runs as an app of a mamsim fleet, answered by the device's Declarative
// Device Management declarations. It is not Apple's framework, holds none of its code or text,
// and is named neutrally; a team re-exports it under the framework's names in its own test
// package (`@_exported import MAMManagedAppFacade` in a `ManagedApp` target and in a `Security`
// target). docs/MANAGEDAPP.md says what it covers. mamsim's own richer API stays in MAMManagedApp.

/// The mamsim app whose device answers the providers.
public enum ManagedAppFacade {
    private static let bound = Mutex<MAMApp?>(nil)

    /// Binds the providers to `app` (once its channel is open: `MAMApp.connect`).
    public static func connect(_ app: MAMApp) {
        bound.withLock { $0 = app }
    }

    /// Connects the process to the mamsim host and binds the providers: the one mamsim call an
    /// app written against the framework's names makes.
    public static func launch(runtime: String = "ManagedAppFacade/1", finishesLaunching: Bool = false) async throws -> MAMApp {
        let app = try await MAMApp.connect(runtime: runtime, finishesLaunching: finishesLaunching)
        connect(app)
        return app
    }

    /// Runs the app as iOS runs one: the calling thread becomes the main run loop while `body`,
    /// the app's launch and life, runs in a task with the app connected. The process exits when
    /// `body` returns (status 0), or at once with status 1 when there is no host to connect to.
    public static func run(runtime: String = "ManagedAppFacade/1", finishesLaunching: Bool = false,
                           _ body: @escaping @Sendable (MAMApp) async -> Void) -> Never {
        MAMApp.runProgram(runtime: runtime, finishesLaunching: finishesLaunching, bind: { connect($0) },
                          parkMainThread: { while true { _ = RunLoop.main.run(mode: .default, before: .distantFuture) } }, body)
    }

    /// The bound app, else the process's connection however it was made (`MAMApp.connect`, the
    /// façades' `run`/`launch`). A provider used with no connection at all is a mistake of the
    /// test's set-up: one line says the fix, and the process ends (status 1) — no stack trace
    /// for the run's output to quote the tail of.
    static var app: MAMApp {
        if let app = bound.withLock({ $0 }) ?? MAMApp.connected { return app }
        let line = "ManagedAppFacade: a ManagedApp provider was used before the app connected to mamsim; connect first (try await MAMApp.connect(), or ManagedAppFacade.launch() / run { … })\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
        exit(1)
    }
}

/// The sequences' channel: a value sent is handled when the app's `for await` loop comes back
/// for the next one, and `send` returns only then — so the device's notification is answered,
/// and a scenario's next step runs, after the app's code has acted on the value, never while it
/// is still at it. A loop the app leaves (its iterator gone) takes nothing more and holds no
/// sender back.
final class Rendezvous<Element: Sendable>: AsyncSequence, @unchecked Sendable {
    typealias Failure = Never
    // `@unchecked Sendable`: every field but the constant `patience` is read and written under `lock`.
    private let lock = NSLock()
    /// Values not taken yet, each with its number (0: the preloaded one, which no sender waits on).
    private var queue: [(index: Int, value: Element)] = []
    private var consumer: CheckedContinuation<Element?, Never>?
    /// The numbers of the values the loop took, and the senders waiting for it to come back.
    private var taken: Set<Int> = []
    private var sent = 0
    private var senders: [(index: Int, done: CheckedContinuation<Void, Never>)] = []
    private var finished = false

    /// Hands `value` to the loop and waits until the loop has handled it.
    func send(_ value: Element) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let (wake, closed, index): (CheckedContinuation<Element?, Never>?, Bool, Int) = lock.withLock {
                if finished { return (nil, true, 0) }
                sent += 1
                senders.append((sent, done))
                if let c = consumer {
                    consumer = nil
                    taken.insert(sent)
                    return (c, false, sent)
                }
                queue.append((sent, value))
                return (nil, false, sent)
            }
            if closed { return done.resume() }
            wake?.resume(returning: value)
            // A sequence the app made and never iterates (or stopped reading without letting
            // it go) must not hold the device's notification forever: past this, the value
            // counts as handled.
            Task { [weak self, patience] in
                try? await Task.sleep(for: patience)
                self?.release(index)
            }
        }
    }

    /// How long a sender waits for a loop that does not come back.
    let patience: Duration

    init(patience: Duration = .seconds(5)) {
        self.patience = patience
    }

    private func release(_ index: Int) {
        let done: CheckedContinuation<Void, Never>? = lock.withLock {
            guard let i = senders.firstIndex(where: { $0.index == index }) else { return nil }
            return senders.remove(at: i).done
        }
        done?.resume()
    }

    /// The first value, ahead of any sent: nothing waits for it to be handled.
    func preload(_ value: Element) {
        lock.withLock { queue.insert((0, value), at: 0) }
    }

    /// The loop asks for the next value: the ones it took before are handled.
    fileprivate func next() async -> Element? {
        let handled: [CheckedContinuation<Void, Never>] = lock.withLock {
            let ready = senders.filter { taken.contains($0.index) }
            senders.removeAll { taken.contains($0.index) }
            taken = []
            return ready.map(\.done)
        }
        handled.forEach { $0.resume() }
        return await withCheckedContinuation { (c: CheckedContinuation<Element?, Never>) in
            let value: Element?? = lock.withLock {
                if finished { return .some(nil) }
                if !queue.isEmpty {
                    let first = queue.removeFirst()
                    taken.insert(first.index)
                    return .some(first.value)
                }
                consumer = c
                return nil
            }
            if let value { c.resume(returning: value) }
        }
    }

    /// The loop is gone: senders are released, and nothing more is taken.
    fileprivate func leave() {
        let (waiting, c, stop): ([CheckedContinuation<Void, Never>], CheckedContinuation<Element?, Never>?, (@Sendable () -> Void)?) = lock.withLock {
            finished = true
            defer { senders = []; consumer = nil; queue = []; leaving = nil }
            return (senders.map(\.done), consumer, leaving)
        }
        waiting.forEach { $0.resume() }
        c?.resume(returning: nil)
        stop?()
    }

    /// What to stop when the loop is gone (the device observer), set once the observer is.
    private var leaving: (@Sendable () -> Void)?

    func onLeave(_ stop: @escaping @Sendable () -> Void) {
        lock.withLock { leaving = stop }
    }

    final class Iterator: AsyncIteratorProtocol {
        let channel: Rendezvous
        init(_ channel: Rendezvous) { self.channel = channel }
        func next() async -> Element? { await channel.next() }
        deinit { channel.leave() }
    }

    func makeAsyncIterator() -> Iterator { Iterator(self) }
}
