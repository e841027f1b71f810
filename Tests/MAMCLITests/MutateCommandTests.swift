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
            // --all-values: a mutant per value the setting takes that changes the policy.
            let all = try await CLI.run(["mutate", tmp.path("probe.yaml"), "--only", "allowedOutboundDataTransferDestinations", "--all-values"], timeout: 180)
            #expect(all.stdout.contains("allowedOutboundDataTransferDestinations → \"allApps\"") && all.stdout.contains("allowedOutboundDataTransferDestinations → \"none\"")
                    && all.stdout.contains(": 2 mutants,"), "\(all)")
        }

        /// Issue 99, item 3, with an app's own code (Field Notes, the façade app built beside
        /// mamsim): it reads alice's policy through its getters at launch and writes what it
        /// found to a report no step reads. The PIN setting's mutant reaches the app's code and
        /// nothing checks it (survived, naming the read); the save setting's stops the note
        /// being saved (killed); printing, which the app never does, is not exercised. Of its
        /// app configuration, the key its code reads (`region`) survives, named; the key it
        /// never reads (`shift`) is not exercised. The note it shares at launch to an unmanaged
        /// app is a host decision no step checks: the outbound setting's mutant survives, named.
        @Test func aSettingTheAppReadsAndNothingChecksSurvivesNamingTheRead() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-mutate-read")
            defer { tmp.remove() }
            try tmp.write("notes.yaml", """
                name: Field Notes saves a note
                accounts:
                  - {upn: alice@contoso.com, oid: 5f0c1d2e-7a6b-4c3d-9e8f-0a1b2c3d4e5f, tenant: contoso.onmicrosoft.com, policy: work}
                policies:
                  work: {pinRequired: true, saveAsBlocked: false, apps: [com.contoso.field]}
                appConfigs:
                  - name: field-region
                    settings: {region: north, shift: night}
                    apps: [com.contoso.field]
                apps:
                  - id: field
                    bundle: com.contoso.field
                    keychainGroups: [com.contoso.field, com.microsoft.intune.mam]
                    executable: \(CLI.repo("plugins/field-notes/run").path)
                    arguments: [alice@contoso.com, notes]
                    msalAccounts: [alice@contoso.com]
                  - {id: notes, bundle: com.example.notes, sdk: false}
                steps:
                  - name: "the note is saved"
                    readFile: {app: field, path: Documents/notes/visit.txt}
                    expect: {text: "Site visit: pump 4 leaks\\n"}

                """)
            let only = "pinRequired,saveAsBlocked,printBlocked,region,shift,allowedOutboundDataTransferDestinations"
            let r = try await CLI.run(["mutate", tmp.path("notes.yaml"), "--only", only], timeout: 240)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout.contains("SURVIVED      \(tmp.path("notes.yaml")) · work.pinRequired → false: at launch (the fleet's start): field read IntuneMAMPolicy.isPINRequired of alice@contoso.com's policy, which this mutant answers otherwise; no step observes what the app did with it"), "\(r.stdout)")
            #expect(r.stdout.contains("KILLED        \(tmp.path("notes.yaml")) · work.saveAsBlocked → true: step 1 (the note is saved):"), "\(r.stdout)")
            #expect(r.stdout.contains("NOT EXERCISED \(tmp.path("notes.yaml")) · work.printBlocked"), "\(r.stdout)")
            #expect(r.stdout.contains("SURVIVED      \(tmp.path("notes.yaml")) · app configuration field-region: region → (key removed): at launch (the fleet's start): field read the key \"region\" of alice@contoso.com's app configuration \"field-region\""), "\(r.stdout)")
            #expect(r.stdout.contains("NOT EXERCISED \(tmp.path("notes.yaml")) · app configuration field-region: shift → (key removed): no app's code read the key \"shift\""), "\(r.stdout)")
            // The app shares the note at launch, by its own code: the host's decision changes, and no step looks.
            #expect(r.stdout.contains("SURVIVED      \(tmp.path("notes.yaml")) · work.allowedOutboundDataTransferDestinations → \"none\": at launch (the fleet's start): the host decided field (5f0c1d2e-7a6b-4c3d-9e8f-0a1b2c3d4e5f)'s share to notes, alice@contoso.com's data: blocked (outbound-policy) (before: delivered); no expectation checks it"), "\(r.stdout)")
            #expect(r.stdout.contains("6 mutants, 1 killed, 3 survived, 2 not exercised"), "\(r.stdout)")
        }

        /// Item 4: SARIF valid against SARIF 2.1.0's schema, a result per survivor at the line
        /// its setting is written on (the policy's declaration and the step related), one per
        /// mutant no step reaches as a note, none for a killed one; the HTML report rendered by
        /// headless Chromium with the score per app and per setting.
        @Test func sarifPointsAtTheSettingsLinesAndTheHTMLReportScoresAppsAndSettings() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-mutate-sarif")
            defer { tmp.remove() }
            try tmp.write("probe.yaml", Self.scenario)
            let only = ["--only", "allowedOutboundDataTransferDestinations,printBlocked,allowedInboundDataTransferSources", "--no-cache"]
            let r = try await CLI.run(["mutate", tmp.path("probe.yaml"), "--format", "sarif", "-o", tmp.path("mutate.sarif")] + only, timeout: 180)
            #expect(r.status == 0, "\(r)")
            #expect(try ReportValidator.jsonProblems(tmp.path("mutate.sarif"), schema: "Tests/Fixtures/sarif/sarif-schema-2.1.0.json") == nil)
            let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tmp.path("mutate.sarif")))) as? [String: Any])
            let results = try #require(((root["runs"] as? [[String: Any]])?.first?["results"]) as? [[String: Any]])
            func line(_ r: [String: Any], _ key: String = "locations") -> Int? {
                (((r[key] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])?["region"] as? [String: Any])?["startLine"] as? Int
            }
            #expect(results.map { $0["ruleId"] as? String } == ["mutant-not-exercised", "mutant-survived"], "\(results)")
            // printBlocked is written on line 7 of the scenario, its policy declared on line 5, the print step starts on line 18.
            let survivor = try #require(results.last)
            #expect(line(survivor) == 7 && survivor["level"] as? String == "warning", "\(survivor)")
            let related = (survivor["relatedLocations"] as? [[String: Any]])?.compactMap { r -> Int? in
                (((r["physicalLocation"] as? [String: Any])?["region"] as? [String: Any])?["startLine"] as? Int)
            }
            #expect(related == [5, 18], "\(survivor)")
            #expect(results.first?["level"] as? String == "note" && line(results.first!) == 5, "a setting the policy does not write is placed at its declaration: \(results)")

            let html = try await CLI.run(["mutate", tmp.path("probe.yaml"), "--format", "html", "-o", tmp.path("mutate.html")] + only, timeout: 180)
            #expect(html.status == 0, "\(html)")
            let page = try String(contentsOfFile: tmp.path("mutate.html"), encoding: .utf8)
            #expect(!page.contains("<script") && !page.contains("http://"), "the page is self-contained")
            #expect(page.contains("<tr data-name=\"\(tmp.path("probe.yaml")): mail\" data-score=\"33.3\">"), "mail's score: \(page)")
            #expect(page.contains("<tr data-name=\"printBlocked\" data-score=\"0.0\">") && page.contains("<tr data-name=\"allowedOutboundDataTransferDestinations\" data-score=\"100.0\">"), "\(page)")
            guard Browser.path != nil else { return }
            let dump = try await Browser.run(["--dump-dom", "file://\(tmp.path("mutate.html"))"])
            #expect(dump.status == 0 && dump.stdout.contains("mutation score 33.3%") && dump.stdout.contains("✘ survived"), "\(dump)")
        }

        /// Item 5, the replay: a mutant of a setting no decision of the base run read
        /// (notificationRestriction: nothing notifies; maximumPinRetries: no PIN is entered) is
        /// judged from the base run without a run; one the print decision answers otherwise
        /// (printBlocked) runs, and so does one the share reads (the transfer rules are not
        /// asked again yet). Each verdict is the one --no-replay, which runs every mutant, gives.
        @Test func aMutantNoDecisionNoticesIsJudgedWithoutARunAsARunJudgesIt() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-mutate-replay")
            defer { tmp.remove() }
            try tmp.write("probe.yaml", Self.scenario)
            let only = ["--only", "notificationRestriction,maximumPinRetries,printBlocked,allowedOutboundDataTransferDestinations", "--format", "json", "--no-cache"]
            let replayed = try await CLI.run(["mutate", tmp.path("probe.yaml")] + only, timeout: 180)
            let ran = try await CLI.run(["mutate", tmp.path("probe.yaml"), "--no-replay"] + only, timeout: 180)
            #expect(replayed.status == 0 && ran.status == 0, "\(replayed)\n---\n\(ran)")
            func mutants(_ r: CLIResult) throws -> [String: [String: Any]] {
                let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
                let all = try #require(root["mutants"] as? [[String: Any]])
                return Dictionary(uniqueKeysWithValues: all.map { ($0["setting"] as? String ?? "", $0) })
            }
            let a = try mutants(replayed), b = try mutants(ran)
            #expect(a.count == 4 && b.count == 4, "\(replayed.stdout)")
            for (setting, m) in b {
                #expect(m["replayed"] == nil, "\(setting) ran with --no-replay")
                let r = try #require(a[setting])
                #expect(r["verdict"] as? String == m["verdict"] as? String && r["because"] as? String == m["because"] as? String
                        && r["step"] as? Int == m["step"] as? Int, "\(setting): replayed \(r), ran \(m)")
            }
            #expect(a["notificationRestriction"]?["replayed"] as? Bool == true && a["maximumPinRetries"]?["replayed"] as? Bool == true, "\(replayed.stdout)")
            #expect(a["printBlocked"]?["replayed"] == nil && a["printBlocked"]?["verdict"] as? String == "survived", "\(replayed.stdout)")
            #expect(a["allowedOutboundDataTransferDestinations"]?["verdict"] as? String == "killed", "\(replayed.stdout)")
            #expect(replayed.stderr.contains("2 of 4 mutants judged without a run of their own"), "\(replayed.stderr)")
        }

        /// Item 5: a sweep in parts (`--shard K/N`) merges into the report one sweep writes,
        /// byte for byte, in the format it ran with; parts of another sweep are refused. A
        /// second sweep of what did not change reads every verdict from the cache and writes
        /// the same report; --no-cache runs them all.
        @Test func partsMergeIntoTheOneSweepsReportAndTheCacheGivesTheSame() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-mutate-parts")
            defer { tmp.remove() }
            try tmp.write("probe.yaml", Self.scenario)
            let only = ["--only", "allowedOutboundDataTransferDestinations,printBlocked,allowedInboundDataTransferSources"]
            let cache = ["--cache", tmp.path("cache")]
            for format in ["json", "table"] {
                let whole = try await CLI.run(["mutate", tmp.path("probe.yaml"), "--format", format, "--no-cache"] + only, timeout: 180)
                #expect(whole.status == 0, "\(whole)")
                for k in 1...2 {
                    let part = try await CLI.run(["mutate", tmp.path("probe.yaml"), "--format", format, "--shard", "\(k)/2", "-o", tmp.path("part\(k).json")] + only + cache, timeout: 180)
                    #expect(part.status == 0, "\(part)")
                }
                let merged = try await CLI.run(["merge", tmp.path("part2.json"), tmp.path("part1.json")])
                #expect(merged.status == 0 && merged.stdout == whole.stdout, "\(format): \(merged)\n---\n\(whole.stdout)")
            }
            // The parts filled the cache: the whole sweep now runs nothing and says so.
            let cached = try await CLI.run(["mutate", tmp.path("probe.yaml")] + only + cache, timeout: 180)
            let fresh = try await CLI.run(["mutate", tmp.path("probe.yaml"), "--no-cache"] + only, timeout: 180)
            #expect(cached.stderr.contains("3 of 3 mutants' verdicts from the cache") && cached.stdout == fresh.stdout && !fresh.stderr.contains("cache"),
                    "\(cached)\n---\n\(fresh)")
            let other = try await CLI.run(["mutate", tmp.path("probe.yaml"), "--only", "printBlocked", "--shard", "1/2", "-o", tmp.path("other.json")] + cache, timeout: 180)
            #expect(other.status == 0, "\(other)")
            let mixed = try await CLI.run(["merge", tmp.path("other.json"), tmp.path("part2.json")])
            #expect(mixed.status == 2 && mixed.stderr.contains("not one sweep's 2 parts"), "\(mixed)")
        }

        /// deploy/kubernetes' mutate Jobs, their own command lines run here as the pods would
        /// (the sweep narrowed with --only to keep the test short): the parts merge into the
        /// report one sweep writes, and the merge decides --fail-under.
        @Test func theKubernetesMutateJobsRunAsWritten() async throws {
            let jobText = try String(contentsOf: CLI.repo("deploy/kubernetes/mamsim-mutate.yaml"), encoding: .utf8)
            let n = try #require(jobText.split(separator: "\n").first { $0.contains("completions:") }.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) })
            let tmp = try TemporaryDirectory(prefix: "mamsim-mutate-k8s")
            defer { tmp.remove() }
            let results = tmp.path("results")
            try FileManager.default.createDirectory(atPath: results + "/mutate/scenarios", withIntermediateDirectories: true)
            try Self.scenario.write(toFile: results + "/mutate/scenarios/probe.yaml", atomically: true, encoding: .utf8)
            let only = " --only allowedOutboundDataTransferDestinations,printBlocked,allowedInboundDataTransferSources"
            let part = try CLI.jobCommand("deploy/kubernetes/mamsim-mutate.yaml").replacingOccurrences(of: "/results/", with: results + "/") + only
            #expect(part.contains("--shards \(n) "), "the part count must match completions: \(part)")
            let merge = try CLI.jobCommand("deploy/kubernetes/mamsim-mutate-merge.yaml").replacingOccurrences(of: "/results/", with: results + "/")
            let path = URL(fileURLWithPath: CLI.mamsim).deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            for index in 0..<n {
                let r = try await CLI.run(["-c", part], in: tmp.url, timeout: 300, executable: "/bin/sh", environment: ["JOB_COMPLETION_INDEX": "\(index)", "PATH": path])
                #expect(r.status == 0, "a part completes, whatever it finds: \(r)")
            }
            let merged = try await CLI.run(["-c", merge], in: tmp.url, timeout: 120, executable: "/bin/sh", environment: ["PATH": path])
            #expect(merged.status == 1 && merged.stderr.contains("mutation score 33.3% is under --fail-under 60.0%"), "the merge Job decides the gate: \(merged)")
            let one = try await CLI.run(["mutate", results + "/mutate/scenarios", "--fail-under", "60", "--format", "json", "--no-cache", "-o", tmp.path("one.json")] + only.split(separator: " ").map(String.init))
            #expect(one.status == 1)
            #expect(try Data(contentsOf: URL(fileURLWithPath: tmp.path("one.json"))) == Data(contentsOf: URL(fileURLWithPath: results + "/mutate.json")))
        }

        /// Apple's managed app configuration (a DDM data asset): each key of the property list
        /// moved, the asset's Size and hash with it. A key a step checks is killed, one a step
        /// reads unchecked survives, one no step reads is not exercised — placed at its line in
        /// the property list.
        @Test func aManagedAppConfigurationsKeysAreMutated() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-mutate-ddm")
            defer { tmp.remove() }
            try tmp.write("landmarks.yaml", """
                name: Landmarks reads its managed configuration
                device: {mdmEnrolled: true, osVersion: "18.4"}
                declarations: [\(CLI.repo("scenarios/conformance/fixtures/ddm/landmarks").path)]
                apps:
                  - {id: landmarks, bundle: com.example.landmarks, mdmManaged: true, teamId: ABCDE12345}
                steps:
                  - managedConfig: {app: landmarks, key: resourceURL}
                    expect: {value: "https://landmarks.contoso.com/assets"}
                  - managedConfig: {app: landmarks, key: futureKey}

                """)
            let r = try await CLI.run(["mutate", tmp.path("landmarks.yaml"), "--only", "resourceURL,futureKey,managedCollection", "--no-cache", "--format", "json"], timeout: 180)
            #expect(r.status == 0, "\(r)")
            let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let mutants = try #require(root["mutants"] as? [[String: Any]]).filter { $0["policy"] as? String == "landmarks-config" }
            let verdicts = Dictionary(uniqueKeysWithValues: mutants.map { ($0["setting"] as? String ?? "", $0["verdict"] as? String ?? "") })
            #expect(verdicts == ["futureKey": "survived", "managedCollection": "not exercised", "resourceURL": "killed"], "\(mutants)")
            let at = try #require(mutants.first { $0["setting"] as? String == "resourceURL" }?["at"] as? [String: Any])
            #expect((at["file"] as? String)?.hasSuffix("scenarios/conformance/fixtures/ddm/landmarks/landmarks-config.plist") == true && at["line"] as? Int == 18, "\(at)")
            #expect(mutants.allSatisfy { $0["kind"] as? String == "declaration" && $0["value"] as? String == "(key removed)" })
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
