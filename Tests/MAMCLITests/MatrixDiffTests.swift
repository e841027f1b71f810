import Foundation
import Testing

extension CLITests {
    /// `mamsim matrix --diff` on Graph policies targeting many apps (issue 46, finding 10):
    /// more cells change than `--max-cells`, so each group of cells that change alike is one
    /// entry with its count, and the counts are the cells a listing has.
    @Suite struct MatrixDiffTests {
        /// Microsoft's level 2 and level 3 templates, each targeting com.example.app1…N in
        /// Graph's `$expand=apps` form (what `scripts/matrix-diff-bench` generates).
        static func policies(targeting n: Int, in dir: TemporaryDirectory) throws -> (String, String) {
            let templates = "Tests/Fixtures/shared/fixtures/policies/"
            var paths: [String] = []
            for (name, template) in [("old", "icf-level-2-enterprise-enhanced-data-protection-iOS.json"), ("new", "icf-level-3-enterprise-high-data-protection-iOS.json")] {
                var doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: CLI.repo(templates + template))) as? [String: Any])
                doc["appGroupType"] = "selectedPublicApps"
                doc["apps"] = (1...n).map { i in
                    ["@odata.type": "#microsoft.graph.managedMobileApp", "id": "com.example.app\(i).ios", "version": "1",
                     "mobileAppIdentifier": ["@odata.type": "#microsoft.graph.iosMobileAppIdentifier", "bundleId": "com.example.app\(i)"]] as [String: Any]
                }
                let data = try JSONSerialization.data(withJSONObject: doc)
                paths.append(try dir.write("\(name)-\(n).json", String(decoding: data, as: UTF8.self)).path)
            }
            return (paths[0], paths[1])
        }

        /// 200 targeted apps: 162,200 cells change (each app's two unmanaged identities and the
        /// app without the SDK to every app as the work account, and what the policy decides
        /// in each app), in 17 groups.
        @Test func twoHundredAppsAreSummarisedByGroup() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-matrix-diff")
            defer { dir.remove() }
            let (old, new) = try Self.policies(targeting: 200, in: dir)
            let table = try await CLI.run(["matrix", "--diff", old, new], timeout: 60)
            #expect(table.status == 0, "\(table)")
            #expect(table.stdoutLines.first?.hasSuffix("on a default fleet: 162600 cells decide differently, in 17 groups.") == true, "\(table.stdout.prefix(300))")
            #expect(table.stdout.contains("162600 cells change, more than --max-cells 1000:"))
            #expect(table.stdout.contains("  A = 200 apps with the Intune SDK, policy-managed before and after: com.example.app1, com.example.app10, com.example.app100, com.example.app101, com.example.app102 and 195 more"))
            #expect(table.stdout.contains("  A (no account) → A (user@contoso.com): ok → inbound-policy  [allowedInboundDataTransferSources]  40000 cells\n      e.g. com.example.app1 (no account) → com.example.app1 (user@contoso.com): "), "\(table.stdout)")
            #expect(table.stdout.contains("  A (user@contoso.com) → camera: ok → open-location  [allowedDataIngestionLocations + blockDataIngestionIntoOrganizationDocuments]  200 cells"))
            #expect(table.stdoutLines.count < 70, "one line per group, not per cell: \(table.stdoutLines.count) lines")

            let json = try await CLI.run(["matrix", "--diff", old, new, "--format", "json"], timeout: 60)
            #expect(json.status == 0, "\(json)")
            let root = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(root["changes"] == nil && root["changedCells"] as? Int == 162_600 && root["maxCells"] as? Int == 1000)
            let appGroups = try #require(root["appGroups"] as? [[String: Any]])
            #expect(appGroups.map { $0["name"] as? String } == ["A", "com.example.notes"])
            #expect((appGroups[0]["apps"] as? [String])?.count == 200 && appGroups[1]["sdk"] as? Bool == false)
            let groups = try #require(root["groups"] as? [[String: Any]])
            #expect(groups.count == 17 && groups.reduce(0) { $0 + ($1["cells"] as? Int ?? 0) } == 162_600)
            let notes = try #require(groups.first { ($0["from"] as? [String: Any])?["apps"] as? String == "com.example.notes" && $0["grid"] as? String == "files" })
            #expect(notes["cells"] as? Int == 200 && (notes["to"] as? [String: Any])?["identity"] as? String == "user@contoso.com")
            #expect((notes["after"] as? [String: Any])?["reason"] as? String == "inbound-policy" && notes["settings"] as? [String] == ["allowedInboundDataTransferSources"])
            let example = try #require(notes["example"] as? [String: Any])
            #expect(example["from"] as? String == "com.example.notes (no account)" && ((example["after"] as? [String: Any])?["explanation"] as? String)?.contains("com.example.notes is not policy-managed") == true)

            let html = try await CLI.run(["matrix", "--diff", old, new, "--format", "html"], timeout: 60)
            #expect(html.status == 0 && html.stdout.contains("<h2>Groups of cells</h2>") && html.stdout.contains("<td>40000</td>"), "\(html.stderr)")
            let tooMany = try await CLI.run(["matrix", "--diff", old, new, "--max-cells", "50001"], timeout: 60)
            #expect(tooMany.status == 64 && tooMany.stderr.contains("--max-cells 50001: give 0 to 50000"), "\(tooMany)")
        }

        /// The groups of a diff hold the cells its listing has: on 12 apps (708 cells), the
        /// listing's cells by grid, decisions and settings are the groups' counts.
        @Test func groupsCountTheCellsTheListingHas() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-matrix-diff")
            defer { dir.remove() }
            let (old, new) = try Self.policies(targeting: 12, in: dir)
            let listed = try await CLI.run(["matrix", "--diff", old, new, "--format", "json"], timeout: 60)
            let grouped = try await CLI.run(["matrix", "--diff", old, new, "--format", "json", "--max-cells", "100"], timeout: 60)
            #expect(listed.status == 0 && grouped.status == 0, "\(listed)\n\(grouped)")
            let changes = try #require((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["changes"] as? [[String: Any]])
            let groups = try #require((try JSONSerialization.jsonObject(with: Data(grouped.stdout.utf8)) as? [String: Any])?["groups"] as? [[String: Any]])
            #expect(changes.count == 732)
            func key(_ d: [String: Any]) -> String {
                let after = d["after"] as? [String: Any]
                return "\(d["grid"] ?? "")|\(after?["reason"] ?? "ok")|\((d["settings"] as? [String])?.joined(separator: ",") ?? "")"
            }
            var fromListing: [String: Int] = [:], fromGroups: [String: Int] = [:]
            for c in changes { fromListing[key(c), default: 0] += 1 }
            for g in groups { fromGroups[key(g), default: 0] += g["cells"] as? Int ?? 0 }
            #expect(fromListing == fromGroups)
            // Each group's example is one of the listed cells, decided alike.
            for g in groups {
                let e = try #require(g["example"] as? [String: Any])
                let cell = changes.first { $0["grid"] as? String == g["grid"] as? String && $0["from"] as? String == e["from"] as? String && $0["to"] as? String == e["to"] as? String }
                for side in ["before", "after"] {
                    let (listed, shown) = (cell?[side] as? [String: Any], e[side] as? [String: Any])
                    #expect(listed?["explanation"] as? String == shown?["explanation"] as? String && listed?["reason"] as? String == shown?["reason"] as? String, "\(e)")
                }
            }
        }
    }
}

