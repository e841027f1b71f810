import Foundation
import MAMTestSupport
import Testing

extension CLITests {
    /// `mamsim mutate` (issue 99, first part): each verdict on a scenario built for it — a setting
    /// an expectation checks is killed, one a step exercises unchecked survives, one no step
    /// reaches is not exercised — in the table and JSON, and `--fail-under` as a CI gate.
    @Suite struct MutateCommandTests {
        static let scenario = """
            name: Mutation probe
            accounts:
              - {upn: alice@contoso.com, policy: p}
            policies:
              p:
                allowedOutboundDataTransferDestinations: managedApps
                printBlocked: false
                apps: [com.contoso.mail]
            apps:
              - {id: mail, bundle: com.contoso.mail, keychainGroups: [com.contoso.mail, com.microsoft.intune.mam]}
              - {id: notes, bundle: com.example.notes, sdk: false}
            steps:
              - signIn: {app: mail, account: alice@contoso.com}
                expect: ok
              - name: "org data cannot leave for the unmanaged notes app"
                share: {from: mail, to: notes, item: {type: public.plain-text, text: "q3"}}
                expect: {blocked: outbound-policy}
              - name: "a print, not checked"
                print: {app: mail}

            """

        @Test func eachVerdictIsSaidWithItsStep() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-mutate")
            defer { tmp.remove() }
            try tmp.write("probe.yaml", Self.scenario)
            let only = "allowedOutboundDataTransferDestinations,printBlocked,allowedInboundDataTransferSources"
            let r = try await CLI.run(["mutate", tmp.path("probe.yaml"), "--only", only], timeout: 180)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout.contains("KILLED        \(tmp.path("probe.yaml")) · p.allowedOutboundDataTransferDestinations → \"allApps\": step 2 (org data cannot leave for the unmanaged notes app): expected {blocked: outbound-policy}, got delivered"), "\(r.stdout)")
            #expect(r.stdout.contains("SURVIVED      \(tmp.path("probe.yaml")) · p.printBlocked → true: step 3 (a print, not checked) observed {blocked: print-blocked} (before: allowed); no expectation checks it"), "\(r.stdout)")
            #expect(r.stdout.contains("NOT EXERCISED \(tmp.path("probe.yaml")) · p.allowedInboundDataTransferSources"), "\(r.stdout)")
            #expect(r.stdout.contains("mutation score 33.3%: 3 mutants, 1 killed, 1 survived, 1 not exercised"), "\(r.stdout)")
            let json = try await CLI.run(["mutate", tmp.path("probe.yaml"), "--only", only, "--format", "json", "--fail-under", "50"], timeout: 180)
            #expect(json.status == 1 && json.stderr.contains("mutation score 33.3% is under --fail-under 50.0%"), "\(json)")
            let root = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let verdicts = (root["mutants"] as? [[String: Any]])?.compactMap { $0["verdict"] as? String }.sorted()
            #expect(verdicts == ["killed", "not exercised", "survived"] && root["score"] as? Double == 33.3, "\(root)")
        }

        /// Issue 99, item 3, with an app's own code (Field Notes, the façade app built beside
        /// mamsim): it reads alice's policy through its getters at launch and writes what it
        /// found to a report no step reads. The PIN setting's mutant reaches the app's code and
        /// nothing checks it (survived, naming the read); the save setting's stops the note
        /// being saved (killed); printing, which the app never does, is not exercised.
        @Test func aSettingTheAppReadsAndNothingChecksSurvivesNamingTheRead() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-mutate-read")
            defer { tmp.remove() }
            try tmp.write("notes.yaml", """
                name: Field Notes saves a note
                accounts:
                  - {upn: alice@contoso.com, oid: 5f0c1d2e-7a6b-4c3d-9e8f-0a1b2c3d4e5f, tenant: contoso.onmicrosoft.com, policy: work}
                policies:
                  work: {pinRequired: true, saveAsBlocked: false, apps: [com.contoso.field]}
                apps:
                  - id: field
                    bundle: com.contoso.field
                    keychainGroups: [com.contoso.field, com.microsoft.intune.mam]
                    executable: \(CLI.repo("plugins/field-notes/run").path)
                    arguments: [alice@contoso.com]
                    msalAccounts: [alice@contoso.com]
                steps:
                  - name: "the note is saved"
                    readFile: {app: field, path: Documents/notes/visit.txt}
                    expect: {text: "Site visit: pump 4 leaks\\n"}

                """)
            let r = try await CLI.run(["mutate", tmp.path("notes.yaml"), "--only", "pinRequired,saveAsBlocked,printBlocked"], timeout: 240)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout.contains("SURVIVED      \(tmp.path("notes.yaml")) · work.pinRequired → false: at launch (the fleet's start): field read IntuneMAMPolicy.isPINRequired of alice@contoso.com's policy, which this mutant answers otherwise; no step observes what the app did with it"), "\(r.stdout)")
            #expect(r.stdout.contains("KILLED        \(tmp.path("notes.yaml")) · work.saveAsBlocked → true: step 1 (the note is saved):"), "\(r.stdout)")
            #expect(r.stdout.contains("NOT EXERCISED \(tmp.path("notes.yaml")) · work.printBlocked"), "\(r.stdout)")
        }

        @Test func aFailingScenarioIsNotMutatedAndAnUnknownSettingIsRefused() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-mutate-bad")
            defer { tmp.remove() }
            try tmp.write("failing.yaml", Self.scenario.replacingOccurrences(of: "{blocked: outbound-policy}", with: "delivered"))
            let failing = try await CLI.run(["mutate", tmp.path("failing.yaml"), "--only", "printBlocked"], timeout: 120)
            #expect(failing.status == 1 && failing.stderr.contains("the scenario does not pass as it is"), "\(failing)")
            let unknown = try await CLI.run(["mutate", tmp.path("failing.yaml"), "--only", "printBlockd"])
            #expect(unknown.status != 0 && unknown.stderr.contains("printBlockd is no setting of an iosManagedAppProtection mamsim reads"), "\(unknown)")
        }
    }
}
