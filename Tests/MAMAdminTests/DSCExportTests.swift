import Foundation
import MAMModel
import Testing
@testable import MAMPolicy
@testable import MAMAdmin

/// Microsoft365DSC exports (`M365TenantConfig.ps1`): both generations of the app protection
/// resource, PowerShell's quoting, .NET durations, removed policies and other resources.
@Suite struct DSCExportTests {
    static let older = """
        Configuration M365TenantConfig
        {
            Node localhost
            {
                # An export from before 2025: group ids, ExcludedGroups, TimeSpan durations.
                IntuneAppProtectionPolicyiOS "IntuneAppProtectionPolicyiOS-Sales `"BYOD`""
                {
                    Identity                                = "T_1";
                    DisplayName                             = "Sales `"BYOD`"";
                    AllowedOutboundDataTransferDestinations = "managedApps";
                    PeriodOfflineBeforeAccessCheck          = "12:00:00";
                    PeriodOfflineBeforeWipeIsEnforced       = "90.00:00:00";
                    MinimumRequiredOSVersion                = '16.0';
                    SaveAsBlocked                           = $True;
                    MaximumPinRetries                       = 5;
                    Apps                                    = @("com.microsoft.Office.Outlook","com.microsoft.Office.Word");
                    Assignments                             = @("g-sales");
                    ExcludedGroups                          = @("g-contractors");
                    Ensure                                  = "Present";
                    Credential                              = $Credscredential;
                }
                IntuneAppProtectionPolicyiOS "IntuneAppProtectionPolicyiOS-Old"
                {
                    DisplayName = "Old"; Ensure = "Absent";
                }
                AADConditionalAccessPolicy "AADConditionalAccessPolicy-x"
                {
                    DisplayName = "x { not a block }"; Conditions = @{ Users = 'All' };
                }
                IntuneDeviceConfigurationPolicyiOS "IntuneDeviceConfigurationPolicyiOS-y"
                {
                    DisplayName = "y";
                }
            }
        }
        """

    @Test func anOlderExportIsReadAsGraphWritesIt() throws {
        var policies = WhatIfPolicies()
        let (warnings, skipped) = try policies.add(dscExport: Self.older, source: "M365TenantConfig.ps1")
        let p = try #require(policies.protections.first)
        #expect(policies.protections.count == 1)
        #expect(p.id == "T_1" && p.displayName == "Sales \"BYOD\"")
        #expect(p.allowedOutboundDataTransferDestinations == .managedApps && p.saveAsBlocked && p.maximumPinRetries == 5)
        #expect(p.periodOfflineBeforeAccessCheck == ISODuration("PT12H")! && p.periodOfflineBeforeWipeIsEnforced == ISODuration("P90D")!)
        #expect(p.minimumRequiredOsVersion == Version("16.0"))
        #expect(p.apps == [BundleID("com.microsoft.Office.Outlook"), BundleID("com.microsoft.Office.Word")])
        #expect(p.assignments == [PolicyAssignment(.group("g-sales")), PolicyAssignment(.exclusionGroup("g-contractors"))])
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(skipped.count == 2 && skipped[0].contains("line 22: IntuneAppProtectionPolicyiOS \"IntuneAppProtectionPolicyiOS-Old\" has Ensure = \"Absent\""), "\(skipped)")
        #expect(skipped[1].contains("IntuneDeviceConfigurationPolicyiOS"))
    }

    @Test func aBrokenBlockIsNamedAtItsLine() {
        let text = "IntuneAppProtectionPolicyiOS \"x\"\n{\n    DisplayName = \"x\";\n    Apps = @(\"a\"\n}\n"
        var p = WhatIfPolicies()
        #expect { try p.add(dscExport: text, source: "c.ps1") } throws: { "\($0)".hasPrefix("c.ps1:5:1: ") }
        #expect(throws: PolicyImportError.self) { try p.add(dscExport: "IntuneAppProtectionPolicyiOS \"x\" { DisplayName = \"x\"", source: "d.ps1") }
    }

    @Test(arguments: [("12:00:00", "PT12H"), ("00:30:00", "PT30M"), ("90.00:00:00", "P90D"), ("00:00:00", "PT0S"), ("1.02:03:04", "P1DT2H3M4S"), ("PT12H", "PT12H")])
    func aDotNetDurationBecomesISO8601(_ pair: (String, String)) {
        #expect(DSCExport.duration(.string(pair.0)) == .string(pair.1))
    }
}

