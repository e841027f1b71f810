import Foundation
@testable import MAMDevice
import MAMLoop
import MAMModel
import MAMPolicy
import Testing

/// Once a large fleet is ready the apps leave one CPU to the broker's loop (`BrokerCPU`).
@Suite struct BrokerCPUTests {
    // MARK: - The rule, case by case

    @Test(arguments: [
        // policy, apps, allowed CPUs, the loop's CPU now → broker CPU (nil: no split), apps' CPUs
        (BrokerCPU.shared, 100, [0, 1], 0, nil, []),
        (.automatic, 3, [0, 1], 0, nil, []),
        (.automatic, 4, [0, 1], 0, 0, [1]),
        (.automatic, 100, [0, 1], 1, 1, [0]),
        (.automatic, 15, [0, 1, 2, 3, 4, 5, 6, 7], 3, nil, []),
        (.automatic, 16, [0, 1, 2, 3, 4, 5, 6, 7], 3, 3, [0, 1, 2, 4, 5, 6, 7]),
        (.dedicated, 1, [0, 1], 0, 0, [1]),
        (.dedicated, 100, [3], 3, nil, []),
        // The loop runs on a CPU it may no longer use, or the system does not say: the last.
        (.dedicated, 2, [2, 5, 7], 0, 7, [2, 5]),
        (.dedicated, 2, [2, 5, 7], nil, 7, [2, 5]),
    ] as [(BrokerCPU, Int, [Int], Int?, Int?, [Int])])
    func split(policy: BrokerCPU, apps: Int, allowed: [Int], current: Int?, broker: Int?, appCPUs: [Int]) {
        let split = BrokerCPU.split(policy, apps: apps, allowed: allowed, current: current)
        #expect(split?.broker == broker)
        #expect((split?.apps ?? []) == appCPUs)
        if let split { #expect(split.all == allowed) }
    }

    @Test func theEnvironmentChoosesAndAnUnknownValueIsSaid() {
        #expect(BrokerCPU(environment: "shared") == .shared)
        #expect(BrokerCPU(environment: "dedicated") == .dedicated)
        #expect(BrokerCPU(environment: "automatic") == .automatic)
        #expect(BrokerCPU(environment: nil) == .automatic)
        #expect(BrokerCPU(environment: "Shared") == .automatic)
        #expect(BrokerCPU.unknownSetting("Shared") == "MAMSIM_BROKER_CPU=Shared is not shared, dedicated or automatic: automatic is used")
        for known in ["shared", "dedicated", "automatic", "", nil] as [String?] { #expect(BrokerCPU.unknownSetting(known) == nil) }
    }

    @Test func cpuListsReadAsTheKernelWritesThem() {
        #expect(BrokerCPUSplit.list([1]) == "1")
        #expect(BrokerCPUSplit.list([0, 1, 2, 3, 6]) == "0-3,6")
        #expect(BrokerCPUSplit.list([0, 2, 3, 5, 6, 7]) == "0,2-3,5-7")
        #expect(BrokerCPUSplit(broker: 2, apps: [0, 1, 3], all: [0, 1, 2, 3]).description
                == "apps run on CPUs 0-1,3, CPU 2 is kept for the broker's loop")
        #expect(BrokerCPUSplit(broker: 0, apps: [1], all: [0, 1]).description == "apps run on CPU 1, CPU 0 is kept for the broker's loop")
    }

    // MARK: - A real fleet

    /// `Cpus_allowed_list` of a process or thread, from /proc.
    static func allowedList(_ path: String) -> String? {
        guard let status = try? String(contentsOfFile: path + "/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("Cpus_allowed_list:") {
            return line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    static func splitNote(in log: EventLog) -> String? {
        for case .note(let n) in log.all where n.hasPrefix("apps run on CPU") { return n }
        return nil
    }

    @Test(arguments: [true, false])
    func everyAppLeavesTheLoopItsCPURelaunchedOnesToo(forked: Bool) async throws {
        guard let allowed = System.allowedCPUs(), allowed.count >= 2 else { return }
        var config = try makeConfiguration(apps: 2)
        config.brokerCPU = .dedicated
        config.forkBuiltInApps = forked
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        // The split is made on the loop after the fleet's answer: a job queued now runs after it.
        let loopCPUs = await host.run(orElse: nil) { _ in System.allowedCPUs() }
        let split = try #require(await host.run(orElse: nil) { $0.cpuSplit })
        // The loop is not pinned: a thread it starts must not inherit one CPU.
        #expect(loopCPUs == allowed)
        #expect(split.apps == allowed.filter { $0 != split.broker })
        #expect(Self.splitNote(in: log) == "\(split) (MAMSIM_BROKER_CPU=shared to share them)")
        let apps = BrokerCPUSplit.list(split.apps)
        for app in ["app0", "app1", "notes"] {
            let pid = try #require(await host.pid(of: app))
            #expect(Self.allowedList("/proc/\(pid)") == apps, "\(app)")
        }
        // A crashed app starts again where the apps run: exec'd, it inherits them from the
        // loop as it is spawned; forked, from the template, moved at the split.
        let first = try #require(await host.pid(of: "app0"))
        #expect(await host.kill("app0"))
        for _ in 0..<200 where await host.pid(of: "app0") == first { try await Task.sleep(for: .milliseconds(10)) }
        let again = try await host.launch("app0").get()
        #expect(again != first)
        #expect(Self.allowedList("/proc/\(again)") == apps)
        // The loop had the apps' CPUs only while it started the child.
        #expect(await host.run(orElse: nil) { _ in System.allowedCPUs() } == allowed)
        #expect(await host.signIn("app0", account: "alice@contoso.com").isAllowed)
        #expect(await host.signIn("app1", account: "alice@contoso.com").isAllowed)
        #expect(await host.share(from: "app0", to: "app1", item: textItem("c1", "on its own CPU"), identity: "alice@contoso.com") == .delivered)
        #expect(await host.shutdown() == 0)
    }

    /// What a child tries: every CPU for itself; what it got, to `out`.
    static let reclaim = """
        import json
        def reclaim(out):
            seen = {}
            try:
                os.sched_setaffinity(0, set(range(os.cpu_count())))
                seen["setaffinity"] = "allowed"
            except Exception as e:
                seen["setaffinity"] = type(e).__name__
            seen["cpus"] = sorted(os.sched_getaffinity(0))
            json.dump(seen, open(out, "w"))

        """

    /// Positive control: unconfined, the same code takes every CPU back.
    @Test func unconfinedAChildTakesEveryCPUBack() throws {
        guard let allowed = System.allowedCPUs(), allowed.count >= 2 else { return }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-reclaim-\(getpid()).json")
        defer { try? FileManager.default.removeItem(at: out) }
        let script = try pythonChild("reclaim-control", Self.reclaim + "reclaim(\(String(reflecting: out.path)))\n")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        try process.run()
        // Started on one CPU, as a moved child is.
        System.allowCPUs([allowed[0]], to: process.processIdentifier)
        process.waitUntilExit()
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? [String: Any])
        #expect(seen["setaffinity"] as? String == "allowed", "\(seen)")
    }

    /// A confined program of its own, started after the split, cannot move itself back onto
    /// the loop's CPU (the system call filter refuses `sched_setaffinity`).
    @Test(.enabled(if: landlockAvailable(), "this kernel has no Landlock: children cannot be confined here"))
    func aConfinedChildCannotTakeTheLoopsCPUBack() async throws {
        guard let allowed = System.allowedCPUs(), allowed.count >= 2 else { return }
        let program = try pythonChild("reclaim-cpus", Self.reclaim + """
            me = os.environ["MAMSIM_CONTAINER"]
            reclaim(me + "/seen.json")
            os.execv(json.load(open(me + "/runtime.json")), [json.load(open(me + "/runtime.json"))])
            """)
        let greedy = AppSpec(handle: "greedy", descriptor: AppDescriptor(bundleID: "com.evil.greedy"), executable: program, startsWithFleet: false)
        var config = try makeConfiguration(apps: 1, extra: [greedy])
        config.fleet.install(greedy.descriptor)
        config.brokerCPU = .dedicated
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        let split = try #require(await host.run(orElse: nil) { $0.cpuSplit })
        let container = config.deviceDirectory.resolvingSymlinksInPath().appendingPathComponent("containers/com.evil.greedy")
        try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: appRuntime, options: .fragmentsAllowed).write(to: container.appendingPathComponent("runtime.json"))
        let pid = try await host.launch("greedy").get()
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: container.appendingPathComponent("seen.json"))) as? [String: Any])
        #expect(seen["setaffinity"] as? String == "PermissionError", "\(seen)")
        #expect(seen["cpus"] as? [Int] == split.apps, "\(seen)")
        #expect(Self.allowedList("/proc/\(pid)") == BrokerCPUSplit.list(split.apps))
        #expect(await host.shutdown() == 0)
    }

    @Test func aSmallFleetOrASharedSettingKeepsEveryCPU() async throws {
        guard let allowed = System.allowedCPUs(), allowed.count >= 2 else { return }
        for policy in [BrokerCPU.automatic, .shared] {
            // Three apps on two CPUs or more: too few for `automatic`.
            var config = try makeConfiguration(apps: 2)
            config.brokerCPU = policy
            let log = EventLog()
            let host = try HostController(configuration: config) { log.record($0) }
            #expect(await host.startFleet().isEmpty)
            #expect(await host.run(orElse: nil) { _ in System.allowedCPUs() } == allowed, "\(policy)")
            #expect(await host.run(orElse: BrokerCPUSplit?.none) { $0.cpuSplit } == nil, "\(policy)")
            #expect(Self.splitNote(in: log) == nil, "\(policy)")
            let pid = try #require(await host.pid(of: "app0"))
            #expect(Self.allowedList("/proc/\(pid)") == BrokerCPUSplit.list(allowed), "\(policy)")
            #expect(await host.shutdown() == 0)
        }
    }

    @Test func twoLargeFleetsOfOneProcessSplitOnceAtMost() async throws {
        guard let allowed = System.allowedCPUs(), allowed.count >= 2 else { return }
        var hosts: [HostController] = []
        for _ in 0..<2 {
            var config = try makeConfiguration(apps: 2 * allowed.count)
            config.brokerCPU = .automatic
            hosts.append(try HostController(configuration: config))
        }
        for host in hosts { #expect(await host.startFleet().isEmpty) }
        var splits = 0
        for host in hosts where await host.run(orElse: BrokerCPUSplit?.none, { $0.cpuSplit }) != nil { splits += 1 }
        #expect(splits <= 1)
        for host in hosts { #expect(await host.shutdown() == 0) }
    }
}
