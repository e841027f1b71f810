import MAMModel
import MAMPolicy
import Testing

@Suite("Graph JSON import")
struct GraphImportTests {
    func importText(_ text: String, source: String = "test.json") throws -> PolicyImportResult {
        try GraphPolicyImporter.importPolicies(Array(text.utf8), source: source)
    }

    @Test(arguments: ["icf-level-1-enterprise-basic-data-protection-iOS.json",
                      "icf-level-2-enterprise-enhanced-data-protection-iOS.json",
                      "icf-level-3-enterprise-high-data-protection-iOS.json"])
    func frameworkLevelFilesImportWithoutErrorOrWarning(_ name: String) throws {
        let result = try GraphPolicyImporter.importPolicies(Fixtures.bytes(name), source: name)
        #expect(result.policies.count == 1)
        #expect(result.skipped.isEmpty)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        #expect(result.policies[0].displayName.hasPrefix("iOS/iPadOS Enterprise"))
    }

    @Test func betaCreateRequestImportsWithPlaceholderVersionsAsWarnings() throws {
        let name = "graphdocs-beta-iosManagedAppProtection-create-request.json"
        let result = try GraphPolicyImporter.importPolicies(Fixtures.bytes(name), source: name)
        let p = try #require(result.policies.first)
        #expect(p.allowedOutboundDataTransferDestinations == .managedApps)
        #expect(p.allowedOutboundClipboardSharingLevel == .managedAppsWithPasteIn)
        #expect(p.allowedOutboundClipboardSharingExceptionLength == 14)
        #expect(p.exemptedAppProtocols == [KeyValuePair(name: "Name value", value: "Value value")])
        #expect(p.periodOfflineBeforeAccessCheck.seconds < 0)
        #expect(p.minimumRequiredOsVersion == nil)
        #expect(p.protectInboundDataFromUnknownSources)
        #expect(result.warnings.contains { $0.property == "minimumRequiredOsVersion" && $0.message.contains("not a version number") })
        #expect(!result.warnings.contains { $0.message.contains("unknown property") }, "every beta property is known: \(result.warnings)")
    }

    @Test func getResponseWrappedInValueImports() throws {
        let name = "graphdocs-v1.0-iosManagedAppProtection-get-response.json"
        let result = try GraphPolicyImporter.importPolicies(Fixtures.bytes(name), source: name)
        let p = try #require(result.policies.first)
        #expect(p.id == "5bc789cb-89cb-5bc7-cb89-c75bcb89c75b")
        #expect(p.allowedDataStorageLocations == [.sharePoint])
        #expect(p.appDataEncryptionType == .afterDeviceRestart)
    }

    @Test func appConfigurationDocumentIsSkippedNotImported() throws {
        let name = "graphdocs-v1.0-targetedManagedAppConfiguration-create-request.json"
        let result = try GraphPolicyImporter.importPolicies(Fixtures.bytes(name), source: name)
        #expect(result.policies.isEmpty)
        #expect(result.skipped.map(\.odataType) == ["#microsoft.graph.targetedManagedAppConfiguration"])
    }

    @Test func utf16LittleEndianWithBOMAndCRLFImportsLikeUTF8() throws {
        let name = "icf-level-2-enterprise-enhanced-data-protection-iOS.json"
        let utf8 = try Fixtures.bytes(name)
        let text = String(decoding: utf8, as: UTF8.self)
        let converted = utf16LEWithBOMAndCRLF(text)
        #expect(converted.count > 2 * utf8.count)
        let a = try GraphPolicyImporter.importPolicies(utf8, source: name)
        let b = try GraphPolicyImporter.importPolicies(converted, source: name + " (UTF-16LE)")
        #expect(a.policies == b.policies)
        #expect(b.policies.first?.allowedOutboundDataTransferDestinations == .managedApps)
    }

    @Test func utf16BigEndianWithBOMImports() throws {
        var bytes: [UInt8] = [0xFE, 0xFF]
        for unit in #"{"displayName": "Été", "printBlocked": true}"#.utf16 { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        let p = try #require(GraphPolicyImporter.importPolicies(bytes, source: "be.json").policies.first)
        #expect(p.displayName == "Été")
        #expect(p.printBlocked)
    }

