import Foundation
import MAMLoop
import Synchronization

/// What confinement the host's children run under, found out once when the host starts.
public struct ConfinementReport: Sendable, CustomStringConvertible {
    /// The launcher children are started through; `nil` = they are started directly.
    public let launcher: String?
    /// What the kernel puts in force (`filesystem`, `tcp`, `signals`, `abstract-unix`,
    /// `device-ioctl`); empty when children are not confined.
    public let features: Set<String>
    /// A sentence for the run's header and logs.
    public let description: String

    public var isConfined: Bool { launcher != nil }

    /// Probes the launcher (`mamsim-confine --probe` prints the kernel's Landlock ABI and the
    /// features it can put in force).
    public static func probe(_ configuration: HostConfiguration, cgroupsUnavailable: String? = nil,
                             device: (inForce: String?, missing: String?) = (nil, nil)) throws(HostError) -> ConfinementReport {
        let unconfined = "children are NOT confined: each can read every file the user can (other devices, the scenario's inputs, the home folder)"
        if configuration.confinement == .none {
            return ConfinementReport(launcher: nil, features: [], description: "\(unconfined) (confinement turned off)")
        }
        let launcher = configuration.confinementLauncher
            ?? URL(fileURLWithPath: configuration.appRuntime).deletingLastPathComponent().appendingPathComponent("mamsim-confine").path
        let why: String
        if FileManager.default.isExecutableFile(atPath: launcher) {
            let (status, said) = probed(launcher)
            let words = said.split(separator: " ").map(String.init)
            if status == 0, let abi = words.first.flatMap({ Int($0) }) {
                let features = Set(words.dropFirst())
                return ConfinementReport(launcher: launcher, features: features, description: Self.describe(abi: abi, features: features, limits: configuration.childLimits, cgroups: cgroupsUnavailable, device: device))
            }
            why = said.isEmpty ? "\(launcher) --probe failed (status \(status))" : said
        } else {
            why = "\(launcher) is missing; build it with `swift build --product mamsim-confine`"
        }
        if configuration.confinement == .required { throw .loop("confinement is required but unavailable: \(why)") }
        return ConfinementReport(launcher: nil, features: [], description: "\(unconfined) (\(why))")
    }

