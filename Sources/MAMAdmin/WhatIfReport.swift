import Foundation
public import MAMModel
public import MAMPolicy

/// How `whatif` results are written: each text that may name the persona filled with its
/// account as it is written (`WhatIfPersonaResult.text(_:)`).
public enum WhatIfReport {
    /// A cell's decision without its sentence.
    public static func verdict(_ c: WhatIfAppResult.Cell) -> String { c.decision.word }

    public static func table(_ results: [WhatIfPersonaResult], _ policies: WhatIfPolicies) -> String {
        var conflicts = 0
        var out = results.map { table($0, conflicts: &conflicts) }
        if let footer = tableFooter(conflicts: conflicts) { out.append(footer) }
        return out.joined(separator: "\n")
    }

    public static func tableFooter(conflicts: Int) -> String? {
        conflicts > 0 ? "\n\(conflicts) app\(conflicts == 1 ? "" : "s") under a CONFLICT. \(WhatIf.conflictRule)" : nil
    }

    /// One persona's lines of the table (no newline at the end).
    public static func table(_ r: WhatIfPersonaResult, conflicts: inout Int) -> String {
        let p = r.persona
        let device = p.device.mdmEnrolled ? "enrolled (\(p.managementType))" : "unenrolled"
        var lines = ["\(p.name): \(p.user.upn), groups [\(p.member.named.joined(separator: ", "))], \(device) \(p.device.platform) \(p.device.osVersion) \(p.device.model)"]
        for a in r.apps {
            lines.append("  \(a.app)")
            lines.append("    app protection: \(a.protection)")
            for e in a.evaluations {
                let mark = e.applies == true ? "applies" : e.applies == false ? "no" : "?"
                lines.append("      \(mark): \"\(e.displayName)\" — \(r.text(e.reason))")
            }
            if case .conflict = a.protection { conflicts += 1 }
            let token = a.token
            lines.append("    token (\(p.resource)): " + (token.depends ? r.text(token.explanation) : "\(token.word) — \(r.text(token.explanation))"))
            lines += conditionalAccessLines(a.conditionalAccess, of: r)
            if !a.appConfig.isEmpty {
                lines.append("    app config: " + a.appConfig.sorted { $0.key < $1.key }.map { "\($0.key)=\(r.text($0.value))" }.joined(separator: ", "))
            }
            if case .notEvaluated = a.protection {
                lines.append("    share, paste, save, features: not evaluated (see app protection)")
                continue
            }
            let blocked = a.transfers.filter { !$0.isAllowed }.map { r.text($0.to) }
            lines.append("    share: \(a.transfers.count - blocked.count) of \(a.transfers.count) allowed" + (blocked.isEmpty ? "" : "; blocked to \(blocked.joined(separator: ", "))"))
            let paste = a.clipboard.filter { !$0.isAllowed }.map { r.text($0.to) }
            lines.append("    paste: \(a.clipboard.count - paste.count) of \(a.clipboard.count) allowed" + (paste.isEmpty ? "" : "; blocked in \(paste.joined(separator: ", "))"))
            if a.pasteLimit > 0 {
                let short = a.clipboardWithinLimit.filter { !$0.isAllowed }.map { r.text($0.to) }
                lines.append("    paste of up to \(a.pasteLimit) characters: \(a.clipboardWithinLimit.count - short.count) of \(a.clipboardWithinLimit.count) allowed" + (short.isEmpty ? "" : "; blocked in \(short.joined(separator: ", "))"))
            }
            lines.append("    save: " + a.save.map { "\(r.text($0.to)) \(verdict($0))" }.joined(separator: ", "))
            lines.append("    features: " + a.features.map { "\(r.text($0.to)) \(verdict($0))" }.joined(separator: ", "))
        }
        return UntrustedText.lines(lines)
    }

    /// The conditional access policies an answer reads, each with its evaluation: those that
    /// apply, those whose conditions are unknown, and report-only ones that would apply.
    static func conditionalAccessLines(_ ca: [WhatIfAppResult.PolicyEvaluation], of r: WhatIfPersonaResult) -> [String] {
        ca.filter { !$0.disabled && $0.applies != false }.map { e in
            e.reportOnly ? "      report-only \"\(e.displayName)\": \(r.text(e.reason))"
                : "      \(e.applies == nil ? "depends" : "applies"): \"\(e.displayName)\" — \(r.text(e.reason))"
        } + ca.filter { $0.applies == false && !$0.disabled && ($0.analysisReasons.contains("devices") || $0.reason.judged.contains("groups export lists no members")) }
            .map { "      no: \"\($0.displayName)\" — \(r.text($0.reason))" }
    }

    /// JSON written by hand, in one pass: a thousand personas' cells are hundreds of megabytes
    /// through JSONSerialization's object tree.
    public struct JSONWriter {
        /// UTF-8, appended byte by byte: `String`'s appends cost more than the decisions.
        var bytes: [UInt8] = []

        public init() {}

        public var out: String { String(decoding: bytes, as: UTF8.self) }

        public mutating func raw(_ s: String) { bytes.append(contentsOf: s.utf8) }
        public mutating func comma() { bytes.append(UInt8(ascii: ",")) }

