public import Foundation

/// Where temporary devices live: a folder of mamsim's own in the user's cache
/// (`$XDG_CACHE_HOME/mamsim`, else `~/.cache/mamsim`), the system's temporary folder without a
/// home. No child may read that folder (the other runs' devices are there): confinement
/// refuses to grant a path that holds it.
public enum DeviceLocations {
    /// `$XDG_CACHE_HOME/mamsim` or `~/.cache/mamsim`; `nil` without either variable.
    public static var cacheRoot: URL? {
        let env = ProcessInfo.processInfo.environment
        if let cache = env["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return URL(fileURLWithPath: cache).appendingPathComponent("mamsim")
        } else if let home = env["HOME"], home.hasPrefix("/") {
            return URL(fileURLWithPath: home).appendingPathComponent(".cache/mamsim")
        }
        return nil
    }

    public static func temporaryDevice(prefix: String = "mamsim-device") -> URL {
        if let base = cacheRoot, (try? FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)) != nil {
            return base.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        }
        return FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    }
}