    /// What `launcher --probe` said, and its status: asked once per launcher in a process (the
    /// kernel's Landlock ABI and what it can put in force do not change while it runs), so a
    /// process that starts many hosts — `mamsim test` of a folder, a mutation sweep — does not
    /// start the launcher for each.
    static func probed(_ launcher: String) -> (status: Int32, said: String) {
        if let known = probeAnswers.withLock({ $0[launcher] }) { return known }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-confine-probe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let status = (try? ChildProcess.run(launcher, arguments: ["--probe"], stdoutPath: out.path)) ?? -1
        let said = (try? String(contentsOf: out, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        // A launcher that could not answer is asked again by the next host: it may have been built since.
        if status == 0 { probeAnswers.withLock { $0[launcher] = (status, said) } }
        return (status, said)
    }

    private static let probeAnswers = Mutex<[String: (status: Int32, said: String)]>([:])

    /// What is in force, and what is not, in one paragraph.
    static func describe(abi: Int, features: Set<String>, limits: ChildLimits, cgroups: String? = nil,
                         device: (inForce: String?, missing: String?) = (nil, nil)) -> String {
        var inForce = ["default-deny filesystem (system libraries and their own program read-only, their container and app groups read-write, of /dev only null, zero and urandom)",
                       "no socket() of any family (UDP, raw, and unix sockets: none of the machine's sockets by path, nor another child's), no datagram pair, no io_uring and no reading of other processes' memory (seccomp)",
                       "own session (no terminal)", "no capabilities", "ended with the host"]
        var missing: [String] = []
        func feature(_ name: String, _ text: String, _ abiNeeded: Int) {
            if features.contains(name) { inForce.append(text) } else { missing.append("\(text) (needs Landlock ABI \(abiNeeded))") }
        }
        feature("tcp", "no TCP", 4)
        feature("signals", "no signal outside itself", 6)
        feature("abstract-unix", "no abstract socket outside itself", 6)
        if features.contains("pid-namespace") {
            inForce.append("a PID namespace for each program of its own (its /proc lists only its processes; all end with it)")
        } else {
            missing.append("a PID namespace (needs root or user namespaces: other processes' command lines and status are readable in /proc; their environment, memory and descriptors are not)")
        }
        var limits = limits
        if let cgroups {
            limits.processesPerChild = 0
            missing.append("a process limit and the end of every descendant (\(cgroups))")
        }
        inForce.append("limits: \(limits.description)")
        if let bounded = device.inForce { inForce.append(bounded) }
        if let unbounded = device.missing { missing.append(unbounded) }
        if !features.contains("unix-path") { missing.append("unix sockets by path (no seccomp filter on this architecture)") }
        if features.contains("net-namespace") {
            inForce.append("a network namespace for each program of its own (its /proc/net lists none of the machine's sockets)")
        } else {
            missing.append("a network namespace (needs root or user namespaces: /proc/net/unix lists the machine's socket paths, which no child can connect to)")
        }
        let head = "children are confined with Landlock (ABI \(abi)): " + inForce.joined(separator: ", ")
        return missing.isEmpty ? head : head + "; not in force: " + missing.joined(separator: ", ")
    }
}

/// Resource limits of the whole device: every child together, built-in apps included, in one
/// cgroup where the host can make one (`ChildCgroups`). 0 = no limit. A scenario sets them with
/// `device.limits`.
public struct DeviceLimits: Sendable, Hashable {
    /// Memory of all the device's processes together (cgroup `memory.max`/`limit_in_bytes`).
    public var memoryBytes: UInt64 = 4 << 30
    /// Processes of all the device's children together (cgroup `pids.max`).
    public var processes = 1024
    /// What all the device's containers and app groups may hold together (`DeviceStorage`).
    public var storageBytes: UInt64 = 1 << 30

    public init(memoryBytes: UInt64 = 4 << 30, processes: Int = 1024, storageBytes: UInt64 = 1 << 30) {
        self.memoryBytes = memoryBytes
        self.processes = processes
        self.storageBytes = storageBytes
    }
}

/// Resource limits of each confined child (0 = the limit it inherits).
public struct ChildLimits: Sendable, Hashable, CustomStringConvertible {
    /// Address space (RLIMIT_AS).
    public var memoryBytes: UInt64 = 4 << 30
    /// The largest file it may write (RLIMIT_FSIZE).
    public var fileBytes: UInt64 = 256 << 20
    /// Open descriptors (RLIMIT_NOFILE).
    public var openFiles: UInt64 = 1024
    /// Processes of the user (RLIMIT_NPROC): the kernel counts every process of the user, not
    /// the child's, so this is off unless set.
    public var processes: UInt64 = 0
    /// Processes of one child with a program of its own and all it starts, in a cgroup of its
    /// own where the host can make one (0 = none). The built-in runtime starts none.
    public var processesPerChild = 128

    public init() {}

    public var description: String {
        var parts = ["\(memoryBytes >> 20) MiB of memory", "files up to \(fileBytes >> 20) MiB", "\(openFiles) open files"]
        if processesPerChild > 0 { parts.append("\(processesPerChild) processes for each program of its own (a cgroup per child)") }
        if processes > 0 { parts.append("\(processes) processes of the user") }
        return parts.joined(separator: ", ")
    }

    /// Launcher (`mamsim-confine`) options, or the runtime's `--confine-limit` pairs.
    var launcherArguments: [String] {
        [("--memory", memoryBytes), ("--file-size", fileBytes), ("--open-files", openFiles), ("--processes", processes)]
            .filter { $0.1 > 0 }.flatMap { [$0.0, String($0.1)] }
    }
    var runtimeArguments: [String] {
        [("memory", memoryBytes), ("file-size", fileBytes), ("open-files", openFiles), ("processes", processes)]
            .filter { $0.1 > 0 }.flatMap { ["--confine-limit", "\($0.0)=\($0.1)"] }
    }
}

/// Why a path cannot be granted to a child.
public struct SandboxRefusal: Error, Sendable, CustomStringConvertible {
    public let app: String
    public let path: String
    public let why: String
    public var description: String {
        "\(app) asks to read \(path), which \(why); name a narrower folder (its interpreter's installation, its own files)"
    }
}

/// What each child may read and write: computed once per host for what all children share,
/// then per app. Every path is compared as the kernel sees it (symbolic links resolved).
struct SandboxPlan {
    /// Never readable by a child, nor anything inside them or any folder that holds them:
    /// the device directory and the cache of temporary devices.
    let sealed: [String]
    /// No grant may hold them: the scenario's folder (a plugin in a subfolder still reads its
    /// own files) and its inputs.
    let held: [String]
    /// The home folder: a grant may lie inside it (an interpreter under ~/.pyenv), never be it
    /// or hold it.
    let home: String?
    /// Folders of the shared libraries the host itself loaded outside the system's folders
    /// (the Swift runtime of a toolchain): a Swift app needs the same.
    let libraryFolders: [String]
    /// The executables beside the host's runtime (`MAMSIM_BIN_DIR`), which a plugin's `run`
    /// script may start.
    let binaries: [String]
    let extraRead: [String]

    init(configuration: HostConfiguration, realDeviceDirectory: String) {
        var sealed = [realDeviceDirectory]
        if let cache = DeviceLocations.cacheRoot { sealed.append(Self.real(cache.path)) }
        self.sealed = sealed
        held = configuration.protectedPaths.map { Self.real($0.path) }
        home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.hasPrefix("/") && $0 != "/" ? Self.real($0) : nil }
        libraryFolders = Self.loadedLibraryFolders()
        let bin = URL(fileURLWithPath: configuration.appRuntime).deletingLastPathComponent().path
        binaries = ((try? FileManager.default.contentsOfDirectory(atPath: bin)) ?? []).sorted().compactMap { name in
            let path = bin + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                  FileManager.default.isExecutableFile(atPath: path) else { return nil }
            return Self.real(path)
        }
        extraRead = configuration.childReadPaths
    }

    static func real(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
    }

    static func isInside(_ path: String, _ folder: String) -> Bool {
        path == folder || path.hasPrefix(folder == "/" ? "/" : folder + "/")
    }

    /// Why `path` must not be granted, or `nil`.
    func refusal(of path: String) -> String? {
        let p = Self.real(path)
        if p == "/" { return "is the whole machine" }
        if let home, Self.isInside(home, p) { return "holds the home folder \(home)" }
        for q in sealed where Self.isInside(p, q) || Self.isInside(q, p) {
            return Self.isInside(p, q) ? "is inside \(q), which no app may read" : "holds \(q), which no app may read"
        }
        for q in held where Self.isInside(q, p) {
            return "holds \(q), which no app may read (the scenario and its inputs)"
        }
        return nil
    }

    /// Checks the paths an app asks for (its declared reads and the global extras).
    func check(_ spec: AppSpec) throws(HostError) {
        for path in spec.sandbox.read + extraRead {
            if let why = refusal(of: path) { throw .spawnFailed(spec.handle, SandboxRefusal(app: spec.handle, path: path, why: why).description) }
        }
    }

    /// What `spec`'s process may read: its own program's files (the program's folder, or the
    /// program alone when its folder holds something protected), the libraries the host
    /// loaded, the host's executables for a program of its own, and what it declared.
    func readPaths(of spec: AppSpec, program: String) -> [String] {
        var paths = libraryFolders.filter { refusal(of: $0) == nil }
        let real = Self.real(program)
        if spec.executable != nil {
            let folder = (real as NSString).deletingLastPathComponent
            paths.append(refusal(of: folder) == nil && !spec.sandbox.programAlone ? folder : real)
            paths += binaries
        } else {
            paths.append(real)
        }
        paths += (spec.sandbox.read + extraRead).map(Self.real)
        var seen = Set<String>()
        return paths.filter { seen.insert($0).inserted }
    }

    /// The folders of every shared library mapped into this process that is not under the
    /// system's own folders (which every child reads anyway).
    static func loadedLibraryFolders() -> [String] {
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return [] }
        var folders: [String] = []
        var seen = Set<String>()
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            let name = (path as NSString).lastPathComponent
            guard name.hasSuffix(".so") || name.contains(".so.") else { continue }
            let folder = (path as NSString).deletingLastPathComponent
            if ["/usr/", "/lib/", "/lib64/", "/lib32/"].contains(where: { folder.hasPrefix($0) || folder + "/" == $0 }) { continue }
            if seen.insert(folder).inserted { folders.append(folder) }
        }
        return folders
    }
}

