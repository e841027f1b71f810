import Foundation
import Testing

extension CLITests {
    /// What a file or the host says is shown, never obeyed: control characters in an echoed
    /// value reach the terminal escaped (security issue 46, finding 11).
    @Suite struct ControlCharacterTests {
        static func hostilePolicies(in dir: TemporaryDirectory) throws -> (badValue: URL, badName: URL) {
            let template = try Data(contentsOf: CLI.repo("Tests/Fixtures/shared/fixtures/policies/icf-level-2-enterprise-enhanced-data-protection-iOS.json"))
            var policy = try #require(try JSONSerialization.jsonObject(with: template) as? [String: Any])
            policy["displayName"] = "Evil \u{1B}]0;pwned\u{07}\u{1B}[31mRED"
            let named = try dir.write("named.json", String(decoding: try JSONSerialization.data(withJSONObject: policy), as: UTF8.self))
            policy["allowedOutboundDataTransferDestinations"] = "\u{1B}[2Jcleared\u{07}"
            let valued = try dir.write("valued.json", String(decoding: try JSONSerialization.data(withJSONObject: policy), as: UTF8.self))
            return (valued, named)
        }

        static func assertNoRawControls(_ text: String, _ what: String) {
            let raw = text.unicodeScalars.filter { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" }
            #expect(raw.isEmpty, "\(what) carries raw control characters: \(raw.map { String($0.value, radix: 16) })")
        }

        @Test func anErrorQuotingAPolicyValueEscapesItsControlCharacters() async throws {
            let dir = try TemporaryDirectory()
            defer { dir.remove() }
            let (valued, named) = try Self.hostilePolicies(in: dir)
            let matrix = try await CLI.run(["matrix", valued.path])
            #expect(matrix.status == 2, "\(matrix.stderr)")
            #expect(matrix.stderr.contains(#""\u{1B}[2Jcleared\u{7}""#), "\(matrix.stderr)")
            Self.assertNoRawControls(matrix.stderr, "matrix's error")
            let scenario = try dir.write("s.yaml", """
                policies:
                  p: {file: valued.json}
                apps:
                  - {id: mail, bundle: com.contoso.mail}
                steps:
                  - launch: {app: mail}
                """)
            let run = try await CLI.run(["run", scenario.path])
            #expect(run.status == 2, "\(run.stderr)")
            #expect(run.stderr.contains(#"\u{1B}[2Jcleared"#), "\(run.stderr)")
            Self.assertNoRawControls(run.stderr, "run's error")
            // A policy's name in a table on standard output.
            let diff = try await CLI.run(["matrix", "--diff", named.path, CLI.repo("Tests/Fixtures/shared/fixtures/policies/icf-level-3-enterprise-high-data-protection-iOS.json").path])
            #expect(diff.status == 0, "\(diff.stderr)")
            #expect(diff.stdout.contains(#"Evil \u{1B}]0;pwned\u{7}"#), "\(diff.stdout.prefix(300))")
            Self.assertNoRawControls(diff.stdout, "matrix --diff's table")
        }

        /// The Python client's log lines (what the host reported, what an item was called).
        @Test func thePythonClientLogsEscapedText() async throws {
            let script = """
                import io, sys
                sys.path.insert(0, \(String(reflecting: CLI.repo("clients/python/src").path)))
                from mamsim_client.runtime import log
                log("ext", "the host reported BAD_REQUEST: \\x1b]0;pwned\\x07\\x1b[2J\\nsecond line\\tend")
                """
            let r = try await CLI.run(["python3", "-c", script], executable: "/usr/bin/env")
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains(#"\x1b]0;pwned\x07\x1b[2J"#), "\(r.stderr)")
            #expect(r.stderr.contains("second line\tend"))
            Self.assertNoRawControls(r.stderr, "the Python client's log")
        }
    }
}
