import Foundation
import MAMExtensions
import MAMModel
import MAMScenario

/// A suite's results as data: what `mamsim test --format json` writes
/// (`schemas/test-report.schema.json`), what `mamsim merge` reads back from shards, and what
/// the JUnit rendering is made from, so a merged report and a single run's render the same.
struct SuiteDocument: Codable, Equatable {
    static let currentSchemaVersion = 1

    struct Tool: Codable, Equatable {
        var name = "mamsim"
        var version = mamsimVersion
    }

    /// `delivered` → `{kind: delivered}`; `{blocked: outbound-policy}` → `{kind: blocked,
    /// value: outbound-policy}`: the scenario format's outcome syntax as data.
    struct Outcome: Codable, Equatable {
        var kind: String
        var value: String?

        init(_ text: String) {
            guard text.hasPrefix("{"), text.hasSuffix("}"), let colon = text.firstIndex(of: ":") else {
                kind = text
                return
            }
            kind = text[text.index(after: text.startIndex)..<colon].trimmingCharacters(in: .whitespaces)
            value = text[text.index(after: colon)..<text.index(before: text.endIndex)].trimmingCharacters(in: .whitespaces)
        }
    }

    struct Step: Codable, Equatable {
        var index: Int
        var line: Int
        var name: String?
        var verb: String
        var parties: String
        var outcome: String
        var observed: Outcome
        var expected: String?
        var expectation: Outcome?
        var reason: String?
        var explanation: String
        var passed: Bool
        var seconds: Double

        var title: String { (name ?? "").isEmpty ? "\(verb) \(parties)" : name! }
    }

    struct Scenario: Codable, Equatable {
        var file: String
        var name: String
        var passed: Bool
        /// `passed`, `failed`, or `error` (the file could not run: bad, or its fleet did not start).
        var status: String
        var error: String?
        var fleetError: String?
        var appsNotStarted: [String]?
        var seconds: Double
        var steps: [Step]
        var strict: [StrictFinding]?
    }

    /// A Strict Mode finding (docs/STRICT.md).
    struct StrictFinding: Codable, Equatable {
        var app: String
        var check: String
        var call: String
        var file: String
        var line: Int
        var detail: String
        var suppressedBecause: String?
        /// Whether it failed the run: strict, and not suppressed.
        var failed: Bool
        /// The source file relative to the scenario's repository, when the app's package is there.
        var source: String?
    }

    /// Which part of which suite a shard's report is (`mamsim test --shard K/N`).
    struct Shard: Codable, Equatable {
        /// 1-based, as `--shard K/N` names it.
        var index: Int
        var count: Int
        /// FNV-1a of every scenario path of the whole suite: shards of one suite agree on it.
        var suite: String
        /// How many scenarios the whole suite has.
        var scenarios: Int
    }

    var schemaVersion = currentSchemaVersion
    var tool = Tool()
    var shard: Shard?
    var passed: Int
    /// Scenarios that did not pass, errors included.
    var failed: Int
    var errors: Int
    var steps: Int
    var seconds: Double
    var scenarios: [Scenario]

    init(scenarios: [Scenario]) {
        self.scenarios = scenarios.sorted { $0.file < $1.file }
        passed = scenarios.filter(\.passed).count
        failed = scenarios.count - passed
        errors = scenarios.filter { $0.status == "error" }.count
        steps = scenarios.map(\.steps.count).reduce(0, +)
        seconds = scenarios.map(\.seconds).reduce(0, +)
    }

    init(entries: [SuiteEntry]) {
        self.init(scenarios: entries.map(Self.scenario))
    }

    static func scenario(_ e: SuiteEntry) -> Scenario {
        let r = e.report
        let status = e.loadError != nil || r?.fleetError != nil ? "error" : (e.passed ? "passed" : "failed")
        return Scenario(
            file: e.file.path, name: e.name, passed: e.passed, status: status, error: e.loadError, fleetError: r?.fleetError,
            appsNotStarted: (r?.appsNotStarted ?? []).isEmpty ? nil : r?.appsNotStarted, seconds: r?.seconds ?? 0,
            steps: (r?.steps ?? []).map { s in
                Step(index: s.index + 1, line: s.line, name: s.name.isEmpty ? nil : s.name, verb: s.verb, parties: s.parties,
                     outcome: s.observed.description, observed: Outcome(s.observed.description),
                     expected: s.expected?.description, expectation: s.expected.map { Outcome($0.description) },
                     reason: s.observed.reason?.rawValue, explanation: s.explanation, passed: s.passed, seconds: s.seconds)
            },
            strict: (r?.strictFindings ?? []).isEmpty ? nil : r!.strictFindings.map { f in
                StrictFinding(app: f.app, check: f.finding.check, call: f.finding.call, file: f.finding.file, line: f.finding.line,
                              detail: f.finding.detail, suppressedBecause: f.suppressedBecause, failed: r!.strict && f.suppressedBecause == nil,
                              source: f.source)
            })
    }

