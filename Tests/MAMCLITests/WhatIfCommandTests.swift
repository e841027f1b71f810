import Foundation
import MAMTestSupport
import Testing

extension CLITests {
    /// `mamsim whatif` on the example tenant (examples/whatif: Microsoft's level 1–3 templates
    /// assigned as Graph exports them, managed-app filters, groups, conditional access, app
    /// configuration) for five personas, as an admin runs it: through a pipe, in each format,
    /// and as the gate on a pull request.
    @Suite struct WhatIfCommandTests {
        static let example = "examples/whatif/"

        @Test func eachPersonaGetsItsPolicyWithWhy() async throws {
            let r = try await CLI.run(["whatif", CLI.repo(Self.example + "before").path, "--personas", CLI.repo(Self.example + "personas.yaml").path])
            #expect(r.status == 0, "\(r)")
            let out = r.stdout
            // BYOD sales: level 2 through the Sales group and the unmanaged-device filter.
            #expect(out.contains("BYOD sales: adele.vance@contoso.com, groups [Sales], unenrolled iOS 17.5 iPhone15,2"))
            #expect(out.contains("applies: \"iOS/iPadOS Enterprise Enhanced Data Protection v1.5\" — assigned: group \"Sales\", include filter \"iOS apps on unmanaged devices\" matches (app.deviceManagementType \"Unmanaged\" -eq \"Unmanaged\")"))
            // Conditional access by group: the SDK app without a policy must remediate; the app without the SDK cannot.
            #expect(out.contains("protection-policy-required — conditional access policy \"Require app protection policy for Sales on iOS\" requires compliantApplication for adele.vance@contoso.com; com.contoso.expenses is not compliant"))
            #expect(out.contains("app-protection-unsupported — conditional access policy \"Require app protection policy for Sales on iOS\" requires compliantApplication for adele.vance@contoso.com, and com.apple.mobilenotes does not declare the protapp client capability"))
            #expect(out.contains("report-only \"Pilot: require app protection for everyone\": report-only: would require compliantApplication"))
            // Enrolled through ADE: level 1 by the deprecated `Managed` value of the filter.
            #expect(out.contains("applies: \"iOS/iPadOS Enterprise Basic Data Protection v1.2\" — assigned: all licensed users, include filter \"iOS apps on enrolled devices\" matches (app.deviceManagementType \"Automated Device Enrollment user-associated devices\" -eq \"Managed\")"))
            // The contractor is excluded; Sales and Executives together conflict.
            #expect(out.contains("no: \"iOS/iPadOS Enterprise Enhanced Data Protection v1.5\" — excluded by group \"Contractors\""))
            #expect(out.contains("app protection: CONFLICT between \"iOS/iPadOS Enterprise Enhanced Data Protection v1.5\" and \"iOS/iPadOS Enterprise High Data Protection v1.5\""))
            #expect(out.contains("apps under a CONFLICT. Microsoft Learn (device-profile-troubleshoot"))
            #expect(out.contains("app config: com.microsoft.outlook.EmailProfile.AccountType=ModernAuth"))
            // What the persona does not say is never judged as if it matched: the policy depends on it,
            // and the token says whether that changes the answer (issue 98, item 1).
            #expect(out.contains("depends: \"Risky sign-ins outside trusted locations need app protection\" — depends on whether the sign-in comes from outside a trusted location (say location:, country: or ipAddress:) and sign-in risk is high or medium: then it requires compliantApplication; session: sign-in frequency: every 4 hours"))
            #expect(out.contains("not known: whether the sign-in comes from outside a trusted location (say location:, country: or ipAddress:) and sign-in risk is high or medium (\"Risky sign-ins outside trusted locations need app protection\") — the answer is the same either way"))
            #expect(!r.stderr.contains("conditions.locations is not simulated") && !out.contains("as if matched"))
            // The device filter of another platform is skipped, said on standard error.
            #expect(r.stderr.contains("skipped \(CLI.repo(Self.example + "before/filters.json").path), object 3 (\"Windows 11 devices\"): a filter for managed devices"))
        }

