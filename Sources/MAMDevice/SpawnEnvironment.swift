import Foundation
import MAMDeviceState
import MAMLoop
import MAMModel
import MAMWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a child's process starts with: the environment the host passes on, the template's,
/// and the runtime's allocator tunables. Pure: the supervisor computes the children's once
/// per host and hands each spawn its own.
enum SpawnEnvironment {
    /// The few variables of the host's environment a program needs (`ChildEnvironment`), plus
    /// `MAMSIM_BIN_DIR` (where mamsim's own binaries are), so a plugin's `run` script can find
    /// an executable built beside `mamsim-app`, and `MAMSIM_DEVICE_DIR`. Computed once per
    /// host: spawning is on the fleet-start path.
    static func children(of configuration: HostConfiguration) -> [String: String] {
        var env = ChildEnvironment.filter(ProcessInfo.processInfo.environment)
        env["MAMSIM_BIN_DIR"] = URL(fileURLWithPath: configuration.appRuntime).deletingLastPathComponent().path
        env["MAMSIM_DEVICE_DIR"] = configuration.deviceDirectory.path
        return env
    }

    /// The template's environment: the children's, with the dynamic linker told to bind every
    /// symbol as the template loads (`LD_BIND_NOW`), so that no forked app binds them one by
    /// one on first call (each forked app would otherwise bind the same symbols again).
    /// Only the template: an exec'd app would bind symbols it never calls (linking
    /// `mamsim-app` with `-z now` made exec'd fleets slower). The template removes the
    /// variable again before it forks (`MAMSIM_TEMPLATE_BIND_NOW` says it set it).
    /// `appsConfined`: every app it forks confines itself, so the template prepares the part
    /// of that confinement every app shares (`MAMSIM_TEMPLATE_CONFINES`, `mamsim_confine_prepare`).
    static func template(_ environment: [String: String], appsConfined: Bool) -> [String: String] {
        var env = runtime(environment)
        if appsConfined { env["MAMSIM_TEMPLATE_CONFINES"] = "1" }
        guard environment["LD_BIND_NOW"] == nil else { return env }
        env["LD_BIND_NOW"] = "1"
        env["MAMSIM_TEMPLATE_BIND_NOW"] = "1"
        return env
    }

    /// What glibc's allocator is told in the built-in runtime's processes (the template,
    /// and so every app it forks, or an app exec'd in its place). Its per-thread cache keeps
    /// seven freed blocks of each size by default; an app handles items in batches of up to
    /// its window (512 shares), so most of a batch's blocks went through the allocator's slower
    /// bins and back. With 512 kept, the sender's instructions per item went from 4,192 to
    /// 4,022 and the receiver's from 6,709 to 6,426 (`scripts/bench-instructions --apps`).
    /// Read by glibc when the process starts; elsewhere it means nothing.
    static let runtimeMallocTunables = "glibc.malloc.tcache_count=512"

    /// `environment` for the built-in runtime: with `runtimeMallocTunables`.
    static func runtime(_ environment: [String: String]) -> [String: String] {
        var env = environment
        env["GLIBC_TUNABLES"] = runtimeMallocTunables
        return env
    }
}
