import Foundation
import MAMDevice
import MAMModel
import MAMPolicy
import Testing

/// The device is one cgroup: its memory and process limits hold for all its children together
/// (security issue 46, finding 7: three children held 6.1 GiB with only a per-process limit).
@Suite(.serialized, .enabled(if: landlockAvailable(), "this kernel has no Landlock: children cannot be confined here"))
struct DeviceLimitTests {
    /// Each child forks a holder that takes `megabytes` of memory (or starts `processes`
    /// sleepers) and reports in its container, then hands over to the built-in runtime.
    static func hog(_ name: String) throws -> String {
        try pythonChild(name, """
            import json, signal
            me = os.environ["MAMSIM_CONTAINER"]
            targets = json.load(open(me + "/targets.json"))
            open(me + "/started", "w").write("yes")
            if os.fork() == 0:
                if targets["megabytes"]:
                    try:
                        held = bytearray(targets["megabytes"] << 20)
                        for i in range(0, len(held), 4096):
                            held[i] = 1
                        open(me + "/allocated", "w").write("yes")
                        # A heartbeat while it holds the memory (its pid is its namespace's).
                        for beat in range(1200):
                            open(me + "/alive", "w").write(str(beat)); time.sleep(0.05)
                    except MemoryError:
                        open(me + "/refused", "w").write("MemoryError")
                else:
                    made = 0
                    for _ in range(targets["processes"]):
                        try:
                            if os.fork() == 0:
                                time.sleep(60); os._exit(0)
                            made += 1
                        except OSError:
                            break
                    open(me + "/forked", "w").write(str(made))
                time.sleep(60)
                os._exit(0)
            os.execv(targets["runtime"], [targets["runtime"]])
            """)
    }

    func run(limits: DeviceLimits, megabytes: Int, processes: Int) async throws -> (report: String, containers: [URL], host: HostController) {
        let program = try Self.hog("device-hog")
        let specs = (0..<3).map { AppSpec(handle: "hog\($0)", descriptor: AppDescriptor(bundleID: BundleID("com.evil.hog\($0)")), executable: program, startsWithFleet: false) }
        var config = try makeConfiguration(apps: 0, extra: specs)
        for s in specs { config.fleet.install(s.descriptor) }
        config.deviceLimits = limits
        config.quietChildren = true
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let report = log.all.compactMap { if case .confinement(let n) = $0 { n } else { nil } }.first ?? ""
        let root = config.deviceDirectory.resolvingSymlinksInPath().appendingPathComponent("containers")
        var containers: [URL] = []
        for spec in specs {
            let container = root.appendingPathComponent(spec.bundleID.rawValue)
            try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
            try JSONSerialization.data(withJSONObject: ["megabytes": megabytes, "processes": processes, "runtime": appRuntime] as [String: Any])
                .write(to: container.appendingPathComponent("targets.json"))
            containers.append(container)
            _ = await host.launch(spec.handle)
        }
        return (report, containers, host)
    }

    static func wait(until done: () -> Bool) async throws {
        for _ in 0..<300 where !done() { try await Task.sleep(for: .milliseconds(20)) }
    }

