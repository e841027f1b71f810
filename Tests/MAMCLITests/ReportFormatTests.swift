import Foundation
import Testing

/// Validates a report the way CI systems read it: JUnit against `schemas/junit.xsd` with
/// xmllint, JSON against `schemas/*.schema.json` with Python's jsonschema (both installed by
/// scripts/install-deps). A missing validator fails the test with what to install.
enum ReportValidator {
    /// Runs a program to its end: its status and its stdout and stderr together.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func xmllint() throws -> String {
        for path in ["/usr/bin/xmllint", "/opt/homebrew/bin/xmllint", "/usr/local/bin/xmllint"] where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        Issue.record("xmllint is missing: run scripts/install-deps (apt-get install libxml2-utils)")
        throw CancellationError()
    }

    /// nil when valid, else xmllint's complaint.
    static func junitProblems(_ file: String) throws -> String? {
        let r = try run(try xmllint(), ["--noout", "--schema", CLI.repo("schemas/junit.xsd").path, file])
        return r.status == 0 ? nil : r.output
    }

    /// `schema`: a file of `schemas/`, or a path under the repository (a fixture); validated
    /// with the draft the schema names (SARIF's is draft-04, ours 2020-12).
    static func jsonProblems(_ file: String, schema: String) throws -> String? {
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1])); doc = json.load(open(sys.argv[2]))
            validator = jsonschema.validators.validator_for(schema)
            validator.check_schema(schema)
            errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator(schema).iter_errors(doc)]
            print("\\n".join(errors)); sys.exit(1 if errors else 0)
            """
        guard let python = try pythonWithJSONSchema() else {
            Issue.record("Python's jsonschema is missing: run scripts/install-deps (apt-get install python3-jsonschema)")
            return "no validator"
        }
        let r = try run(python, ["-c", script, CLI.repo(schema.contains("/") ? schema : "schemas/\(schema)").path, file])
        return r.status == 0 ? nil : r.output
    }

    /// The first Python 3 that imports jsonschema: the one on the PATH (pyenv, a venv) or the
    /// system's, where Debian's python3-jsonschema goes.
    static func pythonWithJSONSchema(alsoImporting modules: [String] = []) throws -> String? {
        let onPath = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/python3" }
        let imports = "import " + (["jsonschema"] + modules).joined(separator: ", ")
        for candidate in onPath + ["/usr/bin/python3"] where FileManager.default.isExecutableFile(atPath: candidate) {
            if try run(candidate, ["-c", imports]).status == 0 { return candidate }
        }
        return nil
    }
}

extension CLITests {
    @Suite struct ReportFormatTests {
        /// Two scenarios with the same name, a passing and a failing one, and a broken file.
        static func suite() throws -> TemporaryDirectory {
            let tmp = try TemporaryDirectory()
            try tmp.write("suite/a-first.yaml", ScenarioTexts.passingShare)
            try tmp.write("suite/b-second.yaml", ScenarioTexts.failingShare)
            try tmp.write("suite/c-again.yaml", ScenarioTexts.passingShare)
            try tmp.write("suite/d-broken.yaml", "apps:\n  - id: reader\n    bundle: com.example.reader\nsteps:\n  - lanuch: {app: reader}\n")
            // Data beside scenarios is skipped, and said to be.
            try tmp.write("suite/policy.json", ##"{"@odata.type": "#microsoft.graph.iosManagedAppProtection", "displayName": "p"}"##)
            return tmp
        }

        @Test func junitFollowsTheSchemaWithErrorsFilesLinesAndUniqueNames() async throws {
            let tmp = try Self.suite()
            defer { tmp.remove() }
            let report = tmp.path("junit.xml")
            let r = try await CLI.run(["test", tmp.path("suite"), "--format", "junit", "--output", report], timeout: 180)
            #expect(r.status == 1, "\(r)")
            #expect(r.stderr.contains("skipped \(tmp.path("suite/policy.json")): not a scenario"), "\(r)")
            let problems = try ReportValidator.junitProblems(report)
            #expect(problems == nil, "\(problems ?? "")")
            let xml = try String(contentsOfFile: report, encoding: .utf8)
            #expect(xml.contains("<testsuites name=\"mamsim\" tests=\"7\" failures=\"1\" errors=\"1\" time=\""), "\(xml)")
            #expect(xml.contains("<error type=\"bad-scenario\" message=\"\(tmp.path("suite/d-broken.yaml")):5:"), "\(xml)")
            #expect(xml.contains("name=\"Passing share (\(tmp.path("suite/a-first.yaml")))\""), "\(xml)")
            let shareLine = try #require(CLI.position(of: "- share:", in: ScenarioTexts.failingShare)).line
            #expect(xml.contains("file=\"\(tmp.path("suite/b-second.yaml"))\" line=\"\(shareLine)\""), "\(xml)")
            #expect(!xml.contains("e-0"), "times are fixed-point: \(xml)")
        }

        @Test func jsonFollowsTheSchemaWithStructuredOutcomes() async throws {
            let tmp = try Self.suite()
            defer { tmp.remove() }
            let report = tmp.path("report.json")
            let r = try await CLI.run(["test", tmp.path("suite"), "--format", "json", "--output", report], timeout: 180)
            #expect(r.status == 1, "\(r)")
            let problems = try ReportValidator.jsonProblems(report, schema: "test-report.schema.json")
            #expect(problems == nil, "\(problems ?? "")")
            let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
            #expect(root["schemaVersion"] as? Int == 1 && root["errors"] as? Int == 1 && root["failed"] as? Int == 2)
            let scenarios = try #require(root["scenarios"] as? [[String: Any]])
            #expect(scenarios.map { $0["status"] as? String } == ["passed", "failed", "passed", "error"])
            let failed = try #require((scenarios[1]["steps"] as? [[String: Any]])?.last)
            #expect(failed["observed"] as? [String: String] == ["kind": "blocked", "value": "outbound-policy"])
            #expect(failed["expectation"] as? [String: String] == ["kind": "delivered"])
        }

        static let project = CLI.repo("Tests/Fixtures/projects/ContosoMail")

        /// A copy of the correct project with the app's queried-scheme twin and Face ID text removed.
        static func brokenProject() throws -> TemporaryDirectory {
            let tmp = try TemporaryDirectory()
            try FileManager.default.copyItem(at: project, to: tmp.url.appendingPathComponent("ContosoMail"))
            let info = tmp.url.appendingPathComponent("ContosoMail/Mail/Info.plist")
            let text = try String(contentsOf: info, encoding: .utf8)
                .replacingOccurrences(of: "\t\t<string>ms-outlook-intunemam</string>\n", with: "")
                .replacingOccurrences(of: "<key>NSFaceIDUsageDescription</key>", with: "<key>NSCameraUsageDescription</key>")
            try Data(text.utf8).write(to: info)
            return tmp
        }

        @Test func lintReportersFollowTheirFormats() async throws {
            let tmp = try Self.brokenProject()
            defer { tmp.remove() }
            let json = try await CLI.run(["lint", "ContosoMail", "--reporter", "json"], in: tmp.url, timeout: 60)
            #expect(json.status == 1, "\(json)")
            try tmp.write("lint.json", json.stdout)
            let jsonProblems = try ReportValidator.jsonProblems(tmp.path("lint.json"), schema: "lint-report.schema.json")
            #expect(jsonProblems == nil, "\(jsonProblems ?? "")")
            #expect(json.stdout.contains("\"rule\" : \"query-scheme-twin\""), "\(json)")

            let junit = try await CLI.run(["lint", "ContosoMail", "--reporter", "junit"], in: tmp.url, timeout: 60)
            try tmp.write("lint.xml", junit.stdout)
            let junitProblems = try ReportValidator.junitProblems(tmp.path("lint.xml"))
            #expect(junitProblems == nil, "\(junitProblems ?? "")\n\(junit)")

            let github = try await CLI.run(["lint", "ContosoMail", "--reporter", "github-actions"], in: tmp.url, timeout: 60)
            let infoLine = try #require(CLI.position(of: "<key>LSApplicationQueriesSchemes</key>", in: try String(contentsOfFile: tmp.path("ContosoMail/Mail/Info.plist"), encoding: .utf8))).line
            #expect(github.stdout.contains("::error file=ContosoMail/Mail/Info.plist,line=\(infoLine),title=mamsim lint query-scheme-twin::LSApplicationQueriesSchemes: the queried scheme ms-outlook has no ms-outlook-intunemam twin"), "\(github)")
            #expect(github.stdout.contains("::warning file=ContosoMail/Mail/Info.plist"), "\(github)")

            let xcode = try await CLI.run(["lint", "ContosoMail", "--reporter", "xcode"], in: tmp.url, timeout: 60)
            #expect(xcode.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("ContosoMail/Mail/Info.plist:") && $0.contains(":1: ") }, "\(xcode)")

            let sarif = try await CLI.run(["lint", "ContosoMail", "--reporter", "sarif"], in: tmp.url, timeout: 60)
            try tmp.write("lint.sarif", sarif.stdout)
            let sarifProblems = try ReportValidator.jsonProblems(tmp.path("lint.sarif"), schema: "Tests/Fixtures/sarif/sarif-schema-2.1.0.json")
            #expect(sarifProblems == nil, "OASIS SARIF 2.1.0 schema: \(sarifProblems ?? "")")
            let log = try #require(try JSONSerialization.jsonObject(with: Data(sarif.stdout.utf8)) as? [String: Any])
            #expect(log["version"] as? String == "2.1.0")
            let run = try #require((log["runs"] as? [[String: Any]])?.first)
            let results = try #require(run["results"] as? [[String: Any]])
            #expect(results.compactMap { $0["ruleId"] as? String }.sorted() == ["face-id-usage", "query-scheme-twin"])
            let rules = try #require(((run["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]])
            for result in results {
                let index = try #require(result["ruleIndex"] as? Int)
                #expect(rules[index]["id"] as? String == result["ruleId"] as? String)
                // Relative to %SRCROOT%, which originalUriBaseIds resolves: never a glob.
                let artifact = try #require(((result["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])?["artifactLocation"] as? [String: Any])
                #expect(artifact["uriBaseId"] as? String == "%SRCROOT%" && (artifact["uri"] as? String)?.hasPrefix("ContosoMail/") == true, "\(artifact)")
            }
            #expect((run["originalUriBaseIds"] as? [String: Any])?["%SRCROOT%"] != nil)
            // An absolute input under the working folder is still named relative to it.
            let absolute = try await CLI.run(["lint", tmp.path("ContosoMail"), "--reporter", "sarif"], in: tmp.url, timeout: 60)
            #expect(absolute.stdout.contains("\"uri\" : \"ContosoMail/Mail/Info.plist\"") && !absolute.stdout.contains("\"uri\" : \"/"), "\(absolute.stdout)")
        }

        /// A repository shaped like the public ones lint was tried on: an XcodeGen project not
        /// generated yet (element-ios commits `Riot.xcodeproj/` with only `xcshareddata`) beside a
        /// good project whose app embeds a watchOS app (home-assistant/iOS). The unreadable
        /// project is a finding, the good one is linted, the watch target is listed as skipped,
        /// and every reporter writes a valid document.
        @Test func lintARepositoryWithAnUngeneratedProject() async throws {
            let tmp = try Self.brokenProject()
            defer { tmp.remove() }
            try FileManager.default.createDirectory(atPath: tmp.path("ContosoMail/Riot.xcodeproj/xcshareddata/xcschemes"), withIntermediateDirectories: true)
            try tmp.write("ContosoMail/project.yml", "name: Riot\ntargets: {}\n")
            let human = try await CLI.run(["lint", "ContosoMail", "missing-folder"], in: tmp.url, timeout: 60)
            #expect(human.status == 2 && human.stderr.contains("missing-folder does not exist"), "\(human)")
            #expect(human.stdout.contains("ContosoMail/Riot.xcodeproj/project.pbxproj: error:") && human.stdout.contains("run `xcodegen generate` there"), "\(human)")
            #expect(human.stdout.contains("ContosoMail (target Mail)") && human.stdout.contains("[query-scheme-twin]"), "the good project is linted: \(human)")
            let junit = try await CLI.run(["lint", "ContosoMail", "missing-folder", "--reporter", "junit"], in: tmp.url, timeout: 60)
            #expect(junit.status == 2)
            try tmp.write("repo.xml", junit.stdout)
            let junitProblems = try ReportValidator.junitProblems(tmp.path("repo.xml"))
            #expect(junitProblems == nil, "\(junitProblems ?? "")\n\(junit)")
            let sarif = try await CLI.run(["lint", "missing-folder", "--reporter", "sarif"], in: tmp.url, timeout: 60)
            try tmp.write("empty.sarif", sarif.stdout)
            let emptyProblems = try ReportValidator.jsonProblems(tmp.path("empty.sarif"), schema: "Tests/Fixtures/sarif/sarif-schema-2.1.0.json")
            #expect(sarif.status == 2 && emptyProblems == nil, "a run with only bad input still writes a valid SARIF log: \(emptyProblems ?? "") \(sarif)")
        }

        @Test func lintStrictConfigAndFix() async throws {
            let tmp = try Self.brokenProject()
            defer { tmp.remove() }
            // A config file turning off the error leaves a warning: exit 0, unless --strict.
            try tmp.write("ContosoMail/.mamsim-lint.yml", "disabled_rules: [query-scheme-twin]\n")
            let relaxed = try await CLI.run(["lint", "ContosoMail"], in: tmp.url, timeout: 60)
            #expect(relaxed.status == 0 && relaxed.stdout.contains("0 errors, 1 warning"), "\(relaxed)")
            let strict = try await CLI.run(["lint", "ContosoMail", "--strict"], in: tmp.url, timeout: 60)
            #expect(strict.status == 1 && strict.stdout.contains("1 error, 0 warnings"), "\(strict)")
            try tmp.write("ContosoMail/.mamsim-lint.yml", "disabled_rule: [query-scheme-twin]\n")
            let typo = try await CLI.run(["lint", "ContosoMail"], in: tmp.url, timeout: 60)
            #expect(typo.status == 2 && typo.stderr.contains("ContosoMail/.mamsim-lint.yml:1: unknown key disabled_rule; did you mean disabled_rules?"), "\(typo)")
            try tmp.write("ContosoMail/.mamsim-lint.yml", "disabled_rules: [query-scheme-twins]\n")
            let unknown = try await CLI.run(["lint", "ContosoMail"], in: tmp.url, timeout: 60)
            #expect(unknown.status == 2 && unknown.stderr.contains("names query-scheme-twins, which is not a rule; did you mean query-scheme-twin?"), "\(unknown)")
            try FileManager.default.removeItem(atPath: tmp.path("ContosoMail/.mamsim-lint.yml"))

            // --fix writes the missing twin where the scheme is; what needs a person stays.
            let fixed = try await CLI.run(["lint", "ContosoMail", "--fix"], in: tmp.url, timeout: 60)
            #expect(fixed.stdout.contains("ContosoMail/Mail/Info.plist: fixed [query-scheme-twin]: added ms-outlook-intunemam to LSApplicationQueriesSchemes"), "\(fixed)")
            #expect(fixed.status == 0 && fixed.stdout.contains("0 errors, 1 warning"), "\(fixed)")
            let text = try String(contentsOfFile: tmp.path("ContosoMail/Mail/Info.plist"), encoding: .utf8)
            #expect(text.contains("\t\t<string>ms-outlook</string>\n\t\t<string>ms-outlook-intunemam</string>\n"), "\(text)")
        }

        /// --fix runs the configurator on an extension whose rule has no Intune type, keeping
        /// the rest of its Info.plist as written.
        @Test func lintFixRewritesAnActivationRuleWithoutIntuneTypes() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            try FileManager.default.copyItem(at: Self.project, to: tmp.url.appendingPathComponent("ContosoMail"))
            let info = tmp.path("ContosoMail/MailShare/Info.plist")
            let original = try String(contentsOfFile: info, encoding: .utf8)
            try tmp.write("ContosoMail/MailShare/Info.plist", original.replacingOccurrences(
                of: " || ANY $attachment.registeredTypeIdentifiers UTI-CONFORMS-TO \"com.microsoft.intune.mam.public.url\"", with: ""))
            let before = try await CLI.run(["lint", "ContosoMail"], in: tmp.url, timeout: 60)
            #expect(before.stdout.contains("[extension-intune-types]"), "\(before)")
            let fixed = try await CLI.run(["lint", "ContosoMail", "--fix"], in: tmp.url, timeout: 60)
            #expect(fixed.stdout.contains("ContosoMail/MailShare/Info.plist: fixed [extension-intune-types]"), "\(fixed)")
            #expect(fixed.status == 0 && fixed.stdout.contains("ContosoMail (target MailShare): no problems"), "\(fixed)")
            let after = try String(contentsOfFile: info, encoding: .utf8)
            #expect(after.contains("com.microsoft.intune.mam.public.url"))
            let head = try #require(original.range(of: "<key>NSExtensionActivationRule</key>")).upperBound
            #expect(after.hasPrefix(String(original[..<head])), "every line before the rule is kept")
        }

        @Test func lintBadInputExitsTwo() async throws {
            let target = try await CLI.run(["lint", Self.project.path, "--target", "Nope"], timeout: 60)
            #expect(target.status == 2 && target.stderr.contains("has a target named Nope; its targets are Mail, MailShare"), "\(target)")
            let reporter = try await CLI.run(["lint", Self.project.path, "--reporter", "checkstyle"], timeout: 60)
            #expect(reporter.status != 0 && reporter.stderr.contains("use one of human, json, sarif, junit, github-actions, xcode"), "\(reporter)")
            #expect(reporter.stderr.contains("Usage: mamsim lint"), "subcommand errors print the subcommand's usage: \(reporter)")
        }
    }
}
