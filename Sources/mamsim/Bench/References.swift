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
    }
    var rows: [Row] = []

    mutating func add(_ name: String, _ ours: Double, _ c: Double?, _ node: Double?, lowerIsBetter: Bool, target: String? = nil) {
        rows.append(Row(name: name, ours: ours, c: c, node: node, lowerIsBetter: lowerIsBetter, target: target))
    }

    func render() -> String {
        func num(_ v: Double?) -> String {
            guard let v else { return "—" }
            if v >= 1000 { return String(format: "%.0f", v) }
            if v >= 10 { return String(format: "%.1f", v) }
            return String(format: "%.3f", v)
        }
        func ratio(_ a: Double, _ b: Double?) -> String {
            guard let b, b > 0 else { return "—" }
            return String(format: "%.2f×", a / b)
        }
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
