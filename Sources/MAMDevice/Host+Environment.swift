import Foundation

extension Host {
    /// The host's environment plus `MAMSIM_BIN_DIR` (where mamsim's own binaries are), so a
    /// plugin's `run` script can find an executable built beside `mamsim-app`, and
    /// `MAMSIM_DEVICE_DIR`. Computed once per host: spawning is on the fleet-start path.
    static func childEnvironment(for configuration: HostConfiguration) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["MAMSIM_BIN_DIR"] = URL(fileURLWithPath: configuration.appRuntime).deletingLastPathComponent().path
        env["MAMSIM_DEVICE_DIR"] = configuration.deviceDirectory.path
        return env
    }
}
