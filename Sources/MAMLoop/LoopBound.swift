/// The state of an object that lives on one event loop's thread: a connection's ledger, a
/// channel's queues, the loop's own lists. Such an object subclasses `LoopBound` with its state
/// as a struct (`Value`), and reaches each field through `value`, stored in the object itself.
///
/// The runtime checks every access to a class's stored property for exclusivity, and these
/// are touched for every item a share stream carries: each check was a call, and together
/// they were a measurable part of the host's and the apps' time per item. An object on one
/// loop's thread has no second accessor to guard against, so `value` is reached by its
/// address, which the runtime does not check: the subclasses promise, by being one, to be
/// touched on their loop's thread only. (The subclasses are in other modules, where a stored
/// property's `@exclusivity(unchecked)` is not honoured, and accessors that yield it were
/// coroutines whose frames a large value made the heap's.)
///
/// As swift-nio's `NIOLoopBound` does, a debug build checks the promise: every access asserts
/// it is made on the thread running the object's loop (`EventLoop.isCallerOnLoopThread`; any thread may set an
/// object up before its loop runs). Fields are reached through `value` (`child.value.bytesInFlight`):
/// no subclass writes an accessor per field, and no access pays for more than its address.
open class LoopBound<Value> {
    @usableFromInline final var storage: Value
    #if DEBUG
    /// The loop whose thread may touch `storage` (`nil`: not bound, as in a unit test).
    @usableFromInline final weak var loop: EventLoop?
    #endif

    /// `storage`, where it lies in the object: its first stored property, after the object's
    /// header, at the value's alignment (`LoopBoundTests` checks it against the property).
    @inlinable public final var value: Value {
        unsafeAddress {
            assertOnLoopThread()
            return UnsafePointer(address)
        }
        unsafeMutableAddress {
            assertOnLoopThread()
            return address
        }
    }

    @inlinable @inline(__always)
    final var address: UnsafeMutablePointer<Value> {
        // (Not through `AnyObject`: passing `self` as one was a retain and a release.)
        let object = UnsafeMutableRawPointer(Unmanaged.passUnretained(self).toOpaque())
        return (object + Self.storageOffset).assumingMemoryBound(to: Value.self)
    }

    /// An object's header is its type's metadata and its reference counts, a word each; its
    /// first stored property follows at that property's alignment.
    @inlinable @inline(__always)
    static var storageOffset: Int {
        let header = 2 * MemoryLayout<UnsafeRawPointer>.size
        let alignment = MemoryLayout<Value>.alignment
        return (header + alignment - 1) & ~(alignment - 1)
    }

    /// In a debug build, stops the program when the caller is not on the loop's thread.
    @inlinable @inline(__always)
    public final func assertOnLoopThread(file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        if let loop, !loop.isCallerOnLoopThread {
            preconditionFailure("\(Self.self) is bound to its loop's thread, and was touched from another thread", file: file, line: line)
        }
        #endif
    }

    /// `loop`: the loop whose thread alone may touch the state once it runs (checked in debug
    /// builds); `nil` for an object no loop runs.
    public init(_ value: Value, loop: EventLoop? = nil) {
        storage = value
        #if DEBUG
        self.loop = loop
        #endif
    }

    /// Binds the object to `loop` (a loop that is itself loop-bound binds to itself once built).
    public final func bind(to loop: EventLoop) {
        #if DEBUG
        self.loop = loop
        #endif
    }
}
