import Foundation
public import MAMBundle
import MAMModel

/// `mamsim lint --reporter`: the same findings for people, for machines and for CI systems.
public enum LintFormat: String, CaseIterable, Sendable {
    /// `file:line: error: key: problem; fix [rule]` and a summary per bundle.
    case human
    /// A versioned JSON document (`schemas/lint-report.schema.json`).
    case json
    /// SARIF 2.1.0, for code-scanning uploads.
    case sarif
    /// JUnit XML: a suite per bundle, a failing case per error.
    case junit
    /// GitHub Actions workflow commands (`::error file=…,line=…::…`), annotations on the diff.
    case githubActions = "github-actions"
    /// `file:line:1: error: …` only, as Xcode's issue navigator reads build output.
    case xcode

    public static let jsonSchemaVersion = 1

    /// The finding's file as the user names it (under the linted path).
    static func path(of finding: LintFinding, in report: LintReport) -> String {
        ProjectLinter.join(report.folder, finding.file)
    }

    /// The whole output, for formats written at once (every one but `human`).
    public func render(_ reports: [LintReport], version: String) -> String {
        switch self {
        case .human:
            return reports.flatMap { $0.lines + [$0.summary] }.map { $0 + "\n" }.joined()
        case .xcode:
            return reports.flatMap { report in
                report.sortedFindings.map { f in
                    "\(ProjectRoot.printable(Self.path(of: f, in: report))):\(f.line ?? 1):1: \(f.severity.rawValue): \(Self.message(f)) [\(f.rule)]\n"
                }
            }.joined()
        case .githubActions:
            return reports.flatMap { report in
                report.sortedFindings.map { f in
                    var properties = "file=\(Self.escapeProperty(Self.path(of: f, in: report)))"
                    if let line = f.line { properties += ",line=\(line)" }
                    properties += ",title=\(Self.escapeProperty("mamsim lint " + f.rule))"
                    // GitHub's levels are error, warning and notice.
                    return "::\(f.severity == .note ? "notice" : f.severity.rawValue) \(properties)::\(Self.escapeData(Self.message(f)))\n"
                }
            }.joined()
        case .json:
            return Self.json(reports, version: version)
        case .sarif:
            return Self.sarif(reports, version: version)
        case .junit:
            return Self.junit(reports)
        }
    }

    /// `key: problem; fix`, the line without its place.
    static func message(_ f: LintFinding) -> String {
        var text = f.keyPath.isEmpty ? f.problem : f.keyPath + ": " + f.problem
        if !f.fix.isEmpty { text += "; " + f.fix }
        return ProjectRoot.printable(text)
    }

    // GitHub's workflow-command escaping: data escapes %, CR, LF; properties also : and ,. What a
    // project wrote (a file's name, a message quoting a value) first has its other control and
    // bidirectional characters made visible: a log viewer would obey them.
    static func escapeData(_ s: String) -> String {
        let visible = String(s.unicodeScalars.map { UntrustedText.isUnsafe($0) && $0 != "\r" && $0 != "\n" ? "?" : Character($0) })
        return visible.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    static func escapeProperty(_ s: String) -> String {
        escapeData(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    // MARK: JSON

    struct JSONDocument: Encodable {
        var schemaVersion: Int
        var tool: Tool
        var summary: Summary
        var reports: [Report]

        struct Tool: Encodable { var name: String; var version: String }
        struct Summary: Encodable { var bundles: Int; var errors: Int; var warnings: Int }
        struct Report: Encodable {
            var path: String
            var target: String?
            var bundle: String?
            var skipped: String?
            var errors: Int
            var warnings: Int
            var findings: [Finding]
        }
        struct Finding: Encodable {
            var rule: String
            var severity: String
            var file: String
            var line: Int?
            var keyPath: String
            var problem: String
            var fix: String
        }
    }

    static func json(_ reports: [LintReport], version: String) -> String {
        let document = JSONDocument(
            schemaVersion: jsonSchemaVersion, tool: .init(name: "mamsim", version: version),
            summary: .init(bundles: reports.count, errors: reports.map(\.errors.count).reduce(0, +), warnings: reports.map(\.warnings.count).reduce(0, +)),
            reports: reports.map { report in
                .init(path: report.folder, target: report.target, bundle: report.bundle, skipped: report.skipped, errors: report.errors.count, warnings: report.warnings.count,
                      findings: report.sortedFindings.map {
                          .init(rule: $0.rule, severity: $0.severity.rawValue, file: path(of: $0, in: report), line: $0.line,
                                keyPath: $0.keyPath, problem: $0.problem, fix: $0.fix)
                      })
            })
        return encode(document)
    }

    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain structs cannot fail.
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    // MARK: SARIF 2.1.0

    struct SARIF: Encodable {
        var version = "2.1.0"
        var schema = "https://json.schemastore.org/sarif-2.1.0.json"
        var runs: [Run]

        enum CodingKeys: String, CodingKey { case version, schema = "$schema", runs }

        struct Run: Encodable {
            var tool: Tool
            /// `%SRCROOT%`: the folder mamsim ran in, which relative URIs are resolved against.
            var originalUriBaseIds: [String: BaseURI]
            var results: [Result]
        }
        struct BaseURI: Encodable { var uri: String; var description: Text }
        struct Tool: Encodable { var driver: Driver }
        struct Driver: Encodable {
            var name: String
            var version: String
            var rules: [Rule]
        }
        struct Rule: Encodable {
            var id: String
            var shortDescription: Text
            var help: Text
            var defaultConfiguration: Configuration
            var properties: Properties
        }
        struct Properties: Encodable { var source: String; var fixable: Bool }
        struct Configuration: Encodable { var level: String }
        struct Text: Encodable { var text: String }
        struct Result: Encodable {
            var ruleId: String
            var ruleIndex: Int
            var level: String
            var message: Text
            var locations: [Location]
        }
        struct Location: Encodable { var physicalLocation: Physical }
        struct Physical: Encodable { var artifactLocation: Artifact; var region: Region? }
        struct Artifact: Encodable { var uri: String; var uriBaseId: String? }
        struct Region: Encodable { var startLine: Int }
    }

    static func sarif(_ reports: [LintReport], version: String, workingDirectory: String = FileManager.default.currentDirectoryPath) -> String {
        let rules = LintRules.all
        let index = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($0.element.id, $0.offset) })
        let base = workingDirectory.hasSuffix("/") ? workingDirectory : workingDirectory + "/"
        let results = reports.flatMap { report in
            report.sortedFindings.map { f in
                SARIF.Result(ruleId: f.rule, ruleIndex: index[f.rule] ?? -1, level: f.severity.rawValue, message: .init(text: message(f)),
                             locations: [.init(physicalLocation: .init(artifactLocation: artifact(path(of: f, in: report), base: base),
                                                                       region: f.line.map { .init(startLine: $0) }))])
            }
        }
        let driver = SARIF.Driver(name: "mamsim", version: version, rules: rules.map {
            .init(id: $0.id, shortDescription: .init(text: $0.summary), help: .init(text: "docs/LINT.md#\($0.id) in mamsim; source: \($0.source)"),
                  defaultConfiguration: .init(level: $0.severity.rawValue), properties: .init(source: $0.source, fixable: $0.fixable))
        })
        let root = SARIF.BaseURI(uri: "file://" + uri(base), description: .init(text: "the folder mamsim lint ran in"))
        return encode(SARIF(runs: [.init(tool: .init(driver: driver), originalUriBaseIds: ["%SRCROOT%": root], results: results)]))
    }

    /// A file as SARIF names it: relative to `%SRCROOT%` (the working folder `base`) when it is
    /// under it — an absolute input under it is made relative — else an absolute file URI.
    static func artifact(_ path: String, base: String) -> SARIF.Artifact {
        if path.hasPrefix("/") {
            if path.hasPrefix(base) { return .init(uri: uri(String(path.dropFirst(base.count))), uriBaseId: "%SRCROOT%") }
            return .init(uri: "file://" + uri(path), uriBaseId: nil)
        }
        let relative = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        return .init(uri: uri(relative), uriBaseId: "%SRCROOT%")
    }

    /// A path as a SARIF URI reference (spaces, `%`, `*`, `#` and `?` escaped).
    static func uri(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "*?#[]")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }

