import MAMLoop
import MAMModel
public import MAMWire
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension MAMApp {
    /// The items delivered to the app, each acknowledged to the host once the app's code is done
    /// with it: when the app asks for the next item, or lets go of the iterator.
    public struct Deliveries: AsyncSequence, Sendable {
        public typealias Element = Deliver
        typealias Stream = AsyncStream<(Deliver, Acknowledgement)>
        let stream: Stream

        /// Sends the acknowledgement once, at the latest when nothing holds it any more.
        final class Acknowledgement: Sendable {
            private let send: Mutex<(@Sendable () -> Void)?>
            init(_ send: @escaping @Sendable () -> Void) { self.send = Mutex(send) }
            func callAsFunction() { send.withLock { $0.take() }?() }
            deinit { send.withLock { $0.take() }?() }
        }

        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: Stream.AsyncIterator
            var handling: Acknowledgement?

            public mutating func next() async -> Deliver? {
                // The app came back for the next item: it is done with the last one.
                handling?()
                handling = nil
                guard let (deliver, taken) = await base.next() else { return nil }
                handling = taken
                return deliver
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
    }
}

/// A value handed to one other thread and used there only, carried through the threads between
/// untouched: a job for the loop (it captures the channel and reply handlers), a command's
/// reply, a delivery's acknowledgement — run on the loop thread (`LoopThread.submit`) — an app's
/// completion handler called on the main actor, an app's `Decodable` value handed to its
/// sequence once. `@unchecked Sendable` is that one promise: whoever hands it on never touches
/// it again.
package struct Handed<T>: @unchecked Sendable {
    package let value: T
    package init(_ value: T) { self.value = value }
}

/// A place for a loop-thread value that other threads hand on but never read while the loop
/// may write it: the channel (set on the loop thread during setup, then used only in jobs
/// submitted there) and the loop thread itself (set once, before any command can arrive).
package final class LoopOnlyBox<T>: @unchecked Sendable {
    package var value: T?
    package init() {}
}
