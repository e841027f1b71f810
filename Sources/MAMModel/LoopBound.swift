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
open class LoopBound<Value> {
    @usableFromInline final var storage: Value

    /// `storage`, where it lies in the object: its first stored property, after the object's
    /// header, at the value's alignment (`LoopBoundTests` checks it against the property).
    @inlinable public final var value: Value {
        unsafeAddress { UnsafePointer(address) }
        unsafeMutableAddress { address }
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

    public init(_ value: Value) {
        storage = value
    }
}
