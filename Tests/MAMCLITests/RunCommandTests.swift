import Foundation
import Testing

extension CLITests {
    /// `mamsim run FILE`: one line per step, a summary, an audit log; exit 0 / 1 / 2.
    @Suite struct RunCommandTests {
        static let demo = CLI.repo("scenarios/examples/demo.yaml")

        /// The demo's steps (the `- ` items under `steps:`) and how many carry `expect:`.
        static func demoCounts() throws -> (steps: Int, expectations: Int, name: String) {
            let text = try String(contentsOf: demo, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let start = try #require(lines.firstIndex(of: "steps:"))
            let stepLines = lines[(start + 1)...]
            let steps = stepLines.filter { $0.hasPrefix("  - ") }.count
            let expectations = stepLines.filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("expect:") }.count
            let nameLine = try #require(lines.first { $0.hasPrefix("name: ") })
            return (steps, expectations, String(nameLine.dropFirst("name: ".count)))
        }

        /// Step lines look like `✔   3 signIn … → …`: a mark, the step number, the step.
        static func stepNumbers(_ output: String) -> [Int] {
            output.split(separator: "\n").compactMap { line -> Int? in
                guard line.hasPrefix("✔") || line.hasPrefix("✘") else { return nil }
                let rest = line.dropFirst().drop(while: { $0 == " " })
                let digits = rest.prefix(while: \.isNumber)
                guard !digits.isEmpty, rest.dropFirst(digits.count).first == " " else { return nil }
                return Int(digits)
            }
        }

        /// A mistyped command is named with the nearest one and the list (exit 2); an unknown
        /// app id in a step names the nearest id and every id of the fleet.
        @Test func aMistypedCommandOrAppIdSaysTheFix() async throws {
            let rn = try await CLI.run(["rn", "scenarios/examples/demo.yaml"], timeout: 30)
            #expect(rn.status == 2 && rn.stderr.contains("no command \"rn\"; did you mean `mamsim run`?") && rn.stderr.contains("The commands are run, init, test"), "\(rn)")
            let odd = try await CLI.run(["frobnicate"], timeout: 30)
            #expect(odd.status == 2 && odd.stderr.contains("no command \"frobnicate\". The commands are"), "\(odd)")
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-ids-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("ids.yaml")
            try """
                name: ids
                accounts: [{upn: a@contoso.com}]
                apps: [{id: mail, bundle: com.contoso.mail}, {id: chat, bundle: com.contoso.chat}]
                steps:
                  - copy: {app: mial, text: x}
                """.write(to: file, atomically: true, encoding: .utf8)
            let r = try await CLI.run(["run", file.path], timeout: 30)
            #expect(r.status == 2 && r.stderr.contains("no app or extension with id \"mial\"; did you mean \"mail\"? (the ids are: mail, chat)"), "\(r)")
        }