    @Test func valueCollectionKeepsIOSPoliciesAndReportsSkippedObjects() throws {
        let result = try importText("""
        {"@odata.context": "https://graph.microsoft.com/beta/$metadata#deviceAppManagement/managedAppPolicies",
         "value": [
          {"@odata.type": "#microsoft.graph.androidManagedAppProtection", "displayName": "Android strict", "screenCaptureBlocked": true},
          {"@odata.type": "#microsoft.graph.iosManagedAppProtection", "displayName": "iOS strict", "printBlocked": true},
          {"@odata.type": "#microsoft.graph.targetedManagedAppConfiguration", "displayName": "Config"}
         ]}
        """)
        #expect(result.policies.map(\.displayName) == ["iOS strict"])
        #expect(result.skipped.map(\.index) == [0, 2])
        #expect(result.skipped[0].odataType == "#microsoft.graph.androidManagedAppProtection")
        #expect(result.skipped[0].description.contains("\"Android strict\" skipped"))
    }

    @Test func unknownPropertyIsAWarningNamingIt() throws {
        let result = try importText(#"{"displayName": "x", "saveAsBlockd": true}"#, source: "typo.json")
        #expect(result.policies.count == 1)
        let w = try #require(result.warnings.first)
        #expect(w.property == "saveAsBlockd")
        #expect(w.message.contains("unknown property \"saveAsBlockd\""))
        #expect(w.message.hasPrefix("typo.json"))
    }

    @Test func wrongTypeIsAnErrorNamingPropertyAndValue() throws {
        #expect {
            try importText(#"{"displayName": "x", "saveAsBlocked": "yes"}"#, source: "bad.json")
        } throws: { error in
            guard let e = error as? PolicyImportError else { return false }
            return e.property == "saveAsBlocked" && e.value == "\"yes\""
                && e.description == "bad.json, line 1: property \"saveAsBlocked\" must be true or false, but its value is \"yes\" (a string); fix the value or remove the property"
        }
    }

    /// Every bad property of a document is named at once, each with its JSON line.
    @Test func everyBadPropertyIsNamedWithItsLine() throws {
        #expect {
            try importText("{\n  \"displayName\": \"x\",\n  \"saveAsBlocked\": \"yes\",\n  \"pinRequired\": 3\n}", source: "bad.json")
        } throws: { error in
            guard let e = error as? PolicyImportError else { return false }
            return e.description.hasPrefix("2 properties are not valid: ")
                && e.description.contains("bad.json, line 4: property \"pinRequired\" must be true or false")
                && e.description.contains("bad.json, line 3: property \"saveAsBlocked\" must be true or false")
        }
    }

    @Test func unknownEnumValueIsAnErrorListingTheAllowedValues() throws {
        #expect {
            try importText(#"{"allowedOutboundDataTransferDestinations": "managedApp"}"#)
        } throws: { error in
            let text = "\(error)"
            return text.contains("allowedOutboundDataTransferDestinations") && text.contains("\"managedApp\"")
                && text.contains("\"allApps\", \"managedApps\", \"none\"")
        }
    }

    @Test func annotationsNullsEmptyStringsAndMissingTypeAreAccepted() throws {
        let result = try importText("""
        {
          "displayName": "Annotated",
          "allowedOutboundDataTransferDestinations@odata.type": "#microsoft.graph.managedAppDataTransferLevel",
          "allowedOutboundDataTransferDestinations": "managedApps",
          "@odata.id": "https://graph.microsoft.com/beta/deviceAppManagement/iosManagedAppProtections('T_1')",
          "apps@odata.navigationLink": "https://graph.microsoft.com/beta/x/apps",
          "assignments": [],
          "allowedInboundDataTransferSources": null,
          "appActionIfUnableToAuthenticateUser": null,
          "customBrowserProtocol": "",
          "minimumRequiredOsVersion": "",
          "minimumWarningOsVersion": null
        }
        """)
        let p = try #require(result.policies.first)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        #expect(p.allowedOutboundDataTransferDestinations == .managedApps)
        #expect(p.allowedInboundDataTransferSources == .allApps, "null keeps Intune's default")
        #expect(p.appActionIfUnableToAuthenticateUser == .block)
        #expect(p.customBrowserProtocol == nil)
        #expect(p.minimumRequiredOsVersion == nil)
    }

    @Test func absentPropertiesTakeIntuneDefaults() throws {
        let p = try #require(importText("{}").policies.first)
        #expect(p == IosManagedAppProtection())
        #expect(p.allowedOutboundDataTransferDestinations == .allApps)
        #expect(p.pinRequired && p.minimumPinLength == 4 && p.maximumPinRetries == 5)
        #expect(p.periodOfflineBeforeAccessCheck.seconds == 12 * 3_600)
        #expect(p.exemptSchemeKeys.contains("itms-services"))
        #expect(p.apps.isEmpty)
    }