        /// A link in an export folder pointing outside it is refused, naming the link (security
        /// issue 83); the same file copied in is read (the control).
        @Test func aLinkOutOfTheExportFolderIsRefused() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-whatif-link")
            defer { dir.remove() }
            let outside = try dir.write("outside/secret.json", "{\"@odata.type\": \"#microsoft.graph.iosManagedAppProtection\", \"id\": \"p1\", \"displayName\": \"P\"}")
            let tenant = dir.url.appendingPathComponent("tenant")
            try FileManager.default.createDirectory(at: tenant, withIntermediateDirectories: true)
            let personas = CLI.repo(Self.example + "personas.yaml").path
            try FileManager.default.copyItem(at: outside, to: tenant.appendingPathComponent("copied.json"))
            let control = try await CLI.run(["whatif", tenant.path, "--personas", personas])
            #expect(control.status == 0, "\(control)")
            try FileManager.default.createSymbolicLink(atPath: tenant.appendingPathComponent("policies.json").path, withDestinationPath: outside.path)
            let linked = try await CLI.run(["whatif", tenant.path, "--personas", personas])
            #expect(linked.status == 2 && linked.stderr.contains("\(tenant.path)/policies.json is a link to") && linked.stderr.contains("outside \(tenant.path)"), "\(linked)")
        }

