import Foundation
import MAMTestSupport
import Testing

extension CLITests {
    /// `mamsim whatif` as an admin reads it when the personas do not say everything (issue 98):
    /// the table and JSON say "depends", name what it depends on, and a persona may say it.
    @Suite struct WhatIfUnknownsCommandTests {
        static let tenant = ##"""
            {"value": [
             {"@odata.type": "#microsoft.graph.conditionalAccessPolicy", "id": "ca-risk", "displayName": "Block high-risk sign-ins", "state": "enabled",
              "conditions": {"users": {"includeUsers": ["All"]}, "applications": {"includeApplications": ["All"]}, "signInRiskLevels": ["high"]},
              "grantControls": {"operator": "OR", "builtInControls": ["block"]}},
             {"@odata.type": "#microsoft.graph.conditionalAccessPolicy", "id": "ca-browsers", "displayName": "Block browsers", "state": "enabled",
              "conditions": {"users": {"includeUsers": ["All"]}, "applications": {"includeApplications": ["All"]}, "clientAppTypes": ["browser"]},
              "grantControls": {"operator": "OR", "builtInControls": ["block"]}},
             {"@odata.type": "#microsoft.graph.conditionalAccessPolicy", "id": "ca-pilot", "displayName": "Pilot MFA", "state": "enabledForReportingButNotEnforced",
              "conditions": {"users": {"includeUsers": ["All"]}, "applications": {"includeApplications": ["All"]}},
              "grantControls": {"operator": "OR", "builtInControls": ["mfa"]}}
            ]}
            """##

        @Test func theTokenDependsOnWhatThePersonaDoesNotSay() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-whatif-unknowns")
            defer { dir.remove() }
            _ = try dir.write("tenant/ca.json", Self.tenant)
            let personas = try dir.write("p.yaml", """
                apps: [com.microsoft.Office.Outlook, {bundle: com.apple.mobilesafari, sdk: false}]
                personas:
                  - {name: unsaid, user: adele@contoso.com}
                  - {name: calm, user: megan@contoso.com, signInRisk: low}
                  - {name: risky, user: lee@contoso.com, signInRisk: high}
                """)
            let table = try await CLI.run(["whatif", dir.path("tenant"), "--personas", personas.path])
            #expect(table.status == 0, "\(table)")
            #expect(table.stdout.contains("token (00000002-0000-0ff1-ce00-000000000000): depends — depends — if sign-in risk is high (\"Block high-risk sign-ins\"): access-blocked") == false)
            #expect(table.stdout.contains("token (00000002-0000-0ff1-ce00-000000000000): depends — if sign-in risk is high (\"Block high-risk sign-ins\"): access-blocked"), "\(table.stdout)")
            #expect(table.stdout.contains("depends: \"Block high-risk sign-ins\" — depends on whether sign-in risk is high: then it requires block"))
            #expect(!table.stdout.contains("as if matched"))
            let json = try await CLI.run(["whatif", dir.path("tenant"), "--personas", personas.path, "--format", "json"])
            let root = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let people = try #require(root["personas"] as? [[String: Any]])
            func ca(_ person: Int, _ app: Int) throws -> [String: Any] {
                try #require(((people[person]["apps"] as? [[String: Any]])?[app]["conditionalAccess"]) as? [String: Any])
            }
            let unsaid = try ca(0, 0)
            #expect(unsaid["token"] as? String == "depends")
            let cases = try #require(unsaid["cases"] as? [[String: Any]])
            #expect(cases.first?["if"] as? String == "sign-in risk is high (\"Block high-risk sign-ins\")" && cases.first?["token"] as? String == "access-blocked")
            #expect((unsaid["otherwise"] as? [String: Any])?["token"] as? String == "allowed")
            let values = try #require(unsaid["value"] as? [[String: Any]])
            #expect(values.map { $0["analysisReasons"] as? String } == ["notEnoughInformation,signInRisk", "clientApps", "notSet"], "\(values)")
            #expect(values[2]["state"] as? String == "enabledForReportingButNotEnforced" && values[2]["policyApplies"] as? Bool == true)
            #expect((values[0]["dependsOn"] as? [String]) == ["sign-in risk is high"])
            // Stated, it is judged: decided either way; Safari is a browser, blocked.
            #expect(try ca(1, 0)["token"] as? String == "allowed" && ca(2, 0)["token"] as? String == "access-blocked")
            #expect(try ca(1, 1)["token"] as? String == "access-blocked")
        }

        /// The persona's sign-in keys are checked at their line, all at once.
        @Test func aBadSignInValueIsNamedAtItsLine() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-whatif-badkeys")
            defer { dir.remove() }
            _ = try dir.write("tenant/ca.json", Self.tenant)
            let personas = try dir.write("p.yaml", """
                apps: [com.microsoft.Office.Outlook]
                personas:
                  - {name: a, user: a@contoso.com, insiderRisk: severe}
                  - {name: b, user: b@contoso.com, country: France, ipAddress: 300.1.2.3}
                  - {name: c, user: c@contoso.com, clientApp: app, userType: visitor, authenticationFlow: qr}
                """)
            let r = try await CLI.run(["whatif", dir.path("tenant"), "--personas", personas.path])
            #expect(r.status == 2, "\(r)")
            for said in ["p.yaml:3", "insiderRisk must be one of minor, moderate, elevated", "p.yaml:4", "country must be a two-letter ISO 3166 code",
                         "ipAddress \"300.1.2.3\" is not an IPv4 or IPv6 address", "p.yaml:5", "clientApp must be one of browser",
                         "userType must be one of member, guest", "authenticationFlow must be one of none, deviceCodeFlow, authenticationTransfer"] {
                #expect(r.stderr.contains(said), "\(said) — \(r.stderr)")
            }
        }

        /// An Android persona is not evaluated for app protection, with no model invented.
        @Test func anAndroidPersonaIsNotEvaluated() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-whatif-android")
            defer { dir.remove() }
            _ = try dir.write("tenant/ca.json", Self.tenant)
            _ = try dir.write("tenant/android.json", ##"{"@odata.type": "#microsoft.graph.androidManagedAppProtection", "id": "a1", "displayName": "Android baseline"}"##)
            let personas = try dir.write("p.yaml", """
                apps: [com.microsoft.Office.Outlook]
                personas:
                  - {name: pixel, user: a@contoso.com, signInRisk: low, device: {platform: android}}
                """)
            let r = try await CLI.run(["whatif", dir.path("tenant"), "--personas", personas.path])
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout.contains("pixel: a@contoso.com, groups [], unenrolled android 17.0 \n") || !r.stdout.contains("iPhone15,2"), "\(r.stdout)")
            #expect(r.stdout.contains("app protection: not evaluated — mamsim evaluates iOS/iPadOS app protection only") && r.stdout.contains("\"Android baseline\""), "\(r.stdout)")
            #expect(r.stdout.contains("share, paste, save, features: not evaluated") && !r.stdout.contains("share: "), "\(r.stdout)")
        }
    
        /// README's gate example and CLI.md's figures are what the program prints (issue 98, item 5):
        /// the README's quoted lines are the run's first lines, CLI.md names the same counts.
        @Test func theReadmesGateExampleIsWhatTheProgramPrints() async throws {
            let readme = try String(contentsOf: CLI.repo("README.md"), encoding: .utf8)
            let quoted = try #require(readme.components(separatedBy: "Its first lines:\n\n```\n").dropFirst().first?.components(separatedBy: "\n```").first)
            let r = try await CLI.run(["whatif", "--diff", "examples/whatif/before", "examples/whatif/after", "--personas", "examples/whatif/personas.yaml",
                                       "--fail-on", "blocked->delivered"], in: CLI.repo("."))
            #expect(r.status == 1, "\(r)")
            #expect(r.stdout.hasPrefix(quoted + "\n"), "README quotes:\n\(quoted)\nthe program prints:\n\(r.stdout.prefix(600))")
            let header = try #require(quoted.split(separator: "\n").first)
            let counts = header.split(separator: ":").last.map(String.init) ?? ""
            let cli = try String(contentsOf: CLI.repo("docs/CLI.md"), encoding: .utf8)
            let cells = counts.split(separator: " ").first.map(String.init) ?? "?"
            #expect(cli.contains("\(cells) cells change"), "CLI.md's figure differs from the run's: \(counts)")
        }
    }
}
