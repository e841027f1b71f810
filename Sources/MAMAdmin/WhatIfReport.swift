import Foundation
public import MAMModel
public import MAMPolicy

/// How `whatif` results are written. A result's texts already name its persona (personas of
/// one shape share one evaluation, named as each reads it): what is read here is written as it is.
public enum WhatIfReport {
    static func verdict(_ v: Verdict) -> String { v.isAllowed ? "allowed" : "\(v.blockedBy!.rawValue)" }
    /// A cell's decision without its sentence (which is named only where it is written).
    public static func verdict(_ c: WhatIfAppResult.Cell) -> String { c.isAllowed ? "allowed" : "\(c.blockedBy!.rawValue)" }

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
                lines.append("      \(mark): \"\(e.displayName)\" — \(e.reason)")
            }
            if case .conflict = a.protection { conflicts += 1 }
            let token = a.token
            lines.append("    token (\(p.resource)): " + (token.depends ? token.explanation : "\(token.word) — \(token.explanation)"))
            lines += conditionalAccessLines(a.conditionalAccess)
            if !a.appConfig.isEmpty {
                lines.append("    app config: " + a.appConfig.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))
            }
            if case .notEvaluated = a.protection {
                lines.append("    share, paste, save, features: not evaluated (see app protection)")
                continue
            }
            let blocked = a.transfers.filter { !$0.isAllowed }.map(\.to)
            lines.append("    share: \(a.transfers.count - blocked.count) of \(a.transfers.count) allowed" + (blocked.isEmpty ? "" : "; blocked to \(blocked.joined(separator: ", "))"))
            let paste = a.clipboard.filter { !$0.isAllowed }.map(\.to)
            lines.append("    paste: \(a.clipboard.count - paste.count) of \(a.clipboard.count) allowed" + (paste.isEmpty ? "" : "; blocked in \(paste.joined(separator: ", "))"))
            if a.pasteLimit > 0 {
                let short = a.clipboardWithinLimit.filter { !$0.isAllowed }.map(\.to)
                lines.append("    paste of up to \(a.pasteLimit) characters: \(a.clipboardWithinLimit.count - short.count) of \(a.clipboardWithinLimit.count) allowed" + (short.isEmpty ? "" : "; blocked in \(short.joined(separator: ", "))"))
            }
            lines.append("    save: " + a.save.map { "\($0.to) \(verdict($0))" }.joined(separator: ", "))
            lines.append("    features: " + a.features.map { "\($0.to) \(verdict($0))" }.joined(separator: ", "))
        }
        return UntrustedText.lines(lines)
    }

    /// The conditional access policies an answer reads, each with its evaluation: those that
    /// apply, those whose conditions are unknown, and report-only ones that would apply.
    static func conditionalAccessLines(_ ca: [WhatIfAppResult.PolicyEvaluation]) -> [String] {
        ca.filter { !$0.disabled && $0.applies != false }.map { e in
            e.reportOnly ? "      report-only \"\(e.displayName)\": \(e.reason)"
                : "      \(e.applies == nil ? "depends" : "applies"): \"\(e.displayName)\" — \(e.reason)"
        } + ca.filter { $0.applies == false && !$0.disabled && ($0.analysisReasons.contains("devices") || $0.reason.contains("groups export lists no members")) }
            .map { "      no: \"\($0.displayName)\" — \($0.reason)" }
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
            // DEL, C1 controls, bidirectional marks, line separators and the BOM start with one
            // of these bytes in UTF-8: JSON takes them raw, a terminal or a log viewer obeys
            // them, so such a string is written with each of them as a JSON escape.
            if s.utf8.contains(where: { $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2 || $0 == 0xEF }),
               !UntrustedText.isSafe(s, keepingLineBreaks: true) {
                return escapedString(s)
            }
            bytes.append(UInt8(ascii: "\""))
            for b in s.utf8 {
                switch b {
                case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(b)
                case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(b)
                case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
                case ..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: Array("\\u00".utf8))
                    bytes.append(hex[Int(b >> 4)])
                    bytes.append(hex[Int(b & 0xF)])
                default: bytes.append(b)
                }
            }
            bytes.append(UInt8(ascii: "\""))
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

    static func evaluation(_ w: inout JSONWriter, _ e: WhatIfAppResult.PolicyEvaluation) {
        w.object { w in
            w.field("@odata.type", e.kind.rawValue)
            if !e.id.isEmpty { w.field("id", e.id) }
            w.field("displayName", e.displayName)
            let ca = e.kind == .conditionalAccess
            if ca {
                // Graph's whatIfAnalysisResult: a state, a Boolean policyApplies, and why not.
                w.field("state", e.disabled ? "disabled" : e.reportOnly ? "enabledForReportingButNotEnforced" : "enabled")
                w.field("policyApplies", e.applies ?? false)
            } else {
                w.field("policyApplies", e.applies)
            }
            w.field("analysisReasons", e.analysisReasons.joined(separator: ","))
            if !e.dependsOn.isEmpty { w.field("dependsOn", strings: e.dependsOn) }
            w.field("reason", e.reason)
        }
    }

    /// A grid's cells: the allowed ones by name, the blocked ones each with its reason.
    static func cells(_ w: inout JSONWriter, _ name: String, _ cells: WhatIfAppResult.Cells) {
        w.key(name)
        w.object { w in
            w.field("allowed", strings: cells.filter(\.isAllowed).map(\.to))
            w.key("blocked")
            w.array(cells.filter { !$0.isAllowed }) { w, c in
                w.object { w in w.field("to", c.to); w.field("decision", verdict(c)); w.field("reason", c.verdict.explanation) }
            }
            w.comma()
        }
        w.comma()
    }

    /// The report opens with its version (`schemas/whatif-report.schema.json`).
    public static let jsonHead = "{\"schemaVersion\":1,\"personas\":["
    public static let jsonTail = "]}\n"

    public static func json(_ results: [WhatIfPersonaResult]) -> String {
        jsonHead + results.map(json).joined(separator: ",\n") + jsonTail
    }

    /// One persona's object of the JSON report.
    public static func json(_ r: WhatIfPersonaResult) -> String {
        var w = JSONWriter()
        w.object { w in
            w.field("name", r.persona.name)
            w.field("user", r.persona.user.upn)
            w.field("groups", strings: r.persona.member.named)
            w.key("apps")
            w.array(r.apps) { w, a in app(&w, a, resource: r.persona.resource) }
            w.comma()
        }
        return w.out
    }

    /// The token: its word and sentence, and where it depends, each case and the otherwise.
    static func token(_ w: inout JSONWriter, _ token: WhatIfToken) {
        w.field("token", token.word)
        w.field("reason", token.explanation)
        guard token.depends else { return }
        w.key("cases")
        w.array(token.cases) { w, c in
            w.object { w in w.field("if", c.condition); w.field("token", verdict(c.decision)); w.field("reason", c.decision.explanation) }
        }
        w.comma()
        w.key("otherwise")
        w.object { w in w.field("token", verdict(token.decision)); w.field("reason", token.decision.explanation) }
        w.comma()
    }

    /// One app's results: app protection, conditional access, configuration and the grids.
    static func app(_ w: inout JSONWriter, _ a: WhatIfAppResult, resource: String) {
        w.object { w in
            w.field("app", a.app.rawValue)
            w.key("appProtection")
            w.object { w in
                switch a.protection {
                case .policy(let n): w.field("result", "applied"); w.field("policy", n)
                case .none: w.field("result", "none")
                case .conflict(let names): w.field("result", "conflict"); w.field("policies", strings: names); w.field("rule", WhatIf.conflictRule)
                case .undetermined: w.field("result", "undetermined")
                case .notEvaluated(let why): w.field("result", "notEvaluated"); w.field("reason", why)
                }
                w.key("value")
                w.array(a.evaluations) { evaluation(&$0, $1) }
                w.comma()
            }
            w.comma()
            w.key("conditionalAccess")
            w.object { w in
                w.field("resource", resource)
                token(&w, a.token)
                w.key("value")
                w.array(a.conditionalAccess) { evaluation(&$0, $1) }
                w.comma()
            }
            w.comma()
            w.key("appConfig")
            w.object { w in for (k, v) in a.appConfig.sorted(by: { $0.key < $1.key }) { w.field(k, v) } }
            w.comma()
            cells(&w, "transfers", a.transfers)
            cells(&w, "clipboard", a.clipboard)
            if a.pasteLimit > 0 {
                w.field("pasteLimit", a.pasteLimit)
                cells(&w, "clipboardWithinLimit", a.clipboardWithinLimit)
            }
            cells(&w, "save", a.save)
            cells(&w, "open", a.open)
            cells(&w, "features", a.features)
        }
    }

    /// A change as a JSON object, keys in order, written by hand: a part holds millions of them,
    /// and Foundation's serializer costs more than judging them. A part's line, and a row of the
    /// diff's JSON report, are this object.
    public static func changeObject(_ w: inout WhatIfReport.JSONWriter, _ c: WhatIfChange) {
        w.object { w in
            w.field("after", c.after); w.field("app", c.app.rawValue); w.field("because", strings: c.because); w.field("before", c.before)
            w.field("cell", c.cell); w.field("kind", c.kind.rawValue); w.field("persona", c.persona)
        }
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
