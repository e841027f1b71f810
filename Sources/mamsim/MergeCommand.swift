import ArgumentParser
import Foundation
import MAMActivation
import MAMModel

/// `mamsim merge SHARD.json...`: the JSON reports of many shards (`mamsim test --shard K/N
/// --format json`) as one report, JSON or JUnit, equal to what one run of the whole suite
/// reports (timings aside). Exit 1 when a scenario failed, 2 for bad input.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the JSON reports of test shards into one report (JSON or JUnit).",
        discussion: "Each input is a `mamsim test --format json` report (a scenario found in two inputs is an error: shards partition a suite), or each is a part a sharded `mamsim whatif --shard K/N` or `mamsim mutate --shard K/N` wrote: the parts are joined into the report one run writes, in the format they were run with, and a diff's gate (--fail-on) is decided on every change (exit 1).")

    typealias Format = TestCommand.Format

    @Argument(help: "JSON reports of the shards.", completion: .file(extensions: ["json"]))
    var reports: [String]

    @Option(help: "Output format: human, json, junit, or sarif (Strict Mode's findings).")
    var format: Format = .human

    @Option(help: "Write the merged report to this file (its folder is created).")
    var output: String?

    func run() throws {
        // Parts of a sharded `whatif` run are joined into the report one run writes (its format).
        if let first = reports.first, let head = FileHandle(forReadingAtPath: first).flatMap({ h in defer { try? h.close() }; return try? h.read(upToCount: 4096) }),
           WhatIfMerge.isPart(head) {
            return try WhatIfMerge.run(reports, output: output)
        }
        // Parts of a sharded `mutate` sweep are joined into the report one sweep writes.
        if let first = reports.first, let head = FileHandle(forReadingAtPath: first).flatMap({ h in defer { try? h.close() }; return try? h.read(upToCount: 4096) }),
           MutatePart.isPart(head) {
            return try MutatePart.merge(reports, output: output)
        }
        var parts: [(name: String, document: SuiteDocument)] = []
        for path in reports {
            guard let data = (try? InputFile.contents(of: URL(fileURLWithPath: path))) else {
                Terminal.error("\(path) cannot be read; name the JSON reports the shards wrote (mamsim test --format json --output FILE)")
                throw ExitCode(2)
            }
            do {
                parts.append((path, try JSONDecoder().decode(SuiteDocument.self, from: data)))
            } catch {
                let hint = data.first == UInt8(ascii: "<") ? " (it looks like XML: merge reads the shards' JSON reports, and writes JUnit with --format junit)" : ""
                Terminal.error("\(path) is not a mamsim test JSON report: \(Self.describe(error))\(hint)")
                throw ExitCode(2)
            }
        }
        let merged: SuiteDocument
        do {
            merged = try SuiteDocument.merged(parts)
        } catch {
            Terminal.error(error)
            throw ExitCode(2)
        }
        let summary = "scenarios: \(merged.passed) passed, \(merged.failed) failed (\(merged.steps) steps) from \(parts.count) report\(parts.count == 1 ? "" : "s")"
        let text: String
        switch format {
        case .human:
            text = UntrustedText.lines(merged.scenarios.map { s in
                s.passed ? "✔ \(s.name) (\(s.steps.count) steps)" : "✘ \(s.name): \(s.error ?? s.fleetError ?? "\(s.steps.filter { !$0.passed }.count) of \(s.steps.count) steps failed")"
            } + [summary])
        case .json: text = merged.json()
        case .junit: text = merged.junit()
        case .sarif: text = merged.sarif()
        }
        try ReportFile.write(text, to: output)
        if output != nil { Terminal().line(summary) }
        if merged.failed > 0 { throw ExitCode(1) }
    }

    /// A decoding error as "missing key scenarios" rather than Foundation's dump.
    static func describe(_ error: any Error) -> String {
        guard let e = error as? DecodingError else { return error.localizedDescription }
        func path(_ c: DecodingError.Context) -> String { c.codingPath.map(\.stringValue).joined(separator: ".") }
        switch e {
        case .keyNotFound(let key, let c): return "missing key \(path(c).isEmpty ? "" : path(c) + ".")\(key.stringValue)"
        case .typeMismatch(_, let c), .valueNotFound(_, let c): return "\(path(c)): \(c.debugDescription)"
        case .dataCorrupted(let c): return c.codingPath.isEmpty ? "not JSON" : "\(path(c)): \(c.debugDescription)"
        @unknown default: return "\(e)"
        }
    }
}