        public mutating func string(_ s: String) {
            var text = s
            let written = text.withUTF8 { utf8 in
                let opened = bytes.count
                bytes.append(UInt8(ascii: "\""))
                // Runs between escapes are copied whole: a report is hundreds of megabytes
                // of strings, and a byte at a time was most of its writing.
                var run = 0, suspect = false
                for (i, b) in utf8.enumerated() {
                    let escape: (UInt8, UInt8)?
                    switch b {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"): escape = (UInt8(ascii: "\\"), b)
                    case UInt8(ascii: "\n"): escape = (UInt8(ascii: "\\"), UInt8(ascii: "n"))
                    case UInt8(ascii: "\r"): escape = (UInt8(ascii: "\\"), UInt8(ascii: "r"))
                    case UInt8(ascii: "\t"): escape = (UInt8(ascii: "\\"), UInt8(ascii: "t"))
                    case ..<0x20: escape = (0, b)
                    // DEL, C1 controls, bidirectional marks, line separators and the BOM start
                    // with one of these bytes in UTF-8: JSON takes them raw, a terminal or a log
                    // viewer obeys them, so such a string is written with each of them escaped.
                    case 0x7F, 0xC2, 0xD8, 0xE2, 0xEF: suspect = true; escape = nil
                    default: escape = nil
                    }
                    guard let (first, second) = escape else { continue }
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<i]))
                    if first == 0 {
                        let hex = Array("0123456789abcdef".utf8)
                        bytes.append(contentsOf: Array("\\u00".utf8))
                        bytes.append(hex[Int(second >> 4)])
                        bytes.append(hex[Int(second & 0xF)])
                    } else {
                        bytes.append(first)
                        bytes.append(second)
                    }
                    run = i + 1
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
                bytes.append(UInt8(ascii: "\""))
                guard suspect, !UntrustedText.isSafe(s, keepingLineBreaks: true) else { return true }
                bytes.removeSubrange(opened...)
                return false
            }
            if !written { escapedString(s) }
        }

        /// `s` as a JSON string with every unsafe scalar (`UntrustedText.isUnsafe`) a `\u` escape.
        mutating func escapedString(_ s: String) {
            var inner = ""
            for u in s.unicodeScalars {
                if UntrustedText.isUnsafe(u) || u == "\"" || u == "\\" {
                    inner += u == "\"" ? "\\\"" : u == "\\" ? "\\\\" : String(format: "\\u%04x", u.value)
                } else {
                    inner.unicodeScalars.append(u)
                }
            }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: inner.utf8)
            bytes.append(UInt8(ascii: "\""))
        }

        public mutating func key(_ k: String) { string(k); bytes.append(UInt8(ascii: ":")) }

        public mutating func dropComma() { if bytes.last == UInt8(ascii: ",") { bytes.removeLast() } }

        public mutating func object(_ body: (inout JSONWriter) -> Void) { raw("{"); body(&self); dropComma(); raw("}") }
        public mutating func array<T>(_ items: some Sequence<T>, _ each: (inout JSONWriter, T) -> Void) {
            raw("[")
            for item in items { each(&self, item); comma() }
            dropComma()
            raw("]")
        }
        public mutating func field(_ k: String, _ v: String) { key(k); string(v); comma() }
        public mutating func field(_ k: String, _ v: Bool?) { key(k); raw(v.map { $0 ? "true" : "false" } ?? "null"); comma() }
        public mutating func field(_ k: String, _ v: Int) { key(k); raw(String(v)); comma() }
        public mutating func field(_ k: String, strings: [String]) { key(k); array(strings) { $0.string($1) }; comma() }
    }

    /// The report opens with its version (`schemas/whatif-report.schema.json`): a document's
    /// personas are written one at a time, each its own encoding, between these.
    public static let schemaVersion = 1
    public static let jsonHead = "{\"schemaVersion\":\(schemaVersion),\"personas\":["
    public static let jsonTail = "]}\n"

    public static func json(_ results: [WhatIfPersonaResult]) -> String {
        jsonHead + results.map(json).joined(separator: ",\n") + jsonTail
    }

    /// One persona's object of the JSON report: its encoding.
    public static func json(_ r: WhatIfPersonaResult) -> String {
        // Encoding the results throws nothing of its own, and the writer cannot fail.
        (try? ReportJSONEncoder().encode(r)) ?? ""
    }

    /// A change as a JSON object, encoded from the model (`WhatIfChange: Codable`). A part's
    /// line, and a row of the diff's JSON report, are this object.
    public static func changeObject(_ w: inout WhatIfReport.JSONWriter, _ c: WhatIfChange) {
        // The model's encoding throws nothing of its own and the writer cannot fail.
        try? ReportJSONEncoder().encode(c, into: &w)
    }

    /// A change of `whatif --diff` as a row of its table, with its line end.
    public static func diffRow(_ c: WhatIfChange, fails: Bool) -> String {
        UntrustedText.lines(["\(fails ? "FAIL" : "    ") \(c.kind.rawValue)  \(c.persona) / \(c.app) / \(c.cell): \(c.before) → \(c.after)"
                             + (c.because.isEmpty ? "" : "  [\(c.because.joined(separator: "; "))]")]) + "\n"
    }

    /// A change of `whatif --diff` as an element of its JSON report's list (`first`: the list's
    /// first, which opens it).
    public static func diffJSONRow(_ c: WhatIfChange, first: Bool) -> String {
        var w = JSONWriter()
        w.raw(first ? "\n" : ",\n")
        changeObject(&w, c)
        return w.out
    }
}

/// What `whatif --diff`'s summary says of one persona: its changes, how many fail the gate,
/// by kind, and the first causes.
public struct WhatIfDiffSummary: Sendable {
    public private(set) var changes = 0, failing = 0
    public private(set) var kinds: [String: Int] = [:]
    public private(set) var causes: [String] = []
    public private(set) var moreCauses = 0

    public init() {}

    /// `c` counted (`fails`: of a kind the gate names); six causes are kept, the rest counted.
    public mutating func count(_ c: WhatIfChange, fails: Bool) {
        changes += 1
        if fails { failing += 1 }
        kinds[c.kind.rawValue, default: 0] += 1
        for b in c.because where !causes.contains(b) {
            if causes.count < 6 { causes.append(b) } else { moreCauses += 1 }
        }
    }
}
