import ArgumentParser
import Foundation
import MAMLoop

/// The reference programs of the benchmark: a minimal C libuv program (built here with `cc`)
/// and Node's `child_process` IPC, both printing one `key=value` line per measurement.
struct References {
    let cBinary: String?
    let nodePath: String?
    let nodeScript: String?

    init(directory: String?, skipNode: Bool) throws {
        let dir = try directory ?? References.findDirectory()
        let source = URL(fileURLWithPath: dir).appendingPathComponent("mamsim-ref.c").path
        guard FileManager.default.fileExists(atPath: source) else {
            throw ValidationError("reference program not found: \(source); run from the repository or pass --reference-dir")
        }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-ref-\(getpid())").path
        let flags = try References.capture(["pkg-config", "--cflags", "--libs", "libuv"]).split(separator: " ").map(String.init)
        _ = try References.capture(["cc", "-O2", "-o", out, source] + flags)
        cBinary = out
        let script = URL(fileURLWithPath: dir).appendingPathComponent("node-ref.js").path
        let node = skipNode ? nil : References.which("node")
        nodePath = FileManager.default.fileExists(atPath: script) ? node : nil
        nodeScript = script
    }

    /// Deletes the C reference built by `init`: every run builds its own.
    func removeBuiltProgram() {
        if let cBinary { unlink(cBinary) }
    }

    func c(_ args: String...) throws -> [String: Double]? {
        guard let cBinary else { return nil }
        return References.parse(try References.capture([cBinary] + args))
    }

    func node(_ args: String...) throws -> [String: Double]? {
        guard let nodePath, let nodeScript else { return nil }
        return References.parse(try References.capture([nodePath, nodeScript] + args))
    }

