internal import CLibUV

/// A libuv timer: fires after `timeout` milliseconds, then every `repeat` milliseconds if set.
public final class Timer: Handle {
    private var callback: (() -> Void)?

    public init(loop: EventLoop) throws(UVError) {
        super.init(loop: loop, type: UV_TIMER)
        let status = uv_timer_init(loop.raw, timerPointer)
        if status < 0 { discard(); throw UVError(status) }
        adopt()
    }

    private var timerPointer: UnsafeMutablePointer<uv_timer_t> {
        UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_timer_t.self)
    }

    public func start(after timeout: UInt64, repeat interval: UInt64 = 0, _ callback: @escaping () -> Void) {
        guard state == .open else { return }
        self.callback = callback
        uv_timer_start(timerPointer, { t in
            Handle.wrapper(UnsafeMutableRawPointer(t), as: Timer.self).callback?()
        }, timeout, interval)
    }

    public func stop() {
        guard state == .open else { return }
        uv_timer_stop(timerPointer)
    }

    override func willClose() { uv_timer_stop(timerPointer) }
    override func didClose() { callback = nil }
}
