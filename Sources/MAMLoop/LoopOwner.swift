#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The thread that owns loop-bound state, captured when the state is made, and checked on
/// every way in (swift-nio's `preconditionInEventLoop`): state of a libuv loop touched from
/// another thread is a data race, so it stops the program with a message instead.
public struct LoopOwner: Sendable {
    private let thread: pthread_t

    /// Owned by the calling thread.
    public init() { thread = pthread_self() }

    public var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }

    public func check(_ what: @autoclosure () -> String = "loop-bound state", file: StaticString = #fileID, line: UInt = #line) {
        precondition(isCurrent, "\(what()) used off its loop's thread; go through the loop's Waker (HostController, MAMApp)", file: file, line: line)
    }
}
