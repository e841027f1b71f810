import Foundation
import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Broker throughput: app A shares 1 KiB items to app B through the host, which checks A's
/// identity, stamps ownership, asks the enforcer (a managed account under a managedApps
/// policy, so the full decision runs), delivers, waits for B's acknowledgement and answers A.
/// With `audit` (the shipping configuration) every decision is also group-committed to the
/// device's audit log.
enum BrokerBench {
    /// `batched`: the apps use batches (the shipping configuration); otherwise every share,
    /// delivery and answer is a frame of its own.
    struct Result {
        var itemsPerSecond: Double
        /// CPU time per item (user + system), of the host process and of the two apps
        /// together: steadier than throughput on a noisy machine.
        var hostCPUMicroseconds: Double
        var appsCPUMicroseconds: Double
        /// What the host asked of the kernel per item, counted by the kernel, so steady from
        /// one machine to the next: times a host thread went to sleep waiting (voluntary context
        /// switches: each is a wake-up later) and was preempted (involuntary), and its read- and
        /// write-family system calls (/proc/self/io; the poll calls are not among them).
        var hostWakeups: Double
        var hostPreemptions: Double
        var hostReads: Double
        var hostWrites: Double
        /// Minor page faults per item: memory the host touched for the first time.
        var hostPageFaults: Double
        /// The CPU kept for the broker's loop and the apps' CPUs (`BrokerCPU`), or `nil`
        /// where every CPU was shared.
        var cpuSplit: BrokerCPUSplit?
        /// Heap allocations per item in this process (the host and its audit writer), when the
        /// allocation counter is preloaded (scripts/bench-allocations); `nil` otherwise.
        var hostAllocations: Double?
    }

    /// `pairs`: that many sender→receiver pairs flood at once, `count` items in all.
    static func run(appRuntime: String, count: Int, size: Int, audit: Bool = true, batched: Bool = true, pairs: Int = 1) async throws -> Result {
        // The apps read it at start (MAMKit); each host starts its own app template.
        setenv("MAMSIM_BATCHES", batched ? "1" : "0", 1)
        defer { unsetenv("MAMSIM_BATCHES") }
        let alice = Account(upn: "alice@contoso.com", oid: "0b6f1c2e-2f4b-4c1e-9a55-3c1f0e6d7a10")
        var fleet = Fleet()
        let policy = try GraphPolicyImporter.importPolicies(Array("""
            {"displayName": "bench", "allowedOutboundDataTransferDestinations": "managedApps", "allowedInboundDataTransferSources": "managedApps"}
            """.utf8), source: "bench").policies[0]
        fleet.add(alice, policy: policy)
        // One pair is a → b (the figure's names since the first bench); more are a1 → b1, ….
        let names = pairs == 1 ? [("a", "b")] : (1...pairs).map { ("a\($0)", "b\($0)") }
        let apps = names.flatMap { [$0.0, $0.1] }.map { AppSpec(handle: $0, descriptor: AppDescriptor(bundleID: BundleID("com.bench.\($0)"))) }
        for a in apps { fleet.install(a.descriptor) }
        var config = HostConfiguration(apps: apps, fleet: fleet, deviceDirectory: DeviceLocations.temporaryDevice(prefix: "mamsim-bench"), appRuntime: appRuntime)
        config.auditDecisions = audit
        config.reportDeliveries = false
        config.deliveryTimeout = .seconds(60)
        config.commandTimeout = .seconds(600)
        let host = try HostController(configuration: config)
        let failures = await host.startFleet()
        guard failures.isEmpty else { throw BenchError(message: "broker bench: \(failures)") }
        for a in apps { _ = await host.run { [handle = a.handle] in try $0.accounts.signIn($0.app(handle), account: alice.upn) } }
        // Warm up as the measurement runs (every pair at once, the same window, two windows
        // each), so the host's memory for that many items in flight is already there: warmed
        // one pair at a time with a small window, the 50-pair run counted its first touch of
        // it as page faults one pair does not have.
        await withTaskGroup(of: Void.self) { group in
            for (a, b) in names {
                group.addTask { _ = await host.command(a, .flood(Flood(destination: b, count: 1024, size: UInt32(size), window: 512, identity: alice.upn))) }
            }
        }
        let cpuSplit = await host.run(orElse: nil) { $0.cpuSplit }
        var appPids: [Int32] = []
        for a in apps { if let pid = await host.run(orElse: nil, { [handle = a.handle] in $0.pid(of: handle) }) { appPids.append(pid) } }
        let hostCPU = ProcessStats.processCPUSeconds()
        let appsCPU = appPids.compactMap(ProcessStats.cpuSeconds).reduce(0, +)
        let counts = ProcessStats.kernelCounts()
        let io = ProcessStats.systemCalls()
        let allocations = ProcessStats.allocations?()
        let start = ContinuousClock.now
        let each = count / pairs
        let results = await withTaskGroup(of: CommandResult.self) { group in
            for (a, b) in names {
                group.addTask { await host.command(a, .flood(Flood(destination: b, count: UInt64(each), size: UInt32(size), window: 512, identity: alice.upn))) }
            }
            var all: [CommandResult] = []
            for await r in group { all.append(r) }
            return all
        }
        let elapsed = ContinuousClock.now - start
        let hostCPUUsed = ProcessStats.processCPUSeconds() - hostCPU
        let appsCPUUsed = appPids.compactMap(ProcessStats.cpuSeconds).reduce(0, +) - appsCPU
        let countsAfter = ProcessStats.kernelCounts()
        let ioAfter = ProcessStats.systemCalls()
        let allocationsAfter = ProcessStats.allocations?()
        _ = await host.shutdown()
        try? FileManager.default.removeItem(at: config.deviceDirectory)
        for result in results {
            guard case .flood(let delivered, _) = result, delivered == each else {
                throw BenchError(message: "broker bench: not every item of \(each) was delivered in a pair: \(result)")
            }
        }
        let total = Double(each * pairs)
        return Result(
            itemsPerSecond: total / elapsed.inSeconds,
            hostCPUMicroseconds: hostCPUUsed * 1e6 / total, appsCPUMicroseconds: appsCPUUsed * 1e6 / total,
            hostWakeups: Double(countsAfter.voluntary - counts.voluntary) / total,
            hostPreemptions: Double(countsAfter.involuntary - counts.involuntary) / total,
            hostReads: Double(ioAfter.reads - io.reads) / total, hostWrites: Double(ioAfter.writes - io.writes) / total,
            hostPageFaults: Double(countsAfter.pageFaults - counts.pageFaults) / total, cpuSplit: cpuSplit,
            hostAllocations: allocationsAfter.flatMap { after in allocations.map { Double(after - $0) / total } })
    }
}

