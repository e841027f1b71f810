import MAMModel
import Testing
@testable import MAMPolicy
@testable import MAMAdmin

/// Managed-app assignment filters (Microsoft Learn, "Device, app, and filter properties →
/// Managed app properties" and "Advanced rule editing"): the rule language parsed with errors
/// at their column, and evaluated against what an app reports — three-valued where the persona
/// does not say, or where Microsoft does not document the reading.
@Suite struct AssignmentFilterTests {
    static let byod = ManagedAppFacts(managementType: "Unmanaged", appVersion: "4.2430.0", operatingSystemVersion: "17.5", deviceModel: "iPhone15,2")
    static let ade = ManagedAppFacts(managementType: "Automated Device Enrollment user-associated devices", appVersion: "2.1", operatingSystemVersion: "16.7.2", deviceModel: "iPad13,4")

    static let table: [(rule: String, facts: ManagedAppFacts, matches: Bool?)] = [
        ("(app.deviceManagementType -eq \"Unmanaged\")", byod, true),
        ("(app.deviceManagementType -eq \"Unmanaged\")", ade, false),
        // `Managed` is deprecated and stands for every enrollment type.
        ("(app.deviceManagementType -eq \"Managed\")", ade, true),
        ("(app.deviceManagementType -ne \"Managed\")", byod, true),
        ("(app.deviceManagementType -eq \"Account Driven User Enrollment\")", ade, false),
        // Only "enrolled" known: a rule naming an enrollment type is undetermined.
        ("(app.deviceManagementType -eq \"Account Driven User Enrollment\")", ManagedAppFacts(managementType: "Managed"), nil),
        // Case-insensitive properties, operators and values; operators with or without a dash.
        ("(APP.DEVICEMANAGEMENTTYPE EQ \"unmanaged\")", byod, true),
        ("(app.appVersion -in [\"4.2430.0\",\"4.2431.0\"])", byod, true),
        ("(app.appVersion -notIn [\"4.2430.0\"])", byod, false),
        ("(app.appVersion -startsWith \"4.24\")", byod, true),
        ("(app.deviceModel -contains \"ipad\")", ade, true),
        ("(app.deviceModel -notContains \"iPad\")", byod, true),
        ("(app.deviceManufacturer -eq \"Apple\")", byod, true),
        // Versions compare segment by segment, unquoted as Microsoft's examples write them.
        ("(app.operatingSystemVersion -lt 17.0)", ade, true),
        ("(app.operatingSystemVersion -ge 17.4)", byod, true),
        ("(app.operatingSystemVersion -gt \"17.10\")", byod, false),
        // 17.5 against 17.5.0: -gt and -le agree whether missing segments count as 0 or not;
        // -ge and -lt do not, and Microsoft does not document which.
        ("(app.operatingSystemVersion -ge 17.5.0)", byod, nil),
        ("(app.operatingSystemVersion -gt 17.5.0)", byod, false),
        ("(app.operatingSystemVersion -le 17.5.0)", byod, true),
        ("(app.operatingSystemVersion -lt 17.5.0)", byod, nil),
        // and / or, nested parentheses; unknown facts decide only where the known ones do not.
        ("(app.deviceManagementType -eq \"Unmanaged\") and (app.appVersion -startsWith \"4.\")", byod, true),
        ("((app.deviceModel -startsWith \"iPad\") or (app.operatingSystemVersion -lt 17.0)) -and (app.deviceManufacturer -eq \"Apple\")", ade, true),
        ("(app.appVersion -eq \"1.0\") and (app.deviceModel -eq \"x\")", ManagedAppFacts(managementType: "Unmanaged", appVersion: "2.0"), false),
        ("(app.appVersion -eq \"2.0\") and (app.deviceModel -eq \"x\")", ManagedAppFacts(managementType: "Unmanaged", appVersion: "2.0"), nil),
        ("(app.appVersion -eq \"2.0\") or (app.deviceModel -eq \"x\")", ManagedAppFacts(managementType: "Unmanaged", appVersion: "2.0"), true),
        // Mixed and / or without parentheses: decided where both readings agree, else not.
        ("(app.appVersion -eq \"9\") and (app.deviceModel -eq \"iPhone15,2\") or (app.deviceManufacturer -eq \"Apple\")", byod, true),
        ("(app.deviceManufacturer -eq \"Apple\") or (app.deviceModel -eq \"iPhone15,2\") and (app.appVersion -eq \"9\")", byod, nil),
        ("(app.deviceModel -eq Null)", ManagedAppFacts(managementType: "Unmanaged"), true),
        ("(app.deviceModel -ne $Null)", byod, true),
    ]

    @Test(arguments: table.indices)
    func aRuleIsDecidedAsTheTableSays(_ i: Int) throws {
        let (text, facts, expected) = Self.table[i]
        let rule = try FilterRule.parse(text, source: "test")
        let result = rule.evaluate(facts)
        #expect(result.matches == expected, "\(text): \(result.reason)")
        #expect(!result.reason.isEmpty)
    }

