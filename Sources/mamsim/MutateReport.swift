import ArgumentParser
import Foundation
import MAMActivation
import MAMAdmin
import MAMModel

/// What a sweep found, as one run writes it and as `mamsim merge` joins its parts: the same
/// rendering, so the merged report is the one run's, byte for byte.
struct MutateSweep: Codable, Equatable {
    var outcomes: [MutateCommand.Outcome]
    /// Settings no tried value changes (no mutant), counted over the whole sweep.
    var unchanged: Int
    var baselineFailed: [String]

    /// Killed mutants over every mutant, in percent (100 with none).
    var score: Double {
        outcomes.isEmpty ? 100 : Double(outcomes.filter { $0.verdict == .killed }.count) * 100 / Double(outcomes.count)
    }

    var summary: String {
        let counts = Dictionary(grouping: outcomes, by: \.verdict.rawValue).mapValues(\.count)
        return String(format: "mutation score %.1f%%: %d mutants, %d killed, %d survived, %d not exercised; %d settings no value changes (no mutant)",
                      score, outcomes.count, counts["killed"] ?? 0, counts["survived"] ?? 0, counts["not exercised"] ?? 0, unchanged)
    }

    func render(_ format: String) -> String {
        if format == "sarif" { return sarif() }
        if format == "html" { return html() }
        guard format == "json" else {
            return UntrustedText.lines(outcomes.map { o in
                "\(o.verdict.rawValue.uppercased().padding(toLength: 13, withPad: " ", startingAt: 0)) \(o.scenario) · \(o.displayName) → \(o.value): \(o.because)"
            } + [summary])
        }
        var w = WhatIfReport.JSONWriter()
        w.object { w in
            w.key("mutants")
            w.array(outcomes) { w, o in
                w.object { w in
                    w.field("scenario", o.scenario); w.field("kind", o.kind.rawValue); w.field("policy", o.policy); w.field("setting", o.setting); w.field("value", o.value)
                    w.field("verdict", o.verdict.rawValue); w.field("because", o.because)
                    if let step = o.step { w.field("step", step) }
                    if o.replayed == true { w.field("replayed", true) }
                    w.field("apps", strings: o.apps)
                    if let at = o.at { w.key("at"); w.object { w in w.field("file", at.file); w.field("line", at.line) }; w.comma() }
                }
            }
            w.comma()
            w.key("score"); w.raw(String(format: "%.1f", score)); w.comma()
            w.field("unchanged", unchanged)
            w.field("baselineFailed", strings: baselineFailed)
        }
        return w.out
    }

    /// Writes the report, then says what fails the run: a scenario that did not pass as it is,
    /// or a score under `--fail-under` (exit 1).
    func finish(format: String, output: String?, failUnder: Double?) throws {
        try ReportFile.write(render(format), to: output)
        if output != nil { Terminal().line(summary) }
        for line in baselineFailed { Terminal.error(line) }
        if !baselineFailed.isEmpty { throw ExitCode(1) }
        if let failUnder, score < failUnder {
            Terminal.error(String(format: "mutation score %.1f%% is under --fail-under %.1f%%", score, failUnder))
            throw ExitCode(1)
        }
    }
}

/// A part of a sharded sweep (`mamsim mutate --shard K/N`): JSON naming the part, the sweep it
/// belongs to and how the whole is to be written, with the part's outcomes. Part K holds the
/// mutants K of N of the sweep's order (contiguous), so the parts joined in order are the sweep.
enum MutatePart {
    static let magic = "mutate-part/1"

    struct Header: Codable {
        var mamsim: String
        var index: Int
        var count: Int
        var mutants: Int
        var identity: String
        var format: String
        var failUnder: Double?
    }

    struct Part: Codable {
        var header: Header
        var sweep: MutateSweep
    }

    /// The sweep a part belongs to: its scenarios, the settings chosen and whether every
    /// value was tried, so parts of different sweeps are never joined.
    static func identity(_ scenarios: [String], only: String?, allValues: Bool = false) -> String {
        String(TestCommand.fnv1a((scenarios + [only ?? ""] + (allValues ? ["--all-values"] : [])).joined(separator: "\n").utf8), radix: 16)
    }

    static func write(_ sweep: MutateSweep, index: Int, count: Int, of mutants: Int, identity: String, format: String, failUnder: Double?,
                      to output: String?) throws {
        let header = Header(mamsim: magic, index: index, count: count, mutants: mutants, identity: identity, format: format, failUnder: failUnder)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try ReportFile.write(String(decoding: try encoder.encode(Part(header: header, sweep: sweep)), as: UTF8.self) + "\n", to: output)
    }

    static func isPart(_ head: Data) -> Bool {
        String(decoding: head, as: UTF8.self).contains("\"mamsim\":\"\(magic)\"")
    }

    /// The parts joined into the report one sweep writes, in the format it was run with.
    static func merge(_ paths: [String], output: String?) throws {
        var parts: [Part] = []
        for path in paths {
            guard let data = try? InputFile.contents(of: URL(fileURLWithPath: path)) else {
                Terminal.error("\(path) cannot be read; name the parts `mamsim mutate --shard K/N --output FILE` wrote")
                throw ExitCode(2)
            }
            guard let part = try? JSONDecoder().decode(Part.self, from: data), part.header.mamsim == magic else {
                Terminal.error("\(path) is not a part of a sharded mamsim mutate sweep")
                throw ExitCode(2)
            }
            parts.append(part)
        }
        parts.sort { $0.header.index < $1.header.index }
        let first = parts[0].header
        let indices = parts.map(\.header.index)
        guard parts.allSatisfy({ $0.header.identity == first.identity && $0.header.count == first.count && $0.header.format == first.format }),
              indices == Array(0..<first.count) else {
            Terminal.error("these parts are not one sweep's \(first.count) parts: parts \(indices.map { "\($0 + 1)" }.joined(separator: ", ")) of sweeps \(Set(parts.map(\.header.identity)).sorted().joined(separator: ", "))")
            throw ExitCode(2)
        }
        var failed: [String] = []
        for line in parts.flatMap(\.sweep.baselineFailed) where !failed.contains(line) { failed.append(line) }
        let sweep = MutateSweep(outcomes: parts.flatMap(\.sweep.outcomes), unchanged: parts[0].sweep.unchanged, baselineFailed: failed)
        guard sweep.outcomes.count == first.mutants || !failed.isEmpty else {
            Terminal.error("the parts hold \(sweep.outcomes.count) mutants of the sweep's \(first.mutants)")
            throw ExitCode(2)
        }
        try sweep.finish(format: first.format, output: output, failUnder: first.failUnder)
    }
}