    // MARK: Merging shards

    /// One document from the shards' documents: every scenario once (a file reported by two
    /// shards is an error to fix in the sharding, not something to count twice).
    static func merged(_ parts: [(name: String, document: SuiteDocument)]) throws -> SuiteDocument {
        var seen: [String: String] = [:]
        var all: [Scenario] = []
        for (name, part) in parts {
            guard part.schemaVersion == currentSchemaVersion else {
                throw MergeError("\(name): schemaVersion \(part.schemaVersion), but this mamsim reads \(currentSchemaVersion); merge results of the same mamsim release")
            }
            for scenario in part.scenarios {
                // A shard's verdict is its steps': one that says passed while a step failed,
                // or without steps, or with another status, was altered or damaged.
                let held = scenario.status == "passed" && !scenario.steps.isEmpty && scenario.steps.allSatisfy(\.passed)
                    && !(scenario.strict ?? []).contains(where: \.failed)
                if scenario.passed != held || (scenario.status == "passed") != scenario.passed {
                    let failing = scenario.steps.first { !$0.passed }.map { "step \($0.index) failed" } ?? (scenario.steps.isEmpty ? "it has no steps" : "its status is \(scenario.status)")
                    throw MergeError("\(name): \(scenario.file) says passed: \(scenario.passed), but \(scenario.passed ? failing : "every step held and its status is passed"); the report was altered or damaged — run that shard again")
                }
                if let other = seen[scenario.file] {
                    throw MergeError("\(scenario.file) is in both \(other) and \(name); each scenario belongs to exactly one shard")
                }
                seen[scenario.file] = name
                all.append(scenario)
            }
        }
        try checkShards(parts)
        return SuiteDocument(scenarios: all)
    }

    /// Shard reports must be every part of one suite, each once: a lost shard (a pod that
    /// never wrote its report) must fail the merge, not shrink the suite.
    /// Why two shards are of different suites, as far as their reports tell: the number of
    /// shards, the number of scenarios of the whole suite, or (same numbers) the scenario paths
    /// — with the folder each shard's scenarios are in.
    static func whyDifferent(_ a: Shard, _ aDocument: SuiteDocument, _ b: Shard, _ bDocument: SuiteDocument) -> String {
        func folder(_ d: SuiteDocument) -> String {
            let paths = d.scenarios.map { ($0.file as NSString).deletingLastPathComponent }
            guard var common = paths.first else { return "no scenario" }
            for p in paths.dropFirst() { while !(p == common || p.hasPrefix(common + "/")) { common = (common as NSString).deletingLastPathComponent } }
            return common.isEmpty ? "/" : common
        }
        var reasons: [String] = []
        if a.count != b.count { reasons.append("one run was split into \(a.count) shards, the other into \(b.count)") }
        if a.scenarios != b.scenarios { reasons.append("one suite has \(a.scenarios) scenarios, the other \(b.scenarios)") }
        if reasons.isEmpty { reasons.append("both suites have \(a.scenarios) scenarios but not the same paths (a renamed or moved file, or a run from another folder)") }
        return reasons.joined(separator: ", ") + " (this shard's scenarios are under \(folder(aDocument)), that one's under \(folder(bDocument)))"
    }

