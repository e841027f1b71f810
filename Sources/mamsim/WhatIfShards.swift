import ArgumentParser
import Foundation
import MAMAdmin
import MAMModel
import MAMPolicy

/// A part of a sharded `whatif` run (`--shard K/N`, `--shards N`): a header line — JSON naming
/// the part, the run it belongs to and what the merge needs — then the part's body: for an
/// evaluation, its personas as the report writes them (table, JSON objects, or HTML rows: its
/// summary rows, `summaryBytes` long, then its app rows); for a diff, its changes, a JSON object
/// a line. Part K holds the personas K-1 of N of the file's order (contiguous), so the parts
/// joined in order are the personas in order.
enum WhatIfPart {
    static let magic = "whatif-part/1"

    /// Personas `range` of `count` split into `parts` contiguous parts: part `index`'s.
    static func range(count: Int, index: Int, of parts: Int) -> Range<Int> {
        (count * index / parts)..<(count * (index + 1) / parts)
    }

    /// The run a part belongs to: the personas file's bytes and the policy paths, with the kind
    /// and format, so parts of different runs are never joined.
    static func identity(personas: Data, policies: [String], kind: String, format: String) -> String {
        String(TestCommand.fnv1a(Array(personas) + Array(([kind, format] + policies).joined(separator: "\n").utf8)), radix: 16)
    }