/// Fleet start: N apps spawned and handshaken; and each app's peak RSS (VmHWM).
enum FleetBench {
    struct Result {
        var seconds: Double
        var rssMiB: Double
        /// Proportional set size: pages shared with the template (or other apps) count once
        /// across their sharers.
        var pssMiB: Double
        /// The host process's CPU time per app while the fleet started (user + system).
        var hostCPUMilliseconds: Double
        /// The apps' own CPU time until each was ready, per app (their confinement, runtime
        /// start and handshake; a forked app's fork itself is the template's).
        var appsCPUMilliseconds: Double
    }

    /// `fork`: apps are forked from the template (the shipping configuration); otherwise
    /// each is exec'd, the reference for what the template saves.
    static func run(appRuntime: String, count: Int, fork: Bool = true) async throws -> Result {
        var fleet = Fleet()
        let apps = (0..<count).map { AppSpec(handle: "app\($0)", descriptor: AppDescriptor(bundleID: BundleID("com.bench.app\($0)"))) }
        for a in apps { fleet.install(a.descriptor) }
        var config = HostConfiguration(apps: apps, fleet: fleet, deviceDirectory: DeviceLocations.temporaryDevice(prefix: "mamsim-bench"), appRuntime: appRuntime)
        config.auditDecisions = false
        config.quietChildren = true
        config.forkBuiltInApps = fork
        config.handshakeTimeout = .seconds(60)
        let pids = Mutex<[Int32]>([])
        let host = try HostController(configuration: config) { event in
            if case .ready(_, _, let pid) = event { pids.withLock { $0.append(pid) } }
        }
        let hostCPU = ProcessStats.processCPUSeconds()
        let start = ContinuousClock.now
        let failures = await host.startFleet()
        let elapsed = ContinuousClock.now - start
        let hostCPUUsed = ProcessStats.processCPUSeconds() - hostCPU
        guard failures.isEmpty else { throw BenchError(message: "fleet bench: \(failures.count) apps failed: \(failures.first!)") }
        let started = pids.withLock { $0 }
        let appsCPU = started.compactMap(ProcessStats.cpuSeconds).reduce(0, +)
        let rss = started.compactMap(ProcessStats.peakRSSKiB)
        let pss = started.compactMap(ProcessStats.pssKiB)
        _ = await host.shutdown()
        try? FileManager.default.removeItem(at: config.deviceDirectory)
        let seconds = elapsed.inSeconds
        func mean(_ kib: [Int]) -> Double { kib.isEmpty ? 0 : Double(kib.reduce(0, +)) / Double(kib.count) / 1024 }
        return Result(seconds: seconds, rssMiB: mean(rss), pssMiB: mean(pss), hostCPUMilliseconds: hostCPUUsed * 1000 / Double(count),
                      appsCPUMilliseconds: appsCPU * 1000 / Double(max(started.count, 1)))
    }
}

