import Foundation
public import MAMKit
import MAMModel
import MAMWire
import Synchronization

// UNOFFICIAL. This module re-declares, for tests, the names and shapes of the public Swift
// interface of the Intune App SDK for iOS (21.7.1), so that an app's own code that calls the
// SDK runs in a mamsim fleet: every call is answered by the mamsim host, under the tenant's
// policies of the scenario. It is not Microsoft's SDK, holds none of its code or text, and is
// named neutrally; a team re-exports it under the SDK's module name in its own test package
// (`@_exported import MAMIntuneFacade`). docs/FACADE.md says what it covers.

/// The mamsim app whose host answers the façade's calls.
public enum MAMIntuneFacade {
    private static let bound = Mutex<MAMApp?>(nil)

    /// Binds the façade to `app` (once its channel is open: `MAMApp.connect`) and hands the
    /// host's notifications and commands to the app's delegates and to NotificationCenter,
    /// on the main thread, in the order the host sent them.
    public static func connect(_ app: MAMApp) {
        bound.withLock { $0 = app }
        Strict.reset()
        GettersRead.reset()
        app.observeNotifications { n in await Delegates.deliver(n) }
        app.answerCommands { command in await Delegates.answer(command) }
        app.answerRestartApplication { await Delegates.restartApplication() }
    }

    /// Connects the process to the mamsim host and binds the façade: the one mamsim call a
    /// façade app makes. `finishesLaunching`: the app calls `MAMApp.finishedLaunching()` when
    /// its launch work is done.
    public static func launch(runtime: String = "MAMIntuneFacade/1", finishesLaunching: Bool = false) async throws -> MAMApp {
        let app = try await MAMApp.connect(runtime: runtime, finishesLaunching: finishesLaunching)
        connect(app)
        return app
    }

    /// Runs a façade app as iOS runs one: the calling thread — the process's main thread —
    /// becomes the app's main run loop, where the SDK's delegates, completions and
    /// notifications arrive (and what the app puts on `DispatchQueue.main` or the main actor
    /// runs), while `body`, the app's launch and life, runs in a task with the app connected.
    /// The process exits when `body` returns (status 0), or at once with status 1 when there
    /// is no host to connect to. Without it (`launch` from an async `main`), delegates still
    /// run on the main actor, which Swift on Linux does not keep on the main thread.
    public static func run(runtime: String = "MAMIntuneFacade/1", finishesLaunching: Bool = false,
                           _ body: @escaping @Sendable (MAMApp) async -> Void) -> Never {
        MAMApp.runProgram(runtime: runtime, finishesLaunching: finishesLaunching, bind: { connect($0) },
                          parkMainThread: { while true { _ = RunLoop.main.run(mode: .default, before: .distantFuture) } }, body)
    }

    /// The bound app; a façade call without one is a mistake of the test's set-up, said so.
    static var app: MAMApp {
        guard let app = bound.withLock({ $0 }) else {
            fatalError("MAMIntuneFacade: call MAMIntuneFacade.connect(app) with the app's MAMApp before using the Intune-shaped API")
        }
        return app
    }

    /// A synchronous getter's call (the SDK's getters answer at once): made blocking, as
    /// `account`'s when one is named (the policy of that account), else with the calling
    /// thread's identity. A host that does not answer is a failed call: `nil`.
    static func blocking<Call: ServiceCall>(_ call: Call, as account: String?) -> Reply<Call.Answer>? {
        let app = app
        return ThreadIdentity.withAccountId(account ?? ThreadIdentity.accountId) { try? app.callBlocking(call) }
    }

    /// A getter's call that must be answered: a host that does not answer (gone, timed out)
    /// stops the app with the getter and the reason, where a silent default would read as an
    /// answer ("not targeted", "allowed").
    static func answered<Call: ServiceCall>(_ call: Call, as account: String?, _ getter: String) -> Reply<Call.Answer> {
        let app = app
        do {
            return try ThreadIdentity.withAccountId(account ?? ThreadIdentity.accountId) { () throws(BlockingCallError) in try app.callBlocking(call) }
        } catch BlockingCallError.channelClosed {
            // The host ended the app (the SDK's restart, a teardown) while the getter waited: the
            // process ends quietly, as iOS ends an app, and no default is ever read as an answer.
            FileHandle.standardError.write(Data("MAMIntuneFacade: the host ended the app while \(getter) waited for its answer; the app exits\n".utf8))
            exit(0)
        } catch {
            fatalError("MAMIntuneFacade: \(getter) got no answer from the mamsim host (\(error)); the SDK's getters always answer, so a missing answer is reported, never read as a default")
        }
    }

    /// A call the SDK makes in the background (enrollment, remediation): sent, not awaited.
    /// The SDK's calls that return before the host answers (enrollment, unenrollment…): handed
    /// to the channel at once, so they reach the host in the order the app made them — a task
    /// each could start in any order, and an enrollment overtake the identity set before it.
    static func send<Call: ServiceCall>(_ call: Call) {
        app.send(call)
    }

    /// The app's account directory (signed in, registered or enrolled), asked now.
    static func directory() -> AccountDirectory {
        blocking(Service.Accounts(), as: nil)?.allowedAnswer ?? AccountDirectory()
    }

    /// The SDK's account id (the OID since SDK 20) of `name`, a UPN or OID the host knows
    /// for the app; `name` itself when it knows neither.
    static func accountId(of name: String) -> String {
        guard !name.isEmpty, let a = directory().accounts.first(where: { $0.matches(name) }) else { return name }
        return a.oid.isEmpty ? a.upn : a.oid
    }
}

extension DirectoryAccount {
    /// Whether `name` is this account's UPN or OID, in any letter case.
    func matches(_ name: String) -> Bool {
        let folded = name.lowercased()
        return (!upn.isEmpty && upn.lowercased() == folded) || (!oid.isEmpty && oid.lowercased() == folded)
    }

    /// The SDK's id for it: the OID, or the UPN of an account declared without one.
    var accountId: String { oid.isEmpty ? upn : oid }
}
