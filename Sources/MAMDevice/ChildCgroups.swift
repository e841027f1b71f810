import Foundation
import MAMLoop
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One cgroup per confined child, where the kernel lets the host make them (a writable
/// cgroup v1 `pids` hierarchy, or cgroup v2 with the `pids` controller delegated): a child
/// and everything it starts may have at most `maximum` processes (a fork bomb stops there),
/// and when the child ends, every process still in its cgroup — a daemon that double-forked
/// out of its session included — is killed. Elsewhere `make` answers `nil` and the host says
/// so at start.
///
/// The device is one cgroup too: the host's folder (`root`) holds every child's, and its
/// `pids.max` bounds all the device's processes together; its memory limit (`memory.max` in
/// v2, or a folder of the v1 `memory` hierarchy, `memoryRoot`, that every child joins)
/// bounds all their memory together. Built-in apps, which get no cgroup of their own (a third
/// of a forked app's start), are in it through the template they are forked from, which joins
/// `builtIn` (a leaf: v2 keeps processes out of a folder that passes controllers on).
final class ChildCgroups {
    /// The host's own folder of cgroups (`mamsim-<pid>` beside the host's cgroup).
    let root: String?
    let maximum: Int
    let device: DeviceLimits
    /// The device's folder in the v1 `memory` hierarchy; `nil` in v2 (where `root` has the
    /// memory limit itself) or where no memory cgroup can be made.
    private(set) var memoryRoot: String?
    /// Whether the device's memory is limited (v2 `root/memory.max` or v1 `memoryRoot`).
    private(set) var memoryLimited = false
    /// The leaf built-in apps (and their template) join: `root/builtin/cgroup.procs`.
    private(set) var builtIn: String?
    private var next = 0
    /// Cgroups whose processes were killed but that could not be removed yet (a process not
    /// yet reaped); tried again at each end and at close.
    private var lingering: [String] = []

    init(maximum: Int, device: DeviceLimits = DeviceLimits()) {
        self.maximum = maximum
        self.device = device
        root = maximum > 0 ? Self.makeRoot() : nil
        guard let root else { return }
        if device.processes > 0 { _ = try? System.writeFile("\(device.processes)\n", to: root + "/pids.max") }
        let leaf = root + "/builtin"
        if System.makeDirectory(leaf, new: true) { builtIn = leaf + "/cgroup.procs" }
        guard device.memoryBytes > 0 else { return }
        if FileManager.default.fileExists(atPath: root + "/memory.max") {
            memoryLimited = (try? System.writeFile("\(device.memoryBytes)\n", to: root + "/memory.max")) != nil
            _ = try? System.writeFile("0\n", to: root + "/memory.swap.max")
        } else if let memory = Self.makeMemoryRoot() {
            // v1: swap counted with memory where the kernel accounts it, so swapping out does
            // not escape the limit.
            if (try? System.writeFile("\(device.memoryBytes)\n", to: memory + "/memory.limit_in_bytes")) != nil {
                _ = try? System.writeFile("\(device.memoryBytes)\n", to: memory + "/memory.memsw.limit_in_bytes")
                memoryRoot = memory
                memoryLimited = true
            } else {
                System.removeDirectory(memory)
            }
        }
    }

    /// The v1 memory cgroup's `cgroup.procs` every child joins, or `nil`.
    var memoryProcs: String? { memoryRoot.map { $0 + "/cgroup.procs" } }

    /// Puts `pid` (the built-in apps' template) in the device's cgroups: what it forks is in
    /// them from its first instruction.
    func adopt(_ pid: pid_t) {
        for procs in [builtIn, memoryProcs].compactMap({ $0 }) { _ = try? System.writeFile("\(pid)\n", to: procs) }
    }

    /// Why there is no process limit, for the start-up report; `nil` when there is one.
    var unavailable: String? {
        if maximum <= 0 { return "turned off" }
        return root == nil ? "no writable pids cgroup (cgroup v1 pids, or v2 with pids delegated)" : nil
    }

    /// What the device's cgroup bounds, or why it bounds nothing, for the start-up report.
    var deviceDescription: (inForce: String?, missing: String?) {
        var bounded: [String] = []
        if root != nil, device.processes > 0 { bounded.append("\(device.processes) processes") }
        if memoryLimited { bounded.append("\(device.memoryBytes >> 20) MiB of memory") }
        let inForce = bounded.isEmpty ? nil : "one cgroup for the whole device: at most \(bounded.joined(separator: " and ")) for all its apps together"
        var missing: String?
        if device.memoryBytes > 0, !memoryLimited {
            missing = "a memory limit for the whole device (no writable memory cgroup: cgroup v1 memory, or v2 with memory delegated)"
        }
        return (inForce, missing)
    }

    /// A new cgroup for one child, limited to `maximum` processes: the path of its
    /// `cgroup.procs`, which the child joins itself before it is confined.
    func make(for handle: String) -> String? {
        guard let root else { return nil }
        next += 1
        let safe = String(handle.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? Character($0) : "_" }.prefix(40))
        let dir = "\(root)/\(next)-\(safe)"
        guard System.makeDirectory(dir, new: true), (try? System.writeFile("\(maximum)\n", to: dir + "/pids.max")) != nil else {
            System.removeDirectory(dir)
            return nil
        }
        return dir + "/cgroup.procs"
    }

    /// Kills every process left in the child's cgroup and removes it.
    /// (The device's memory cgroup in v1 holds every child too; each leaves it as it ends.)
    func end(_ procs: String) {
        let dir = (procs as NSString).deletingLastPathComponent
        guard let root, dir.hasPrefix(root + "/") else { return }
        for _ in 0..<50 {
            let pids = members(procs)
            if pids.isEmpty { break }
            for pid in pids { System.signal(pid, SIGKILL) }
            usleep(1000)
        }
        if !System.removeDirectory(dir) { lingering.append(dir) }
        lingering.removeAll { System.removeDirectory($0) }
    }

    deinit { removeAll() }

    /// Removes what is left (at the host's shutdown, or when a host that failed to start goes).
    func removeAll() {
        guard let root else { return }
        let leaves = lingering + [builtIn, memoryProcs].compactMap { $0.map { ($0 as NSString).deletingLastPathComponent } }
        var killed = false
        for dir in leaves {
            for pid in members(dir + "/cgroup.procs") {
                System.signal(pid, SIGKILL)
                killed = true
            }
        }
        // A cgroup is removed once its processes are gone: waited for only when some were just
        // killed, a millisecond at a time (a fixed wait here was paid by every run's shutdown,
        // twice, with nothing left to kill).
        var waits = killed ? 50 : 0
        while waits > 0, leaves.contains(where: { !members($0 + "/cgroup.procs").isEmpty }) {
            usleep(1000)
            waits -= 1
        }
        lingering.removeAll { System.removeDirectory($0) }
        if let builtIn { System.removeDirectory((builtIn as NSString).deletingLastPathComponent) }
        if let memoryRoot { System.removeDirectory(memoryRoot) }
        System.removeDirectory(root)
    }

    private func members(_ procs: String) -> [pid_t] {
        guard let text = try? String(contentsOfFile: procs, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { pid_t($0) }
    }

    /// `mamsim-<pid>` in the host's own pids cgroup, made and limited; `nil` where that is
    /// not possible.
    private static func makeRoot() -> String? {
        #if os(Linux)
        guard let cgroups = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
              let mounts = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return nil }
        var candidates: [String] = []
        // cgroup v1: "N:pids:/path", mounted where mountinfo's super options name pids.
        if let line = cgroups.split(separator: "\n").first(where: { $0.split(separator: ":", maxSplits: 2).dropFirst().first?.split(separator: ",").contains("pids") == true }),
           let path = line.split(separator: ":", maxSplits: 2).last,
           let mount = mountPoint(in: mounts, type: "cgroup", option: "pids") {
            candidates.append(mount + (path == "/" ? "" : String(path)))
        }
        // cgroup v2: "0::/path"; its pids controller must be enabled for children.
        if let line = cgroups.split(separator: "\n").first(where: { $0.hasPrefix("0::") }),
           let mount = mountPoint(in: mounts, type: "cgroup2", option: nil) {
            let own = mount + (line.dropFirst(3) == "/" ? "" : String(line.dropFirst(3)))
            if let controllers = try? String(contentsOfFile: own + "/cgroup.subtree_control", encoding: .utf8),
               controllers.split(separator: " ").contains(where: { $0.trimmingCharacters(in: .whitespacesAndNewlines) == "pids" }) {
                candidates.append(own)
            }
        }
        for parent in candidates {
            removeAbandoned(in: parent)
            let dir = "\(parent)/mamsim-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            if System.makeDirectory(dir, new: true) {
                // v2: the host's folder passes the pids controller on to each child's cgroup.
                if FileManager.default.fileExists(atPath: dir + "/cgroup.subtree_control"), (try? System.writeFile("+pids", to: dir + "/cgroup.subtree_control")) == nil {
                    System.removeDirectory(dir)
                    continue
                }
                return dir
            }
        }
        return nil
        #else
        return nil
        #endif
    }

    /// `mamsim-<pid>` in the host's own cgroup of the v1 `memory` hierarchy; `nil` where
    /// there is none or it is not writable.
    private static func makeMemoryRoot() -> String? {
        #if os(Linux)
        guard let cgroups = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
              let mounts = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8),
              let line = cgroups.split(separator: "\n").first(where: { $0.split(separator: ":", maxSplits: 2).dropFirst().first?.split(separator: ",").contains("memory") == true }),
              let path = line.split(separator: ":", maxSplits: 2).last,
              let mount = mountPoint(in: mounts, type: "cgroup", option: "memory") else { return nil }
        let parent = mount + (path == "/" ? "" : String(path))
        removeAbandoned(in: parent)
        let dir = "\(parent)/mamsim-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        return System.makeDirectory(dir, new: true) ? dir : nil
        #else
        return nil
        #endif
    }

    /// The cgroups of hosts that are gone (killed before they could remove them): what still
    /// runs in them is ended, and they are removed.
    private static func removeAbandoned(in parent: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix("mamsim-") {
            let parts = name.split(separator: "-")
            guard parts.count == 3, let pid = pid_t(parts[1]), pid != getpid(), !System.processExists(pid) else { continue }
            let root = parent + "/" + name
            let children = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter {
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: root + "/" + $0, isDirectory: &isDirectory) && isDirectory.boolValue
            }
            for folder in children.map({ "\(root)/\($0)" }) + [root] {
                let procs = (try? String(contentsOfFile: "\(folder)/cgroup.procs", encoding: .utf8)) ?? ""
                for pid in procs.split(separator: "\n").compactMap({ pid_t($0) }) { System.signal(pid, SIGKILL) }
                if folder != root { System.removeDirectory(folder) }
            }
            System.removeDirectory(root)
        }
    }

    private static func mountPoint(in mountinfo: String, type: String, option: String?) -> String? {
        for line in mountinfo.split(separator: "\n") {
            // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPEROPTIONS
            let halves = line.components(separatedBy: " - ")
            guard halves.count == 2 else { continue }
            let fields = halves[0].split(separator: " ")
            let tail = halves[1].split(separator: " ")
            guard fields.count >= 5, tail.count >= 3, tail[0] == type else { continue }
            if let option, !tail[2].split(separator: ",").contains(Substring(option)) { continue }
            return String(fields[4])
        }
        return nil
    }
}
