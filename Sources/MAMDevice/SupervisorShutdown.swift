import MAMLoop

/// The host's shutdown as the supervisor follows it: once begun no app starts, and everyone
/// who asked for it is told, once, when the last child is gone. It keeps the watchers of the
/// signals that ask for it, to be closed when it is over.
struct SupervisorShutdown {
    private(set) var begun = false
    private var completion: (() -> Void)?
    private var signalWatchers: [SignalWatcher] = []

    /// `watcher` asks for the shutdown on a signal; it is closed when the shutdown is over.
    mutating func watch(_ watcher: SignalWatcher) { signalWatchers.append(watcher) }

    /// The signal watchers, taken to be closed (the shutdown is over).
    mutating func takeSignalWatchers() -> [SignalWatcher] {
        defer { signalWatchers = [] }
        return signalWatchers
    }

    /// Asks for the shutdown, `completion` to run when it is over: `true` the first time
    /// (the children are to be ended now), `false` when it was under way already.
    mutating func begin(_ completion: @escaping () -> Void) -> Bool {
        guard begun else {
            begun = true
            self.completion = completion
            return true
        }
        let previous = self.completion
        self.completion = { previous?(); completion() }
        return false
    }

    /// The shutdown is over: who asked for it, in the order they asked, taken to be told
    /// (`nil` when nobody is left to tell).
    mutating func finished() -> (() -> Void)? {
        defer { completion = nil }
        return completion
    }
}
