internal import CLibUV

/// A libuv poll handle: calls back when a descriptor the loop does not own (a control socket)
/// becomes readable, so its owner reads it without ever blocking the loop.
final class DescriptorWatcher: Handle {
    private var callback: ((UVError?) -> Void)?

    init(loop: EventLoop, fd: Int32) throws(UVError) {
        super.init(loop: loop, type: UV_POLL)
        let status = uv_poll_init(loop.raw, pollPointer, fd)
        if status < 0 { discard(); throw UVError(status) }
        adopt()
    }

    private var pollPointer: UnsafeMutablePointer<uv_poll_t> {
        UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_poll_t.self)
    }

    /// Watches for readability (and the peer's hang-up, which reads as readable): `callback`
    /// gets `nil`, or the poll's error.
    func startReading(_ callback: @escaping (UVError?) -> Void) throws(UVError) {
        guard state == .open else { throw UVError(-EBADF) }
        self.callback = callback
        try UVError.check(uv_poll_start(pollPointer, Int32(UV_READABLE.rawValue), { p, status, _ in
            Handle.wrapper(UnsafeMutableRawPointer(p), as: DescriptorWatcher.self).callback?(status < 0 ? UVError(status) : nil)
        }))
    }

    func stop() {
        guard state == .open else { return }
        uv_poll_stop(pollPointer)
    }

    override func willClose() { uv_poll_stop(pollPointer) }
    override func didClose() { callback = nil }
}