/// What a process costs, read from the kernel: CPU time and memory.
enum ProcessStats {
    /// Resets this process's peak resident size (`VmHWM`) to its current size, so a peak read
    /// after a part of the bench is that part's own: the bench runs its parts in one process,
    /// and a peak left by an earlier one (the 10 MB export, the pairs) is not the flood's.
    /// Linux's `/proc/self/clear_refs` ("5"); `false` where it cannot. The heap an earlier part
    /// freed is given back first (`malloc_trim`): glibc keeps it resident otherwise, and the
    /// reset would start the next part's peak at it (a full run read What If's 10,000 personas
    /// at 728 MiB, 327 MiB alone).
    @discardableResult
    static func resetPeak() -> Bool {
        #if os(Linux)
        // (Not in the Glibc module's headers: looked up as the C function it is.)
        typealias Trim = @convention(c) (Int) -> Int32
        if let trim = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") { _ = unsafeBitCast(trim, to: Trim.self)(0) }
        return (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
        #else
        return false
        #endif
    }

    /// This process's resource usage, every thread together.
    private static func selfUsage() -> rusage {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return usage
    }

    /// User + system CPU seconds of this process (every thread).
    static func processCPUSeconds() -> Double {
        let usage = selfUsage()
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// The process's heap allocations so far, when Tests/CAllocationCount is preloaded as a
    /// shared object (scripts/bench-allocations builds and preloads it); `nil` otherwise.
    static let allocations: (@convention(c) () -> UInt64)? = {
        #if os(Linux)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mamsim_process_allocations") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) () -> UInt64).self)
        #else
        return nil
        #endif
    }()

    /// This process's context switches (every thread): voluntary (it waited) and involuntary;
    /// and its minor page faults (memory it touched for the first time).
    static func kernelCounts() -> (voluntary: Int, involuntary: Int, pageFaults: Int) {
        let usage = selfUsage()
        return (usage.ru_nvcsw, usage.ru_nivcsw, usage.ru_minflt)
    }

    /// This process's read- and write-family system calls so far (/proc/self/io's syscr and
    /// syscw; zero where there is no such file).
    static func systemCalls() -> (reads: Int, writes: Int) {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return (0, 0) }
        var reads = 0, writes = 0
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let n = Int(parts[1]) else { continue }
            if parts[0] == "syscr:" { reads = n } else if parts[0] == "syscw:" { writes = n }
        }
        return (reads, writes)
    }

    /// CPU seconds of a child: the nanoseconds each of its threads ran
    /// (/proc/PID/task/TID/schedstat), else /proc/PID/stat's user + system ticks. Ticks are
    /// 10 ms and counted down per process: a hundred apps that each ran a few ms summed to
    /// nothing.
    static func cpuSeconds(_ pid: Int32) -> Double? {
        if let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"), !tasks.isEmpty {
            var nanoseconds = 0.0
            var read = 0
            for task in tasks {
                guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
                      let first = text.split(separator: " ").first, let ns = Double(first) else { continue }
                nanoseconds += ns
                read += 1
            }
            if read > 0 { return nanoseconds / 1e9 }
        }
        return tickSeconds(pid)
    }

    /// User + system CPU seconds of a child, from /proc/PID/stat (fields 14 and 15, in ticks).
    static func tickSeconds(_ pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after the command name (which may hold spaces), from field 3 on.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// VmRSS of a process in KiB, from /proc (the same figure the C reference reports).
    static func peakRSSKiB(_ pid: Int32) -> Int? { kibField("VmRSS:", of: "/proc/\(pid)/status") }

    /// Pss of a process in KiB (/proc/PID/smaps_rollup).
    static func pssKiB(_ pid: Int32) -> Int? { kibField("Pss:", of: "/proc/\(pid)/smaps_rollup") }

    /// The number after `key` in a /proc file of "Key: value kB" lines.
    static func kibField(_ key: String, of path: String) -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        return nil
    }
}

