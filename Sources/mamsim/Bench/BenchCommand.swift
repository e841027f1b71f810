import ArgumentParser
import Foundation
import MAMDevice
import MAMPolicy
import MAMAdmin

/// `mamsim bench`: measures the host against a C libuv reference (and Node, when present) in
/// the same run, and prints figures side by side with ratios.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure round-trip latency, broker throughput and fleet start against C and Node references.")

    @Option(help: "Round trips per latency measurement (a quarter as many service calls for each form of the blocking-call figure).")
    var pings = 20_000

    @Option(help: "Items for the broker throughput measurement.")
    var items = 100_000

    @Option(parsing: .upToNextOption, help: "Fleet sizes to start.")
    var fleet: [Int] = [100, 500]

    @Option(name: .customLong("pairs"), parsing: .upToNextOption, help: "Pair counts for the pairs part; the first is the one the others are compared with.")
    var pairCounts: [Int] = [1, 10, 50]

    @Option(help: "Folder with the reference programs (mamsim-ref.c, node-ref.js).")
    var referenceDir: String?

    @Option(help: "The app runtime to spawn (default: mamsim-app beside this executable).")
    var appRuntime: String?

    @Flag(help: "Skip the Node reference even if node is on the PATH.")
    var noNode = false

    @Option(help: "Run only one part: decision, decode, latency, broker, pairs (many sender→receiver pairs at once), audit, fleet or whatif.")
    var only: String?

    @Option(name: .customLong("repeat"), help: ArgumentHelp("Run the selected parts N times and print each figure's median, min and max with the ratio's spread, saying when the C reference itself varied too much to trust the ratios.", valueName: "N"))
    var repetitions = 1

    @Option(help: ArgumentHelp("Also write every figure of every run as JSON (for CI history).", valueName: "FILE"))
    var json: String?

    @Flag(help: "Print the tables in Markdown (docs/PERFORMANCE.md's are made of them); with --repeat N, the summary's too.")
    var markdown = false

    @Option(help: ArgumentHelp("Run one broker flood of --items items and nothing else (audit on, the first of --pairs, no reference): batched or per-item; or round-trip, --pings round trips of 1 KiB and nothing else; or decode, --items share frames of 1 KiB parsed in place and nothing else. An instruction counter runs it twice and takes the difference (scripts/bench-instructions).", valueName: "MODE"))
    var probe: String?

    static let parts = ["decision", "decode", "latency", "broker", "pairs", "audit", "fleet", "whatif", "mutate"]
    static let probeModes = ["batched", "per-item", "round-trip", "decode"]
    /// Runs of each broker figure and its C references; the median one is printed.
    static let brokerRuns = 3

    func validate() throws {
        if let only, !Self.parts.contains(only) {
            throw ValidationError("--only \(only) is not a part of the bench; use one of \(Self.parts.joined(separator: ", "))")
        }
        if let probe, !Self.probeModes.contains(probe) {
            throw ValidationError("--probe \(probe) is not a probe mode; use one of \(Self.probeModes.joined(separator: ", "))")
        }
        if probe != nil, only != nil || repetitions != 1 || json != nil || markdown {
            throw ValidationError("--probe runs one flood (or the round trips) alone: it takes --items, --pairs, --pings and --app-runtime, not --only, --repeat, --json or --markdown")
        }
        if items < 1 { throw ValidationError("--items takes at least 1 item, not \(items)") }
        if pings < 1 { throw ValidationError("--pings takes at least 1 round trip, not \(pings)") }
        if repetitions < 1 || repetitions > 50 { throw ValidationError("--repeat takes 1 to 50 runs, not \(repetitions)") }
        if pairCounts.isEmpty || pairCounts.contains(where: { $0 < 1 || $0 > 200 }) {
            throw ValidationError("--pairs takes 1 to 200 pairs each, not \(pairCounts.map(String.init).joined(separator: " "))")
        }
        // Each pair floods items ÷ pairs; fewer items than pairs leaves a pair none to send.
        let pairsRun = probe != nil ? [pairCounts[0]] : (only == nil || only == "pairs" ? pairCounts : [])
        if let most = pairsRun.max(), items < most {
            throw ValidationError("--items \(items) is fewer than --pairs \(most): each pair floods --items ÷ pairs items; give at least one item per pair")
        }
    }

    func run() async throws {
        let runtime = appRuntime ?? siblingExecutable("mamsim-app")
        guard FileManager.default.isExecutableFile(atPath: runtime) else {
            throw ValidationError("app runtime not found at \(runtime); build it with `swift build -c release` or pass --app-runtime")
        }
        if let probe { return try await runProbe(probe, runtime: runtime) }
        let references = try References(directory: referenceDir, skipNode: noNode)
        // The C reference is built into the temporary folder for this run only.
        defer { references.removeBuiltProgram() }
        print("mamsim bench — \(ProcessInfo.processInfo.activeProcessorCount) CPUs; latency pinned to CPU 0; references measured in this run")
        // The hosts below confine their apps where the launcher is beside the runtime, as a
        // run does: say which, since confined apps start and run at another cost.
        let probe = HostConfiguration(apps: [], fleet: Fleet(), deviceDirectory: FileManager.default.temporaryDirectory, appRuntime: runtime)
        let confinement = try ConfinementReport.probe(probe)
        print(confinement.isConfined
              ? "apps confined through \(confinement.launcher ?? ""), as in a run"
              : "apps NOT confined, unlike a run: \(confinement.description)")
        // Whether fleets leave the loop a CPU decides the pairs figures: say what this run does.
        let brokerCPU = switch probe.brokerCPU {
        case .automatic: "broker CPU: automatic (a fleet of at least twice as many apps as CPUs leaves one to the loop; MAMSIM_BROKER_CPU=shared or dedicated to choose)\n"
        case .dedicated: "broker CPU: dedicated (every fleet leaves one CPU to the loop; MAMSIM_BROKER_CPU)\n"
        case .shared: "broker CPU: shared (apps may use every CPU; MAMSIM_BROKER_CPU)\n"
        }
        print(brokerCPU)
        var tables: [BenchTable] = []
        for pass in 1...repetitions {
            if repetitions > 1 { print("— run \(pass) of \(repetitions) —") }
            var table = BenchTable()
            try await measure(into: &table, runtime: runtime, references: references)
            if !table.rows.isEmpty { print(markdown ? table.markdown() : table.render()) }
            tables.append(table)
        }
        if repetitions > 1 { print("\n" + (markdown ? BenchSummary(tables: tables).markdown() : BenchSummary(tables: tables).render())) }
        if let json { try ReportFile.write(BenchSummary(tables: tables).json(cpus: ProcessInfo.processInfo.activeProcessorCount), to: json) }
        if references.nodePath == nil { print("\nNode reference skipped: node is not on the PATH.") }
    }

    /// One figure for `scripts/bench-instructions`, without the table: the round trips, the
    /// share frames' decode, or a flood of brokered items (`batched` or `per-item`).
    func runProbe(_ probe: String, runtime: String) async throws {
        // Only the flood: what runs before it (the host's start, the warm-up) is the same
        // in both of the counter's runs and falls out of the difference.
        if probe == "round-trip" {
            let r = try LatencyBench.run(appRuntime: runtime, size: 1024, count: pings)
            print(String(format: "probe: %d round trips of 1 KiB (after %d to warm up), p50 %.1f µs", pings, LatencyBench.warmup, r.p50))
            return
        }
        if probe == "decode" {
            try DecodeBench.probe(count: items)
            print("probe: \(items) share frames of 1 KiB parsed")
            return
        }
        let pairs = pairCounts[0]
        let r = try await BrokerBench.run(appRuntime: runtime, count: items, size: 1024, audit: true, batched: probe == "batched", pairs: pairs)
        print(String(format: "probe: %d items of 1 KiB brokered (%@, audit on, %d pair%@), %.0f items/s", items / pairs * pairs, probe, pairs, pairs == 1 ? "" : "s", r.itemsPerSecond))
    }

    /// One run of the selected parts, its figures added to `table` (and the lines of the parts
    /// that are not figures printed).
    func measure(into table: inout BenchTable, runtime: String, references: References) async throws {

        if only == nil || only == "decision" {
            let ns = try DecisionBench.run()
            print(String(format: "enforcer: one transfer decision, median %.0f ns (target ≤ 1000 ns)\n", ns))
            table.add("enforcer: one transfer decision (ns)", ns, nil, nil, lowerIsBetter: true, target: "≤ 1000 ns")
            let ms = try FleetBuildBench.run()
            print(String(format: "policy: a fleet of %d apps and %d extensions built one install at a time, best %.1f ms\n", FleetBuildBench.apps, FleetBuildBench.apps / 10, ms))
            table.add("policy: fleet of \(FleetBuildBench.apps) apps built (ms)", ms, nil, nil, lowerIsBetter: true, target: "≤ 100 ms")
        }

        if only == nil || only == "whatif" {
            let w = try WhatIfBench.run()
            print(String(format: "whatif: %d personas × %d apps evaluated, best %.0f ms each a shape of its own, %.0f ms in a few shapes (target ≤ 2000 ms)\n",
                         WhatIfBench.personas, WhatIfBench.apps, w.distinct, w.shared))
            table.add("whatif: 1000 personas × 20 apps (ms)", w.distinct, nil, nil, lowerIsBetter: true, target: "≤ 2000 ms")
            let dsc = try WhatIfBench.dsc()
            print(String(format: "whatif: a 10 MB Microsoft365DSC export (%d app protection policies) read in %.0f ms, best of 3 (target ≤ 2000 ms)\n", dsc.policies, dsc.milliseconds))
            table.add("whatif: read a 10 MB Microsoft365DSC export (ms)", dsc.milliseconds, nil, nil, lowerIsBetter: true, target: "≤ 2000 ms")
            let graph = try WhatIfBench.graphExport()
            print(String(format: "whatif: a %.0f MB Graph export (10000 app protection policies) read in %.0f ms, best of 3 (target ≤ 5000 ms)\n", graph.megabytes, graph.milliseconds))
            table.add("whatif: read a Graph export of 10000 policies (ms)", graph.milliseconds, nil, nil, lowerIsBetter: true, target: "≤ 5000 ms")
            let scale = try WhatIfBench.scale()
            print(String(format: "whatif: 10000 personas of their own shapes judged and written: table %.2f s (%.0f MB, target ≤ 5 s), JSON %.2f s (%.0f MB, target ≤ 10 s), peak %.0f MiB (target ≤ 400 MiB)\n",
                         scale.table, Double(scale.bytes.table) / 1e6, scale.json, Double(scale.bytes.json) / 1e6, scale.peakMiB))
            table.add("whatif: 10000 personas, table (s)", scale.table, nil, nil, lowerIsBetter: true, target: "≤ 5 s")
            table.add("whatif: 10000 personas, JSON (s)", scale.json, nil, nil, lowerIsBetter: true, target: "≤ 10 s")
            table.add("whatif: 10000 personas, peak (MiB)", scale.peakMiB, nil, nil, lowerIsBetter: true, target: "≤ 400 MiB")
            let diff = try WhatIfScaleBench.diff()
            print(String(format: "whatif --diff: 10000 personas of their own shapes, %d changes judged and written (JSON) in %.2f s (target ≤ 10 s), peak %.0f MiB\n",
                         diff.changes, diff.seconds, diff.peakMiB))
            table.add("whatif --diff: 10000 personas (s)", diff.seconds, nil, nil, lowerIsBetter: true, target: "≤ 10 s")
            let shards = try WhatIfScaleBench.shards()
            print(String(format: "whatif --diff --shard K/8: 100000 personas, %d changes; slowest part %.2f s, all 8 parts %.2f s one after the other, merge %.2f s, peak %.0f MiB\n",
                         shards.changes, shards.slowest, shards.total, shards.merge, shards.peakMiB))
            table.add("whatif --diff: 100000 personas, slowest of 8 parts (s)", shards.slowest, nil, nil, lowerIsBetter: true, target: "≤ 10 s")
            table.add("whatif --diff: 100000 personas, merge of 8 parts (s)", shards.merge, nil, nil, lowerIsBetter: true, target: "≤ 30 s")
        }

        if only == nil || only == "mutate" {
            let m = try await MutateBench.run(runtime: runtime)
            print(String(format: "mutate: the demo's sweep (%d mutants) %.2f s against one run of it %.2f s: %.1f× (target ≤ 3×); again from the cache %.2f s (%.1f×)\n",
                         m.mutants, m.sweep, m.one, m.sweep / m.one, m.cached, m.cached / m.one))
            table.add("mutate: the demo's sweep ÷ one run (×)", m.sweep / m.one, nil, nil, lowerIsBetter: true, target: "≤ 3×")
            table.add("mutate: the demo's sweep from the cache ÷ one run (×)", m.cached / m.one, nil, nil, lowerIsBetter: true, target: "≤ 3×")
            let c = try MutateBench.commands(runtime: runtime)
            print(String(format: "mutate: as a user runs them, `mamsim mutate --no-cache` of the demo %.2f s against `mamsim test` of it %.2f s: %.1f×\n", c.sweep, c.one, c.sweep / c.one))
            table.add("mutate: `mamsim mutate` ÷ `mamsim test` of the demo (×)", c.sweep / c.one, nil, nil, lowerIsBetter: true, target: "≤ 3×")
        }

        if only == nil || only == "decode" {
            let d = try DecodeBench.run()
            print(String(format: "wire: decode one 1 KiB share frame in place, median %.0f ns; protobuf-c unpack and free alone %.0f ns (%.2f×)",
                         d.parseNs, d.unpackOnlyNs, d.parseNs / d.unpackOnlyNs))
            // What the one-pass share codec (HotFrames) buys over protobuf-c and the conversion it stands in for.
            print(String(format: "wire: the same frame through protobuf-c and the generated conversion, median %.0f ns: HotFrames is %.2f× faster\n",
                         d.genericNs, d.genericNs / d.parseNs))
            table.add("wire: decode one 1 KiB share frame (ns)", d.parseNs, nil, nil, lowerIsBetter: true, target: String(format: "generic path %.0f ns", d.genericNs))
        }

        if only == nil || only == "latency" {
            // Timed on one CPU, as the round trips are (the cost of the blocking form itself), and
            // free on every CPU (what the machine's wake-ups add: on a 2-vCPU VM a thread woken on
            // an idle vCPU is most of the call).
            // A quarter of --pings per form and placement (500 calls in each of 10 rounds by default).
            let perRound = max(1, pings / 40)
            let b = try await withProcessOnCPU0 { try await BlockingCallBench.run(perRound: perRound) }
            let free = try await BlockingCallBench.run(perRound: perRound)
            print(String(format: "service call from app code, on CPU 0: awaited p50 %.1f µs, blocking (callBlocking, as a synchronous getter) p50 %.1f µs (%.2f×, target ≤ 1.2×); on every CPU: %.1f and %.1f µs (%.2f×)\n",
                         b.asyncP50, b.blockingP50, b.blockingP50 / b.asyncP50, free.asyncP50, free.blockingP50, free.blockingP50 / free.asyncP50))
            table.add("service call awaited p50 (µs)", b.asyncP50, nil, nil, lowerIsBetter: true,
                      target: String(format: "on CPU 0; on every CPU %.1f µs", free.asyncP50))
            table.add("service call blocking p50 (µs)", b.blockingP50, nil, nil, lowerIsBetter: true,
                      target: String(format: "%.2f× awaited (≤ 1.2×), on CPU 0; on every CPU %.1f µs, %.2f×", b.blockingP50 / b.asyncP50, free.blockingP50, free.blockingP50 / free.asyncP50),
                      relativeTo: "service call awaited p50 (µs)")
            let f = try await FacadeBench.run()
            print(String(format: "façade: policy(forAccountId:) and 30 getters p50 %.1f µs (target < 1000 µs), the same 30 answers one call each p50 %.1f µs (%.1f× slower)\n",
                         f.facadeP50, f.perCallP50, f.perCallP50 / f.facadeP50))
        }

        for size in [64, 1024] where only == nil || only == "latency" {
            let ours = try LatencyBench.run(appRuntime: runtime, size: size, count: pings)
            let c = try references.c("--pin", "0", "latency", "\(size)", "\(pings)")
            let node = try references.node("--pin", "0", "latency", "\(size)", "\(pings)")
            table.add("round trip \(size) B p50 (µs)", ours.p50, c?["p50_us"], node?["p50_us"], lowerIsBetter: true, target: "≤ 1.2× C")
            table.add("round trip \(size) B p99 (µs)", ours.p99, c?["p99_us"], node?["p99_us"], lowerIsBetter: true)
        }

        if only == nil || only == "broker" {
            // The shipping configuration: audit on, enforcement on, ownership stamped, batches;
            // and two C references: the sink answering every item (as mamsim answers every
            // share, the per-write reference) and acknowledging every 64th (what C's design
            // allows). Each measured three times, the runs interleaved so that a slow moment of
            // the machine falls on all of them, and the median run of each kept: one run of the
            // per-write reference alone ranged 220 k–314 k items/s on the same machine.
            var batchedRuns: [BrokerBench.Result] = [], perItemRuns: [BrokerBench.Result] = [], noAuditRuns: [BrokerBench.Result] = []
            var cPerWriteRuns: [[String: Double]] = [], cBrokerRuns: [[String: Double]] = []
            for _ in 0..<Self.brokerRuns {
                batchedRuns.append(try await BrokerBench.run(appRuntime: runtime, count: items, size: 1024, audit: true))
                perItemRuns.append(try await BrokerBench.run(appRuntime: runtime, count: items, size: 1024, audit: true, batched: false))
                noAuditRuns.append(try await BrokerBench.run(appRuntime: runtime, count: items, size: 1024, audit: false))
                if let c = try references.c("broker", "1024", "\(items)", "1") { cPerWriteRuns.append(c) }
                if let c = try references.c("broker", "1024", "\(items)") { cBrokerRuns.append(c) }
            }
            let batched = median(batchedRuns, by: { $0.itemsPerSecond })!
            let perItem = median(perItemRuns, by: { $0.itemsPerSecond })!
            let batchedNoAudit = median(noAuditRuns, by: { $0.itemsPerSecond })!
            let cPerWrite = median(cPerWriteRuns, by: { $0["items_per_s"] ?? 0 })
            let cBroker = median(cBrokerRuns, by: { $0["items_per_s"] ?? 0 })
            // The same relay in C with mamsim's batching (16 frames per write, answered every
            // 16th) and no work per item: what batching can win on this machine at all.
            let cBatched = try references.c("broker", "1024", "\(items)", "16", "16")
            let nodeBroker = try references.node("broker", "1024", "\(items)")
            table.add("broker 1 KiB items/s, batched (audit on)", batched.itemsPerSecond, cPerWrite?["items_per_s"], nodeBroker?["items_per_s"], lowerIsBetter: false,
                      target: "≥ 2.5× C per-write, ≥ 3× Node; median of \(Self.brokerRuns) runs each")
            table.add("  vs C acking every 64th", batched.itemsPerSecond, cBroker?["items_per_s"], nil, lowerIsBetter: false, target: "≥ 1.0×")
            table.add("  vs C relaying 16 frames per write", batched.itemsPerSecond, cBatched?["items_per_s"], nil, lowerIsBetter: false, target: "ceiling: the same relay, no work per item")
            table.add("broker 1 KiB items/s, per item (audit on)", perItem.itemsPerSecond, cPerWrite?["items_per_s"], nodeBroker?["items_per_s"], lowerIsBetter: false, target: String(format: "≥ 1.5× C per-write; batches: %.2f× per item", batched.itemsPerSecond / perItem.itemsPerSecond))
            table.add("broker 1 KiB items/s, batched (audit off)", batchedNoAudit.itemsPerSecond, cPerWrite?["items_per_s"], nodeBroker?["items_per_s"], lowerIsBetter: false, target: "what the audit log costs")
            for (name, r) in [("batched, audit on", batched), ("per item, audit on", perItem), ("batched, audit off", batchedNoAudit)] {
                table.add("  CPU µs per item, host (\(name))", r.hostCPUMicroseconds, nil, nil, lowerIsBetter: true,
                          target: String(format: "apps: %.2f µs", r.appsCPUMicroseconds))
                table.add("  host wake-ups per item (\(name))", r.hostWakeups, nil, nil, lowerIsBetter: true,
                          target: String(format: "preempted %.3f; reads %.3f, writes %.3f, page faults %.3f per item", r.hostPreemptions, r.hostReads, r.hostWrites, r.hostPageFaults))
                if let allocations = r.hostAllocations {
                    table.add("  host allocations per item (\(name))", allocations, nil, nil, lowerIsBetter: true, target: "counted by the preloaded allocator")
                }
            }
        }

        if only == nil || only == "pairs" {
            // Many sender→receiver pairs at once, the same number of items in all: what the host
            // costs per item as the pairs grow (issue 28's scaling figure). Each pair count is
            // measured three times, in interleaved rounds (1, 10, 50, then again), and its median
            // run kept: measured once, one pair alone moved between runs of one build by more
            // than the ratios it is the base of.
            func name(_ pairs: Int) -> String { "broker \(pairs) pair\(pairs == 1 ? "" : "s") items/s (audit on, batched)" }
            var runs = [[BrokerBench.Result]](repeating: [], count: pairCounts.count)
            for _ in 0..<Self.brokerRuns {
                for (k, pairs) in pairCounts.enumerated() {
                    runs[k].append(try await BrokerBench.run(appRuntime: runtime, count: items, size: 1024, audit: true, pairs: pairs))
                }
            }
            let single = median(runs[0], by: { $0.itemsPerSecond })!.itemsPerSecond
            for (k, pairs) in pairCounts.enumerated() {
                let r = median(runs[k], by: { $0.itemsPerSecond })!
                table.add(name(pairs), r.itemsPerSecond, nil, nil, lowerIsBetter: false,
                          target: String(format: "%.2f× \(pairCounts[0]) pair\(pairCounts[0] == 1 ? "" : "s"); host %.2f µs, apps %.2f µs, host wake-ups %.3f, reads %.3f, writes %.3f, page faults %.3f per item; %@; median of \(Self.brokerRuns) runs",
                                          r.itemsPerSecond / single, r.hostCPUMicroseconds, r.appsCPUMicroseconds, r.hostWakeups, r.hostReads, r.hostWrites, r.hostPageFaults,
                                          r.cpuSplit.map { "apps kept off CPU \($0.broker)" } ?? "CPUs shared"),
                          relativeTo: k == 0 ? nil : name(pairCounts[0]))
            }
        }

        if only == nil || only == "audit" {
            // A hostile flood of refused shares: the per-child audit budget bounds the log, and
            // the export and the report stream it. Run alone (--only audit) for a clean peak.
            let flood = try await AuditFloodBench.run(appRuntime: runtime, count: items * 2)
            print(String(format: "audit flood: %d refused 1 KiB shares in %.2f s from one child → %d rows logged one by one, %d coalesced record(s); host peak RSS %.0f MiB%@; export %.2f s (%.1f MiB); report %.2f s, peak RSS after it %.0f MiB\n",
                         flood.shares, flood.seconds, flood.rowsLogged, flood.coalescedRecords, flood.hostPeakMiB,
                         flood.ownPeak ? " (its own: the peak was reset before it)" : " (the process's peak so far: run --only audit for the flood's own)",
                         flood.exportSeconds, flood.exportMiB, flood.reportSeconds, flood.peakAfterReportMiB))
        }

        for n in fleet where only == nil || only == "fleet" {
            let ours = try await FleetBench.run(appRuntime: runtime, count: n)
            let exec = try await FleetBench.run(appRuntime: runtime, count: n, fork: false)
            let c = try references.c("fleet", "\(n)")
            let node = n <= 100 ? try references.node("fleet", "\(n)") : nil
            table.add("fleet \(n) ready (s), forked from the template", ours.seconds, c?["seconds"], node?["seconds"], lowerIsBetter: true, target: "≤ 1.0× C")
            table.add("  each app exec'd instead", exec.seconds, c?["seconds"], node?["seconds"], lowerIsBetter: true, target: String(format: "fork saves %.0f %%", 100 * (1 - ours.seconds / exec.seconds)))
            table.add("  host CPU ms per app, forked", ours.hostCPUMilliseconds, nil, nil, lowerIsBetter: true, target: String(format: "exec'd: %.2f ms", exec.hostCPUMilliseconds))
            table.add("  app's own CPU ms until ready, forked", ours.appsCPUMilliseconds, nil, nil, lowerIsBetter: true, target: String(format: "exec'd: %.2f ms", exec.appsCPUMilliseconds))
            table.add("fleet \(n) RSS per app (MiB)", ours.rssMiB, c?["rss_per_app_mib"], node?["rss_per_app_mib"], lowerIsBetter: true, target: "≤ 10 MiB")
            table.add("fleet \(n) PSS per app (MiB)", ours.pssMiB, nil, nil, lowerIsBetter: true, target: String(format: "exec'd: %.1f MiB", exec.pssMiB))
        }
    }
}

/// The path of an executable next to the running one.
func siblingExecutable(_ name: String) -> String {
    let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    let candidate = me.deletingLastPathComponent().appendingPathComponent(name).path
    if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent(name).path
    }
    return candidate
}