    static func checkShards(_ parts: [(name: String, document: SuiteDocument)]) throws {
        let shards = parts.compactMap { part in part.document.shard.map { (part.name, $0) } }
        guard let (firstName, first) = shards.first else { return }
        if shards.count != parts.count {
            let plain = parts.filter { $0.document.shard == nil }.map(\.name)
            throw MergeError("\(plain.joined(separator: ", ")) \(plain.count == 1 ? "is not a shard's report" : "are not shards' reports") while \(firstName) is shard \(first.index)/\(first.count); merge the reports of one sharded run")
        }
        var byIndex: [Int: String] = [:]
        let firstDocument = parts.first { $0.name == firstName }!.document
        for (name, s) in shards {
            guard s.count == first.count, s.suite == first.suite else {
                let document = parts.first { $0.name == name }!.document
                throw MergeError("\(name) is shard \(s.index)/\(s.count) of suite \(s.suite), but \(firstName) is shard \(first.index)/\(first.count) of suite \(first.suite): \(whyDifferent(s, document, first, firstDocument)); merge the shards of one run (same scenarios, same N)")
            }
            if let other = byIndex[s.index] {
                throw MergeError("\(name) and \(other) are both shard \(s.index)/\(s.count); each shard's report once")
            }
            byIndex[s.index] = name
        }
        let missing = (1...first.count).filter { byIndex[$0] == nil }
        if !missing.isEmpty {
            throw MergeError("shard\(missing.count == 1 ? "" : "s") \(missing.map { "\($0)/\(first.count)" }.joined(separator: ", ")) \(missing.count == 1 ? "is" : "are") missing (\(shards.count) of \(first.count) reports given): \(missing.count == 1 ? "its" : "their") scenarios did not run or the report was lost; run \(missing.count == 1 ? "it" : "them") again (mamsim test --shard K/\(first.count))")
        }
    }

    // MARK: Renderings

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Seconds as JUnit readers expect them: fixed-point, never `1e-05`.
    static func time(_ seconds: Double) -> String { String(format: "%.3f", max(0, seconds)) }