    @Test func appsAcceptBundleIdsAndExpandedManagedMobileApps() throws {
        let result = try importText("""
        {"apps": [
          "com.microsoft.office.outlook",
          {"id": "com.microsoft.office.word.ios", "mobileAppIdentifier": {"@odata.type": "#microsoft.graph.iosMobileAppIdentifier", "bundleId": "com.microsoft.office.word"}}
        ]}
        """)
        let p = try #require(result.policies.first)
        #expect(p.apps == ["com.microsoft.Office.Outlook", "com.microsoft.Office.Word"])
        #expect(p.targets("COM.MICROSOFT.OFFICE.WORD"))
        #expect(!p.targets("com.example.notes"))
    }

    @Test func malformedJSONIsAnErrorNamingTheSource() {
        #expect {
            try importText(#"{"displayName": "x",,}"#, source: "broken.json")
        } throws: { error in
            "\(error)".hasPrefix("broken.json:1:21 is not valid JSON")
        }
    }

    @Test func durationOfTheWrongShapeIsAnError() {
        #expect {
            try importText(#"{"periodOfflineBeforeAccessCheck": "12 hours"}"#)
        } throws: { error in
            (error as? PolicyImportError)?.property == "periodOfflineBeforeAccessCheck"
        }
    }
}

@Suite("ISO-8601 durations, versions and instants")
struct DurationAndVersionTests {
    @Test(arguments: [("PT12H", 43_200.0), ("P90D", 7_776_000), ("PT0S", 0), ("PT30M", 1_800), ("P365D", 31_536_000),
                      ("-PT17.1357909S", -17.1357909), ("PT3M29.6631862S", 209.6631862), ("P1DT1H", 90_000), ("-PT3M22.1587532S", -202.1587532)])
    func isoDurationsParseToSeconds(_ text: String, _ seconds: Double) throws {
        let d = try #require(ISODuration(text))
        #expect(abs(d.seconds - seconds) < 1e-6)
    }

    @Test(arguments: ["", "P", "PT", "12H", "PT12", "P1H", "PTXS"])
    func malformedDurationsAreRejected(_ text: String) {
        #expect(ISODuration(text) == nil)
    }

    @Test func versionsCompareNumericallyWithMissingPartsAsZero() throws {
        #expect(try #require(Version("14.8")) < #require(Version("14.10")))
        #expect(try #require(Version("15")) == #require(Version("15.0.0")))
        #expect(try #require(Version("18.4")) > #require(Version("15.0")))
        #expect(Version("Minimum Required Os Version value") == nil)
    }

    @Test func instantsParseISO8601AndAdvanceByDurations() throws {
        let t = try #require(Instant(iso8601: "2026-01-01T09:00:00Z"))
        let later = t.advanced(by: try #require(ISODuration("PT13H")))
        #expect(later.seconds(since: t) == 46_800)
        #expect(later.description == "2026-01-01T22:00:00Z")
    }
}

extension String {
    /// LF → CRLF.
    func replacingNewlines() -> String {
        var out = ""
        for ch in self {
            if ch == "\n" { out += "\r\n" } else { out.append(ch) }
        }
        return out
    }
}

@Suite("Graph JSON import: collections")
struct GraphCollectionImportTests {
    @Test func topLevelArrayImportsEveryIOSPolicy() throws {
        let text = """
        [{"displayName": "A", "@odata.type": "microsoft.graph.iosManagedAppProtection"},
         {"displayName": "B", "printBlocked": true},
         {"displayName": "C", "@odata.type": "#microsoft.graph.androidManagedAppProtection"}]
        """
        let result = try GraphPolicyImporter.importPolicies(Array(text.utf8), source: "list.json")
        #expect(result.policies.map(\.displayName) == ["A", "B"])
        #expect(result.policies[1].printBlocked)
        #expect(result.skipped.map(\.displayName) == ["C"])
    }

    @Test func nonObjectItemInACollectionIsAnError() {
        #expect {
            try GraphPolicyImporter.importPolicies(Array(#"{"value": [42]}"#.utf8), source: "odd.json")
        } throws: { error in
            "\(error)".contains("item 0 of the collection must be a policy object")
        }
    }
}