/// The variables a child gets from the host's environment: what programs and interpreters
/// need to start, never the rest (CI tokens, cloud credentials, the user's own settings).
/// Locale variables pass by their POSIX names only, and of mamsim's own variables only those
/// a child's runtime reads: a prefix would let any `LC_…` or `MAMSIM_…` the user's shell
/// holds reach every child undeclared.
enum ChildEnvironment {
    static let passed: Set<String> = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "SWIFT_BACKTRACE",
                                      "LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_MONETARY", "LC_NUMERIC", "LC_TIME",
                                      "LC_ADDRESS", "LC_IDENTIFICATION", "LC_MEASUREMENT", "LC_NAME", "LC_PAPER", "LC_TELEPHONE",
                                      // AppChannel reads it (one frame per item, to measure or debug).
                                      "MAMSIM_BATCHES"]

    static func filter(_ environment: [String: String], alsoPassing names: [String] = []) -> [String: String] {
        let extra = Set(names)
        return environment.filter { name, _ in passed.contains(name) || extra.contains(name) }
    }
}

/// What every confined child reads besides the system and its own program, one line each with
/// why: what `mamsim run` prints beside the grants of each app's declaration.
public enum SharedChildGrants {
    public static func lines(appRuntime: String) -> [String] {
        let bin = URL(fileURLWithPath: appRuntime).deletingLastPathComponent().path
        return SandboxPlan.loadedLibraryFolders().map { "every app reads \($0) (the folder of a library the host loaded: a Swift app needs it too)" }
            + ["every app with a program of its own reads mamsim's programs in \(SandboxPlan.real(bin)) (MAMSIM_BIN_DIR), each file alone"]
    }
}
