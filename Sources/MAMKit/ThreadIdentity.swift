public import MAMModel

/// The thread identity of RULES.md §1 for Swift code in an app: the SDK's
/// `IntuneMAMSwiftContextManager.setAccountId(_:forScope:)`, built on a task-local value.
///
/// Semantics, all Swift's own (SE-0311 task-local values):
/// - `withAccountId(_:operation:)` sets the identity for the duration of `operation` only;
///   nested scopes see the innermost value and the outer one comes back when a scope ends,
///   even when it throws.
/// - Child tasks (`async let`, task groups) and unstructured `Task { }` created inside a scope
///   inherit the value, because they copy the creator's task-locals when created.
/// - `Task.detached` and work submitted to Dispatch, threads or callbacks do not inherit it.
///   The SDK gives a `DispatchWorkItem` the identity of the code that **created** it; in Swift
///   the same holds when the closure is made with `ThreadIdentity.capturing(_:)`, which reads
///   the identity once, at creation, and re-enters that scope when the closure runs.
/// - Outside any task the sync variant still works: the runtime keeps the value for the
///   current thread while the scope lasts.
///
/// This file depends only on MAMModel so it can live in the app-side library (MAMKit).
public enum ThreadIdentity {
    @TaskLocal static var current: String?

    /// The thread identity in effect here: `nil` when no scope set one, `""` for the
    /// unmanaged identity.
    public static var accountId: String? { current }

    /// Runs `operation` with the thread identity `accountId` (`""` = no user / personal).
    public static func withAccountId<R>(_ accountId: String?, operation: () throws -> R) rethrows -> R {
        try $current.withValue(accountId, operation: operation)
    }

    /// Runs async `operation` with the thread identity `accountId`; child tasks inherit it.
    public static func withAccountId<R>(_ accountId: String?, isolation: isolated (any Actor)? = #isolation,
                                        operation: () async throws -> R) async rethrows -> R {
        try await $current.withValue(accountId, operation: operation, isolation: isolation)
    }

    /// Wraps `body` so that it runs with the identity in effect **now**, where the closure is
    /// created, whichever thread or queue later runs it (the SDK's `DispatchWorkItem` rule).
    public static func capturing<R>(_ body: @escaping @Sendable () -> R) -> @Sendable () -> R {
        let creator = current
        return { $current.withValue(creator) { body() } }
    }

    /// The identity layers of a task on this thread: the process and window identities the host
    /// reported, with the current thread identity on top.
    public static func layers(process: String?, ui: String?) -> IdentityLayers {
        IdentityLayers(process: process, ui: ui, thread: current)
    }
}