extension CLITests.MatrixDiffTests {
    /// `matrix --diff baseline:level-2 ours.json`: how far a policy is from Microsoft's level 2,
    /// cell by cell, with the settings that differ; an unknown level names the known ones.
    @Test func aPolicyIsComparedToABuiltInBaseline() async throws {
        let level3 = CLI.repo("Tests/Fixtures/shared/fixtures/policies/icf-level-3-enterprise-high-data-protection-iOS.json").path
        let r = try await CLI.run(["matrix", "--diff", "baseline:level-2", level3])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdoutLines.first?.hasPrefix("Changes from \"iOS/iPadOS Enterprise Enhanced Data Protection v1.5\" to \"iOS/iPadOS Enterprise High Data Protection v1.5\" on a default fleet: ") == true, "\(r.stdout.prefix(300))")
        #expect(r.stdout.contains("allowedInboundDataTransferSources: allApps → managedApps"))
        let same = try await CLI.run(["matrix", "--diff", "baseline:level-2", "baseline:level-2"])
        #expect(same.status == 0 && same.stdout.contains("0 cells decide differently"), "\(same)")
        let bad = try await CLI.run(["matrix", "--diff", "baseline:level-4", level3])
        #expect(bad.status == 2 && bad.stderr.contains("baseline:level-4: no such baseline; use baseline:level-1, baseline:level-2, baseline:level-3"), "\(bad.stderr)")
    }
}
