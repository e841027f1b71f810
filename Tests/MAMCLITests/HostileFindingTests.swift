import Foundation
import Testing

extension CLITests {
    /// What an app reports through Strict Mode is its own words (security issue 83, findings 1-3
    /// and the host's own checks): a hostile plugin's `strict_finding` carries terminal escapes,
    /// a lone CR followed by GitHub workflow commands, bidirectional overrides and line
    /// separators, locations outside its package and a letter with a million combining marks.
    /// The findings reach every report (the positive control: the text is there, the run took
    /// them), escaped, bounded in bytes and never placed at a location the app chose.
    @Suite struct HostileFindingTests {
        /// The texts each finding carries, as the attack kit wrote them.
        static let osc52 = "\u{1B}]52;c;ZWNobyBwd25lZA==\u{07}"
        static let title = "\u{1B}]0;pwned\u{07}"
        static let forged = "ok\r::error file=main.swift::forged\r::add-mask::secret"
        static let bidi = "admin\u{202E}txt.exe"
        static let separator = "one\u{2028}two"
        static let locations = ["/etc/passwd", "../../../../etc/shadow", "file:///etc/hosts", "https://evil.example/pwn.swift", "javascript:alert(6)"]

        /// `text` as a Python string literal, every character past ASCII's printable ones escaped.
        static func py(_ text: String) -> String {
            "\"" + text.unicodeScalars.map { u in
                (0x20..<0x7F).contains(u.value) && u != "\"" && u != "\\" ? String(u) : String(format: "\\U%08x", u.value)
            }.joined() + "\""
        }

        static func scenario(in dir: TemporaryDirectory) throws -> URL {
            let client = CLI.repo("clients/python/src").path
            let locations = Self.locations.map(py).joined(separator: ", ")
            return try CLI.hostilePlugin(in: dir, scenario: "findings.yaml", name: "hostile findings", behaviour: """
                from mamsim_client.runtime import pb
                TEXTS = [\(py(osc52)), \(py(title)), \(py(forged)), \(py(bidi)), \(py(separator))]
                def on_item(item, ext):
                    def report(check, call, file, line, detail):
                        return ext._call(strict_finding=pb.StrictFinding(check=check, call=call, file=file, line=line, detail=detail))[0]
                    for text in TEXTS:
                        report("account-id-is-upn", "call " + text, "Evil/" + text + ".swift", 7, "detail " + text)
                    for place in [\(locations)]:
                        report("location-needs-account", "isSaveToAllowed", place, 3, "placed at " + place)
                    # A letter with a million combining marks: one Character, 2 MB of text.
                    report("enrollment-delegate-late", "huge", "Evil/Huge.swift", 1, "a" + "\\u0301" * 1000000)
                    # A check only the host makes: refused, never recorded.
                    forged = report("wipe-answered-with-files-left", "IntuneMAMPolicyDelegate.wipeData(forAccountId:)", "", 0, "forged by the app")
                    return forged.reason == "bad-request"
                """, pluginJSON: """
                {"sandbox": {"read": [\(String(reflecting: client)), "~/.pyenv", "$PYENV_ROOT", "$VIRTUAL_ENV"], "environment": ["PYENV_VERSION", "PYENV_ROOT", "VIRTUAL_ENV"]}}
                """)
        }

        /// Characters no output may carry raw: C0/C1 controls but LF and tab, separators,
        /// bidirectional controls.
        static func unsafe(_ text: String) -> [String] {
            text.unicodeScalars.filter { u in
                let v = u.value
                return (v < 0x20 && u != "\n" && u != "\t") || (0x7F...0x9F).contains(v) || (0x2028...0x202E).contains(v) || (0x2066...0x2069).contains(v)
            }.map { String($0.value, radix: 16) }
        }

        @Test func aFindingsTextCanDriveNoTerminalNorCILogAndChoosesNoLocation() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-findings")
            defer { dir.remove() }
            let scenario = try Self.scenario(in: dir)
            let client = CLI.repo("clients/python/src").path
            // The terminal (and a CI log that records it): every finding is there, escaped.
            let run = try await CLI.run(["run", scenario.path, "--allow-read", client], timeout: 120)
            // Delivered: the plugin saw its forged host check refused as bad-request.
            #expect(run.status == 0 && run.stdout.contains("delivered"), "\(run.stdout)\n\(run.stderr)")
            #expect(run.stdout.contains(#"detail \u{1B}]52;c;ZWNobyBwd25lZA==\u{7}"#), "\(run.stdout)")
            #expect(run.stdout.contains(#"detail ok\u{D}::error file=main.swift::forged\u{D}::add-mask::secret"#), "\(run.stdout)")
            #expect(run.stdout.contains(#"detail admin\u{202E}txt.exe"#) && run.stdout.contains(#"detail one\u{2028}two"#), "\(run.stdout)")
            #expect(Self.unsafe(run.stdout).isEmpty && Self.unsafe(run.stderr).isEmpty, "raw: \(Self.unsafe(run.stdout)) \(Self.unsafe(run.stderr))")
            // No line of the log starts a workflow command the app wrote.
            let lines = run.stdout.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" })
            #expect(!lines.contains { $0.hasPrefix("::") }, "\(run.stdout)")
            #expect(!run.stdout.contains("wipe-answered-with-files-left"), "an app cannot report the host's check: \(run.stdout)")
            // Bounded in bytes: the million marks are cut to the field's bound, the output small.
            #expect(run.stdout.utf8.count < 64 * 1024, "\(run.stdout.utf8.count) bytes of output")

            // JUnit, SARIF and JSON: no location the app named; text escaped.
            let junit = dir.url.appendingPathComponent("r.xml").path, sarif = dir.url.appendingPathComponent("r.sarif").path
            let json = dir.url.appendingPathComponent("r.json").path
            for (format, file) in [("junit", junit), ("sarif", sarif), ("json", json)] {
                let r = try await CLI.run(["test", "--strict", "--format", format, "--output", file, scenario.path, "--allow-read", client], timeout: 120)
                #expect(r.status == 1, "\(format): \(r.stdout)\n\(r.stderr)")
            }
            let xml = try String(contentsOfFile: junit, encoding: .utf8)
            #expect(xml.contains("location-needs-account"), "the findings are in the JUnit report: \(xml.prefix(400))")
            let log = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sarif))) as? [String: Any])
            let results = ((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]]) ?? []
            #expect(results.count == Self.locations.count + 6, "\(results.count) results")
            let uris = results.flatMap { ($0["locations"] as? [[String: Any]] ?? []).compactMap { (($0["physicalLocation"] as? [String: Any])?["artifactLocation"] as? [String: Any])?["uri"] as? String } }
            #expect(Set(uris) == [scenario.path], "every finding is placed at the scenario: \(Set(uris))")
            for place in Self.locations {
                #expect(!xml.contains("file=\"\(place.replacingOccurrences(of: "&", with: "&amp;"))\""), "JUnit placed a finding at \(place)")
            }
            #expect(xml.contains("placed at /etc/passwd"), "the app's words stay, as text")
            let document = try String(contentsOfFile: json, encoding: .utf8)
            let sarifText = try String(contentsOfFile: sarif, encoding: .utf8)
            #expect(Self.unsafe(xml).isEmpty && Self.unsafe(document).isEmpty && Self.unsafe(sarifText).isEmpty)
            #expect(document.utf8.count < 256 * 1024, "\(document.utf8.count) bytes of JSON")
        }
    }
}
