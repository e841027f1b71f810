public import Foundation
import MAMActivation
public import MAMBundle

/// `mamsim lint --fix`: repairs what can be repaired without a judgement call, in the files
/// themselves — a missing `-intunemam` twin is written after its scheme (same indentation),
/// an activation rule without Intune types is rewritten by the configurator. Anything else
/// (a client id, a keychain order, a missing group) stays a finding for a person.
public enum LintFixer {
    public struct Applied: Sendable, Hashable, CustomStringConvertible {
        public var file: String
        public var rule: String
        public var what: String
        var absolutePath = ""
        public var description: String { "\(file): fixed [\(rule)]: \(what)" }
    }

    /// Applies the fixes the findings allow; `base` resolves the reports' paths (the working
    /// directory). Returns what was changed; files are written only when something changed.
    public static func fix(_ reports: [LintReport], base: URL) -> [Applied] {
        var applied: [Applied] = []
        var texts: [String: String] = [:]  // path → edited text
        for report in reports {
            // Only files inside the linted folder are ever written: a finding naming a file
            // outside it (an absolute path, `..`) is reported, not fixed.
            for finding in report.findings where !finding.file.hasPrefix("/") && !finding.file.split(separator: "/").contains("..") {
                let path = LintFormat.path(of: finding, in: report)
                let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path)
                switch finding.rule {
                case "url-scheme-twin", "query-scheme-twin":
                    guard let twin = between(finding.fix, "<string>", "</string>"), twin.hasSuffix("-intunemam") else { continue }
                    let scheme = String(twin.dropLast("-intunemam".count))
                    guard let text = texts[url.path] ?? (InputFile.text(of: url)) else { continue }
                    let key = finding.rule == "url-scheme-twin" ? "CFBundleURLSchemes" : "LSApplicationQueriesSchemes"
                    guard let edited = insertTwin(twin, after: scheme, underKey: key, in: text) else { continue }
                    texts[url.path] = edited
                    applied.append(Applied(file: path, rule: finding.rule, what: "added \(twin) to \(key)", absolutePath: url.path))
                case "extension-intune-types":
                    guard texts[url.path] == nil, let data = (try? InputFile.contents(of: url)),
                          !InfoPlistPreprocessor.hasDirectives(String(decoding: data, as: UTF8.self)),
                          let (plist, change) = try? IntuneConfigurator.configureReporting(infoPlist: data, source: path),
                          change != .unchanged, change != .noRule else { continue }
                    texts[url.path] = String(decoding: plist, as: UTF8.self)
                    applied.append(Applied(file: path, rule: finding.rule, what: "activation rule rewritten to accept the com.microsoft.intune.mam. types", absolutePath: url.path))
                default:
                    continue
                }
            }
        }
        for (path, text) in texts {
            do {
                // A project may commit a link where a plist is expected: never written through.
                try OutputFile.write(Data(text.utf8), to: URL(fileURLWithPath: path), within: base)
            } catch {
                applied.removeAll { $0.absolutePath == path }
            }
        }
        return applied
    }

    static func between(_ text: String, _ open: String, _ close: String) -> String? {
        guard let start = text.range(of: open), let end = text.range(of: close, range: start.upperBound..<text.endIndex) else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// `text` with `<string>twin</string>` on its own line after `<string>scheme</string>`
    /// inside an array under `<key>key</key>`; `nil` when the scheme is not written literally
    /// there (a `$(VAR)`, a generated plist) — then a person fixes it.
    static func insertTwin(_ twin: String, after scheme: String, underKey key: String, in text: String) -> String? {
        let element = "<string>\(scheme)</string>"
        var searchFrom = text.startIndex
        while let keyRange = text.range(of: "<key>\(key)</key>", range: searchFrom..<text.endIndex) {
            searchFrom = keyRange.upperBound
            guard let arrayEnd = text.range(of: "</array>", range: keyRange.upperBound..<text.endIndex),
                  let found = text.range(of: element, range: keyRange.upperBound..<arrayEnd.lowerBound) else { continue }
            let lineStart = text[..<found.lowerBound].lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
            let indent = text[lineStart..<found.lowerBound].allSatisfy { $0 == " " || $0 == "\t" } ? String(text[lineStart..<found.lowerBound]) : ""
            var edited = text
            edited.insert(contentsOf: "\n" + indent + "<string>\(twin)</string>", at: found.upperBound)
            return edited
        }
        return nil
    }
}