/// A child flooding refused shares (alice's data to an app without the SDK, blocked by her
/// policy): what the audit log and the host's memory make of it — rows logged (the per-child
/// budget coalesces the rest), the host's peak memory, and the export and report of the log.
enum AuditFloodBench {
    struct Result {
        var shares: Int
        var rowsLogged: Int
        var coalescedRecords: Int
        var seconds: Double
        var hostPeakMiB: Double
        var exportSeconds: Double
        var exportMiB: Double
        var reportSeconds: Double
        var peakAfterReportMiB: Double
        /// Whether the peaks are the flood's own (the peak was reset before it), not the process's.
        var ownPeak: Bool
    }

    static func run(appRuntime: String, count: Int) async throws -> Result {
        let alice = Account(upn: "alice@contoso.com", oid: "0b6f1c2e-2f4b-4c1e-9a55-3c1f0e6d7a10")
        var fleet = Fleet()
        let policy = try GraphPolicyImporter.importPolicies(Array("""
            {"displayName": "bench", "allowedOutboundDataTransferDestinations": "managedApps", "allowedInboundDataTransferSources": "managedApps"}
            """.utf8), source: "bench").policies[0]
        fleet.add(alice, policy: policy)
        let flooder = AppSpec(handle: "a", descriptor: AppDescriptor(bundleID: "com.bench.a"))
        let unmanaged = AppSpec(handle: "n", descriptor: AppDescriptor(bundleID: "com.bench.n", sdkIntegrated: false))
        for a in [flooder, unmanaged] { fleet.install(a.descriptor) }
        var config = HostConfiguration(apps: [flooder, unmanaged], fleet: fleet, deviceDirectory: DeviceLocations.temporaryDevice(prefix: "mamsim-bench"), appRuntime: appRuntime)
        config.reportDeliveries = false
        config.quietChildren = true
        config.commandTimeout = .seconds(600)
        defer { try? FileManager.default.removeItem(at: config.deviceDirectory) }
        let host = try HostController(configuration: config)
        let failures = await host.startFleet()
        guard failures.isEmpty else { throw BenchError(message: "audit flood bench: \(failures)") }
        _ = await host.run { try $0.accounts.signIn($0.app("a"), account: alice.upn) }
        let ownPeak = ProcessStats.resetPeak()
        let start = ContinuousClock.now
        let result = await host.command("a", .flood(Flood(destination: "n", count: UInt64(count), size: 1024, window: 512, identity: alice.upn)))
        let seconds = (ContinuousClock.now - start).inSeconds
        guard case .flood(0, _) = result else { throw BenchError(message: "audit flood bench: shares were not all refused: \(result)") }
        let log = config.deviceDirectory.appendingPathComponent("audit-export.jsonl")
        let exportStart = ContinuousClock.now
        _ = await host.result { try $0.audit.export(to: log) }
        let exportSeconds = (ContinuousClock.now - exportStart).inSeconds
        let hostPeak = Double(ProcessStats.kibField("VmHWM:", of: "/proc/self/status") ?? 0) / 1024
        _ = await host.shutdown()
        var rows = 0, coalesced = 0
        let reportStart = ContinuousClock.now
        var digest = ReportHTML.AuditDigest()
        try ReportHTML.readAuditLog(at: log.path) { event in
            digest.add(event)
            if event.verb == .share { rows += 1 }
            if event.verb == .auditCoalesced { coalesced += 1 }
        }
        _ = ReportHTML.page(title: "bench", summary: "", scenarios: [ReportHTML.ScenarioPage(name: "bench", file: nil, status: nil, digest: digest, result: nil)])
        let reportSeconds = (ContinuousClock.now - reportStart).inSeconds
        let size = (try? FileManager.default.attributesOfItem(atPath: log.path)[.size] as? Int) ?? 0
        return Result(shares: count, rowsLogged: rows, coalescedRecords: coalesced, seconds: seconds, hostPeakMiB: hostPeak,
                      exportSeconds: exportSeconds, exportMiB: Double(size) / 1_048_576, reportSeconds: reportSeconds,
                      peakAfterReportMiB: Double(ProcessStats.kibField("VmHWM:", of: "/proc/self/status") ?? 0) / 1024, ownPeak: ownPeak)
    }
}
