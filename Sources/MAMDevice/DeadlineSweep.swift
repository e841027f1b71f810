import MAMLoop

/// The one timer that watches every child's deadlines (handshakes, frames, commands,
/// deliveries, teardown steps): started when a deadline is set, stopped by the sweep itself
/// once nothing has one, so an idle host has no timer firing.
final class DeadlineSweep {
    private let timer: MAMLoop.Timer
    private let interval: UInt64
    private var running = false

    /// `interval`: how often (loop ms) the sweep looks at deadlines while any is pending.
    init(loop: EventLoop, interval: UInt64) throws(HostError) {
        do { timer = try MAMLoop.Timer(loop: loop) } catch { throw .loop("cannot create the supervisor's timer: \(error)") }
        self.interval = interval
    }

    /// Runs `sweep` every interval from now on, unless it runs already.
    func watch(_ sweep: @escaping () -> Void) {
        guard !running else { return }
        running = true
        timer.start(after: interval, repeat: interval, sweep)
    }

    /// Nothing has a deadline: the sweep stops until one is set.
    func stop() {
        timer.stop()
        running = false
    }

    /// The host ends: the timer goes with it.
    func close() {
        timer.close()
        running = false
    }
}