    @Test func threeChildrenTogetherHoldNoMoreThanTheDevicesMemory() async throws {
        let (report, containers, host) = try await run(limits: DeviceLimits(memoryBytes: 200 << 20, processes: 1024), megabytes: 150, processes: 0)
        try #require(report.contains("MiB of memory for all its apps together"), "no memory cgroup here: \(report)")
        #expect(report.contains("at most 1024 processes and 200 MiB of memory"), "\(report)")
        func done(_ c: URL) -> Bool { ["allocated", "refused"].contains { FileManager.default.fileExists(atPath: c.appendingPathComponent($0).path) } }
        try await Self.wait { containers.allSatisfy { FileManager.default.fileExists(atPath: $0.appendingPathComponent("started").path) } }
        // Positive control: every hostile child ran.
        for c in containers { #expect(FileManager.default.fileExists(atPath: c.appendingPathComponent("started").path), "\(c.lastPathComponent) never started") }
        try await Self.wait { containers.filter(done).count == 3 }
        try await Task.sleep(for: .milliseconds(500))
        // Holders still alive with their 150 MiB (their heartbeat moves): at most one fits.
        func beats() -> [String] { containers.map { (try? String(contentsOf: $0.appendingPathComponent("alive"), encoding: .utf8)) ?? "" } }
        let before = beats()
        try await Task.sleep(for: .milliseconds(400))
        let holding = zip(before, beats()).filter { !$0.1.isEmpty && $0.0 != $0.1 }.count
        #expect(containers.contains { FileManager.default.fileExists(atPath: $0.appendingPathComponent("allocated").path) }, "no child could allocate at all")
        #expect(holding <= 1, "\(holding) children hold 150 MiB each under a 200 MiB device limit")
        #expect(await host.shutdown() == 0)
    }

    @Test func threeChildrenTogetherStartNoMoreThanTheDevicesProcesses() async throws {
        let (report, containers, host) = try await run(limits: DeviceLimits(memoryBytes: 0, processes: 60), megabytes: 0, processes: 40)
        try #require(report.contains("at most 60 processes"), "no pids cgroup here: \(report)")
        try await Self.wait { containers.filter { FileManager.default.fileExists(atPath: $0.appendingPathComponent("forked").path) }.count >= 2 }
        var total = 0
        // Positive control: the first child ran (the others may find no process left to start).
        #expect(FileManager.default.fileExists(atPath: containers[0].appendingPathComponent("started").path), "hog0 never started")
        for c in containers {
            total += Int((try? String(contentsOf: c.appendingPathComponent("forked"), encoding: .utf8)) ?? "") ?? 0
        }
        // 3 × 40 asked; each child's own limit (128) would allow them all.
        #expect(total > 0, "no child could fork at all")
        #expect(total < 60, "\(total) processes forked under a device limit of 60")
        #expect(await host.shutdown() == 0)
    }
}

/// The device's containers and app groups together hold at most `storageBytes` (security
/// issue 46, finding 8: 1.5–2 GiB written, only each file limited).
@Suite(.serialized, .enabled(if: landlockAvailable() && getuid() == 0, "needs Landlock and root (the storage is a mounted filesystem)"))
struct DeviceStorageTests {
    @Test func aChildFillsNoMoreThanTheDevicesStorageAndTheHostAnswersQuota() async throws {
        let program = try pythonChild("storage-hog", """
            import json, errno
            me = os.environ["MAMSIM_CONTAINER"]
            targets = json.load(open(me + "/targets.json"))
            os.makedirs(me + "/Documents", exist_ok=True)
            open(me + "/Documents/small.txt", "w").write("x" * 1024)
            seen = {"started": True, "written": 0}
            # Its report's room, taken before the disk is full (written over in place).
            open(me + "/seen.json", "w").write(" " * 4096)
            chunk = b"\\1" * (1 << 20)
            try:
                for n in range(64):
                    with open(me + "/fill-%d" % n, "wb") as f:
                        for _ in range(32):
                            f.write(chunk); f.flush(); seen["written"] += len(chunk)
                        os.fsync(f.fileno())
            except OSError as e:
                seen["error"] = errno.errorcode.get(e.errno, str(e.errno))
            # Every last block too, in smaller and smaller pieces.
            with open(me + "/fill-rest", "wb", buffering=0) as f:
                for size in [65536, 4096, 512, 1]:
                    try:
                        while True:
                            f.write(b"\\1" * size); seen["written"] += size
                    except OSError:
                        pass
            with open(me + "/seen.json", "r+") as f:
                f.write(json.dumps(seen))
            os.execv(targets["runtime"], [targets["runtime"]])
            """)
        let spy = AppSpec(handle: "spy", descriptor: AppDescriptor(bundleID: "com.evil.filler"), executable: program, startsWithFleet: false)
        var config = try makeConfiguration(apps: 1, extra: [spy])
        config.fleet.install(spy.descriptor)
        config.deviceLimits.storageBytes = 64 << 20
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let report = log.all.compactMap { if case .confinement(let n) = $0 { n } else { nil } }.first ?? ""
        try #require(report.contains("64 MiB for all of them together"), "no storage filesystem here: \(report)")
        let container = config.deviceDirectory.resolvingSymlinksInPath().appendingPathComponent("containers/com.evil.filler")
        try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: ["runtime": appRuntime]).write(to: container.appendingPathComponent("targets.json"))
        #expect((try? await host.launch("spy").get()) != nil)
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: container.appendingPathComponent("seen.json"))) as? [String: Any])
        // Positive control: it ran and wrote until the kernel said no.
        #expect(seen["started"] as? Bool == true)
        let written = seen["written"] as? Int ?? 0
        #expect(written > 16 << 20, "\(seen)")
        #expect(written <= 64 << 20, "\(written >> 20) MiB written under a 64 MiB device storage")
        #expect(seen["error"] as? String == "ENOSPC", "\(seen)")
        // The host's own copy into the destination's Inbox has no room: quota, said as such.
        let file = Item(id: "q1", typeIdentifiers: ["public.plain-text"], payload: .file(path: "Documents/small.txt"), fileName: "small.txt")
        let outcome = await host.share(from: "spy", to: "app0", item: file)
        guard case .failed(.quota, let why) = outcome else {
            Issue.record("the share was answered \(outcome), not {failed: quota}")
            return
        }
        #expect(why.contains("storage is full"), "\(why)")
        #expect(await host.shutdown() == 0)
        // Unmounted with the host; the data stays in the device's image.
        #expect(!((try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? "").contains(config.deviceDirectory.lastPathComponent))
    }
}
