/// One app's launches as the supervisor follows them across its processes: whoever waits for
/// it to finish its handshake and launch work, whether the Intune SDK ended it and is launching
/// it again, and how many launches in a row ended in such a restart before finishing.
struct AppLaunches {
    typealias Waiter = (Result<Int32, HostError>) -> Void
    private(set) var waiters: [Waiter] = []
    /// The SDK ended the app and is launching it again (`restartApplication`): the new
    /// process is told so (`ChildLifecycle.isSDKRelaunch`).
    private(set) var relaunching = false
    /// How many times in a row the SDK restarted the app before it finished launching.
    private(set) var restartsBeforeReady = 0

    /// Nothing left to follow: no waiter, no relaunch under way, no restart counted.
    var isIdle: Bool { waiters.isEmpty && !relaunching && restartsBeforeReady == 0 }

    mutating func wait(_ waiter: @escaping Waiter) { waiters.append(waiter) }

    /// The SDK's relaunch of the app begins (`true`), or is over: its new process is ready,
    /// or did not start (`false`).
    mutating func relaunch(_ underWay: Bool) { relaunching = underWay }

    /// The SDK restarts the app: one more restart before it finished launching when someone
    /// waits for that launch, else a count started afresh. The count so far.
    mutating func restarted() -> Int {
        restartsBeforeReady = waiters.isEmpty ? 0 : restartsBeforeReady + 1
        return restartsBeforeReady
    }

    /// The launch ended (it finished, or failed): its waiters, taken to be told; a launch that
    /// finished starts the count of restarts over.
    mutating func ended(finished: Bool) -> [Waiter] {
        if finished { restartsBeforeReady = 0 }
        defer { waiters = [] }
        return waiters
    }
}

/// Every app's launches as the supervisor follows them (`AppLaunches`, by app): an app with
/// nothing left to follow has no entry.
struct LaunchWaiters {
    typealias Waiter = AppLaunches.Waiter
    private var apps: [AppHandle: AppLaunches] = [:]

    /// An app wiped at each launch that enrolls again is restarted for ever: whoever waits for
    /// its launch is told so at this many restarts in a row instead of waiting with it.
    static let relaunchLimit = 5

    /// Nothing followed for any app.
    var isEmpty: Bool { apps.isEmpty }

    mutating func wait(for app: AppHandle, _ waiter: @escaping Waiter) {
        apps[app, default: AppLaunches()].wait(waiter)
    }

    /// Whether the SDK is launching the app again (its new process is such a relaunch).
    func isRelaunching(_ app: AppHandle) -> Bool { apps[app]?.relaunching ?? false }

    /// The SDK restarts the app: how many restarts in a row came before its launch finished
    /// (`AppLaunches.restarted`), and whether that reached `relaunchLimit`.
    mutating func restarted(_ app: AppHandle) -> (count: Int, overLimit: Bool) {
        let count = apps[app, default: AppLaunches()].restarted()
        forgetIfIdle(app)
        return (count, count >= Self.relaunchLimit)
    }

    /// The SDK's relaunch of the app begins, or is over (`AppLaunches.relaunch`).
    mutating func relaunch(_ app: AppHandle, underWay: Bool) {
        if underWay {
            apps[app, default: AppLaunches()].relaunch(true)
        } else {
            apps[app]?.relaunch(false)
            forgetIfIdle(app)
        }
    }

    /// The app's launch ended (`finished`, or failed): its waiters, taken to be told.
    mutating func ended(_ app: AppHandle, finished: Bool) -> [Waiter] {
        guard var followed = apps[app] else { return [] }
        let waiters = followed.ended(finished: finished)
        apps[app] = followed.isIdle ? nil : followed
        return waiters
    }

    private mutating func forgetIfIdle(_ app: AppHandle) {
        if apps[app]?.isIdle == true { apps[app] = nil }
    }
}
