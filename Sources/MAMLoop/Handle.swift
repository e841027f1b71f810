internal import CLibUV

/// The life of every libuv handle wrapper: `open → closing → closed`.
///
/// Following libuv's rules (and Node's handle_wrap): the wrapper retains itself once through
/// `handle->data` while the handle is open, `close()` calls `uv_close`, and only the close
/// callback releases that retain and frees the handle's memory.
public class Handle {
    public enum State: Sendable { case open, closing, closed }

    public unowned let loop: EventLoop
    let handle: UnsafeMutablePointer<uv_handle_t>
    private let byteCount: Int
    /// Read on every write a pipe queues, on the loop thread only: the runtime's check of
    /// each access was one call per brokered item.
    @exclusivity(unchecked) public private(set) var state: State = .open
    private var onClose: (() -> Void)?

    init(loop: EventLoop, type: uv_handle_type) {
        self.loop = loop
        byteCount = uv_handle_size(type)
        handle = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 16)
            .initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
            .withMemoryRebound(to: uv_handle_t.self, capacity: 1) { $0 }
    }

    /// Call once the handle's `uv_*_init` succeeded: from here on only `close()` frees it.
    func adopt() {
        handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
    }

    /// For a handle whose init failed: it was never given to libuv.
    func discard() {
        state = .closed
        UnsafeMutableRawPointer(handle).deallocate()
    }

    /// Closes the handle; `completion` runs from the close callback. Closing twice is harmless.
    public func close(_ completion: (() -> Void)? = nil) {
        guard state == .open, uv_is_closing(handle) == 0 else { return }
        state = .closing
        onClose = completion
        willClose()
        uv_close(handle) { h in
            let me = Unmanaged<Handle>.fromOpaque(h!.pointee.data)
            let wrapper = me.takeUnretainedValue()
            wrapper.state = .closed
            let done = wrapper.onClose
            wrapper.onClose = nil
            wrapper.didClose()
            UnsafeMutableRawPointer(h!).deallocate()
            me.release()
            done?()
        }
    }

    /// Keeps the loop alive (default) or not while this handle is active.
    public func setReferenced(_ referenced: Bool) {
        if referenced { uv_ref(handle) } else { uv_unref(handle) }
    }

    /// Hook for subclasses: stop activity before `uv_close`.
    func willClose() {}
    /// Hook for subclasses: drop callbacks (they may capture the wrapper) after the close.
    func didClose() {}

    static func wrapper<T: Handle>(_ h: UnsafeMutableRawPointer?, as: T.Type) -> T {
        let handle = h!.assumingMemoryBound(to: uv_handle_t.self)
        return Unmanaged<Handle>.fromOpaque(handle.pointee.data).takeUnretainedValue() as! T
    }

    /// `body` with the wrapper of an open handle, for a callback libuv makes on every read:
    /// the handle's own retain (taken in `adopt`) keeps it alive for the call, so it is lent
    /// without a retain and release, and it is of the type its callback was set up for.
    static func withWrapper<T: Handle, R>(_ h: UnsafeMutableRawPointer?, as: T.Type, _ body: (T) -> R) -> R {
        let handle = h!.assumingMemoryBound(to: uv_handle_t.self)
        return Unmanaged<Handle>.fromOpaque(handle.pointee.data)._withUnsafeGuaranteedRef { body(unsafeDowncast($0, to: T.self)) }
    }
}