        /// Issue 98, item 6: an export What If has nothing to answer from (a compliance export) is
        /// bad input, exit 2, naming what it found — never "every app is unprotected" and a green gate.
        @Test func anExportWithoutAppProtectionOrConditionalAccessIsRefused() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-whatif-compliance")
            defer { dir.remove() }
            _ = try dir.write("compliance/ios.json", "{\"@odata.type\": \"#microsoft.graph.iosCompliancePolicy\", \"id\": \"c1\", \"displayName\": \"iOS compliance\", \"passcodeRequired\": true}")
            let personas = CLI.repo(Self.example + "personas.yaml").path
            let folder = dir.url.appendingPathComponent("compliance").path
            let r = try await CLI.run(["whatif", folder, "--personas", personas])
            #expect(r.status == 2 && r.stderr.contains("no iosManagedAppProtection and no conditionalAccessPolicy among 1 file")
                    && r.stderr.lowercased().contains("#microsoft.graph.ioscompliancepolicy is not read by whatif"), "\(r)")
            let diff = try await CLI.run(["whatif", "--diff", folder, folder, "--personas", personas])
            #expect(diff.status == 2, "\(diff)")
        }

        /// The answers an admin must never get wrong (issue 85, item 1): a `block` grant blocks,
        /// `compliantDevice` is not met by an unenrolled phone, nor by an enrolled one whose
        /// compliance the persona does not state (said so), and MFA is named as what the user
        /// does. Before, each of these read "token allowed — satisfied".
        @Test func blockAndDeviceComplianceAreNeverSatisfiedSilently() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-whatif-grants")
            defer { dir.remove() }
            func ca(_ name: String, _ controls: String, _ resource: String) -> String {
                """
                {"@odata.type": "#microsoft.graph.conditionalAccessPolicy", "displayName": "\(name)", "state": "enabled",
                 "conditions": {"users": {"includeUsers": ["All"]}, "applications": {"includeApplications": ["\(resource)"]},
                                "clientAppTypes": ["all"]},
                 "grantControls": {"operator": "OR", "builtInControls": [\(controls)]}}
                """
            }
            _ = try dir.write("tenant/ca.json", "{\"value\": [" + [
                ca("Block SharePoint", "\"block\"", "00000003-0000-0ff1-ce00-000000000000"),
                ca("Compliant devices for Exchange", "\"compliantDevice\"", "00000002-0000-0ff1-ce00-000000000000"),
                ca("MFA for Teams", "\"mfa\"", "cc15fd57-2c6c-4117-a88c-83b1d56b4bbe"),
            ].joined(separator: ",") + "]}")
            func personas(_ resource: String) throws -> URL {
                try dir.write("personas-\(resource).yaml", """
                    apps: [com.microsoft.Office.Outlook]
                    resource: \(resource)
                    personas:
                      - {name: Unenrolled, user: adele@contoso.com, device: {mdmEnrolled: false}}
                      - {name: Enrolled unknown, user: megan@contoso.com, device: {mdmEnrolled: true}}
                      - {name: Enrolled compliant, user: lee@contoso.com, device: {mdmEnrolled: true, compliant: true}}
                    """)
            }
            func json(_ resource: String) async throws -> [String: String] {
                let r = try await CLI.run(["whatif", dir.path("tenant"), "--personas", try personas(resource).path, "--format", "json"])
                #expect(r.status == 0, "\(r)")
                let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
                var out: [String: String] = [:]
                for p in root["personas"] as? [[String: Any]] ?? [] {
                    let ca = ((p["apps"] as? [[String: Any]])?.first?["conditionalAccess"] as? [String: Any]) ?? [:]
                    out[p["name"] as? String ?? ""] = "\(ca["token"] ?? "-") \(ca["reason"] ?? "") \(ca["explanation"] ?? "")"
                }
                return out
            }
            let sharepoint = try await json("00000003-0000-0ff1-ce00-000000000000")
            #expect(sharepoint.values.allSatisfy { $0.contains("access-blocked") && $0.contains("blocks access") }, "\(sharepoint)")
            let exchange = try await json("00000002-0000-0ff1-ce00-000000000000")
            #expect(exchange["Unenrolled"]?.contains("not enrolled in Intune") == true, "\(exchange)")
            // Compliance not stated: the token depends on it, a value of its own (issue 98, item 1).
            #expect(exchange["Enrolled unknown"]?.hasPrefix("depends") == true && exchange["Enrolled unknown"]?.contains("if the device is compliant (say device.compliant): allowed") == true, "\(exchange)")
            #expect(exchange["Enrolled compliant"]?.hasPrefix("allowed") == true, "\(exchange)")
            let teams = try await json("cc15fd57-2c6c-4117-a88c-83b1d56b4bbe")
            #expect(teams.values.allSatisfy { $0.hasPrefix("allowed") && $0.contains("after MFA") && !$0.contains("satisfied") }, "\(teams)")
        }

        @Test func jsonIsShapedLikeGraphsWhatIf() async throws {
            let r = try await CLI.run(["whatif", CLI.repo(Self.example + "before").path, "--personas", CLI.repo(Self.example + "personas.yaml").path, "--format", "json"])
            #expect(r.status == 0, "\(r.stderr)")
            let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let personas = try #require(root["personas"] as? [[String: Any]])
            #expect(personas.map { $0["name"] as? String } == ["BYOD sales", "Corporate iPhone", "Contractor in Sales", "Sales executive", "Enrolled, type unknown", "Risky sign-in"])
            let outlook = try #require((personas[0]["apps"] as? [[String: Any]])?.first)
            let protection = try #require(outlook["appProtection"] as? [String: Any])
            #expect(protection["result"] as? String == "applied" && protection["policy"] as? String == "iOS/iPadOS Enterprise Enhanced Data Protection v1.5")
            let value = try #require(protection["value"] as? [[String: Any]])
            #expect(value.map { $0["policyApplies"] as? Bool } == [false, true, false])
            #expect(value.allSatisfy { $0["@odata.type"] as? String == "#microsoft.graph.iosManagedAppProtection" && $0["analysisReasons"] is String })
            let ca = try #require(outlook["conditionalAccess"] as? [String: Any])
            #expect(ca["token"] as? String == "allowed")
            let conflict = try #require(((personas[3]["apps"] as? [[String: Any]])?.first?["appProtection"]) as? [String: Any])
            #expect(conflict["result"] as? String == "conflict" && (conflict["rule"] as? String)?.contains("most restrictive") == true)
            let html = try await CLI.run(["whatif", CLI.repo(Self.example + "before").path, "--personas", CLI.repo(Self.example + "personas.yaml").path, "--format", "html"])
            #expect(html.status == 0 && html.stdout.contains("<td>BYOD sales</td><td>com.microsoft.Office.Outlook</td>"), "\(html.stderr)")
        }

        /// Both JSON reports, an evaluation and a diff, carry their version and validate against
        /// schemas/whatif-report.schema.json; one that lacks the version, or answers a
        /// protection the schema does not know, does not.
        @Test func bothJSONReportsValidateAgainstTheirSchema() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-whatif-schema")
            defer { tmp.remove() }
            let personas = ["--personas", CLI.repo(Self.example + "personas.yaml").path, "--format", "json", "-o"]
            let one = try await CLI.run(["whatif", CLI.repo(Self.example + "before").path] + personas + [tmp.path("evaluation.json")])
            #expect(one.status == 0, "\(one)")
            let diff = try await CLI.run(["whatif", "--diff", CLI.repo(Self.example + "before").path, CLI.repo(Self.example + "after").path] + personas + [tmp.path("diff.json")])
            #expect(diff.status == 0, "\(diff)")
            for name in ["evaluation.json", "diff.json"] {
                let problems = try ReportValidator.jsonProblems(tmp.path(name), schema: "whatif-report.schema.json")
                #expect(problems == nil, "\(name): \(problems ?? "")")
                let text = try String(contentsOfFile: tmp.path(name), encoding: .utf8)
                #expect(text.hasPrefix("{\"schemaVersion\":1,"), "\(name)")
            }
            // The schema is not one that takes anything: a protection result it does not know fails.
            let evaluation = try String(contentsOfFile: tmp.path("evaluation.json"), encoding: .utf8)
            try evaluation.replacingOccurrences(of: "\"result\":\"applied\"", with: "\"result\":\"as if matched\"")
                .write(toFile: tmp.path("bad.json"), atomically: true, encoding: .utf8)
            #expect(try ReportValidator.jsonProblems(tmp.path("bad.json"), schema: "whatif-report.schema.json") != nil)
        }

        /// Exports nobody here wrote — Microsoft's three framework templates (no assignments) and
        /// Microsoft365DSC's own examples of the resource — give JSON the schema takes, a persona
        /// on another platform (not evaluated) among them.
        @Test func exportsWrittenElsewhereGiveJSONTheSchemaTakes() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-whatif-schema-real")
            defer { tmp.remove() }
            let personas = try tmp.write("personas.yaml", """
                apps: [com.microsoft.Office.Outlook, {bundle: com.contoso.crm, version: "2.1", sdk: true}]
                personas:
                  - {name: iPhone, user: adele@contoso.com, groups: [Sales], device: {mdmEnrolled: false, osVersion: "17.4", model: "iPhone15,2"}}
                  - {name: Android, user: megan@contoso.com, device: {platform: android, osVersion: "14"}}
                """)
            for (name, inputs) in [("icf", [CLI.repo("Tests/Fixtures/shared/fixtures/policies").path]),
                                   ("dsc", [CLI.repo("Tests/Fixtures/whatif-exports/m365dsc-examples").path])] {
                let r = try await CLI.run(["whatif"] + inputs + ["--personas", personas.path, "--format", "json", "-o", tmp.path("\(name).json")])
                #expect(r.status == 0, "\(name): \(r)")
                let problems = try ReportValidator.jsonProblems(tmp.path("\(name).json"), schema: "whatif-report.schema.json")
                #expect(problems == nil, "\(name): \(problems ?? "")")
            }
        }

        /// The gate: the change under review (examples/whatif/after: level 2 sends org data to all
        /// apps, the Contractors exclusion dropped) opens data paths, and `--fail-on` fails the run
        /// naming the cells and the settings that opened them.
        @Test func theGateFailsAChangeThatOpensADataPath() async throws {
            let args = ["whatif", "--diff", CLI.repo(Self.example + "before").path, CLI.repo(Self.example + "after").path,
                        "--personas", CLI.repo(Self.example + "personas.yaml").path]
            let r = try await CLI.run(args + ["--fail-on", "blocked->delivered"])
            #expect(r.status == 1, "\(r)")
            #expect(r.stdout.contains("6 personas: 110 cells change, 39 of kinds --fail-on names (blocked->delivered)"), "\(r.stdout.prefix(400))")
            #expect(r.stdout.contains("FAIL blocked->delivered  BYOD sales / com.microsoft.Office.Outlook / transfers → com.apple.mobilenotes as personal: outbound-policy → allowed  [assignments; allowedOutboundDataTransferDestinations]"))
            #expect(r.stdout.contains("     unprotected->protected  Contractor in Sales / com.microsoft.Office.Outlook / app protection: none → \"iOS/iPadOS Enterprise Enhanced Data Protection v1.5\""))
            #expect(r.stderr.contains("error: 39 changes of kinds --fail-on names"))
            // Without --fail-on it reports and passes; the same sets compared to themselves change nothing.
            #expect(try await CLI.run(args).status == 0)
            let same = try await CLI.run(["whatif", "--diff", CLI.repo(Self.example + "before").path, CLI.repo(Self.example + "before").path,
                                          "--personas", CLI.repo(Self.example + "personas.yaml").path, "--fail-on", "any", "--format", "json"])
            #expect(same.status == 0, "\(same)")
            let root = try #require(try JSONSerialization.jsonObject(with: Data(same.stdout.utf8)) as? [String: Any])
            #expect((root["changes"] as? [Any])?.isEmpty == true && root["failed"] as? Bool == false)
        }

        /// Personas alike in everything a decision reads share one evaluation, made for a stand-in
        /// user; each format reads it named for each persona, and no stand-in reaches an output
        /// (issue 88, item 4: no placeholder a renderer must replace).
        @Test func personasOfOneShapeAreEachNamedInEveryFormat() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-whatif-shape")
            defer { dir.remove() }
            let tenant = dir.url.appendingPathComponent("tenant")
            try FileManager.default.copyItem(at: CLI.repo(Self.example + "before"), to: tenant)
            var config = try String(contentsOf: tenant.appendingPathComponent("app-config.json"), encoding: .utf8)
            config = config.replacingOccurrences(of: "\"value\": \"ModernAuth\"", with: "\"value\": \"{{userprincipalname}} {{partialupn}} {{userid}}\"")
            try config.write(to: tenant.appendingPathComponent("app-config.json"), atomically: true, encoding: .utf8)
            let people = [("One", "adele.vance@contoso.com", "oid-1"), ("Two", "alex.wilber@contoso.com", "oid-2"), ("Three", "lee.gu@contoso.com", "oid-3")]
            let personas = try dir.write("p.yaml", "apps: [com.microsoft.Office.Outlook, com.contoso.expenses, {bundle: com.apple.mobilenotes, sdk: false}]\npersonas:\n"
                + people.map { "  - {name: \($0.0), user: \($0.1), oid: \($0.2), groups: [Sales], device: {mdmEnrolled: false, osVersion: \"17.5\"}}\n" }.joined())
            func clean(_ text: String) -> Bool { !text.utf8.contains { $0 == 1 || $0 == 2 } }
            // The table, a persona at a time: its own user in its cells, its configuration, its token.
            let table = try await CLI.run(["whatif", tenant.path, "--personas", personas.path])
            #expect(table.status == 0 && clean(table.stdout), "\(table)")
            let blocks = table.stdout.components(separatedBy: "\n").reduce(into: [[String]]()) { b, line in
                if people.contains(where: { line.hasPrefix($0.0 + ":") }) { b.append([line]) } else if !b.isEmpty { b[b.count - 1].append(line) }
            }
            #expect(blocks.count == 3, "\(table.stdout.prefix(600))")
            for ((_, upn, oid), block) in zip(people, blocks) {
                let text = block.joined(separator: "\n")
                let local = String(upn.split(separator: "@")[0])
                #expect(text.contains("com.microsoft.outlook.EmailProfile.AccountType=\(upn) \(local) \(oid)"), "\(text)")
                #expect(text.contains("requires compliantApplication for \(upn)") && text.contains("com.contoso.expenses as \(upn)"), "\(text)")
                #expect(!people.contains { $0.1 != upn && text.contains($0.1) }, "another persona's user in \(upn)'s lines: \(text)")
            }
            // JSON and HTML the same way.
            let json = try await CLI.run(["whatif", tenant.path, "--personas", personas.path, "--format", "json"])
            #expect(json.status == 0 && clean(json.stdout), "\(json.stderr)")
            let root = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let objects = try #require(root["personas"] as? [[String: Any]])
            for ((_, upn, oid), object) in zip(people, objects) {
                let text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
                #expect(text.contains("\(upn) \(upn.split(separator: "@")[0]) \(oid)") && !people.contains { $0.1 != upn && text.contains($0.1) }, "\(text.prefix(400))")
            }
            let html = try await CLI.run(["whatif", tenant.path, "--personas", personas.path, "--format", "html"])
            #expect(html.status == 0 && clean(html.stdout) && people.allSatisfy { html.stdout.contains("requires compliantApplication for \($0.1)") }, "\(html.stderr)")
            // The change between two policy sets names each persona's cells too.
            let diff = try await CLI.run(["whatif", "--diff", tenant.path, CLI.repo(Self.example + "after").path, "--personas", personas.path, "--format", "json"])
            #expect(diff.status == 0 && clean(diff.stdout), "\(diff)")
            #expect(people.allSatisfy { diff.stdout.contains("transfers → com.contoso.expenses as \($0.1)") }, "\(diff.stdout.prefix(600))")
        }

        @Test func badInputIsNamed() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-whatif")
            defer { dir.remove() }
            let personas = try dir.write("p.yaml", "personas:\n  - name: a\n    user: a@contoso.com\n    groups: Sales\n    device: {mdmEnroled: true}\n")
            let r = try await CLI.run(["whatif", CLI.repo(Self.example + "before").path, "--personas", personas.path])
            #expect(r.status == 2)
            #expect(r.stderr.contains("p.yaml:4:") && r.stderr.contains("groups must be a list"), "\(r.stderr)")
            #expect(r.stderr.contains("unknown key \"mdmEnroled\" in device; did you mean \"mdmEnrolled\"?"), "\(r.stderr)")
            let filter = try dir.write("f.json", ##"{"@odata.type": "#microsoft.graph.deviceAndAppManagementAssignmentFilter", "id": "x", "displayName": "Typo", "platform": "iOSMobileApplicationManagement", "rule": "(app.appVersion -gt \"1.0\")"}"##)
            let f = try await CLI.run(["whatif", filter.path, "--personas", CLI.repo(Self.example + "personas.yaml").path])
            #expect(f.status == 2 && f.stderr.contains("filter \"Typo\" rule, column 17: app.appVersion takes -eq -ne -in -notIn -startsWith -contains -notContains, not -gt"), "\(f.stderr)")
            // A group no policy names and no groups export knows is a warning, not silence.
            let typo = try dir.write("typo.yaml", "personas:\n  - name: a\n    user: a@contoso.com\n    groups: [Salse]\n    apps: [com.contoso.mail]\n")
            let t = try await CLI.run(["whatif", CLI.repo(Self.example + "before").path, "--personas", typo.path])
            #expect(t.status == 0 && t.stderr.contains("typo.yaml:4: persona \"a\": group \"Salse\" is named by no policy and is in no groups export"), "\(t.stderr)")
            let attribute = try dir.write("attr.yaml", "personas:\n  - name: a\n    user: a@contoso.com\n    apps: [com.contoso.mail]\n    device: {attributes: {extensionAttribute16: x}, trustType: Joined}\n")
            let a = try await CLI.run(["whatif", CLI.repo(Self.example + "before").path, "--personas", attribute.path])
            #expect(a.status == 2 && a.stderr.contains("attr.yaml:5:") && a.stderr.contains("extensionAttribute16")
                    && a.stderr.contains("trustType \"Joined\" is not one Entra records"), "\(a.stderr)")
            let gate = try await CLI.run(["whatif", "--diff", filter.path, "--personas", personas.path])
            #expect(gate.status != 0 && gate.stderr.contains("--diff compares two policy sets"), "\(gate.stderr)")
        }
    }
}

