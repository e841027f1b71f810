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

/// A value made and used on the channel's loop thread only, carried through other threads
/// untouched (a delivery's acknowledgement, sent back there with `submit`).
struct LoopOnly<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