extension DSCExportTests {
    /// Microsoft365DSC's own examples of the resource (Tests/Fixtures/whatif-exports/m365dsc-examples,
    /// copied with their source): the current one (a quoted name, no assignments) and an older
    /// one (a bare resource name, `;` after each property, group ids and ExcludedGroups) both
    /// read as the same policy, with nothing left unread.
    @Test func microsoftsOwnExamplesRead() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/whatif-exports/m365dsc-examples")
        var read: [IosManagedAppProtection] = []
        for name in ["1-Create.ps1", "1-New iOS App Protection Policy.ps1"] {
            let text = try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
            var policies = WhatIfPolicies()
            let (warnings, skipped) = try policies.add(dscExport: text, source: name)
            #expect(warnings.isEmpty && skipped.isEmpty, "\(name): \(warnings) \(skipped)")
            let p = try #require(policies.protections.first, "\(name) read no policy")
            #expect(policies.protections.count == 1)
            #expect(p.displayName == "My DSC iOS App Protection Policy" && p.allowedOutboundDataTransferDestinations == .managedApps
                    && p.allowedOutboundClipboardSharingLevel == .managedAppsWithPasteIn && p.saveAsBlocked && p.pinCharacterSet == .alphanumericAndSymbol)
            #expect(p.apps == ["com.cisco.jabberimintune.ios", "com.pervasent.boardpapers.ios", "com.sharefile.mobile.intune.ios"].map { BundleID($0) })
            read.append(p)
        }
        #expect(read[0].assignments.isEmpty)
        #expect(read[1].assignments == [PolicyAssignment(.group("6ee86c9f-2b3c-471d-ad38-ff4673ed723e")), PolicyAssignment(.exclusionGroup("3eacc231-d77b-4efb-bb5f-310f68bd6198"))])
    }
}

/// Hostile exports (security issue 83, findings 4 and 5): nesting past any export's depth is an
/// error at its line and column, not a crash; a large export reads in one pass.
@Suite struct DSCExportHostileTests {
    /// The control: nested to the bound, the value reads; one deeper, an error naming where.
    @Test(arguments: ["@(", "MSFT_X{ A = "])
    func valuesNestedTooDeepAreAnErrorAtTheirPlace(_ open: String) throws {
        func export(depth: Int) -> String {
            let close = open == "@(" ? ")" : "}"
            return "IntuneAppProtectionPolicyiOS \"x\"\n{\n    DisplayName = \"x\";\n    Apps = " + String(repeating: open, count: depth) + "\"a\"" + String(repeating: close, count: depth) + "\n}\n"
        }
        var fine = WhatIfPolicies()
        _ = try fine.add(dscExport: export(depth: DSCExport.Parser.maximumDepth), source: "ok.ps1")
        for depth in [DSCExport.Parser.maximumDepth + 1, 50_000] {
            var p = WhatIfPolicies()
            #expect { try p.add(dscExport: export(depth: depth), source: "deep.ps1") } throws: { error in
                let text = "\(error)"
                // The 65th opening on line 4: column 12 is where the values start.
                let column = 12 + DSCExport.Parser.maximumDepth * open.count
                return text.contains("deep.ps1:4:\(column): values nested more than \(DSCExport.Parser.maximumDepth) deep")
            }
        }
    }

    /// A line number is found without counting from the start of the file: an export of many
    /// small blocks (the worst case for that) is read whole. A hang guard, not a performance
    /// figure (that is `mamsim bench --only whatif`'s Microsoft365DSC line).
    @Test(.timeLimit(.minutes(2)))
    func aLargeExportIsReadInOnePass() throws {
        let text = DSCExportHostileTests.largeExport(bytes: 3_000_000)
        var p = WhatIfPolicies()
        let (_, skipped) = try p.add(dscExport: text, source: "large.ps1")
        #expect(skipped.count > 10_000, "\(skipped.count) blocks skipped")
        #expect(skipped.last?.contains("large.ps1, line ") == true, "\(skipped.last ?? "")")
    }

    /// Blocks of another resource, one per few lines, until `bytes`.
    static func largeExport(bytes: Int) -> String {
        var text = "Configuration M365TenantConfig\n{\n    Node localhost\n    {\n"
        var n = 0
        while text.utf8.count < bytes {
            text += "        IntuneDeviceConfigurationPolicyiOS \"p\(n)\"\n        {\n            DisplayName = \"p\(n)\";\n            Ensure = \"Present\";\n        }\n"
            n += 1
        }
        return text + "    }\n}\n"
    }
}

