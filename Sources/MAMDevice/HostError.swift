/// Errors a host operation can meet; each a sentence naming the app.
public enum HostError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownApp(String)
    case duplicateApp(String)
    case spawnFailed(String, String)
    case exitedDuringHandshake(String, String)
    /// It answered the handshake but ended before its own launch work was done.
    case exitedBeforeFinishingLaunch(String, String)
    case notRunning(String)
    case shuttingDown
    case timedOut(String)
    case deviceState(String)
    case loop(String)
    case deviceInUse(String)

    public var description: String {
        switch self {
        case .unknownApp(let a): "no app or extension named \"\(a)\" is installed on this device"
        case .duplicateApp(let a): "two apps use the handle \"\(a)\"; give each a distinct id"
        case .spawnFailed(let a, let why): "could not start \(a): \(why)"
        case .exitedDuringHandshake(let a, let how): "\(a) ended before completing the handshake: \(how)"
        case .exitedBeforeFinishingLaunch(let a, let how): "\(a) ended before calling finishedLaunching(): \(how)"
        case .notRunning(let a): "\(a) is not running"
        case .shuttingDown: "the device is shutting down"
        case .timedOut(let what): "\(what) timed out"
        case .deviceState(let why): "the device state cannot be opened: \(why)"
        case .loop(let why): "the host's event loop failed: \(why)"
        case .deviceInUse(let dir): "another mamsim host is running on the device directory \(dir); stop it, or give this run another --device-dir"
        }
    }
}
