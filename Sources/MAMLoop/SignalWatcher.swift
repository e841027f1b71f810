internal import CLibUV

/// Watches a POSIX signal (e.g. SIGINT, SIGTERM) on the loop thread.
public final class SignalWatcher: Handle {
    private var callback: ((Int32) -> Void)?

    public init(loop: EventLoop) throws(UVError) {
        super.init(loop: loop, type: UV_SIGNAL)
        let status = uv_signal_init(loop.raw, signalPointer)
        if status < 0 { discard(); throw UVError(status) }
        adopt()
    }

    private var signalPointer: UnsafeMutablePointer<uv_signal_t> {
        UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_signal_t.self)
    }

    public func start(signal number: Int32, _ callback: @escaping (Int32) -> Void) throws(UVError) {
        self.callback = callback
        try UVError.check(uv_signal_start(signalPointer, { s, signum in
            Handle.wrapper(UnsafeMutableRawPointer(s), as: SignalWatcher.self).callback?(signum)
        }, number))
    }

    override func willClose() { uv_signal_stop(signalPointer) }
    override func didClose() { callback = nil }
}
