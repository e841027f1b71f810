public import Foundation

/// Where temporary devices live. Not in the system's temporary folder: to hide a device
/// directory from a child, Landlock must be given every sibling of every folder on the
/// device's path, and a busy `/tmp` (thousands of entries) costs each spawn milliseconds. A
/// folder of mamsim's own in the user's cache (`$XDG_CACHE_HOME/mamsim`, else
/// `~/.cache/mamsim`) has few siblings; the temporary folder is the fallback without a home.
public enum DeviceLocations {
    public static func temporaryDevice(prefix: String = "mamsim-device") -> URL {
        let env = ProcessInfo.processInfo.environment
        var base: URL?
        if let cache = env["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            base = URL(fileURLWithPath: cache).appendingPathComponent("mamsim")
        } else if let home = env["HOME"], home.hasPrefix("/") {
            base = URL(fileURLWithPath: home).appendingPathComponent(".cache/mamsim")
        }
        if let base, (try? FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)) != nil {
            return base.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        }
        return FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    }
}
