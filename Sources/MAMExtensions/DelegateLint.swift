public import Foundation
import MAMActivation
public import MAMBundle

/// `delegate-drift`: in a team's Swift files, a method of a type that adopts one of the Intune
/// App SDK's delegate protocols whose name is a requirement's (or nearly) but whose signature is
/// none of them: the SDK never calls it. Swift on Linux has no Objective-C runtime to list a
/// type's methods, so the rule reads the source: declarations that adopt a protocol, and the
/// `func`s in their bodies, with comments and string literals left out.
public enum DelegateLint {
    /// Each delegate protocol's requirements, as Swift spells them (SDK 21.7.1's public headers,
    /// docs/research/sdk-21.7.1-public-names.md).
    public static let requirements: [String: [String]] = [
        "IntuneMAMEnrollmentDelegate": [
            "enrollmentRequest(with:)", "policyRequest(with:)", "unenrollRequest(with:)", "getAccessToken(forAccountId:resource:completion:)",
        ],
        "IntuneMAMPolicyDelegate": [
            "identitySwitchRequired(forAccountId:reason:completionHandler:)", "identitySwitchRequired(forAccountId:for:reason:completionHandler:)",
            "blockAccountId(_:reason:completionHandler:)", "blockAccountId(_:reason:for:completionHandler:)",
            "wipeData(forAccountId:)", "restartApplication()", "addAccountId(_:completionHandler:)",
        ],
        "IntuneMAMComplianceDelegate": ["accountId(_:hasComplianceStatus:withErrorMessage:andErrorTitle:)"],
    ]

    /// The `async` forms the Swift importer makes of the completion-handler requirements: a
    /// conformer may implement either.
    static let asyncForms: [String: String] = [
        "getAccessToken(forAccountId:resource:completion:)": "accessToken(forAccountId:resource:)",
        "identitySwitchRequired(forAccountId:reason:completionHandler:)": "identitySwitchRequired(forAccountId:reason:)",
        "identitySwitchRequired(forAccountId:for:reason:completionHandler:)": "identitySwitchRequired(forAccountId:for:reason:)",
        "blockAccountId(_:reason:completionHandler:)": "blockAccountId(_:reason:)",
        "blockAccountId(_:reason:for:completionHandler:)": "blockAccountId(_:reason:for:)",
        "addAccountId(_:completionHandler:)": "addAccountId(_:)",
    ]

    /// A method that drifted from its protocol.
    public struct Drift: Sendable, Hashable {
        public var line: Int
        public var type: String
        public var method: String
        public var protocols: [String]
        /// The requirements with the same (or a near) base name.
        public var near: [String]
        /// The protocols' requirements the type does not implement (in this declaration).
        public var missing: [String]
    }

    /// The drifted methods of `source` (one Swift file's text).
    public static func drifts(in source: String) -> [Drift] {
        let code = Array(stripped(source))
        var found: [Drift] = []
        var i = 0
        while i < code.count {
            guard let decl = declaration(at: i, in: code) else { i += 1; continue }
            defer { i = decl.bodyEnd }
            let adopted = requirements.keys.filter { decl.inherits.contains($0) }.sorted()
            guard !adopted.isEmpty else { continue }
            let required = adopted.flatMap { requirements[$0]! }
            let valid = Set(required + required.compactMap { asyncForms[$0] })
            let declared = methods(in: code, from: decl.bodyStart, to: decl.bodyEnd)
            let names = Set(declared.map(\.signature))
            let missing = required.filter { !names.contains($0) && !(asyncForms[$0].map(names.contains) ?? false) }
            for method in declared where !valid.contains(method.signature) {
                let base = baseName(method.signature).lowercased()
                // Near: a few edits for a short name, a quarter of a long one's letters.
                let limit = max(2, base.count / 4)
                let distance = { (r: String) in LintContext.editDistance(baseName(r).lowercased(), base, limit: limit) }
                var near = valid.filter { distance($0) <= limit }.sorted()
                // What the type does not implement is what it meant (`unenrollmentRequest(with:)`
                // beside an `enrollmentRequest(with:)` of its own is `unenrollRequest(with:)`).
                let unmet = near.filter { r in missing.contains(r) || missing.contains { asyncForms[$0] == r } }
                if !unmet.isEmpty { near = unmet }
                near.sort { (distance($0), $0) < (distance($1), $1) }
                guard !near.isEmpty else { continue }
                found.append(Drift(line: line(of: method.offset, in: code), type: decl.name, method: method.signature, protocols: adopted, near: near, missing: missing))
            }
        }
        return found
    }

