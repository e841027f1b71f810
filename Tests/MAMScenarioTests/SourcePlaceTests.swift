import Foundation
@testable import MAMScenario
import Testing

/// Where a policy's and an app configuration's settings are written (`SourcePlace`), which the
/// SARIF of `mamsim mutate` points at: inline in the scenario, or in a Graph document.
@Suite struct SourcePlaceTests {
    @Test func aGraphDocumentsMembersAndNamedKeysHaveTheirLines() {
        let policy = Array("""
            {
              "@odata.type": "#microsoft.graph.iosManagedAppProtection",
              "printBlocked" : true,
              "apps": [{"id": "x", "printBlocked": false}],
              "note": "a \\"quoted\\": value",
              "pinRequired":
                false
            }
            """.utf8)
        let lines = SourcePlace.memberLines(policy)
        #expect(lines["printBlocked"] == 3 && lines["apps"] == 4 && lines["id"] == 4 && lines["pinRequired"] == 6)
        #expect(lines["quoted"] == nil, "a string's inside is no member")
        let config = Array("""
            {"customSettings": [
              {"name": "region", "value": "north"},
              {"name" : "shift",
               "value": "night"}
            ]}
            """.utf8)
        #expect(SourcePlace.namedLines(config) == ["region": 2, "shift": 3])
    }

    @Test func aScenarioKeepsWhereEachPolicyAndConfigurationIsWritten() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-sourceplace-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("{\n  \"@odata.type\": \"#microsoft.graph.iosManagedAppProtection\",\n  \"displayName\": \"doc\",\n  \"printBlocked\": true\n}\n".utf8)
            .write(to: folder.appendingPathComponent("doc.json"))
        let file = folder.appendingPathComponent("s.yaml")
        try Data("""
            name: places
            accounts:
              - {upn: alice@contoso.com, policy: inline}
            policies:
              inline:
                printBlocked: false
                pinRequired: true
              fromFile: {file: doc.json}
            appConfigs:
              - name: c
                settings:
                  region: north
            apps:
              - {id: mail, bundle: com.contoso.mail}

            """.utf8).write(to: file)
        let s = try ScenarioLoader.load(file: file)
        let inline = try #require(s.policySources["inline"])
        #expect(inline.scenarioLine == 5 && inline.file == file && inline.lines["printBlocked"] == 6 && inline.lines["pinRequired"] == 7)
        #expect(inline.line(of: "saveAsBlocked", scenario: file) == 5, "a setting the policy does not write: its declaration")
        let document = try #require(s.policySources["fromFile"])
        #expect(document.scenarioLine == 8 && document.file.lastPathComponent == "doc.json" && document.line(of: "printBlocked", scenario: file) == 4)
        #expect(document.line(of: "saveAsBlocked", scenario: file) == 1)
        let config = try #require(s.appConfigSources["c"])
        #expect(config.scenarioLine == 10 && config.lines["region"] == 12)
    }
}
