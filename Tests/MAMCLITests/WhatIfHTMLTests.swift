import Foundation
import Testing

extension CLITests {
    /// `whatif --format html` as an admin shares it (issue 98, item 5): both pages lead with a
    /// summary, carry every column of the table, and fit a 1,400 px window in headless Chromium
    /// (the page never scrolls sideways); a screenshot of each is rendered.
    @Suite struct WhatIfHTMLTests {
        static let example = "examples/whatif/"

        /// The page's own width in a 1,400 px window, measured by a copy with one line of script.
        static func scrollWidth(_ html: String, in tmp: TemporaryDirectory, _ name: String) async throws -> Int? {
            try tmp.write(name, html.replacingOccurrences(of: "</body>", with: "<script>document.body.setAttribute('data-scroll-width', document.documentElement.scrollWidth)</script></body>"))
            let measured = try await Browser.run(["--window-size=1400,900", "--dump-dom", "file://\(tmp.path(name))"])
            return measured.stdout.range(of: #"data-scroll-width="(\d+)""#, options: .regularExpression)
                .map { measured.stdout[$0].filter(\.isNumber) }.flatMap { Int($0) }
        }

        @Test(.enabled(if: Browser.path != nil, "chromium is not installed (scripts/install-deps installs it with apt-get); the What If pages were not rendered"))
        func bothPagesLeadWithASummaryAndFitTheWindow() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-whatif-html")
            defer { tmp.remove() }
            let personas = CLI.repo(Self.example + "personas.yaml").path
            let eval = try await CLI.run(["whatif", CLI.repo(Self.example + "before").path, "--personas", personas, "--format", "html", "-o", tmp.path("eval.html")])
            #expect(eval.status == 0, "\(eval)")
            let diff = try await CLI.run(["whatif", "--diff", CLI.repo(Self.example + "before").path, CLI.repo(Self.example + "after").path, "--personas", personas,
                                          "--fail-on", "blocked->delivered", "--format", "html", "-o", tmp.path("diff.html")])
            #expect(diff.status == 1, "\(diff)")
            for (name, heads, first) in [("eval.html", ["Persona", "App", "App protection", "Token", "App config", "Share", "Paste", "Save", "Open", "Features"], "<section id=\"summary\"><h2>Summary</h2>"),
                                         ("diff.html", ["Kind", "Persona", "App", "Cell", "Before", "After", "Because"], "<section id=\"summary\"><h2>Who is affected, by which change</h2>")] {
                let page = try String(contentsOfFile: tmp.path(name), encoding: .utf8)
                #expect(!page.contains("<pre>") && !page.contains("<script") && !page.contains("http://") && !page.contains("https://"), "\(name) is a self-contained page, not terminal text")
                let dump = try await Browser.run(["--window-size=1400,900", "--dump-dom", "file://\(tmp.path(name))"])
                #expect(dump.status == 0, "\(dump.stderr)")
                let summary = try #require(dump.stdout.range(of: first), "\(name): no summary")
                let firstOther = dump.stdout.range(of: "<section id=\"", range: summary.upperBound..<dump.stdout.endIndex)
                #expect(firstOther.map { summary.lowerBound < $0.lowerBound } ?? true, "\(name): the summary comes first")
                for head in heads { #expect(dump.stdout.contains("<th>\(head)</th>"), "\(name): column \(head)") }
                let width = try await Self.scrollWidth(page, in: tmp, "measure-\(name)")
                #expect(width != nil && width! <= 1400, "\(name): scrollWidth \(String(describing: width)) at 1,400 px")
                let shot = tmp.path("\(name).png")
                let screenshot = try await Browser.run(["--window-size=1400,1800", "--screenshot=\(shot)", "file://\(tmp.path(name))"])
                let size = Browser.pngSize(try Data(contentsOf: URL(fileURLWithPath: shot)))
                #expect(screenshot.status == 0 && size.map { $0 == (1400, 1800) } == true, "\(name): screenshot \(String(describing: size))")
                if let keep = ProcessInfo.processInfo.environment["MAMSIM_KEEP_SCREENSHOTS"] {
                    try? FileManager.default.copyItem(atPath: shot, toPath: "\(keep)/whatif-\(name).png")
                }
            }
            let diffPage = try String(contentsOfFile: tmp.path("diff.html"), encoding: .utf8)
            #expect(diffPage.contains("110 cells change, 39 of kinds --fail-on names (blocked-&gt;delivered)") || diffPage.contains("110 cells change, 39 of kinds --fail-on names (blocked->delivered)"), "\(diffPage.prefix(800))")
            #expect(diffPage.contains("<tr class=fail><td>BYOD sales</td>"), "the summary marks the failing persona")
        }
    }
}