    static let errors: [(rule: String, column: Int, says: String)] = [
        ("(device.osVersion -eq \"10\")", 2, "managed-device filters"),
        ("(app.osVersions -eq \"10\")", 2, "not a managed app property"),
        ("(app.deviceManagementType -in [\"Unmanaged\"])", 27, "takes -eq -ne, not -in"),
        ("(app.appVersion -gt \"1.0\")", 17, "not -gt"),
        ("(app.deviceManagementType -eq \"Android Enterprise\")", 31, "Android management type"),
        ("(app.deviceManagementType -eq \"Enrolled\")", 31, "not a management type"),
        ("(app.appVersion -eq \"1.0\"", 26, "not closed"),
        ("(app.appVersion -eq \"1.0)", 21, "quoted value is not closed"),
        ("(app.appVersion -in \"1.0\")", 21, "takes a list"),
        ("(app.appVersion -in [\"1.0\" \"2.0\"])", 28, "separate values with commas"),
        ("(app.operatingSystemVersion -gt 17.x)", 33, "not a version"),
        ("(app.appVersion -eq \"1\") (app.deviceModel -eq \"x\")", 26, "join conditions with and / or"),
        ("(app.appVersion -equal \"1\")", 17, "not an operator"),
        ("", 1, "where a condition should start"),
    ]

    @Test(arguments: errors.indices)
    func aBadRuleIsNamedAtItsColumn(_ i: Int) {
        let (text, column, says) = Self.errors[i]
        do {
            _ = try FilterRule.parse(text, source: "filters.json: filter \"x\" rule")
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.column == column, "\(text): \(error)")
            #expect(error.description.contains(says), "\(error)")
            #expect(error.description.hasPrefix("filters.json: filter \"x\" rule, column \(column): "))
        }
    }

    /// Parentheses nested past any real rule's depth (security issue 83, finding 5: 50,000 deep
    /// crashed whatif): the control reads at the bound, one deeper is an error at the
    /// parenthesis that goes too deep.
    @Test func parenthesesNestedTooDeepAreAnErrorNotACrash() throws {
        func rule(_ depth: Int) -> String {
            String(repeating: "(", count: depth) + "app.appVersion -eq \"1\"" + String(repeating: ")", count: depth)
        }
        let bound = FilterParser.maximumDepth
        _ = try FilterRule.parse(rule(bound), source: "f")
        for depth in [bound + 1, 50_000] {
            #expect { try FilterRule.parse(rule(depth), source: "filters.json: filter \"x\" rule") } throws: { error in
                let e = error as? FilterRuleError
                return e?.column == bound + 1 && e?.description.contains("nested more than \(bound) deep") == true
            }
        }
    }

    /// A Graph filter object: an iOS managed-app filter is read; a device filter or another
    /// platform's is skipped with why; a bad rule stops the import, naming file, filter, column.
    @Test func graphFilterObjectsAreReadOrSkippedWithWhy() throws {
        var policies = WhatIfPolicies()
        let doc = """
            {"value": [
              {"@odata.type": "#microsoft.graph.deviceAndAppManagementAssignmentFilter", "id": "F1", "displayName": "BYOD",
               "platform": "iOSMobileApplicationManagement", "rule": "(app.deviceManagementType -eq \\"Unmanaged\\")", "assignmentFilterManagementType": "apps"},
              {"@odata.type": "#microsoft.graph.deviceAndAppManagementAssignmentFilter", "id": "F2", "displayName": "Win",
               "platform": "windows10AndLater", "rule": "(device.osVersion -startsWith \\"10\\")", "assignmentFilterManagementType": "devices"},
              {"id": "F3", "displayName": "Android apps", "platform": "androidMobileApplicationManagement", "rule": "(app.deviceManagementType -eq \\"Unmanaged\\")"}
            ]}
            """
        let (_, skipped) = try policies.add(document: Array(doc.utf8), source: "filters.json")
        #expect(policies.filters.keys.sorted() == ["f1"])
        #expect(skipped.count == 2 && skipped[0].contains("managed devices") && skipped[1].contains("androidMobileApplicationManagement"), "\(skipped)")
        let bad = ##"{"@odata.type": "#microsoft.graph.deviceAndAppManagementAssignmentFilter", "id": "F4", "displayName": "Typo", "platform": "iOSMobileApplicationManagement", "rule": "(app.appVersion -eq 1.0) and (app.deviceModell -eq \"x\")"}"##
        #expect {
            try policies.add(document: Array(bad.utf8), source: "typo.json")
        } throws: { error in
            "\(error)".contains("typo.json: filter \"Typo\" rule, column 31: \"app.deviceModell\" is not a managed app property")
        }
    }
}