        /// A share refused as not-activated says what was shared and, when the extension's rule
        /// takes the type only as personal data (no Intune twin), the command that fixes it.
        @Test func notActivatedSaysTheItemAndTheConfigureCommand() async throws {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-na-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("share"), withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            try #"""
                <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>
                <key>CFBundleIdentifier</key><string>com.contoso.mail.share</string>
                <key>NSExtension</key><dict><key>NSExtensionAttributes</key><dict><key>NSExtensionActivationRule</key>
                <string>SUBQUERY (extensionItems, $e, SUBQUERY ($e.attachments, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO "public.plain-text").@count &gt;= 1).@count &gt;= 1</string></dict>
                <key>NSExtensionPointIdentifier</key><string>com.apple.share-services</string><key>NSExtensionPrincipalClass</key><string>X</string></dict>
                </dict></plist>
                """#.write(to: dir.appendingPathComponent("share/Info.plist"), atomically: true, encoding: .utf8)
            try """
                name: not activated
                accounts: [{upn: alice@contoso.com, policy: work}]
                policies: {work: {displayName: work, apps: [com.contoso.mail]}}
                apps: [{id: mail, bundle: com.contoso.mail, keychainGroups: [com.contoso.mail, com.microsoft.intune.mam]}]
                extensions: [{id: share, plugin: share, container: mail}]
                steps:
                  - signIn: {app: mail, account: alice@contoso.com}
                  - share: {from: mail, to: share, item: {type: public.plain-text, text: "Q3"}}
                    expect: {blocked: not-activated}
                """.write(to: dir.appendingPathComponent("s.yaml"), atomically: true, encoding: .utf8)
            let r = try await CLI.run(["run", dir.appendingPathComponent("s.yaml").path], timeout: 60)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout.contains("the item is com.microsoft.intune.mam.public.plain-text") || r.stdout.contains("the item is public.plain-text"), "\(r)")
            #expect(r.stdout.contains("the rule accepts it only as personal data: `mamsim configure \(dir.appendingPathComponent("share").path)/Info.plist`"), "\(r)")
        }

        @Test func runDemoPrintsOneLinePerStepAndTheSummaryAndExitsZero() async throws {
            let counts = try Self.demoCounts()
            let r = try await CLI.run(["run", Self.demo.path], timeout: 120)
            defer { CLI.auditLogPath(in: r.stdout).map(CLI.removeDeviceDirectory) }
            // The temporary device goes with the run.
            #expect(CLI.auditLogPath(in: r.stdout) == nil && r.stdout.contains("temporary device removed; keep it with --keep-device"), "\(r)")
            #expect(!r.timedOut, "\(r)")
            #expect(r.status == 0, "\(r)")
            #expect(Self.stepNumbers(r.stdout) == Array(1...counts.steps), "\(r)")
            // Every step line shows its outcome after an arrow; none failed.
            let stepLines = r.stdoutLines.filter { $0.hasPrefix("✔ ") || $0.hasPrefix("✘ ") }.filter { !Self.stepNumbers($0).isEmpty }
            #expect(stepLines.allSatisfy { $0.hasPrefix("✔") && $0.contains("  →  ") }, "\(r)")
            // Two of the demo's decisions, with their explanations.
            #expect(r.stdout.contains("Alice's mail cannot leave for the unmanaged notes app — share mail (alice@contoso.com) → notes  →  {blocked: outbound-policy}"), "\(r)")
            #expect(r.stdout.contains("keychainGet notes ← com.microsoft.intune.mam/token  →  {blocked: keychain-entitlement}"), "\(r)")
            #expect(r.stdout.contains("✔ \(counts.name): \(counts.steps) steps run, \(counts.expectations) with an expectation, all held"), "\(r)")
            #expect(r.stderr.isEmpty, "\(r)")
        }

        @Test func runWritesAJSONLinesAuditLogWithEveryFieldOfEachDecision() async throws {
            let counts = try Self.demoCounts()
            let r = try await CLI.run(["run", Self.demo.path, "--keep-device"], timeout: 120)
            let auditPath = try #require(CLI.auditLogPath(in: r.stdout), "\(r)")
            defer { CLI.removeDeviceDirectory(ofAuditLog: auditPath) }
            #expect(r.status == 0, "\(r)")
            #expect(FileManager.default.fileExists(atPath: auditPath))

            let text = try String(contentsOfFile: auditPath, encoding: .utf8)
            let lines = text.split(separator: "\n").map(String.init)
            #expect(!lines.isEmpty)
            let keys: Set<String> = [
                "time", "scenario", "step", "verb", "sourceApp", "destinationApp", "owner", "decision", "reason", "explanation",
            ]
            var events: [[String: Any]] = []
            for line in lines {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
                let event = try #require(object as? [String: Any], "not a JSON object: \(line)")
                let missing = keys.subtracting(event.keys)
                #expect(missing.isEmpty, "missing \(missing.sorted()) in \(line)")
                #expect(event["scenario"] as? String == counts.name)
                let time = try #require(event["time"] as? String)
                #expect(ISO8601DateFormatter().date(from: time) != nil, "time \(time) is not ISO 8601")
                events.append(event)
            }
            func event(step: String) -> [String: Any]? { events.first { $0["step"] as? String == step } }

            let blocked = try #require(event(step: "Alice's mail cannot leave for the unmanaged notes app"), "\(text)")
            #expect(blocked["verb"] as? String == "share")
            #expect(blocked["sourceApp"] as? String == "mail")
            #expect(blocked["destinationApp"] as? String == "notes")
            #expect(blocked["decision"] as? String == "blocked")
            #expect(blocked["reason"] as? String == "outbound-policy")
            #expect((blocked["explanation"] as? String)?.contains("policy-managed") == true)

            let delivered = try #require(event(step: "Alice's mail goes to Word"), "\(text)")
            #expect(delivered["decision"] as? String == "delivered")
            #expect(delivered["destinationApp"] as? String == "word")
            #expect(delivered["owner"] as? String == "alice@contoso.com")
            #expect(delivered["reason"] as? String == "")

            let personal = try #require(event(step: "personal chat data may go to notes"), "\(text)")
            #expect(personal["owner"] as? String == "bob@outlook.com")
            #expect(personal["decision"] as? String == "delivered")
        }

        @Test func runAuditOptionCopiesTheDeviceAuditLog() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let device = tmp.path("device")
            let copy = tmp.path("copies/audit.jsonl")
            try FileManager.default.createDirectory(atPath: tmp.path("copies"), withIntermediateDirectories: true)
            // A stale file at the destination is replaced, not appended to.
            try tmp.write("copies/audit.jsonl", "stale\n")
            let r = try await CLI.run(["run", Self.demo.path, "--device-dir", device, "--audit", copy], timeout: 120)
            #expect(r.status == 0, "\(r)")
            let original = try Data(contentsOf: URL(fileURLWithPath: device).appendingPathComponent("audit.jsonl"))
            let copied = try Data(contentsOf: URL(fileURLWithPath: copy))
            #expect(!copied.isEmpty)
            #expect(copied == original)
            #expect(!String(decoding: copied, as: UTF8.self).contains("stale"))
            #expect(CLI.auditLogPath(in: r.stdout) == URL(fileURLWithPath: device).appendingPathComponent("audit.jsonl").path, "\(r)")
        }

        @Test func aReaderThatStopsEarlyDoesNotCrashTheRun() async throws {
            // `mamsim run demo | head -1`, with the run's own exit status kept (pipefail).
            let script = "set -o pipefail; '\(CLI.mamsim)' run '\(Self.demo.path)' | head -1"
            let r = try await CLI.run(["-c", script], timeout: 120, executable: "/bin/bash")
            #expect(r.status == 0, "the run ends with its own status, not a crash (132): \(r)")
            #expect(r.stdoutLines.first?.hasPrefix("▶ ") == true, "\(r)")
            #expect(!r.stderr.contains("Fatal error"), "\(r)")
        }

        @Test func anAppThatMisbehavesAtStartFailsAloneTheOthersRunAndTheAttackIsAudited() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            // Sends four bytes that announce a 4 GiB frame instead of Hello.
            let evil = try tmp.write("evil.sh", "#!/bin/sh\nprintf '\\377\\377\\377\\377' >&3\nexec sleep 30\n", executable: true)
            let scenario = try tmp.write("s.yaml", """
                name: One bad app
                accounts: [{upn: alice@contoso.com, policy: p}]
                policies: {p: {allowedOutboundDataTransferDestinations: managedApps}}
                apps:
                  - {id: mail, bundle: com.contoso.mail}
                  - {id: word, bundle: com.contoso.word}
                  - {id: evil, bundle: com.evil.app, executable: \(evil.path)}
                steps:
                  - signIn: {app: mail, account: alice@contoso.com}
                  - signIn: {app: word, account: alice@contoso.com}
                  - share: {from: mail, to: word, item: {type: public.plain-text, text: hi}}
                    expect: delivered
                """)
            let device = tmp.path("device")
            let r = try await CLI.run(["run", scenario.path, "--device-dir", device], timeout: 60)
            #expect(r.status == 1, "the run happened and is not green: \(r)")
            #expect(r.stdout.contains("could not start evil"), "\(r)")
            #expect(r.stdout.contains("✘ One bad app: 1 app could not start; 3 steps run, 1 with an expectation, all held"), "\(r)")
            #expect(r.stdout.contains("share mail (alice@contoso.com) → word  →  delivered"), "\(r)")
            let audit = try String(contentsOfFile: device + "/audit.jsonl", encoding: .utf8)
            #expect(audit.contains("\"verb\":\"hostile\""), "the attack is in the audit log: \(audit)")
            #expect(audit.contains("exceeds the maximum"), "\(audit)")
        }

        /// A bad file: what is written, where the error must point (`token`'s line and
        /// column, then the key path), and further fragments of the message.
        struct BrokenFile: Sendable, CustomTestStringConvertible {
            var label: String
            var yaml: String
            var extraFiles: [String: String] = [:]
            var points: [(token: String, keyPath: String)]
            var fragments: [String]
            var testDescription: String { label }
        }

        static let brokenFiles: [BrokenFile] = [
            BrokenFile(
                label: "typos in a key and a verb",
                yaml: """
                    name: Typos
                    apps:
                      - id: mail
                        bundle: com.contoso.mail
                        multiIdentiy: true
                      - id: notes
                        bundle: com.example.notes
                    steps:
                      - launch: {app: mail}
                      - shrae: {from: mail, to: notes, item: {type: public.plain-text, text: hi}}

                    """,
                points: [("multiIdentiy", "apps[0].multiIdentiy"), ("shrae", "steps[1].shrae")],
                fragments: [#"did you mean "multiIdentity"?"#, #"unknown verb "shrae"; did you mean "share"?"#]),
            BrokenFile(
                label: "an unknown account",
                yaml: """
                    accounts:
                      - upn: alice@contoso.com
                    apps:
                      - id: mail
                        bundle: com.contoso.mail
                    steps:
                      - signIn: {app: mail, account: alice@contoso.com}
                      - signIn: {app: mail, account: alise@contoso.com}

                    """,
                points: [("alise@contoso.com", "steps[1].signIn.account")],
                fragments: [#"no account with UPN or OID "alise@contoso.com""#, #"did you mean "alice@contoso.com"?"#]),
            BrokenFile(
                label: "a malformed Info.plist",
                yaml: """
                    apps:
                      - id: mail
                        bundle: com.contoso.mail
                        info: apps/mail/Info.plist

                    """,
                extraFiles: [
                    "apps/mail/Info.plist": """
                        <?xml version="1.0" encoding="UTF-8"?>
                        <plist version="1.0">
                        <dict>
                        \t<key>CFBundleIdentifier</key>
                        \t<string>com.contoso.mail</strin

                        """,
                ],
                points: [("apps/mail/Info.plist", "apps[0].info")],
                fragments: ["apps/mail/Info.plist", "is not a well-formed property list"]),
            BrokenFile(
                label: "a wrong type",
                yaml: """
                    apps:
                      - id: notes
                        bundle: com.example.notes
                        sdk: maybe

                    """,
                points: [("maybe", "apps[0].sdk")],
                fragments: [#"must be true or false, but it is "maybe""#]),
        ]

        @Test(arguments: brokenFiles)
        func runRefusesABadFileWithExitTwoNamingFileLineColumnAndKeyPath(_ bad: BrokenFile) async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let file = try tmp.write("scenario.yaml", bad.yaml)
            for (name, text) in bad.extraFiles { try tmp.write(name, text) }
            let r = try await CLI.run(["run", file.path], timeout: 60)
            #expect(!r.timedOut, "\(r)")
            #expect(r.status == 2, "\(r)")
            #expect(r.stderr.hasPrefix("error: "), "\(r)")
            for point in bad.points {
                let at = try #require(CLI.position(of: point.token, in: bad.yaml))
                let location = "\(file.path):\(at.line):\(at.column): \(point.keyPath): "
                #expect(r.stderr.contains(location), "expected \"\(location)\" in\n\(r)")
            }
            for fragment in bad.fragments {
                #expect(r.stderr.contains(fragment), "expected \"\(fragment)\" in\n\(r)")
            }
            // Nothing ran: no fleet, no step lines.
            #expect(!r.stdout.contains("fleet ready"), "\(r)")
            #expect(Self.stepNumbers(r.stdout).isEmpty, "\(r)")
        }

        @Test func runExitsOneAndShowsExpectedVersusGotWithTheLineOfAFailedExpectation() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let file = try tmp.write("failing.yaml", ScenarioTexts.failingShare)
            let r = try await CLI.run(["run", file.path, "--device-dir", tmp.path("device")], timeout: 60)
            #expect(!r.timedOut, "\(r)")
            #expect(r.status == 1, "\(r)")
            let shareLine = try #require(CLI.position(of: "- share:", in: ScenarioTexts.failingShare)).line
            let lines = r.stdoutLines
            let first = try #require(lines.firstIndex { $0.hasPrefix("✔") && $0.contains(" 1 signIn ") }, "\(r)")
            #expect(lines[first].contains("→  ok"))
            let failed = try #require(lines.firstIndex { $0.hasPrefix("✘") && $0.contains(" 2 share mail") }, "\(r)")
            #expect(lines[failed].contains("→  {blocked: outbound-policy}"), "\(r)")
            // The highlight follows the failed step's line.
            let highlight = failed + 1 < lines.count ? lines[failed + 1] : ""
            #expect(highlight.contains("expected delivered, got {blocked: outbound-policy} (line \(shareLine))"), "\(r)")
            #expect(r.stdout.contains("✘ Failing share: 1 of 2 expectations failed (2 steps run)"), "\(r)")
        }
        /// Issue 73, item 4: a share step to an extension the share sheet never lists (a
        /// widget) is refused when the scenario loads, with the reason.
        @Test func aShareToAWidgetIsRefusedAtLoad() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let widget = CLI.repo("scenarios/conformance/fixtures/v14-extensions/widget").path
            let file = try tmp.write("widget.yaml", """
                name: Share to a widget
                apps:
                  - id: mail
                    bundle: com.contoso.mail
                extensions:
                  - id: widget
                    kind: widget
                    plugin: \(widget)
                    container: mail
                steps:
                  - share: {from: mail, to: widget, item: {type: public.plain-text, text: "x"}}
                """)
            let r = try await CLI.run(["run", file.path], timeout: 60)
            #expect(r.status == 2, "\(r)")
            #expect(r.stderr.contains("widget is a widget extension, which the share sheet never lists"), "\(r.stderr)")
        }

        /// Issue 73, item 6: a failed text of several lines says which lines differ, numbered.
        @Test func aFailedTextOfSeveralLinesShowsItsDifferingLines() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let file = try tmp.write("text.yaml", """
                name: Text diff
                apps:
                  - id: notes
                    bundle: com.example.notes
                    sdk: false
                steps:
                  - writeFile: {app: notes, path: Documents/a.txt, text: "one\\ntwo\\nthree\\n"}
                  - readFile: {app: notes, path: Documents/a.txt}
                    expect: {text: "one\\n2\\nthree\\n"}
                """)
            let r = try await CLI.run(["run", file.path, "--device-dir", tmp.path("device")], timeout: 60)
            #expect(r.status == 1, "\(r)")
            #expect(r.stdout.contains("- 2: \"2\"") && r.stdout.contains("+ 2: \"two\""), "\(r.stdout)")
            #expect(!r.stdout.contains("- 1:") && !r.stdout.contains("- 3:"), "only the differing line: \(r.stdout)")
        }

        /// RULES.md §5: "every mismatch [of allowed accounts] is logged"; SCENARIOS.md: every
        /// run writes an audit log of the decisions. Today only shares reach the audit log.
        @Test func auditLogRecordsASignInRefusedByAllowedAccounts() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let file = try tmp.write("allowed.yaml", """
                name: Allowed accounts
                accounts:
                  - upn: alice@contoso.com
                  - upn: bob@outlook.com
                allowedAccounts: [alice@contoso.com]
                apps:
                  - id: mail
                    bundle: com.contoso.mail
                steps:
                  - signIn: {app: mail, account: bob@outlook.com}
                    expect: {blocked: account-not-allowed}

                """)
            let audit = tmp.path("audit.jsonl")
            let r = try await CLI.run(["run", file.path, "--device-dir", tmp.path("device"), "--audit", audit], timeout: 60)
            #expect(r.status == 0, "\(r)")
            let text = try String(contentsOfFile: audit, encoding: .utf8)
            #expect(text.contains("\"account-not-allowed\""), "audit log: \(text)")
            #expect(text.contains("bob@outlook.com"), "audit log: \(text)")
        }
    }
}