    static func header(_ fields: [String: Any]) throws -> String {
        var all = fields
        all["mamsim"] = magic
        let data = try JSONSerialization.data(withJSONObject: all, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func changeLine(_ c: WhatIfChange) -> String {
        var w = WhatIfReport.JSONWriter()
        WhatIfReport.changeObject(&w, c)
        w.raw("\n")
        return w.out
    }

    /// A part's line read back as the model reads itself (`WhatIfChange: Codable`, through
    /// the Graph reader's one pass); anything but what `changeLine` writes is refused, naming
    /// the file.
    static func change(_ line: [UInt8], in file: String) throws -> WhatIfChange {
        do { return try GraphValueDecoder().decode(WhatIfChange.self, from: line, source: file) } catch {
            throw ValidationError("\(file): a change line is not one whatif wrote: \(String(decoding: line.prefix(200), as: UTF8.self))")
        }
    }
}

extension WhatIfCommand {
    /// Part `index` of `count`: only its personas judged, written as a part for `mamsim merge`.
    /// A diff's part never fails the run: the gate is decided after the merge, on every change.
    func runPart(index: Int, count: Int) throws {
        let people = try loadPersonas()
        var bytes = Data()
        for file in personas { bytes += (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data() }
        let mine = Array(people[WhatIfPart.range(count: people.count, index: index, of: count)])
        var head: [String: Any] = ["kind": diff ? "diff" : "evaluation", "format": format.rawValue, "shard": ["index": index + 1, "count": count],
                                   "personas": people.count, "run": WhatIfPart.identity(personas: bytes, policies: policies, kind: diff ? "diff" : "evaluation", format: format.rawValue)]
        let now = Instant(secondsSince1970: Date().timeIntervalSince1970)
        let stream = try ReportStream(to: output)
        if diff {
            let (old, oldNotes) = try Self.loadPolicies([policies[0]])
            let (new, newNotes) = try Self.loadPolicies([policies[1]])
            for note in oldNotes { Terminal.warning("OLD: \(note)") }
            for note in newNotes { Terminal.warning("NEW: \(note)") }
            head["old"] = policies[0]
            head["new"] = policies[1]
            head["failOn"] = try failKinds().map(\.rawValue).sorted()
            try stream.write(try WhatIfPart.header(head))
            try WhatIf.diff(mine, old: old, new: new, now: now) { changes in
                try stream.write(changes.map(WhatIfPart.changeLine).joined())
            }
        } else {
            let (loaded, notes) = try Self.loadPolicies(policies)
            for note in notes + loaded.unknownGroups(of: mine) { Terminal.warning(note) }
            let results = WhatIf.evaluate(mine, loaded, now: now)
            head["sources"] = policies
            head["apps"] = mine.reduce(0) { $0 + $1.apps.count }
            var body = ""
            switch format {
            case .table:
                var conflicts = 0
                body = results.map { WhatIfReport.table($0, conflicts: &conflicts) + "\n" }.joined()
                head["conflicts"] = conflicts
            case .json:
                body = results.map(WhatIfReport.json).joined(separator: ",\n")
            case .html:
                let parts = results.map(WhatIfHTML.rows)
                let summary = parts.map { $0.summary }.joined()
                head["summaryBytes"] = summary.utf8.count
                body = summary + parts.map { $0.apps }.joined()
            }
            try stream.write(try WhatIfPart.header(head) + body)
        }
        try stream.finish()
        Terminal.emit("whatif part \(index + 1)/\(count): \(mine.count) of \(people.count) personas\n", to: 2)
    }
}

/// `mamsim merge` of `whatif` parts: the report one run over every persona writes, byte for
/// byte, and for a diff the gate decided on every change (exit 1 when one of the kinds the parts
/// were run with `--fail-on` is found).
enum WhatIfMerge {
    struct Part {
        var path: String
        var header: [String: Any]
        var bodyOffset: UInt64
        var index: Int { (header["shard"] as? [String: Any])?["index"] as? Int ?? 0 }
        var count: Int { (header["shard"] as? [String: Any])?["count"] as? Int ?? 0 }
    }

    /// Whether `data` (a file's first bytes) is a whatif part.
    static func isPart(_ data: Data) -> Bool {
        data.starts(with: Array("{".utf8)) && String(decoding: data.prefix(4096), as: UTF8.self).contains("\"mamsim\":\"\(WhatIfPart.magic)\"")
    }

    static func read(_ path: String) throws -> Part {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ValidationError("\(path) cannot be read; name the parts `whatif --shard K/N -o FILE` wrote") }
        defer { try? handle.close() }
        var line = Data()
        while let chunk = try handle.read(upToCount: 65_536), !chunk.isEmpty {
            if let end = chunk.firstIndex(of: UInt8(ascii: "\n")) {
                line += chunk[chunk.startIndex..<end]
                break
            }
            line += chunk
            if line.count > 1 << 20 { break }
        }
        guard let header = try? JSONSerialization.jsonObject(with: line) as? [String: Any], header["mamsim"] as? String == WhatIfPart.magic else {
            throw ValidationError("\(path) is not a whatif part (its first line is not the header `whatif --shard` writes)")
        }
        return Part(path: path, header: header, bodyOffset: UInt64(line.count + 1))
    }

    /// The parts in order, checked to be one run's every part, once each.
    static func parts(_ paths: [String]) throws -> [Part] {
        let parts = try paths.map(read).sorted { $0.index < $1.index }
        let first = parts[0]
        let n = first.count
        for p in parts {
            for key in ["run", "kind", "format", "personas"] where "\(p.header[key] ?? "")" != "\(first.header[key] ?? "")" {
                throw ValidationError("\(p.path) is a part of another run than \(first.path) (its \(key) differs): merge the parts of one `whatif --shard` run")
            }
            if p.count != n { throw ValidationError("\(p.path) is part \(p.index)/\(p.count), \(first.path) part \(first.index)/\(n): the parts of one run share N") }
        }
        for k in 1...max(n, 1) {
            let found = parts.filter { $0.index == k }
            if found.isEmpty { throw ValidationError("part \(k)/\(n) is missing (its whatif --shard \(k)/\(n) did not write it, or it was not named)") }
            if found.count > 1 { throw ValidationError("part \(k)/\(n) is named twice: \(found.map(\.path).joined(separator: ", "))") }
        }
        return parts
    }

    /// Copies `length` bytes (all, when `nil`) of `part`'s body from `offset` to `stream`.
    static func copy(_ part: Part, from offset: UInt64 = 0, length: Int? = nil, to stream: ReportStream) throws {
        guard let handle = FileHandle(forReadingAtPath: part.path) else { throw ValidationError("\(part.path) cannot be read") }
        defer { try? handle.close() }
        try handle.seek(toOffset: part.bodyOffset + offset)
        try stream.copy(from: handle, length: length)
    }

    static func run(_ paths: [String], output: String?) throws {
        let parts: [Part]
        do { parts = try Self.parts(paths) } catch {
            Terminal.error("\(error)")
            throw ExitCode(2)
        }
        let head = parts[0].header
        let format = head["format"] as? String ?? "table"
        let personas = head["personas"] as? Int ?? 0
        if head["kind"] as? String == "diff" {
            let failing = Set((head["failOn"] as? [String] ?? []).compactMap(WhatIfChange.Kind.init(rawValue:)))
            let writer = try WhatIfDiffWriter(format: WhatIfDiffWriter.Format(rawValue: format) ?? .table, old: head["old"] as? String ?? "",
                                              new: head["new"] as? String ?? "", personas: personas, failing: failing)
            do {
                for part in parts { try feed(part, to: writer) }
            } catch let e as ValidationError {
                Terminal.error("\(e)")
                throw ExitCode(2)
            }
            try writer.finish(to: output)
            if output != nil { Terminal().line("\(writer.headline) (from \(parts.count) parts)") }
            return try WhatIfCommand.judgeGate(writer)
        }
        try writeEvaluation(parts, format: format, personas: personas, to: output)
    }

    /// An evaluation's parts joined: the JSON's objects, the table's personas (and its footer),
    /// the HTML's summary rows then app rows, each in the parts' order.
    static func writeEvaluation(_ parts: [Part], format: String, personas: Int, to output: String?) throws {
        let head = parts[0].header
        let stream = try ReportStream(to: output)
        switch format {
        case "json":
            try stream.write(WhatIfReport.jsonHead)
            var first = true
            for part in parts where try bodySize(part) > 0 {
                if !first { try stream.write(",\n") }
                try copy(part, to: stream)
                first = false
            }
            try stream.write(WhatIfReport.jsonTail)
        case "html":
            let apps = parts.reduce(0) { $0 + ($1.header["apps"] as? Int ?? 0) }
            let frame = WhatIfHTML.evaluationFrame(personas: personas, apps: apps, sources: head["sources"] as? [String] ?? [])
            try stream.write(frame.head)
            for part in parts { try copy(part, length: part.header["summaryBytes"] as? Int ?? 0, to: stream) }
            try stream.write(frame.middle)
            for part in parts { try copy(part, from: UInt64(part.header["summaryBytes"] as? Int ?? 0), to: stream) }
            try stream.write(frame.tail)
        default:
            for part in parts { try copy(part, to: stream) }
            let conflicts = parts.reduce(0) { $0 + ($1.header["conflicts"] as? Int ?? 0) }
            if let footer = WhatIfReport.tableFooter(conflicts: conflicts) { try stream.write(footer + "\n") }
        }
        try stream.finish()
        if let output { Terminal().line("whatif \(format): \(output) (\(personas) persona\(personas == 1 ? "" : "s") from \(parts.count) parts)") }
    }

    /// A diff part's changes, a batch at a time, to `writer`.
    static func feed(_ part: Part, to writer: WhatIfDiffWriter) throws {
        guard let handle = FileHandle(forReadingAtPath: part.path) else { throw ValidationError("\(part.path) cannot be read") }
        defer { try? handle.close() }
        try handle.seek(toOffset: part.bodyOffset)
        // Bytes, not `Data`: a part is hundreds of megabytes, and finding its line ends
        // through `Data`'s subscript paid a run-time access check for every byte.
        var carry: [UInt8] = []
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            chunk.withUnsafeBytes { carry.append(contentsOf: $0) }
            var batch: [WhatIfChange] = []
            var start = 0
            while let end = carry[start...].firstIndex(of: UInt8(ascii: "\n")) {
                batch.append(try WhatIfPart.change(Array(carry[start..<end]), in: part.path))
                start = end + 1
            }
            carry.removeFirst(start)
            try writer.add(batch)
        }
    }

    static func bodySize(_ part: Part) throws -> UInt64 {
        let size = (try FileManager.default.attributesOfItem(atPath: part.path)[.size] as? NSNumber)?.uint64Value ?? 0
        return size > part.bodyOffset ? size - part.bodyOffset : 0
    }
}
