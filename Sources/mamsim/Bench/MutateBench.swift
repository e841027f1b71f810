import Foundation
import MAMScenario

/// `mamsim mutate` of the shipped demo against one run of it (issue 99, item 5): the sweep as
/// the command runs it with no cache (the mutants planned, the base run, every mutant run as
/// many at once as the machine has cores), and the same sweep again with every verdict in the
/// cache (planning and the cache's reads alone).
enum MutateBench {
    static func run(runtime: String) async throws -> (one: Double, sweep: Double, cached: Double, mutants: Int) {
        let demo = try demoScenario()
        let scenario = try ScenarioLoader.load(file: demo)
        let clock = ContinuousClock()
        let one = await clock.measure { _ = await MutateCommand.run(scenario, runtime: runtime) }
        var count = 0
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-bench-mutate-\(getpid())")
        defer { try? FileManager.default.removeItem(at: cache) }
        let store = MutateCache(folder: cache.path, runtime: runtime)
        let sweep = await clock.measure {
            let (mutants, _) = Mutation.all(of: scenario, only: nil, allValues: false)
            count = mutants.count
            let baseline = await MutateCommand.recordedRun(scenario, runtime: runtime)
            let outcomes = await MutateCommand.sweep(mutants, of: scenario, key: "demo", baseline: baseline, runtime: runtime)
            let fingerprint = store.fingerprint(of: scenario)
            for (i, (o, m)) in zip(outcomes, mutants).enumerated() {
                store.keep(o, fingerprint, MutateCommand.Planned(scenario: 0, mutation: m, index: i))
            }
        }
        var hits = 0
        let cached = clock.measure {
            let (mutants, _) = Mutation.all(of: scenario, only: nil, allValues: false)
            let fingerprint = store.fingerprint(of: scenario)
            for (i, m) in mutants.enumerated() where store.outcome(fingerprint, MutateCommand.Planned(scenario: 0, mutation: m, index: i)) != nil { hits += 1 }
        }
        guard count > 0, hits == count else { throw BenchError(message: "mutate bench: \(hits) of \(count) verdicts read back from the cache") }
        return (WhatIfBench.milliseconds(one) / 1000, WhatIfBench.milliseconds(sweep) / 1000, WhatIfBench.milliseconds(cached) / 1000, count)
    }

    /// The same two as a user runs them: this program's `mutate --no-cache` of the demo against
    /// its `test` of it, each the best of three (a command's wall time: its start, the
    /// scenario's load and every process it starts).
    static func commands(runtime: String) throws -> (one: Double, sweep: Double) {
        let demo = try demoScenario().path
        func best(_ arguments: [String]) throws -> Double {
            var times: [Double] = []
            for _ in 0..<3 {
                let p = Process()
                p.executableURL = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
                p.arguments = arguments + ["--app-runtime", runtime]
                p.standardOutput = FileHandle.nullDevice
                p.standardError = FileHandle.nullDevice
                let clock = ContinuousClock()
                let took = try clock.measure {
                    try p.run()
                    p.waitUntilExit()
                }
                guard p.terminationStatus == 0 else { throw BenchError(message: "mutate bench: mamsim \(arguments.joined(separator: " ")) exited \(p.terminationStatus)") }
                times.append(WhatIfBench.milliseconds(took) / 1000)
            }
            return times.min() ?? 0
        }
        return (try best(["test", demo]), try best(["mutate", demo, "--no-cache"]))
    }

    /// The shipped demo: from the current folder (a checkout), else up from this program's folder
    /// (`.build/release/mamsim` in a checkout).
    static func demoScenario() throws -> URL {
        let relative = "scenarios/examples/demo.yaml"
        var folder = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]).deletingLastPathComponent()
        var candidates = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(relative)]
        for _ in 0..<6 {
            candidates.append(folder.appendingPathComponent(relative))
            folder.deleteLastPathComponent()
        }
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
            throw BenchError(message: "mutate bench: \(relative) not found; run the bench from a mamsim checkout")
        }
        return found
    }

}
