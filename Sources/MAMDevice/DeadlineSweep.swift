import MAMLoop

/// The one timer that watches every child's deadlines (handshakes, frames, commands,
/// deliveries, teardown steps): started when a deadline is set, stopped by the sweep itself
/// once nothing has one, so an idle host has no timer firing.
final class DeadlineSweep {
    private let timer: MAMLoop.Timer
    private let interval: UInt64
    private var running = false
    /// What each sweep runs, given once its owner exists (`sweeps`). Kept here, not passed to
    /// `watch`: a deadline is set on every share, and a closure made for each call was an
    /// allocation and a weak reference per share, even while the sweep ran already.
    private var body: () -> Void = {}

    /// `interval`: how often (loop ms) the sweep looks at deadlines while any is pending.
    init(loop: EventLoop, interval: UInt64) throws(HostError) {
        do { timer = try MAMLoop.Timer(loop: loop) } catch { throw .loop("cannot create the supervisor's timer: \(error)") }
        self.interval = interval
    }

    /// What each sweep runs.
    func sweeps(_ body: @escaping () -> Void) { self.body = body }

    /// Sweeps every interval from now on, unless it runs already.
    func watch() {
        guard !running else { return }
        running = true
        timer.start(after: interval, repeat: interval) { [weak self] in self?.body() }
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