/// Microsoft365DSC's conditional access resource (issue 85, item 7: a real export's 58 blocks
/// were skipped): read as Graph's conditionalAccessPolicy, its grant judged as Entra judges it.
@Suite struct DSCConditionalAccessTests {
    static let export = """
        Configuration M365TenantConfig
        {
            Node localhost
            {
                AADConditionalAccessPolicy "AADConditionalAccessPolicy-Block SharePoint for contractors"
                {
                    ApplicationEnforcedRestrictionsIsEnabled = $False;
                    BuiltInControls                          = @("block");
                    ClientAppTypes                           = @("all");
                    CloudAppSecurityIsEnabled                = $False;
                    DisplayName                              = "Block SharePoint for contractors";
                    Ensure                                   = "Present";
                    ExcludeApplications                      = @();
                    ExcludeGroups                            = @();
                    ExcludeUsers                             = @();
                    GrantControlOperator                     = "OR";
                    IncludeApplications                      = @("00000003-0000-0ff1-ce00-000000000000");
                    IncludeGroups                            = @("Contractors");
                    IncludeUsers                             = @();
                    IncludePlatforms                         = @("iOS");
                    State                                    = "enabled";
                    Credential                               = $Credscredential;
                }
                AADConditionalAccessPolicy "AADConditionalAccessPolicy-MFA"
                {
                    BuiltInControls                          = @("mfa","compliantDevice");
                    DisplayName                              = "MFA and a compliant device";
                    Ensure                                   = "Present";
                    GrantControlOperator                     = "AND";
                    IncludeApplications                      = @("All");
                    IncludeUsers                             = @("All");
                    State                                    = "enabledForReportingButNotEnforced";
                    Credential                               = $Credscredential;
                }
                AADNamedLocationPolicy "Office"
                {
                    DisplayName = "Office";
                }
            }
        }
        """

    @Test func conditionalAccessBlocksAreReadAsGraphWritesThem() throws {
        var p = WhatIfPolicies()
        let (_, skipped) = try p.add(dscExport: Self.export, source: "M365TenantConfig.ps1")
        #expect(p.conditionalAccess.count == 2, "\(skipped)")
        let block = try #require(p.conditionalAccess.first { $0.name == "Block SharePoint for contractors" })
        #expect(block.builtInControls == ["block"] && block.includeGroups == ["Contractors"] && block.includeApplications == ["00000003-0000-0ff1-ce00-000000000000"])
        #expect(block.includePlatforms == ["iOS"] && block.state == .enabled)
        let mfa = try #require(p.conditionalAccess.first { $0.name == "MFA and a compliant device" })
        #expect(mfa.requiresAll && mfa.builtInControls == ["mfa", "compliantDevice"] && mfa.state == .enabledForReportingButNotEnforced)
        // Named locations are read for conditional access's location condition (issue 98).
        #expect(skipped.isEmpty && p.namedLocations["office"]?.displayName == "Office", "\(skipped)")
    }
}

/// Broken JSON is named at its line and column (issue 85, item 7): "around character 47" is
/// nowhere a reader can find in a 20 MB export.
@Test func brokenJSONIsNamedAtItsLineAndColumn() {
    let text = "{\"value\": [\n  {\"displayName\": \"x\",\n   \"state\": enabled}\n]}\n"
    #expect { try GraphConditionalAccessImporter.importPolicies(Array(text.utf8), source: "ca.json") } throws: { error in
        "\(error)".contains("ca.json:3:13 is not valid JSON")
    }
    // Columns count characters, not bytes.
    let wide = "{\"displayName\": \"Ümlaut ✓\", \"state\": nope}"
    #expect { try GraphConditionalAccessImporter.importPolicies(Array(wide.utf8), source: "w.json") } throws: { "\($0)".contains("w.json:1:39 ") }
}

/// What a conditional access block says of guest and external user types and session controls
/// (sign-in frequency…) is read, never dropped.
@Test func aDSCConditionalAccessBlockNamesWhatItCannotJudge() throws {
    let text = """
        AADConditionalAccessPolicy 'Guests and sessions'
        {
            DisplayName                     = 'Guests and sessions'
            BuiltInControls                 = @('Mfa')
            ExcludeGuestOrExternalUserTypes = @('internalGuest', 'b2bCollaborationMember')
            IncludeApplications             = @('All')
            IncludeUsers                    = @('All')
            SignInFrequencyIsEnabled        = $true
            SignInFrequencyValue            = 5
            State                           = 'enabled'
        }
        """
    var p = WhatIfPolicies()
    let (warnings, _) = try p.add(dscExport: text, source: "g.ps1")
    #expect(p.conditionalAccess.count == 1)
    // What If judges guest types and names session controls in its answers (issue 98): read, not merely warned of.
    #expect(!warnings.contains { $0.contains("as if matched") }, "\(warnings)")
    #expect(p.conditionalAccess[0].sessionControls == ["sign-in frequency: every 5 hours"] && p.conditionalAccess[0].excludeGuests?.types == ["internalguest", "b2bcollaborationmember"])
}
