import ArgumentParser
import Foundation
import MAMAdmin
import MAMModel

/// Writes `whatif --diff`'s report as its changes come, in any number of batches: each change's
/// row is rendered at once to a scratch file, and what the head and the summary need (counts,
/// each persona's kinds and causes) is kept. `finish` writes the head, the rows and the tail.
/// One machine's run and `mamsim merge` of its shards feed the same changes in the same order
/// to this writer, so their reports are the same bytes.
final class WhatIfDiffWriter {
    enum Format: String { case table, json, html }

    let format: Format
    let old: String, new: String
    let personas: Int
    let failing: Set<WhatIfChange.Kind>
    private(set) var total = 0, failed = 0
    private(set) var firstFailed: [WhatIfChange] = []
    private var order: [String] = []
    private var summaries: [String: WhatIfDiffSummary] = [:]
    private let scratch: URL
    private let rows: FileHandle
    private var buffer: [UInt8] = []

    init(format: Format, old: String, new: String, personas: Int, failing: Set<WhatIfChange.Kind>) throws {
        self.format = format
        self.old = old
        self.new = new
        self.personas = personas
        self.failing = failing
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-whatif-diff-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        guard FileManager.default.createFile(atPath: scratch.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw ValidationError("cannot make a scratch file in \(FileManager.default.temporaryDirectory.path) for the diff's rows; set TMPDIR to a writable folder")
        }
        rows = try FileHandle(forUpdating: scratch)
    }

    deinit {
        try? rows.close()
        try? FileManager.default.removeItem(at: scratch)
    }

    func add(_ changes: [WhatIfChange]) throws {
        for c in changes {
            let fails = failing.contains(c.kind)
            total += 1
            if fails {
                failed += 1
                if firstFailed.count < 3 { firstFailed.append(c) }
            }
            if summaries[c.persona] == nil { order.append(c.persona) }
            // In place: a copy out and back would copy its kinds and causes for every change.
            summaries[c.persona, default: WhatIfDiffSummary()].count(c, fails: fails)
            buffer += row(c, fails: fails).utf8
        }
        if buffer.count > 1 << 20 { try flush() }
    }

    private func flush() throws {
        try rows.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// One change's row in the report's format, with its line end (the first row of JSON
    /// opens the list).
    func row(_ c: WhatIfChange, fails: Bool) -> String {
        switch format {
        case .table: WhatIfReport.diffRow(c, fails: fails)
        case .json: WhatIfReport.diffJSONRow(c, first: total == 1)
        case .html: WhatIfHTML.diffRow(c, fails: fails)
        }
    }

    var failingSaid: String {
        failing.isEmpty ? "" : ", \(failed) of kinds --fail-on names (\(failing.map(\.rawValue).sorted().joined(separator: ", ")))"
    }

    var headline: String {
        "\(old) → \(new), \(personas) persona\(personas == 1 ? "" : "s"): \(total) cell\(total == 1 ? "" : "s") change" + failingSaid
    }

    /// The report: head, rows, tail, to `output` (standard output when `nil`).
    func finish(to output: String?) throws {
        try flush()
        let stream = try ReportStream(to: output)
        switch format {
        case .table:
            try stream.write(UntrustedText.lines([headline]) + "\n")
        case .json:
            try stream.write("{\"schemaVersion\":1,\"changes\":[")
        case .html:
            try stream.write(WhatIfHTML.diffHead(old: old, new: new, personas: personas, total: total, failingSaid: failingSaid,
                                                 summary: order.map { ($0, summaries[$0]!) }))
        }
        try rows.seek(toOffset: 0)
        try stream.copy(from: rows)
        switch format {
        case .table: break
        case .json:
            var w = WhatIfReport.JSONWriter()
            w.raw(total == 0 ? "]," : "\n],")
            w.field("failOn", strings: failing.map(\.rawValue).sorted())
            w.field("failed", failed > 0)
            w.field("new", new)
            w.field("old", old)
            w.field("personas", personas)
            w.dropComma()
            w.raw("}\n")
            try stream.write(w.out)
        case .html:
            try stream.write(WhatIfHTML.diffTail)
        }
        try stream.finish()
    }
}