    /// The Swift files of what `mamsim lint PATH` reads: a folder (a repository, a package), or
    /// the folder of an .xcodeproj or a project.pbxproj. `nil` when nothing drifted.
    public static func lint(path: String) -> LintReport? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return nil }
        let url = URL(fileURLWithPath: path)
        if isFolder.boolValue, url.pathExtension != "xcodeproj", url.pathExtension != "xcworkspace" {
            return lint(root: url, displayName: path)
        }
        var root = url.deletingLastPathComponent()
        var shown = ProjectLinter.parent(of: path)
        if url.lastPathComponent == "project.pbxproj" {
            root = root.deletingLastPathComponent()
            shown = ProjectLinter.parent(of: shown)
        }
        return lint(root: root, displayName: shown.isEmpty ? "." : shown)
    }

    /// Every `.swift` file under `root` (skipping build output and dependencies), as findings of
    /// one report; `nil` when none drifted.
    public static func lint(root: URL, displayName: String) -> LintReport? {
        var findings: [LintFinding] = []
        for url in ProjectLinter.find(in: root, { $0.pathExtension == "swift" }) {
            guard let text = InputFile.text(of: url), text.contains("IntuneMAM") else { continue }
            let file = ProjectLinter.relative(url, to: root)
            for d in drifts(in: text) {
                findings.append(LintFinding(
                    .warning, rule: "delegate-drift", file: file, line: d.line, keyPath: "\(d.type).\(d.method)",
                    problem: "\(d.type) adopts \(d.protocols.joined(separator: " and ")), which has no requirement \(d.method): the SDK never calls it",
                    fix: "the SDK calls \(d.near.joined(separator: ", ")); rename it to the requirement it stands for"
                        + (d.missing.isEmpty ? "" : " (not implemented here: \(d.missing.joined(separator: ", ")))") + ", or move it out of the delegate"))
            }
        }
        return findings.isEmpty ? nil : LintReport(folder: displayName, findings: findings)
    }

    // MARK: Reading Swift

    struct Declaration {
        var name: String
        var inherits: Set<String>
        var bodyStart: Int
        var bodyEnd: Int
    }

    /// A `class`, `struct`, `enum`, `actor` or `extension` declaration starting at `i` with an
    /// inheritance clause and a body.
    static func declaration(at i: Int, in code: [Character]) -> Declaration? {
        guard let keyword = ["class", "struct", "enum", "actor", "extension"].first(where: { word($0, at: i, in: code) }) else { return nil }
        var j = i + keyword.count
        skipSpace(&j, code)
        let nameStart = j
        while j < code.count, code[j].isLetter || code[j].isNumber || code[j] == "_" || code[j] == "." { j += 1 }
        guard j > nameStart else { return nil }
        let name = String(code[nameStart..<j])
        // The inheritance clause and any where-clause, up to the body.
        var k = j
        while k < code.count, code[k] != "{", code[k] != ";", code[k] != "}" { k += 1 }
        guard k < code.count, code[k] == "{" else { return nil }
        let header = String(code[j..<k])
        let inherits = Set(header.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
        return Declaration(name: name, inherits: inherits, bodyStart: k, bodyEnd: matching(k, code))
    }

    /// The methods declared at the top level of the body `{…}` from `start` to `end`.
    static func methods(in code: [Character], from start: Int, to end: Int) -> [(signature: String, offset: Int)] {
        var out: [(String, Int)] = []
        var depth = 0
        var i = start
        while i < end {
            switch code[i] {
            case "{": depth += 1
            case "}": depth -= 1
            default:
                if depth == 1, word("func", at: i, in: code) {
                    var j = i + 4
                    skipSpace(&j, code)
                    let nameStart = j
                    while j < end, code[j].isLetter || code[j].isNumber || code[j] == "_" { j += 1 }
                    let name = String(code[nameStart..<j])
                    if j < end, code[j] == "<" { while j < end, code[j] != ">" { j += 1 }; j += 1 }
                    skipSpace(&j, code)
                    if !name.isEmpty, j < end, code[j] == "(" {
                        let close = matching(j, code, open: "(", close: ")")
                        out.append(("\(name)(\(labels(String(code[(j + 1)..<max(j + 1, close - 1)]))))", i))
                        i = close
                        continue
                    }
                }
            }
            i += 1
        }
        return out
    }

    /// `a b: T, _ c: U, d: V` → `a:_:d:`.
    static func labels(_ parameters: String) -> String {
        var result = ""
        var depth = 0
        var current = ""
        func flush() {
            let head = current.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            if let label = head.split(whereSeparator: \.isWhitespace).first { result += "\(label):" }
            current = ""
        }
        for c in parameters {
            if "([<".contains(c) { depth += 1 }
            if ")]>".contains(c) { depth -= 1 }
            if c == ",", depth == 0 { flush() } else { current.append(c) }
        }
        if !current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { flush() }
        return result
    }

    /// The text with comments and string literals blanked (kept the same length, so offsets
    /// and lines stay right).
    static func stripped(_ s: String) -> String {
        var out = ""
        let c = Array(s)
        var i = 0
        while i < c.count {
            if c[i] == "/", i + 1 < c.count, c[i + 1] == "/" {
                while i < c.count, !Self.endsLine(c[i]) { out.append(" "); i += 1 }
            } else if c[i] == "/", i + 1 < c.count, c[i + 1] == "*" {
                while i < c.count, !(c[i] == "*" && i + 1 < c.count && c[i + 1] == "/") { out.append(Self.endsLine(c[i]) ? c[i] : " "); i += 1 }
                if i < c.count { out += "  "; i += 2 }
            } else if c[i] == "\"" {
                let triple = i + 2 < c.count && c[i + 1] == "\"" && c[i + 2] == "\""
                out += triple ? "\"\"\"" : "\""
                i += triple ? 3 : 1
                while i < c.count {
                    if c[i] == "\\" { out += "  "; i += 2; continue }
                    if triple, i + 2 < c.count, c[i] == "\"", c[i + 1] == "\"", c[i + 2] == "\"" { out += "\"\"\""; i += 3; break }
                    if !triple, c[i] == "\"" || Self.endsLine(c[i]) { out.append(c[i]); i += 1; break }
                    out.append(Self.endsLine(c[i]) ? c[i] : " ")
                    i += 1
                }
            } else {
                out.append(c[i])
                i += 1
            }
        }
        return out
    }

    static func word(_ w: String, at i: Int, in code: [Character]) -> Bool {
        let n = w.count
        guard i + n <= code.count, String(code[i..<(i + n)]) == w else { return false }
        let before = i == 0 ? " " : code[i - 1]
        let after = i + n < code.count ? code[i + n] : " "
        return !(before.isLetter || before.isNumber || before == "_" || before == ".") && !(after.isLetter || after.isNumber || after == "_")
    }

    static func skipSpace(_ j: inout Int, _ code: [Character]) {
        while j < code.count, code[j].isWhitespace { j += 1 }
    }

    /// The index after the bracket that closes the one at `i`.
    static func matching(_ i: Int, _ code: [Character], open: Character = "{", close: Character = "}") -> Int {
        var depth = 0
        var j = i
        while j < code.count {
            if code[j] == open { depth += 1 }
            if code[j] == close { depth -= 1; if depth == 0 { return j + 1 } }
            j += 1
        }
        return code.count
    }

    static func line(of offset: Int, in code: [Character]) -> Int { code[..<offset].reduce(1) { endsLine($1) ? $0 + 1 : $0 } }

    /// A line terminator of Swift source: LF, CR or CR LF (one character).
    static func endsLine(_ c: Character) -> Bool { c == "\n" || c == "\r\n" || c == "\r" }

    static func baseName(_ signature: String) -> String { String(signature.prefix { $0 != "(" }) }
}