    static func parse(_ line: String) -> [String: Double] {
        var out: [String: Double] = [:]
        for field in line.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let kv = field.split(separator: "=", maxSplits: 1)
            if kv.count == 2, let v = Double(kv[1]) { out[String(kv[0])] = v }
        }
        return out
    }

    static func findDirectory() throws -> String {
        var dir = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        for _ in 0..<6 {
            let candidate = dir.appendingPathComponent("bench/reference")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("mamsim-ref.c").path) { return candidate.path }
            dir.deleteLastPathComponent()
        }
        throw ValidationError("bench/reference not found above \(FileManager.default.currentDirectoryPath); pass --reference-dir")
    }

    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let p = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    /// Runs a program and returns its stdout; a non-zero exit is an error.
    ///
    /// Not with Foundation's `Process`: it hands children the spawning thread's signal mask,
    /// in which SIGCHLD is blocked, and a libuv parent with SIGCHLD blocked never learns that
    /// its own children exited. `ChildProcess.run` resets mask and dispositions.
    static func capture(_ argv: [String]) throws -> String {
        let program = argv[0].contains("/") ? argv[0] : (which(argv[0]) ?? argv[0])
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-bench-\(getpid())-\(UUID().uuidString).out").path
        defer { unlink(output) }
        let wait: Int32
        do {
            wait = try ChildProcess.run(program, arguments: Array(argv.dropFirst()), stdoutPath: output)
        } catch {
            throw ValidationError("cannot run \(program): \(error)")
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard wait == 0 else {
            throw ValidationError("\(argv.joined(separator: " ")) failed (wait status \(wait)); its output: \(text)")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The printed table: one row per figure, ours beside the references, with ratios.
struct BenchTable {
    struct Row {
        let name: String
        let ours: Double
        let c: Double?
        let node: Double?
        let lowerIsBetter: Bool
        let target: String?
        /// The figure of the same run this one is compared with (pairs against the first pair
        /// count), for the summary of several runs.
        var relativeTo: String? = nil
    }
    var rows: [Row] = []

    mutating func add(_ name: String, _ ours: Double, _ c: Double?, _ node: Double?, lowerIsBetter: Bool, target: String? = nil, relativeTo: String? = nil) {
        rows.append(Row(name: name, ours: ours, c: c, node: node, lowerIsBetter: lowerIsBetter, target: target, relativeTo: relativeTo))
    }

    /// A figure as every table writes it: whole above 1,000, one decimal above 10, else three.
    static func number(_ v: Double?) -> String {
        guard let v else { return "—" }
        if v >= 1000 { return String(format: "%.0f", v) }
        if v >= 10 { return String(format: "%.1f", v) }
        return String(format: "%.3f", v)
    }

    /// `a` against `b` (`—` without `b`).
    static func ratio(_ a: Double, _ b: Double?) -> String {
        guard let b, b > 0 else { return "—" }
        return String(format: "%.2f×", a / b)
    }

    func render() -> String {
        let num = Self.number, ratio = Self.ratio
        // The first column is as wide as the longest figure name.
        let width = max(30, (rows.map(\.name.count).max() ?? 0) + 2)
        var lines = [pad("figure", width) + pad("mamsim", 12) + pad("C ref", 12) + pad("÷ C", 9) + pad("Node", 12) + pad("÷ Node", 9) + "target"]
        for r in rows {
            lines.append(pad(r.name, width) + pad(num(r.ours), 12) + pad(num(r.c), 12) + pad(ratio(r.ours, r.c), 9)
                + pad(num(r.node), 12) + pad(ratio(r.ours, r.node), 9) + (r.target ?? ""))
        }
        return lines.joined(separator: "\n")
    }

    private func pad(_ s: String, _ n: Int) -> String {
        s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count)
    }

    /// The same table in Markdown (`--markdown`): what docs/PERFORMANCE.md's tables are made of.
    func markdown() -> String {
        let num = Self.number, ratio = Self.ratio
        var lines = ["| figure | mamsim | C ref | ÷ C | Node | ÷ Node | target |", "|---|---:|---:|---:|---:|---:|---|"]
        for r in rows {
            lines.append("| \(Self.cell(r.name)) | \(num(r.ours)) | \(num(r.c)) | \(ratio(r.ours, r.c)) | \(num(r.node)) | \(ratio(r.ours, r.node)) | \(Self.cell(r.target ?? "")) |")
        }
        return lines.joined(separator: "\n")
    }

    /// A table cell's text: its bars escaped, its spaces trimmed.
    static func cell(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "|", with: "\\|")
    }
}

/// The median time of one call of `body` in nanoseconds, over `batches` batches of `perBatch`
/// calls each, so the clock's own cost does not count.
func medianNanoseconds(batches: Int, perBatch: Int, _ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    var samples: [Double] = []
    samples.reserveCapacity(batches)
    for _ in 0..<batches {
        let start = clock.now
        for _ in 0..<perBatch { try body() }
        let d = clock.now - start
        samples.append((Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9) / Double(perBatch))
    }
    return samples.sorted()[samples.count / 2]
}

/// The run whose `value` is the median of `runs` (the lower middle one of an even count);
/// `nil` when there are none.
func median<Run>(_ runs: [Run], by value: (Run) -> Double) -> Run? {
    guard !runs.isEmpty else { return nil }
    return runs.sorted { value($0) < value($1) }[(runs.count - 1) / 2]
}

/// The figures of several bench runs: each figure's median, min and max, and the spread of its
/// ratio to the C reference. A C reference that itself moved by more than `noisyThreshold`
/// between runs says the machine was too busy to trust that ratio.
struct BenchSummary {
    let tables: [BenchTable]
    /// (max − min) ÷ median of the C reference above which its ratio is called noisy.
    static let noisyThreshold = 0.15

    struct Figure {
        let name: String
        let lowerIsBetter: Bool
        let target: String?
        var ours: [Double] = []
        var c: [Double] = []
        var node: [Double] = []
        /// `relativeTo`'s figure, and this one ÷ that one in each run that has both.
        var relativeTo: String?
        var relative: [Double] = []
        var ratios: [Double] { zip(ours, c).compactMap { $1 > 0 ? $0 / $1 : nil } }
        var cSpread: Double? { BenchSummary.spread(c) }
        var isNoisy: Bool { (cSpread ?? 0) > BenchSummary.noisyThreshold }
    }

    /// The figures in the order of the first run.
    var figures: [Figure] {
        var order: [String] = []
        var byName: [String: Figure] = [:]
        for table in tables {
            for r in table.rows {
                if byName[r.name] == nil {
                    order.append(r.name)
                    byName[r.name] = Figure(name: r.name, lowerIsBetter: r.lowerIsBetter, target: r.target, relativeTo: r.relativeTo)
                }
                byName[r.name]!.ours.append(r.ours)
                if let base = r.relativeTo, let b = table.rows.first(where: { $0.name == base })?.ours, b > 0 {
                    byName[r.name]!.relative.append(r.ours / b)
                }
                if let c = r.c { byName[r.name]!.c.append(c) }
                if let n = r.node { byName[r.name]!.node.append(n) }
            }
        }
        return order.compactMap { byName[$0] }
    }

    static func stats(_ v: [Double]) -> (median: Double, min: Double, max: Double)? {
        guard !v.isEmpty else { return nil }
        let s = v.sorted()
        let mid = s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        return (mid, s.first!, s.last!)
    }

    static func spread(_ v: [Double]) -> Double? {
        guard v.count > 1, let st = stats(v), st.median > 0 else { return nil }
        return (st.max - st.min) / st.median
    }

    /// A figure over the runs: `median [min–max]`, each written by `f`.
    static func range(_ v: [Double], _ f: (Double) -> String) -> String {
        guard let st = stats(v) else { return "—" }
        return "\(f(st.median)) [\(f(st.min))–\(f(st.max))]"
    }

    func render() -> String {
        let num: (Double) -> String = { BenchTable.number($0) }, cell = Self.range
        let all = figures
        let width = max(30, (all.map(\.name.count).max() ?? 0) + 2)
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
        var lines = ["median [min–max] of \(tables.count) runs",
                     pad("figure", width) + pad("mamsim", 26) + pad("C ref", 26) + pad("÷ C", 22) + "C moved"]
        var noisy: [String] = []
        for f in all {
            let moved = f.cSpread.map { String(format: "%.0f %%", $0 * 100) + (f.isNoisy ? " — noisy" : "") } ?? "—"
            if f.isNoisy { noisy.append(f.name.trimmingCharacters(in: .whitespaces)) }
            lines.append(pad(f.name, width) + pad(cell(f.ours, num), 26) + pad(cell(f.c, num), 26)
                         + pad(cell(f.ratios) { String(format: "%.2f×", $0) }, 22) + moved)
        }
        let relative = all.filter { $0.relativeTo != nil && !$0.relative.isEmpty }
        // A ratio to another figure of the run moves with that figure: how much it moved
        // between runs is the only word on the machine's noise where no C reference ran.
        let bases = all.filter { f in relative.contains { $0.relativeTo == f.name } }
        func moved(_ base: Figure) -> String {
            guard let sp = Self.spread(base.ours) else { return "" }
            return String(format: "; it moved %.0f %%", sp * 100) + (sp > Self.noisyThreshold ? " — noisy" : "")
        }
        if !relative.isEmpty {
            lines.append("\nagainst another figure of the same run, median [min–max] of its \(tables.count) ratios")
            for f in relative {
                let base = all.first { $0.name == f.relativeTo }
                lines.append(pad(f.name, width) + pad(cell(f.relative) { String(format: "%.2f×", $0) }, 22) + "of " + f.relativeTo!.trimmingCharacters(in: .whitespaces)
                             + (base.map(moved) ?? ""))
            }
        }
        lines.append("\n" + noiseVerdict(all, bases: bases, noisy: noisy))
        return lines.joined(separator: "\n")
    }

    /// The summary in Markdown (`--markdown`): each figure's median [min–max] over the runs,
    /// its C reference's and the ratio's, how much the reference moved, and the noise verdict.
    func markdown() -> String {
        let num: (Double) -> String = { BenchTable.number($0) }, cell = Self.range
        let all = figures
        var noisy: [String] = []
        var lines = ["Median [min–max] of \(tables.count) runs.", "", "| figure | mamsim | C ref | ÷ C | C moved |", "|---|---:|---:|---:|---:|"]
        for f in all {
            if f.isNoisy { noisy.append(f.name.trimmingCharacters(in: .whitespaces)) }
            let moved = f.cSpread.map { String(format: "%.0f %%", $0 * 100) + (f.isNoisy ? " (noisy)" : "") } ?? "—"
            lines.append("| \(BenchTable.cell(f.name)) | \(cell(f.ours, num)) | \(cell(f.c, num)) | \(cell(f.ratios) { String(format: "%.2f×", $0) }) | \(moved) |")
        }
        let bases = all.filter { f in all.contains { $0.relativeTo == f.name && !$0.relative.isEmpty } }
        lines.append("")
        lines.append(noiseVerdict(all, bases: bases, noisy: noisy))
        return lines.joined(separator: "\n")
    }

    /// Whether the run's ratios can be trusted: the C references' spread between runs, or
    /// where no figure has one, the spread of the figures the others are ratios of.
    func noiseVerdict(_ all: [Figure], bases: [Figure], noisy: [String]) -> String {
        if !all.contains(where: { $0.c.count > 1 }) {
            let spreads = bases.compactMap { b in Self.spread(b.ours).map { (b.name.trimmingCharacters(in: .whitespaces), $0) } }
            if spreads.isEmpty {
                return "No figure here has a C reference: nothing says how noisy the machine was."
            } else {
                let named = spreads.map { "\($0.0) moved \(String(format: "%.0f", $0.1 * 100)) %" }.joined(separator: "; ")
                let trusted = spreads.allSatisfy { $0.1 <= Self.noisyThreshold }
                return ("No figure here has a C reference; between runs, \(named). "
                             + (trusted ? "The ratios to it can be trusted (at most \(Int(Self.noisyThreshold * 100)) %)."
                                        : "Too noisy to trust the ratios to it (more than \(Int(Self.noisyThreshold * 100)) %): run again on a quiet machine, or with more runs."))
            }
        } else if noisy.isEmpty {
            return "The C references moved by at most \(Int(Self.noisyThreshold * 100)) % between runs: the ratios can be trusted."
        } else {
            return "Too noisy to trust: the C reference of \(noisy.count) figure(s) moved by more than \(Int(Self.noisyThreshold * 100)) % between runs (\(noisy.joined(separator: "; "))); run again on a quiet machine."
        }
    }

    /// Every run's figures and their summaries, for CI history.
    func json(cpus: Int) throws -> String {
        func summary(_ v: [Double]) -> Any {
            guard let st = Self.stats(v) else { return NSNull() }
            return ["median": st.median, "min": st.min, "max": st.max]
        }
        let list: [[String: Any]] = figures.map { f in
            var d: [String: Any] = ["name": f.name, "lowerIsBetter": f.lowerIsBetter, "runs": ["mamsim": f.ours, "c": f.c, "node": f.node],
                                    "mamsim": summary(f.ours), "c": summary(f.c), "ratioToC": summary(f.ratios), "noisy": f.isNoisy]
            if let t = f.target { d["target"] = t }
            if let sp = f.cSpread { d["cSpread"] = sp }
            if let base = f.relativeTo {
                var r: [String: Any] = ["figure": base, "runs": f.relative, "summary": summary(f.relative)]
                if let b = figures.first(where: { $0.name == base }), let sp = Self.spread(b.ours) {
                    r["figureSpread"] = sp
                    r["noisy"] = sp > Self.noisyThreshold
                }
                d["relativeTo"] = r
            }
            return d
        }
        let doc: [String: Any] = ["cpus": cpus, "runs": tables.count, "noisyThreshold": Self.noisyThreshold, "figures": list]
        let data = try JSONSerialization.data(withJSONObject: doc, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
