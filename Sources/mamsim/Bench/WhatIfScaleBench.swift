import Foundation
import MAMAdmin
import MAMModel
import MAMPolicy

/// `whatif --diff` at a tenant's scale: the change under review is the example's (level 2
/// sends org data to every app, the Contractors exclusion dropped), judged for personas each of
/// its own shape and written as the CLI writes it (JSON, to a scratch file).
enum WhatIfScaleBench {
    static func change() throws -> (old: WhatIfPolicies, new: WhatIfPolicies, apps: [WhatIfPersona.App]) {
        let (old, apps) = try WhatIfBench.tenant()
        var new = old
        new.protections[1].allowedOutboundDataTransferDestinations = .allApps
        new.protections[1].assignments.removeAll { if case .exclusionGroup = $0.target { true } else { false } }
        return (old, new, apps)
    }

    /// One machine's `--diff` of `count` personas: seconds, the changes written, this process's
    /// peak resident size in MiB (its peak reset first).
    static func diff(count: Int = 10_000) throws -> (seconds: Double, changes: Int, peakMiB: Double) {
        let (old, new, apps) = try change()
        let people = WhatIfBench.tenantPersonas(count: count, apps: apps)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-bench-diff-\(getpid()).json")
        defer { try? FileManager.default.removeItem(at: scratch) }
        ProcessStats.resetPeak()
        let clock = ContinuousClock()
        var changes = 0
        let took = try clock.measure {
            let writer = try WhatIfDiffWriter(format: .json, old: "old", new: "new", personas: count, failing: [.opened])
            try WhatIf.diff(people, old: old, new: new) { try writer.add($0) }
            try writer.finish(to: scratch.path)
            changes = writer.total
        }
        guard changes > count else { throw BenchError(message: "whatif bench: \(count) personas' diff found \(changes) changes") }
        return (WhatIfBench.milliseconds(took) / 1000, changes, Double(ProcessStats.kibField("VmHWM:", of: "/proc/self/status") ?? 0) / 1024)
    }

    /// `count` personas in `parts` parts, each part judged and written as `whatif --diff --shard
    /// K/N` writes it, then joined as `mamsim merge` joins them: the slowest part's seconds (what
    /// N machines take), every part's together, the merge's, and the peak resident size.
    static func shards(count: Int = 100_000, parts: Int = 8) throws -> (slowest: Double, total: Double, merge: Double, changes: Int, peakMiB: Double) {
        let (old, new, apps) = try change()
        let people = WhatIfBench.tenantPersonas(count: count, apps: apps)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-bench-shards-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        ProcessStats.resetPeak()
        let clock = ContinuousClock()
        var slowest = 0.0, total = 0.0
        var paths: [String] = []
        for k in 0..<parts {
            let path = folder.appendingPathComponent("part-\(k).part").path
            let mine = Array(people[WhatIfPart.range(count: count, index: k, of: parts)])
            let took = try clock.measure {
                let stream = try ReportStream(to: path)
                try stream.write(try WhatIfPart.header(["kind": "diff", "format": "json", "shard": ["index": k + 1, "count": parts], "personas": count,
                                                       "run": "bench", "old": "old", "new": "new", "failOn": ["blocked->delivered"]]))
                try WhatIf.diff(mine, old: old, new: new) { try stream.write($0.map(WhatIfPart.changeLine).joined()) }
                try stream.finish()
            }
            let seconds = WhatIfBench.milliseconds(took) / 1000
            slowest = max(slowest, seconds)
            total += seconds
            paths.append(path)
        }
        var changes = 0
        let merged = folder.appendingPathComponent("merged.json").path
        let merge = try clock.measure {
            let parts = try WhatIfMerge.parts(paths)
            let writer = try WhatIfDiffWriter(format: .json, old: "old", new: "new", personas: count, failing: [.opened])
            for part in parts { try WhatIfMerge.feed(part, to: writer) }
            try writer.finish(to: merged)
            changes = writer.total
        }
        return (slowest, total, WhatIfBench.milliseconds(merge) / 1000, changes, Double(ProcessStats.kibField("VmHWM:", of: "/proc/self/status") ?? 0) / 1024)
    }
}