extension CLITests.WhatIfCommandTests {
    /// A filter for devices judged on what each persona says of its device (issue 85, item 3):
    /// Learn's "block admins except from a SAW" lets the SAW through, blocks a phone without the
    /// attribute and an unregistered one, and each answer says which way the filter went.
    @Test func aDeviceFilterIsJudgedOnThePersonasDevice() async throws {
        let dir = try TemporaryDirectory(prefix: "mamsim-whatif-devfilter")
        defer { dir.remove() }
        let ca = try dir.write("ca.json", ##"{"value": [{"displayName": "Block off SAW", "state": "enabled", "conditions": {"users": {"includeUsers": ["All"]}, "applications": {"includeApplications": ["All"]}, "clientAppTypes": ["all"], "devices": {"deviceFilter": {"mode": "exclude", "rule": "device.extensionAttribute1 -eq \"SAW\""}}}, "grantControls": {"operator": "OR", "builtInControls": ["block"]}}]}"##)
        let personas = try dir.write("p.yaml", """
        apps: [com.contoso.mail]
        personas:
          - {name: saw, user: a@contoso.com, device: {mdmEnrolled: true, compliant: true, attributes: {extensionAttribute1: SAW}}}
          - {name: phone, user: b@contoso.com, device: {mdmEnrolled: true, compliant: true}}
          - {name: byod, user: c@contoso.com, device: {mdmEnrolled: false}}

        """)
        let r = try await CLI.run(["whatif", ca.path, "--personas", personas.path, "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        var tokens: [String: String] = [:]
        for p in root["personas"] as? [[String: Any]] ?? [] {
            let app = (p["apps"] as? [[String: Any]])?.first
            let ca = app?["conditionalAccess"] as? [String: Any]
            tokens[p["name"] as? String ?? ""] = "\(ca?["token"] ?? "") \(ca?["reason"] ?? "")"
        }
        #expect(tokens["saw"]?.contains("allowed") == true && tokens["saw"]?.contains("no conditional access policy applies") == true, "\(tokens)")
        #expect(tokens["phone"]?.hasPrefix("access-blocked") == true && tokens["byod"]?.hasPrefix("access-blocked") == true, "\(tokens)")
        let table = try await CLI.run(["whatif", ca.path, "--personas", personas.path])
        #expect(table.stdout.contains("leaves the device out: filter for devices (exclude mode"), "\(table.stdout)")
    }

    /// The level 2 policy of the example tenant as each backup tool writes it (built from the
    /// tools' code, Tests/Fixtures/whatif-exports/README.md): IntuneCD (group and filter by name,
    /// no ids), IntuneBackupAndRestore (UTF-16, assignments in a file of their own, no filters)
    /// and Microsoft365DSC (a .ps1 configuration) — each gives every persona and app the outcome
    /// the Graph export gives.
    @Test func everyBackupToolsLayoutReadsAsTheGraphExport() async throws {
        let dir = try TemporaryDirectory(prefix: "mamsim-whatif-exports")
        defer { dir.remove() }
        var doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: CLI.repo(Self.example + "before/app-protection.json"))) as? [String: Any])
        doc["value"] = (doc["value"] as? [Any]).map { [$0[1]] }
        let graph = try dir.write("graph/app-protection.json", String(decoding: try JSONSerialization.data(withJSONObject: doc), as: UTF8.self))
        let filters = CLI.repo(Self.example + "before/filters.json").path, groups = CLI.repo(Self.example + "before/groups.json").path
        let personas = CLI.repo(Self.example + "personas.yaml").path
        func outcomes(_ inputs: [String]) async throws -> [String] {
            let r = try await CLI.run(["whatif"] + inputs + ["--personas", personas, "--format", "json"])
            #expect(r.status == 0, "\(inputs): \(r.stderr)")
            let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            return (root["personas"] as? [[String: Any]] ?? []).flatMap { p in
                (p["apps"] as? [[String: Any]] ?? []).map { a in
                    let protection = a["appProtection"] as? [String: Any]
                    return "\(p["name"]!) / \(a["app"]!): \(protection?["result"] ?? "") \(protection?["policy"] ?? "")"
                }
            }
        }
        let expected = try await outcomes([graph.deletingLastPathComponent().path, filters, groups])
        #expect(expected.filter { $0.hasSuffix("applied iOS/iPadOS Enterprise Enhanced Data Protection v1.5") }.count == 6, "\(expected)")
        let exports = "Tests/Fixtures/whatif-exports/"
        #expect(try await outcomes([CLI.repo(exports + "intunecd").path]) == expected)
        #expect(try await outcomes([CLI.repo(exports + "intunebackupandrestore").path, filters, groups]) == expected)
        #expect(try await outcomes([CLI.repo(exports + "m365dsc").path, groups]) == expected)
        // IntuneBackupAndRestore keeps no filters: without them the filtered assignment is undetermined, said so.
        let bare = try await CLI.run(["whatif", CLI.repo(exports + "intunebackupandrestore").path, groups, "--personas", personas])
        #expect(bare.stdout.contains("?: \"iOS/iPadOS Enterprise Enhanced Data Protection v1.5\" — group \"Sales\": filter 0b9a7c1e-5f2d-4e8a-b3c6-7d8e9f0a1b01 is not among the filters given"), "\(bare.stdout.prefix(600))")
    }
}