    /// JUnit XML (`schemas/junit.xsd`): a `<testsuite>` per scenario, a `<testcase>` per step
    /// with its file and line; a scenario that could not run is one `<error>`.
    func junit() -> String {
        let esc = UntrustedText.xml
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let tests = scenarios.map { $0.status == "error" ? 1 : max(1, $0.steps.count) + strictCases($0).count }.reduce(0, +)
        func strictCases(_ s: Scenario) -> [StrictFinding] { s.status == "error" ? [] : (s.strict ?? []).filter(\.failed) }
        func failed(_ s: Scenario) -> Int {
            s.status == "error" ? 0 : (s.steps.isEmpty ? (s.passed ? 0 : 1) : s.steps.filter { !$0.passed }.count) + strictCases(s).count
        }
        let failures = scenarios.map(failed).reduce(0, +)
        out += "<testsuites name=\"mamsim\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(Self.time(seconds))\">\n"
        // Suite names are unique: a name two scenarios share is told apart by the file.
        let counts = Dictionary(scenarios.map { ($0.name, 1) }, uniquingKeysWith: +)
        for s in scenarios {
            let name = counts[s.name, default: 0] > 1 ? "\(s.name) (\(s.file))" : s.name
            let file = esc(s.file)
            if s.status == "error" {
                let err = s.error ?? s.fleetError ?? "could not run"
                out += "  <testsuite name=\"\(esc(name))\" file=\"\(file)\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"\(Self.time(s.seconds))\">\n"
                let line = Self.line(in: err) ?? 1
                let caseName = URL(fileURLWithPath: s.file).lastPathComponent
                out += "    <testcase classname=\"\(esc(name))\" name=\"\(esc(caseName))\" file=\"\(file)\" line=\"\(line)\" time=\"\(Self.time(0))\">\n"
                out += "      <error type=\"\(s.error != nil ? "bad-scenario" : "fleet")\" message=\"\(esc(err))\">\(esc(err))</error>\n    </testcase>\n  </testsuite>\n"
                continue
            }
            let fails = failed(s)
            out += "  <testsuite name=\"\(esc(name))\" file=\"\(file)\" tests=\"\(max(1, s.steps.count) + strictCases(s).count)\" failures=\"\(fails)\" errors=\"0\" skipped=\"0\" time=\"\(Self.time(s.seconds))\">\n"
            if let apps = s.appsNotStarted, !apps.isEmpty {
                out += "    <system-err>\(esc("apps that could not start: " + apps.joined(separator: "; ")))</system-err>\n"
            }
            if s.steps.isEmpty, fails > 0 {
                // Apps that could not start, no step ran: the suite still has its one case.
                out += "    <testcase classname=\"\(esc(name))\" name=\"fleet\" file=\"\(file)\" time=\"\(Self.time(0))\">\n      <failure type=\"fleet\" message=\"no step ran\">no step ran</failure>\n    </testcase>\n"
            }
            for step in s.steps {
                out += "    <testcase classname=\"\(esc(name))\" name=\"\(esc("\(step.index). \(step.title)"))\" file=\"\(file)\" line=\"\(step.line)\" time=\"\(Self.time(step.seconds))\""
                if step.passed {
                    out += "/>\n"
                } else {
                    let msg = "expected \(step.expected ?? "-"), got \(step.outcome) (line \(step.line))"
                    out += ">\n      <failure type=\"expectation\" message=\"\(esc(msg))\">\(esc(step.explanation))</failure>\n    </testcase>\n"
                }
            }
            // Strict Mode's failing findings: a case each, at the app's source line.
            for f in strictCases(s) { out += Self.strictCase(f, suite: name, file: file) }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    /// A failing Strict Mode finding as a JUnit case. A finding the host made (no line of the
    /// app's) is placed at the scenario; one of the app's at its source only where that file
    /// exists in the package that built the app (`source`): the app's own words never choose a
    /// location.
    static func strictCase(_ f: StrictFinding, suite name: String, file: String) -> String {
        let esc = UntrustedText.xml
        let place = f.file.isEmpty ? nil : "\(f.file):\(f.line)"
        let msg = "\(f.check)\(place.map { " at \($0)" } ?? "") in \(f.app) (\(f.call))"
        let location = f.source.map { "file=\"\(esc($0))\" line=\"\(max(1, f.line))\"" } ?? "file=\"\(file)\""
        let caseName = "strict: \(f.check)" + (place.map { " at \($0)" } ?? " in \(f.app)")
        return "    <testcase classname=\"\(esc(name))\" name=\"\(esc(caseName))\" \(location) time=\"\(Self.time(0))\">\n"
            + "      <failure type=\"strict\" message=\"\(esc(msg))\">\(esc(f.detail))</failure>\n    </testcase>\n"
    }

    /// SARIF 2.1.0 of Strict Mode's findings (docs/STRICT.md): a rule per check, a result per
    /// finding — `error` when it failed the run, `warning` otherwise, a suppressed one with its
    /// justification — at the app's file and line (`#fileID`), or at the scenario file for a
    /// finding the host made.
    func sarif() -> String {
        let checks = StrictCheck.allCases
        let index = Dictionary(uniqueKeysWithValues: checks.enumerated().map { ($0.element.rawValue, $0.offset) })
        var results: [[String: Any]] = []
        for s in scenarios {
            for f in s.strict ?? [] {
                var region: [String: Any] = [:]
                if f.source != nil, f.line > 0 { region["startLine"] = f.line }
                // The repository path of the app's source file where the app's package holds it;
                // otherwise the scenario: the app's own #fileID is text, never a location (an app
                // could name /etc/passwd, ../.., file: or https: URLs).
                var location: [String: Any] = ["artifactLocation": ["uri": f.source ?? Self.repositoryPath(s.file)]]
                if !region.isEmpty { location["region"] = region }
                var result: [String: Any] = [
                    "ruleId": f.check, "ruleIndex": index[f.check] ?? -1, "level": f.failed ? "error" : "warning",
                    "message": ["text": "\(f.detail) (\(f.app), \(f.call); scenario \(s.file))"],
                    "locations": [["physicalLocation": location]],
                ]
                if let reason = f.suppressedBecause { result["suppressions"] = [["kind": "external", "justification": reason]] }
                results.append(result)
            }
        }
        let rules: [[String: Any]] = checks.map {
            ["id": $0.rawValue, "shortDescription": ["text": $0.summary], "help": ["text": "docs/STRICT.md in mamsim"],
             "defaultConfiguration": ["level": "error"]]
        }
        let document: [String: Any] = [
            "version": "2.1.0", "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "runs": [["tool": ["driver": ["name": "mamsim", "version": tool.version, "rules": rules]], "results": results]],
        ]
        let data = (try? JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// `path` relative to the git repository that holds it (what code scanning places results
    /// at), or as given when no repository holds it: never the machine's absolute path where a
    /// repository-relative one exists.
    static func repositoryPath(_ path: String) -> String {
        let file = URL(fileURLWithPath: path).standardizedFileURL
        var folder = file.deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(".git").path) {
                let base = folder.path + "/"
                return file.path.hasPrefix(base) ? String(file.path.dropFirst(base.count)) : path
            }
            folder.deleteLastPathComponent()
        }
        return path
    }

    /// The line of `path:LINE:COLUMN:` in a load error, when it names one.
    static func line(in error: String) -> Int? {
        let parts = error.split(separator: ":", maxSplits: 3)
        guard parts.count >= 3 else { return nil }
        return Int(parts[1])
    }
}

/// Results that cannot be merged: which file, why.
struct MergeError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
