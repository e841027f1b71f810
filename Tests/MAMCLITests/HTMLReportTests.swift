import Foundation
import Testing

/// Headless Chromium, when installed (scripts/install-deps installs Debian's `chromium`).
enum Browser {
    static let path: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static func run(_ arguments: [String]) async throws -> CLIResult {
        let profile = try TemporaryDirectory(prefix: "mamsim-chromium")
        defer { profile.remove() }
        return try await CLI.run(["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars", "--user-data-dir=\(profile.url.path)"] + arguments,
                                 timeout: 120, executable: path!)
    }

    /// Width and height of a PNG, from its IHDR chunk.
    static func pngSize(_ data: Data) -> (Int, Int)? {
        let bytes = [UInt8](data)
        guard bytes.count > 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
        func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }
}

extension CLITests {
    /// The HTML report in a real browser: the demo run's page is rendered by headless
    /// Chromium (a screenshot of the expected size) and its DOM read back: every share step's
    /// outcome and reason is in the transfer matrix cell of its parties.
    @Suite struct HTMLReportTests {
        struct Cell { var from, to, outcome, reason, text: String }

        /// `<td … data-from=… data-to=… data-outcome=… data-reason=…>` cells of the dumped DOM.
        static func cells(_ dom: String) throws -> [Cell] {
            let regex = try NSRegularExpression(pattern: #"<td class="[a-z]+" data-from="([^"]*)" data-to="([^"]*)" data-outcome="([^"]*)" data-reason="([^"]*)"[^>]*>(.*?)</td>"#, options: [.dotMatchesLineSeparators])
            let ns = dom as NSString
            return regex.matches(in: dom, range: NSRange(location: 0, length: ns.length)).map { m in
                func group(_ i: Int) -> String {
                    ns.substring(with: m.range(at: i)).replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&apos;", with: "'")
                }
                return Cell(from: group(1), to: group(2), outcome: group(3), reason: group(4), text: group(5))
            }
        }

        @Test(.enabled(if: Browser.path != nil, "chromium is not installed (scripts/install-deps installs it with apt-get); the HTML report was not rendered"))
        func demoReportRendersAndItsMatrixMatchesTheRun() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let html = tmp.path("report/demo.html")
            let r = try await CLI.run(["test", "scenarios/examples/demo.yaml", "--format", "json", "--output", tmp.path("results.json"), "--html", html], timeout: 180)
            #expect(r.status == 0, "\(r)")
            #expect(r.stderr.contains("HTML report: \(html)"), "\(r)")
            let page = try String(contentsOfFile: html, encoding: .utf8)
            #expect(!page.contains("http://") && !page.contains("https://") && !page.contains("<script"), "the page is self-contained")

            let shot = tmp.path("demo.png")
            let screenshot = try await Browser.run(["--window-size=1280,2400", "--screenshot=\(shot)", "file://\(html)"])
            #expect(screenshot.status == 0, "\(screenshot)")
            let size = Browser.pngSize(try Data(contentsOf: URL(fileURLWithPath: shot)))
            #expect(size.map { $0 == (1280, 2400) } == true, "screenshot size \(String(describing: size))")

            let dump = try await Browser.run(["--dump-dom", "file://\(html)"])
            #expect(dump.status == 0, "\(dump.stderr)")
            let cells = try Self.cells(dump.stdout)
            #expect(!cells.isEmpty, "no matrix cell in the rendered DOM")
            // A blocked cell shows its reason in words, not colour alone.
            let blocked = try #require(cells.first { $0.from == "mail (alice@contoso.com)" && $0.to == "notes (no account)" })
            #expect(blocked.outcome == "blocked" && blocked.reason == "outbound-policy")
            #expect(blocked.text.contains("✘ blocked: outbound-policy"), "\(blocked.text)")
            #expect(blocked.text.contains("cannot leave for the unmanaged notes app"), "the cell names the step behind it")

            // Every share step of the run is in the cell of its parties, with its outcome.
            let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tmp.path("results.json")))) as? [String: Any])
            let steps = try #require(((root["scenarios"] as? [[String: Any]])?.first?["steps"]) as? [[String: Any]])
            var checked = 0
            for step in steps where step["verb"] as? String == "share" {
                let parties = (step["parties"] as? String ?? "").components(separatedBy: " → ")
                guard parties.count == 2 else { continue }
                let outcome = try #require(step["observed"] as? [String: String])
                let cell = cells.first { $0.from == parties[0] && $0.to.hasPrefix(parties[1] + " (") }
                #expect(cell != nil, "no cell for \(parties)")
                if outcome["kind"] == "blocked" {
                    #expect(cell?.text.contains("✘ blocked: \(outcome["value"] ?? "")") == true, "\(parties): \(cell?.text ?? "")")
                } else {
                    #expect(cell?.text.contains("✔ \(outcome["kind"] ?? "")") == true, "\(parties): \(cell?.text ?? "")")
                }
                checked += 1
            }
            #expect(checked >= 4)
        }

        /// A failing run's page leads with what failed: the first thing after the title is the
        /// failed expectation with expected and got; its matrix cell is framed as failed; the
        /// page fits a 1280 px window (no horizontal scrolling of the page itself).
        @Test(.enabled(if: Browser.path != nil, "chromium is not installed (scripts/install-deps installs it with apt-get); the HTML report was not rendered"))
        func aFailingRunsReportLeadsWithTheFailure() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            try tmp.write("failing.yaml", ScenarioTexts.failingShare)
            let run = try await CLI.run(["test", tmp.path("failing.yaml"), "scenarios/examples/demo.yaml", "--html", tmp.path("r.html")], timeout: 180)
            #expect(run.status == 1, "\(run)")
            let dump = try await Browser.run(["--window-size=1280,900", "--dump-dom", "file://\(tmp.path("r.html"))"])
            #expect(dump.status == 0, "\(dump.stderr)")
            let dom = dump.stdout
            let failures = try #require(dom.range(of: "<section id=\"failures\">"), "no failures section")
            let firstTable = try #require(dom.range(of: "<table"))
            #expect(failures.lowerBound < firstTable.lowerBound, "the failures come before any table")
            let section = String(dom[failures.lowerBound...].prefix { $0 != "§" }.prefix(4000))
            #expect(section.contains("1 expectation failed") && section.contains("expected <code>delivered</code>, got <code>{blocked: outbound-policy}</code>"), "\(section)")
            // The scenarios' numbers follow their paths, which depend on where the clone and the
            // temporary folder lie: the link names the failing step 2 of whichever it is.
            let link = try #require(section.firstMatch(of: /href="#(s[0-9]+-step-2)"/), "a link to the step: \(section)")
            #expect(dom.contains("id=\"\(link.1)\""), "the link's target \(link.1) is on the page")
            let framed = try Self.cells(dom).filter { $0.from == "mail (alice@contoso.com)" && $0.to == "notes (no account)" }
            #expect(framed.contains { $0.text.contains("⚠ expectation failed") }, "\(framed.map(\.text))")
            #expect(dom.contains("data-expectation=\"failed\""))
            #expect(dom.contains("<footer>mamsim "), "version and date")

            // The page's own width at 1280 px: measured by a copy with one line of script.
            let page = try String(contentsOfFile: tmp.path("r.html"), encoding: .utf8)
            try tmp.write("measure.html", page.replacingOccurrences(of: "</body>", with: "<script>document.body.setAttribute('data-scroll-width', document.documentElement.scrollWidth)</script></body>"))
            let measured = try await Browser.run(["--window-size=1280,900", "--dump-dom", "file://\(tmp.path("measure.html"))"])
            let width = measured.stdout.range(of: #"data-scroll-width="(\d+)""#, options: .regularExpression)
                .map { measured.stdout[$0].filter(\.isNumber) }.flatMap { Int($0) }
            #expect(width != nil && width! <= 1280, "scrollWidth \(String(describing: width)) at 1280 px")
        }

        /// `mamsim report` after the fact, from the audit log alone, draws the same matrix.
        @Test func reportFromAnAuditLogAfterTheFact() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let run = try await CLI.run(["run", "scenarios/examples/demo.yaml", "--audit", tmp.path("audit.jsonl")], timeout: 120)
            #expect(run.status == 0, "\(run)")
            let r = try await CLI.run(["report", tmp.path("audit.jsonl"), "-o", tmp.path("r.html")], timeout: 60)
            #expect(r.status == 0 && r.stdout.contains("HTML report: \(tmp.path("r.html")) (1 scenario, "), "\(r)")
            let page = try String(contentsOfFile: tmp.path("r.html"), encoding: .utf8)
            let cells = try Self.cells(page)
            #expect(cells.contains { $0.from == "mail (alice@contoso.com)" && $0.to == "notes (no account)" && $0.reason == "outbound-policy" })
            #expect(cells.contains { $0.from == "chat (alice@contoso.com)" && $0.to == "notes (no account)" && $0.reason == "clipboard-policy" })
            let bad = try await CLI.run(["report", "README.md"], timeout: 60)
            #expect(bad.status == 2 && bad.stderr.contains("holds no audit events"), "\(bad)")
        }

        /// The report says what the terminal says and needs no hover to be read: the same
        /// outcome sentence, each lifecycle row's decision before its sentence with a legend
        /// saying a yellow row is not a failed step, "no account" rather than "unmanaged" for an
        /// app with no identity, and columns that wrap between words only.
        @Test func theReportReadsLikeTheTerminal() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let r = try await CLI.run(["run", "scenarios/lifecycle/every-status.yaml", "--html", tmp.path("r.html")], timeout: 120)
            #expect(r.status == 0, "\(r)")
            let sentence = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("✔ lifecycle") }.map(String.init))
            let outcome = try #require(sentence.firstMatch(of: #/: (\d+ steps run, \d+ with an expectation, all held) \(/#)?.1)
            let page = try String(contentsOfFile: tmp.path("r.html"), encoding: .utf8)
            #expect(page.contains("passed: \(outcome)"), "the page's summary is the terminal's: \(outcome)")
            #expect(page.contains("<strong>⚠ failed:</strong> licensedNotTargeted (225)"), "a yellow row names its decision")
            #expect(page.contains("A yellow row is what the device did, not a failed step"))
            #expect(page.contains("<code>mail</code>: no account, "), "the fleet list")
            #expect(!page.contains("(unmanaged)") && !page.contains(": unmanaged"))
            #expect(!page.contains("anywhere") && !page.contains("break-all"), "no rule lets a column break a word")
        }

        /// A line a newer mamsim wrote (a verb this one does not know) is left out of the report
        /// with a warning naming it, never silently.
        @Test func anAuditLineOfUnknownVerbIsNamedNotDropped() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let run = try await CLI.run(["run", "scenarios/examples/demo.yaml", "--audit", tmp.path("audit.jsonl")], timeout: 120)
            #expect(run.status == 0, "\(run)")
            var lines = try String(contentsOfFile: tmp.path("audit.jsonl"), encoding: .utf8).split(separator: "\n").map(String.init)
            lines[2] = lines[2].replacing(#/"verb":"[A-Za-z_-]+"/#, with: #""verb":"teleport""#)
            _ = try tmp.write("newer.jsonl", lines.joined(separator: "\n") + "\n")
            let r = try await CLI.run(["report", tmp.path("newer.jsonl"), "-o", tmp.path("r.html")], timeout: 60)
            #expect(r.status == 0, "\(r)")
            #expect(r.stderr.contains("1 of \(lines.count) lines are not audit events") && r.stderr.contains("line 3: verb: \"teleport\" is not an audit verb"), "\(r)")
        }

        /// `mamsim matrix` answers before rollout what the run shows after.
        @Test func matrixOfAGraphPolicyAgreesWithTheEnforcer() async throws {
            let policy = "Tests/Fixtures/shared/fixtures/policies/icf-level-2-enterprise-enhanced-data-protection-iOS.json"
            let r = try await CLI.run(["matrix", policy, "--format", "json"], timeout: 60)
            #expect(r.status == 0, "\(r)")
            let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let transfers = try #require(root["transfers"] as? [[String: Any]])
            // Level 2 targets Microsoft's core apps (appGroupType allCoreMicrosoftApps, no list).
            let out = try #require(transfers.first { $0["from"] as? String == "com.microsoft.Office.Outlook (user@contoso.com)" && $0["to"] as? String == "com.example.notes (no account)" })
            #expect(out["allowed"] as? Bool == false && out["reason"] as? String == "outbound-policy")
            let inside = try #require(transfers.first { $0["from"] as? String == "com.microsoft.Office.Outlook (user@contoso.com)" && $0["to"] as? String == "com.microsoft.Office.Word (user@contoso.com)" })
            #expect(inside["allowed"] as? Bool == true)
            let html = try await CLI.run(["matrix", policy, "--fleet", "scenarios/examples/demo.yaml", "--format", "html"], timeout: 60)
            #expect(html.status == 0 && html.stdout.contains("<table class=\"matrix\" id=\"policy-transfers\""), "\(html.stderr)")
            #expect(try Self.cells(html.stdout).contains { $0.reason == "outbound-policy" })
        }

        /// `mamsim matrix --diff` on Microsoft's level 2 → level 3 templates: only the cells whose
        /// decision changes, each with the setting (or pair) that changes it, in every format.
        @Test func matrixDiffListsWhatLevel3ChangesAndWhy() async throws {
            let dir = "Tests/Fixtures/shared/fixtures/policies/"
            let (level2, level3) = (dir + "icf-level-2-enterprise-enhanced-data-protection-iOS.json", dir + "icf-level-3-enterprise-high-data-protection-iOS.json")
            let r = try await CLI.run(["matrix", "--diff", level2, level3, "--format", "json"], timeout: 60)
            #expect(r.status == 0, "\(r)")
            let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let changes = try #require(root["changes"] as? [[String: Any]])
            func change(_ grid: String, _ from: String, _ to: String) -> [String: Any]? {
                changes.first { $0["grid"] as? String == grid && $0["from"] as? String == from && $0["to"] as? String == to }
            }
            let outlook = "com.microsoft.Office.Outlook (user@contoso.com)"
            let print = try #require(change("features", outlook, "print"))
            #expect((print["after"] as? [String: Any])?["reason"] as? String == "print-blocked")
            #expect(print["settings"] as? [String] == ["printBlocked"])
            let inbound = try #require(change("transfers", "com.example.notes (no account)", outlook))
            #expect((inbound["before"] as? [String: Any])?["allowed"] as? Bool == true)
            #expect(inbound["settings"] as? [String] == ["allowedInboundDataTransferSources"])
            // The camera needs both: ingestion blocked and camera no longer listed.
            let camera = try #require(change("open", outlook, "camera"))
            #expect(camera["settings"] as? [String] == ["allowedDataIngestionLocations + blockDataIngestionIntoOrganizationDocuments"])
            // Nothing that stays the same is listed: outbound to notes was blocked before and after.
            #expect(change("transfers", outlook, "com.example.notes (no account)") == nil)
            let settings = try #require(root["settings"] as? [[String: Any]]).compactMap { $0["key"] as? String }
            #expect(settings.contains("printBlocked") && !settings.contains("displayName") && !settings.contains("description"))
            let table = try await CLI.run(["matrix", "--diff", level2, level3], timeout: 60)
            #expect(table.status == 0 && table.stdout.contains("print: ok → print-blocked  [printBlocked]"), "\(table.stdout)")
            let html = try await CLI.run(["matrix", "--diff", level2, level3, "--format", "html"], timeout: 60)
            #expect(html.status == 0 && html.stdout.contains("<td>printBlocked</td>"), "\(html.stderr)")
            // The same document twice changes nothing.
            let same = try await CLI.run(["matrix", "--diff", level3, level3], timeout: 60)
            #expect(same.status == 0 && same.stdout.contains("0 cells decide differently"), "\(same.stdout)")
        }
    }
}