    // MARK: JUnit

    static func junit(_ reports: [LintReport]) -> String {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let failures = reports.map(\.errors.count).reduce(0, +)
        let tests = reports.map { max(1, $0.findings.count) }.reduce(0, +)
        xml += "<testsuites name=\"mamsim lint\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" time=\"0.000\">\n"
        var names = Set<String>()
        for report in reports {
            var name = (report.target ?? report.bundle).map { "\(report.folder) (\($0))" } ?? report.folder
            // Suite names are unique: a repeated one gets its position.
            if !names.insert(name).inserted { name += " #\(names.count)"; names.insert(name) }
            let findings = report.sortedFindings
            xml += "  <testsuite name=\"\(UntrustedText.xml(name))\" tests=\"\(max(1, findings.count))\" failures=\"\(report.errors.count)\" errors=\"0\" skipped=\"\(report.skipped == nil ? 0 : 1)\" time=\"0.000\">\n"
            if let skipped = report.skipped {
                xml += "    <testcase classname=\"\(UntrustedText.xml(name))\" name=\"not linted\" time=\"0.000\">\n"
                xml += "      <skipped message=\"\(UntrustedText.xml(skipped + ": the Intune App SDK for iOS does not apply"))\"/>\n    </testcase>\n"
            } else if findings.isEmpty {
                xml += "    <testcase classname=\"\(UntrustedText.xml(name))\" name=\"no problems\" time=\"0.000\"/>\n"
            }
            // Viewers key a case by suite, class and name: a repeated name gets its line, then
            // its position, so no two cases of a suite collapse into one.
            var caseNames = Set<String>()
            for f in findings {
                let file = path(of: f, in: report)
                let line = f.line.map { " line=\"\($0)\"" } ?? ""
                var caseName = f.rule + (f.keyPath.isEmpty ? "" : " " + f.keyPath)
                if caseNames.contains(file + "\u{0}" + caseName), let l = f.line { caseName += " (line \(l))" }
                var n = 2
                let plain = caseName
                while !caseNames.insert(file + "\u{0}" + caseName).inserted { caseName = "\(plain) #\(n)"; n += 1 }
                xml += "    <testcase classname=\"\(UntrustedText.xml(file))\" name=\"\(UntrustedText.xml(caseName))\" file=\"\(UntrustedText.xml(file))\"\(line) time=\"0.000\">\n"
                if f.severity == .error {
                    xml += "      <failure type=\"\(UntrustedText.xml(f.rule))\" message=\"\(UntrustedText.xml(message(f)))\">\(UntrustedText.xml("\(file):\(f.line ?? 1): \(message(f))"))</failure>\n"
                } else {
                    xml += "      <system-out>\(UntrustedText.xml("\(f.severity.rawValue): \(file):\(f.line ?? 1): \(message(f))"))</system-out>\n"
                }
                xml += "    </testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

}
