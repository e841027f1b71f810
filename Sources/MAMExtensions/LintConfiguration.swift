public import Foundation
import MAMActivation
public import MAMBundle
import MAMDocument
import Yams

/// `.mamsim-lint.yml`, SwiftLint's conventions for mamsim's rules:
///
///     disabled_rules: [face-id-usage]      # rule ids from docs/LINT.md
///     excluded: [Vendor/, Samples/Old]      # findings in files under these paths are dropped
///     severity: {keychain-adal-cache: error} # a rule's severity: note, warning or error
///     strict: true                           # warnings fail like errors (also --strict)
///
/// An unknown key or rule id is bad input (exit 2), with "did you mean".
public struct LintConfiguration: Sendable, Hashable {
    public static let fileName = ".mamsim-lint.yml"

    public var disabledRules: Set<String> = []
    public var excluded: [String] = []
    public var severities: [String: LintFinding.Severity] = [:]
    public var strict = false

    public init() {}

    static let keys = ["disabled_rules", "excluded", "severity", "strict"]

    public init(yaml text: String, file: String) throws(LintInputError) {
        let node: Node?
        do {
            node = try BoundedYAML.compose(yaml: text)
        } catch let e as BoundedYAML.TooLarge {
            throw LintInputError("\(file):\(e.line): \(e.problem)")
        } catch {
            throw LintInputError("\(file): is not YAML (\(XcodeGenSpec.yamlProblem(error))); write keys as `disabled_rules: [rule-id]`")
        }
        guard let node else { return }
        guard let mapping = node.mapping else {
            throw LintInputError("\(file):\(node.mark?.line ?? 1): the top level must be a mapping of \(Self.keys.joined(separator: ", "))")
        }
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            let line = keyNode.mark?.line ?? 1
            func strings() throws(LintInputError) -> [String] {
                if let s = value.string, value.sequence == nil, value.mapping == nil { return [s] }
                guard let seq = value.sequence else {
                    throw LintInputError("\(file):\(line): \(key) must be a list, e.g. \(key): [face-id-usage]")
                }
                var out: [String] = []
                for item in seq {
                    guard let s = item.string else { throw LintInputError("\(file):\(item.mark?.line ?? line): \(key) lists strings only") }
                    out.append(s)
                }
                return out
            }
            switch key {
            case "disabled_rules":
                for id in try strings() {
                    try Self.checkRule(id, file: file, line: line, key: key)
                    disabledRules.insert(id)
                }
            case "excluded":
                excluded = try strings()
            case "strict":
                guard let bool = value.bool else { throw LintInputError("\(file):\(line): strict must be true or false") }
                strict = bool
            case "severity":
                try readSeverities(value, file: file, line: line)
            default:
                let near = Self.keys.first { LintContext.editDistance($0, key, limit: 3) <= 3 }
                throw LintInputError("\(file):\(line): unknown key \(key)" + (near.map { "; did you mean \($0)?" } ?? "; the keys are \(Self.keys.joined(separator: ", "))"))
            }
        }
    }

    /// `severity: {rule-id: note|warning|error}`.
    mutating func readSeverities(_ value: Node, file: String, line: Int) throws(LintInputError) {
        guard let map = value.mapping else {
            throw LintInputError("\(file):\(line): severity must map rule ids to note, warning or error, e.g. severity: {face-id-usage: error}")
        }
        for (idNode, levelNode) in map {
            let id = idNode.string ?? ""
            try Self.checkRule(id, file: file, line: idNode.mark?.line ?? line, key: "severity")
            guard let level = levelNode.string.flatMap(LintFinding.Severity.init(rawValue:)) else {
                throw LintInputError("\(file):\(levelNode.mark?.line ?? line): severity of \(id) must be note, warning or error")
            }
            severities[id] = level
        }
    }

    static func checkRule(_ id: String, file: String, line: Int, key: String) throws(LintInputError) {
        guard LintRules.rule(id) == nil else { return }
        let near = LintRules.all.map(\.id).min { LintContext.editDistance($0, id, limit: 40) < LintContext.editDistance($1, id, limit: 40) }
        throw LintInputError("\(file):\(line): \(key) names \(id), which is not a rule" + (near.map { "; did you mean \($0)? (docs/LINT.md lists every rule)" } ?? ""))
    }

    /// Reads `url`; a missing file is bad input when it was named, nothing when it was looked for.
    public static func load(_ url: URL, name: String) throws(LintInputError) -> LintConfiguration {
        guard let data = (try? InputFile.contents(of: url)) else {
            throw LintInputError("\(name) cannot be read; check the path given to --config")
        }
        return try LintConfiguration(yaml: String(decoding: data, as: UTF8.self), file: name)
    }

    /// The reports with disabled rules and excluded files dropped, severities overridden, and
    /// (strict) every warning made an error.
    public func apply(to reports: [LintReport], strict forced: Bool = false) -> [LintReport] {
        reports.map { report in
            var report = report
            report.findings = report.findings.compactMap { finding in
                guard !disabledRules.contains(finding.rule) else { return nil }
                // An excluded entry is a file or a folder, under the linted path or as given.
                let paths = [LintFormat.path(of: finding, in: report), finding.file]
                func under(_ entry: String) -> Bool {
                    let folder = entry.hasSuffix("/") ? entry : entry + "/"
                    return paths.contains { $0 == entry || $0.hasPrefix(folder) }
                }
                if excluded.contains(where: under) { return nil }
                var finding = finding
                if let level = severities[finding.rule] { finding.severity = level }
                if strict || forced, finding.severity == .warning { finding.severity = .error }
                return finding
            }
            return report
        }
    }
}
