import Foundation
import Testing

extension CLITests {
    /// Strict Mode at `mamsim run` and `mamsim test` (docs/STRICT.md), on a shipped scenario whose
    /// `keeper` app answers the wipe delegate TRUE while its file of alice stays (the mistake)
    /// and whose `plain` app answers FALSE (right: the SDK deletes): one finding, keeper's; a
    /// note without `--strict`, a failure with it, in the human output and JUnit.
    @Suite struct StrictRunTests {
        static let scenario = "scenarios/conformance/rule-delegate-answers.yaml"
        static let finding = "wipe-answered-with-files-left in keeper (IntuneMAMPolicyDelegate.wipeData(forAccountId:)): answered true (wiped) while 1 file(s) of alice@contoso.com remain: containers/com.contoso.keeper/Documents/q3.txt"

        @Test func aWipeAnsweredDoneWithFilesLeftIsANoteThenAFailure() async throws {
            let plain = try await CLI.run(["run", CLI.repo(Self.scenario).path], timeout: 120)
            #expect(plain.status == 0 && plain.stdout.contains("strict (note; --strict fails the run): \(Self.finding)"), "\(plain)")
            #expect(!plain.stdout.contains("in plain ("), "plain answered FALSE: no finding")
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-strict-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let html = dir.appendingPathComponent("report.html").path
            let strict = try await CLI.run(["run", "--strict", "--html", html, CLI.repo(Self.scenario).path], timeout: 120)
            #expect(strict.status == 1 && strict.stdout.contains("✘ strict: \(Self.finding)")
                    && strict.stdout.contains("Strict Mode found 1 integration mistake"), "\(strict)")
            // The HTML report lists it among the failures and in the scenario's Strict Mode section.
            let page = try String(contentsOfFile: html, encoding: .utf8)
            #expect(page.contains("1 integration mistake (Strict Mode)") && page.contains("<h3 id=\"s1-strict\">Strict Mode</h3>")
                    && page.contains("<code>wipe-answered-with-files-left</code> in keeper"), "\(page.count) characters")
            let junit = dir.appendingPathComponent("junit.xml").path, json = dir.appendingPathComponent("report.json").path
            // `mamsim test --strict` names the findings that failed the run (issue 87, item 6).
            let human = try await CLI.run(["test", "--strict", CLI.repo(Self.scenario).path], timeout: 120)
            #expect(human.status == 1 && human.stdout.contains("Strict Mode found 1 integration mistake")
                    && human.stdout.contains("✘ strict: \(Self.finding)"), "\(human)")
            let test = try await CLI.run(["test", "--strict", "--format", "junit", "--output", junit, CLI.repo(Self.scenario).path], timeout: 120)
            #expect(test.status == 1, "\(test)")
            let xml = try String(contentsOfFile: junit, encoding: .utf8)
            #expect(xml.contains("name=\"strict: wipe-answered-with-files-left in keeper\"") && xml.contains("<failure type=\"strict\" message=\"wipe-answered-with-files-left in keeper"), "\(xml)")
            // SARIF: rule = check, an error under --strict, at the scenario (the host's finding).
            let sarif = dir.appendingPathComponent("strict.sarif").path
            _ = try await CLI.run(["test", "--strict", "--format", "sarif", "--output", sarif, CLI.repo(Self.scenario).path], timeout: 120)
            let log = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sarif))) as? [String: Any]
            let run = (log?["runs"] as? [[String: Any]])?.first
            let results = run?["results"] as? [[String: Any]] ?? []
            #expect(log?["version"] as? String == "2.1.0" && results.count == 1, "\(String(describing: log))")
            #expect(results.first?["ruleId"] as? String == "wipe-answered-with-files-left" && results.first?["level"] as? String == "error")
            // A host's finding is placed at the scenario by its repository path, never the
            // machine's absolute one (issue 87, item 6).
            let uri = ((results.first?["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any]).flatMap { ($0["artifactLocation"] as? [String: Any])?["uri"] as? String }
            #expect(uri == Self.scenario, "\(uri ?? "no uri")")
            let rules = ((run?["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]] ?? []
            #expect(rules.contains { $0["id"] as? String == "wipe-answered-with-files-left" })
            // JSON: the finding, failed under --strict; without it, listed and not failed.
            _ = try await CLI.run(["test", "--format", "json", "--output", json, CLI.repo(Self.scenario).path], timeout: 120)
            let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
            let strictList = ((doc?["scenarios"] as? [[String: Any]])?.first?["strict"] as? [[String: Any]]) ?? []
            #expect(strictList.map { "\($0["app"] ?? "") \($0["check"] ?? "") \(($0["failed"] as? Bool).map(String.init) ?? "-")" } == ["keeper wipe-answered-with-files-left false"], "\(strictList)")
            #expect((doc?["passed"] as? Int) == 1)
        }
    
        /// A multi-identity app showing alice writes one file with no identity on its thread (it
        /// is filed personal: the finding) and one naming her (right: none).
        @Test func aFileWrittenWithNoThreadIdentityUnderAManagedScreenIsAFinding() async throws {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-strict-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("files.yaml")
            try """
                name: a file written under alice's screen
                accounts:
                  - {upn: alice@contoso.com, tenant: contoso.onmicrosoft.com, policy: work}
                policies:
                  work: {displayName: work, apps: [com.contoso.mail]}
                apps:
                  - {id: mail, bundle: com.contoso.mail, multiIdentity: true}
                steps:
                  - signIn: {app: mail, account: alice@contoso.com}
                  - switchIdentity: {app: mail, account: alice@contoso.com, pin: "2580"}
                  - writeFile: {app: mail, path: Documents/unnamed.txt, text: "Q3"}
                  - writeFile: {app: mail, path: Documents/hers.txt, text: "Q3", as: alice@contoso.com}
                  - expectState: {app: mail, files: {Documents/unnamed.txt: "", Documents/hers.txt: alice@contoso.com}}
                """.write(to: file, atomically: true, encoding: .utf8)
            let r = try await CLI.run(["run", "--strict", file.path], timeout: 120)
            #expect(r.status == 1 && r.stdout.contains("✘ strict: file-written-without-thread-identity in mail (write_file Documents/unnamed.txt)")
                    && !r.stdout.contains("write_file Documents/hers.txt"), "\(r)")
        }
    }
}
