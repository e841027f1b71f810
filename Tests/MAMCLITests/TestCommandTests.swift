import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

extension CLITests {
    /// `mamsim test PATH...`: a folder with one passing and one failing scenario.
    @Suite struct TestCommandTests {
        /// `a-first.yaml` ("Passing share") and `b-second.yaml` ("Failing share"): the file names
        /// share no word with the scenario names, so `--filter` by name and by path differ.
        static func suite() throws -> TemporaryDirectory {
            let tmp = try TemporaryDirectory()
            try tmp.write("suite/a-first.yaml", ScenarioTexts.passingShare)
            try tmp.write("suite/b-second.yaml", ScenarioTexts.failingShare)
            return tmp
        }

        static func json(_ text: String) throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
            return try #require(object as? [String: Any])
        }

        static func scenarios(_ root: [String: Any]) throws -> [[String: Any]] {
            try #require(root["scenarios"] as? [[String: Any]])
        }

        /// A Graph app configuration export beside the scenarios has a top-level "apps" too: it
        /// is a Graph document (its "@odata." keys), skipped and named, never run.
        @Test func aGraphExportInTheFolderIsSkippedNotRun() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            try tmp.write("suite/a-first.yaml", ScenarioTexts.passingShare)
            try tmp.write("suite/sales.json", #"""
                {"@odata.context": "https://graph.microsoft.com/beta/$metadata#deviceAppManagement/targetedManagedAppConfigurations(apps())/$entity",
                 "@odata.type": "#microsoft.graph.targetedManagedAppConfiguration", "displayName": "sales",
                 "customSettings": [{"name": "serverUrl", "value": "https://sales.contoso.com"}],
                 "apps": [{"mobileAppIdentifier": {"@odata.type": "#microsoft.graph.iosMobileAppIdentifier", "bundleId": "com.contoso.mail"}}]}
                """#)
            let r = try await CLI.run(["test", tmp.path("suite")], timeout: 120)
            #expect(r.status == 0, "\(r)")
            #expect(r.stderr.contains("sales.json: not a scenario (a Microsoft Graph document"), "\(r)")
            #expect(r.stdout.contains("scenarios: 1 passed, 0 failed"), "\(r)")
        }

        /// A scenario saved on Windows (CR LF line ends) or with a byte order mark is a scenario
        /// of the folder like any other: run, never skipped as "no top-level steps: or apps:".
        @Test func aScenarioWithWindowsLineEndsOrABOMRuns() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let lf = ScenarioTexts.passingShare
            try tmp.write("suite/crlf.yaml", "# a team's scenario\n".replacingOccurrences(of: "\n", with: "\r\n") + lf.replacingOccurrences(of: "\n", with: "\r\n"))
            try tmp.write("suite/bom.yaml", "\u{FEFF}" + lf)
            let r = try await CLI.run(["test", tmp.path("suite")], timeout: 120)
            #expect(r.status == 0 && r.stdout.contains("scenarios: 2 passed, 0 failed"), "\(r)")
            #expect(!r.stderr.contains("skipped"), "\(r)")
        }

        /// Reports of earlier runs written inside the tested folder, in every format and under
        /// a scenario's extension, are recognised by their shape, skipped with a note, never run.
        @Test func reportsWrittenInsideTheFolderAreSkippedNotRun() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            try tmp.write("suite/a-first.yaml", ScenarioTexts.passingShare)
            for (format, file) in [("human", "report.json"), ("json", "report-json.json"), ("junit", "junit.yaml")] {
                let r = try await CLI.run(["test", tmp.path("suite"), "--format", format, "--output", tmp.path("suite/" + file)], timeout: 120)
                #expect(r.status == 0, "\(format): \(r)")
            }
            let r = try await CLI.run(["test", tmp.path("suite")], timeout: 120)
            #expect(r.status == 0 && r.stdout.contains("scenarios: 1 passed, 0 failed"), "\(r)")
            for (file, kind) in [("report.json", "mamsim test's human output"), ("report-json.json", "mamsim test --format json"), ("junit.yaml", "JUnit XML")] {
                #expect(r.stderr.contains("\(file): a test report (\(kind)"), "\(file) in \(r)")
            }
        }

        @Test func testExitsOneWhenOneOfTwoScenariosFails() async throws {
            let tmp = try Self.suite()
            defer { tmp.remove() }
            let r = try await CLI.run(["test", tmp.path("suite")], timeout: 120)
            #expect(!r.timedOut, "\(r)")
            #expect(r.status == 1, "\(r)")
            #expect(r.stdout.contains("✔ Passing share"), "\(r)")
            #expect(r.stdout.contains("✘ Failing share: 1 of 2 expectations failed (2 steps run)"), "\(r)")
            let shareLine = try #require(CLI.position(of: "- share:", in: ScenarioTexts.failingShare)).line
            #expect(r.stdout.contains("step 2 share mail (alice@contoso.com) → notes (line \(shareLine)): expected delivered, got {blocked: outbound-policy}"), "\(r)")
            #expect(r.stdout.contains("scenarios: 1 passed, 1 failed (4 steps)"), "\(r)")
        }

        @Test func testJSONFormatReportsEveryStepOutcome() async throws {
            let tmp = try Self.suite()
            defer { tmp.remove() }
            let r = try await CLI.run(["test", tmp.path("suite"), "--format", "json"], timeout: 120)
            #expect(r.status == 1, "\(r)")
            let root = try Self.json(r.stdout)
            #expect(root["passed"] as? Int == 1)
            #expect(root["failed"] as? Int == 1)
            let scenarios = try Self.scenarios(root)
            #expect(scenarios.map { $0["name"] as? String } == ["Passing share", "Failing share"])

            let passing = scenarios[0]
            #expect(passing["passed"] as? Bool == true)
            let passingSteps = try #require(passing["steps"] as? [[String: Any]])
            #expect(passingSteps.map { $0["verb"] as? String } == ["share", "launch"])
            #expect(passingSteps.map { $0["outcome"] as? String } == ["delivered", "ok"])
            #expect(passingSteps.allSatisfy { $0["passed"] as? Bool == true })

            let failing = scenarios[1]
            #expect(failing["passed"] as? Bool == false)
            #expect((failing["file"] as? String)?.hasSuffix("suite/b-second.yaml") == true)
            let steps = try #require(failing["steps"] as? [[String: Any]])
            #expect(steps.count == 2)
            #expect(steps.map { $0["index"] as? Int } == [1, 2])
            #expect(steps[0]["passed"] as? Bool == true)
            #expect(steps[0]["outcome"] as? String == "ok")
            let failed = steps[1]
            #expect(failed["passed"] as? Bool == false)
            #expect(failed["verb"] as? String == "share")
            #expect(failed["expected"] as? String == "delivered")
            #expect(failed["outcome"] as? String == "{blocked: outbound-policy}")
            #expect(failed["reason"] as? String == "outbound-policy")
            #expect(failed["line"] as? Int == CLI.position(of: "- share:", in: ScenarioTexts.failingShare)?.line)
            #expect((failed["explanation"] as? String)?.isEmpty == false)
        }

        /// Collects `<testcase>`s and the `<failure>`s inside them.
        final class JUnitReader: NSObject, XMLParserDelegate {
            var testcases: [(name: String, classname: String, failure: String?)] = []
            var suites: [[String: String]] = []
            private var open: (name: String, classname: String, failure: String?)?

            func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
                        qualifiedName: String?, attributes: [String: String] = [:]) {
                switch element {
                case "testsuite": suites.append(attributes)
                case "testcase": open = (attributes["name"] ?? "", attributes["classname"] ?? "", nil)
                // A file that cannot run is an <error>, a failed expectation a <failure>.
                case "failure", "error": open?.failure = attributes["message"] ?? ""
                default: break
                }
            }

            func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
                if element == "testcase", let t = open {
                    testcases.append(t)
                    open = nil
                }
            }
        }

        @Test func testJUnitOutputIsWellFormedXMLWithATestcasePerStepAndAFailure() async throws {
            let tmp = try Self.suite()
            defer { tmp.remove() }
            let report = tmp.path("reports/junit.xml")
            try FileManager.default.createDirectory(atPath: tmp.path("reports"), withIntermediateDirectories: true)
            let r = try await CLI.run(["test", tmp.path("suite"), "--format", "junit", "--output", report], timeout: 120)
            #expect(r.status == 1, "\(r)")
            // The report goes to the file; the terminal gets the summary only.
            #expect(!r.stdout.contains("<testsuites"), "\(r)")
            #expect(r.stdout.contains("scenarios: 1 passed, 1 failed"), "\(r)")

            let data = try Data(contentsOf: URL(fileURLWithPath: report))
            let parser = XMLParser(data: data)
            let reader = JUnitReader()
            parser.delegate = reader
            #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError))\n\(String(decoding: data, as: UTF8.self))")
            #expect(reader.suites.map { $0["name"] } == ["Passing share", "Failing share"])
            #expect(reader.suites.map { $0["failures"] } == ["0", "1"])
            #expect(reader.testcases.count == 4)
            let failures = reader.testcases.filter { $0.failure != nil }
            #expect(failures.count == 1)
            let failure = try #require(failures.first)
            #expect(failure.classname == "Failing share")
            #expect(failure.name.hasPrefix("2. share mail"))
            #expect(failure.failure?.contains("expected delivered, got {blocked: outbound-policy}") == true)
            #expect(reader.testcases.filter { $0.classname == "Passing share" }.allSatisfy { $0.failure == nil })
        }

        @Test func testFilterRunsOnlyScenariosWhoseNameOrPathMatches() async throws {
            let tmp = try Self.suite()
            defer { tmp.remove() }
            // By scenario name (case-insensitive): only the passing one, so exit 0.
            let byName = try await CLI.run(["test", tmp.path("suite"), "--filter", "passing", "--format", "json"], timeout: 120)
            #expect(byName.status == 0, "\(byName)")
            let named = try Self.scenarios(Self.json(byName.stdout))
            #expect(named.map { $0["name"] as? String } == ["Passing share"])

            // By path: only the failing one, so exit 1.
            let byPath = try await CLI.run(["test", tmp.path("suite"), "--filter", "b-second", "--format", "json"], timeout: 120)
            #expect(byPath.status == 1, "\(byPath)")
            let pathed = try Self.scenarios(Self.json(byPath.stdout))
            #expect(pathed.map { $0["name"] as? String } == ["Failing share"])
        }

        @Test func testWithOneJobRunsEveryScenario() async throws {
            let tmp = try Self.suite()
            defer { tmp.remove() }
            let r = try await CLI.run(["test", tmp.path("suite"), "--jobs", "1", "--format", "json"], timeout: 120)
            #expect(r.status == 1, "\(r)")
            let root = try Self.json(r.stdout)
            #expect(root["passed"] as? Int == 1)
            #expect(root["failed"] as? Int == 1)
            let steps = try Self.scenarios(root).map { ($0["steps"] as? [[String: Any]])?.count ?? 0 }
            #expect(steps == [2, 2])
        }
        @Test func testReportsABadScenarioFileAsOneFailedTestcaseNamedAfterTheFile() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let bad = """
                apps:
                  - id: reader
                    bundle: com.example.reader
                steps:
                  - lanuch: {app: reader}

                """
            try tmp.write("suite/a-first.yaml", ScenarioTexts.passingShare)
            let badFile = try tmp.write("suite/broken.yaml", bad)
            let report = tmp.path("junit.xml")
            let r = try await CLI.run(["test", tmp.path("suite"), "--format", "junit", "--output", report], timeout: 120)
            #expect(r.status == 1, "\(r)")
            let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: report)))
            let reader = JUnitReader()
            parser.delegate = reader
            #expect(parser.parse())
            let at = try #require(CLI.position(of: "lanuch", in: bad))
            let broken = reader.testcases.filter { $0.name == "broken.yaml" }
            #expect(broken.count == 1, "\(reader.testcases)")
            #expect(broken.first?.failure?.contains("\(badFile.path):\(at.line):\(at.column): steps[0].lanuch") == true, "\(reader.testcases)")
            // The good scenario beside it still ran: its two steps passed.
            #expect(reader.testcases.filter { $0.classname == "Passing share" && $0.failure == nil }.count == 2)
        }

        /// `test` skips hidden, `policies` and `fixtures` folders *inside* the given folders
        /// only: a suite stored below such a folder (a checkout under `~/.cache`, a project
        /// under `fixtures/`) is found.
        @Test(arguments: [".hidden", "fixtures"])
        func testFindsScenariosInAFolderThatLiesBelowAnExcludedName(_ excluded: String) async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            try tmp.write("\(excluded)/suite/a-first.yaml", ScenarioTexts.passingShare)
            let r = try await CLI.run(["test", "suite", "--format", "json"], in: tmp.url.appendingPathComponent(excluded), timeout: 120)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout.contains("\"Passing share\""), "\(r)")
        }

        /// A suite that tests nothing does not pass: no scenario files, or a scenario without steps.
        @Test func testFailsWhenNothingIsTested() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            try FileManager.default.createDirectory(at: tmp.url.appendingPathComponent("empty"), withIntermediateDirectories: true)
            let none = try await CLI.run(["test", "empty"], in: tmp.url, timeout: 60)
            #expect(none.status == 1 && none.stderr.contains("a suite that tests nothing does not pass"), "\(none)")
            try tmp.write("steps/x.yaml", "name: x\napps:\n  - {id: a, bundle: com.x.a}\nsteps: []\n")
            let empty = try await CLI.run(["test", "steps", "--format", "junit", "--output", "reports/ci/junit.xml"], in: tmp.url, timeout: 60)
            #expect(empty.status == 1, "\(empty)")
            let xml = try String(contentsOf: tmp.url.appendingPathComponent("reports/ci/junit.xml"), encoding: .utf8)
            #expect(xml.contains("the scenario has no steps, so it tests nothing"), "--output creates its folder: \(xml)")
        }

        /// On a terminal (a pseudo-terminal from util-linux's `script`) a progress bar counts
        /// scenarios done and failed; piped, only the plain lines appear.
        @Test func testShowsAProgressBarOnATerminalOnly() async throws {
            let tmp = try Self.suite()
            defer { tmp.remove() }
            let script = "/usr/bin/script"
            try #require(FileManager.default.isExecutableFile(atPath: script), "util-linux's script is missing (Debian: bsdutils)")
            let tty = try await CLI.run(["-qec", "\(CLI.mamsim) test \(tmp.path("suite")) --jobs 1", "/dev/null"], timeout: 120, executable: script)
            #expect(tty.stdout.contains("] 1/2 scenarios · 0 failed · "), "\(tty)")
            #expect(tty.stdout.contains("[████████████████████] 2/2 scenarios · 1 failed · "), "\(tty)")
            let piped = try await CLI.run(["test", tmp.path("suite")], timeout: 120)
            #expect(!piped.stdout.contains("scenarios · "), "\(piped)")
        }

        @Test func versionNamesTheWireProtocol() async throws {
            let v = try await CLI.run(["--version"], timeout: 30)
            #expect(v.status == 0 && v.stdout.hasPrefix("mamsim ") && v.stdout.contains("wire protocol 2"), "\(v)")
        }
    }
}
