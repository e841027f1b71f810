import Foundation
import MAMExtensions
import MAMActivation
import MAMBundle
import Testing

/// The lint checks one at a time, on scratch variants of the fixtures.
struct LintCheckTests {
    static let team = BuildSettings(teamIdentifierPrefix: "ABCDE12345.")
    static let rule = "NSExtension.NSExtensionAttributes.NSExtensionActivationRule"

    /// What the keychain-order checks report (the app requirements are tested on their own).
    static let keychainRules: Set<String> = ["keychain-bundle-id-first", "keychain-intune-group-misspelled", "build-setting-unresolved"]

    static func keychainLint(_ folder: ScratchFolder, _ settings: BuildSettings = BuildSettings()) -> LintReport {
        var report = Linter.lint(folder: folder.url, buildSettings: settings)
        report.findings = report.findings.filter { keychainRules.contains($0.rule) }
        return report
    }

    static func app(keychain: [String]) throws -> ScratchFolder {
        try ScratchFolder(files: [
            "Info.plist": PlistText.plist("<key>CFBundleIdentifier</key><string>com.contoso.mail</string>"),
            "Mail.entitlements": PlistText.keychain(keychain),
        ])
    }

    @Test(arguments: [
        ("$(AppIdentifierPrefix)com.microsot.intune.mam", true),
        ("$(AppIdentifierPrefix)com.microsoft.intune.man", true),
        ("$(AppIdentifierPrefix)com.Microsoft.Intune.MAM", true),
        ("$(AppIdentifierPrefix)com.microsoft.intune-mam", true),
        ("$(AppIdentifierPrefix)comm.microsoft.intunemam", true),
        ("ABCDE12345.com.microsoft.intune.ma", true),
        ("$(AppIdentifierPrefix)com.microsoft.intune.mam", false),
        ("ABCDE12345.com.microsoft.intune.mam", false),
        ("$(AppIdentifierPrefix)com.microsoft.adalcache", false),
        ("$(AppIdentifierPrefix)com.microsoft.intune", false),
    ])
    func intuneGroupWithinTwoEditsIsAMisspelling(_ group: String, _ misspelled: Bool) throws {
        let folder = try Self.app(keychain: ["$(AppIdentifierPrefix)com.contoso.mail", group])
        defer { folder.remove() }
        let report = Self.keychainLint(folder, Self.team)
        #expect(report.findings.count == (misspelled ? 1 : 0), "\(report.lines)")
        if misspelled {
            #expect(report.findings.first?.keyPath == "keychain-access-groups[1]")
            #expect(report.findings.first?.fix == "write <string>$(AppIdentifierPrefix)com.microsoft.intune.mam</string>")
        }
    }

    /// Outside Xcode `$(AppIdentifierPrefix)` is never set: the part after it is still
    /// judged. A misspelled Intune group and a first group that is not the bundle id
    /// (Microsoft's Xamarin sample: com.xamarin.microsoftintunesample before the bundle
    /// com.xamarin.microsoftintunemamsample) are found without --set.
    @Test(arguments: [
        (["$(AppIdentifierPrefix)com.contoso.mail", "$(AppIdentifierPrefix)com.microsot.intune.mam"], ["keychain-intune-group-misspelled"]),
        (["$(AppIdentifierPrefix)com.contoso.mai", "$(AppIdentifierPrefix)com.microsoft.intune.mam"], ["keychain-bundle-id-first"]),
        (["$(AppIdentifierPrefix)com.microsoft.intune.mam", "$(AppIdentifierPrefix)com.contoso.mail"], ["keychain-bundle-id-first"]),
        (["${AppIdentifierPrefix}com.contoso.mail", "${AppIdentifierPrefix}com.microsoft.intune.mam"], []),
        (["$(TeamIdentifierPrefix)com.contoso.mail", "$(TeamIdentifierPrefix)com.microsoft.intune.mam"], []),
        (["$(AppIdentifierPrefix)$(KEYCHAIN_GROUP)", "$(AppIdentifierPrefix)com.microsoft.intune.mam"], []),
    ])
    func groupsBehindAnUnsetPrefixAreJudged(_ groups: [String], _ rules: [String]) throws {
        let folder = try Self.app(keychain: groups)
        defer { folder.remove() }
        let report = Self.keychainLint(folder)
        #expect(report.findings.filter { $0.severity != .note }.map(\.rule) == rules, "\(report.lines)")
        // Code signing sets the prefix: never an unset variable (issue 73); KEYCHAIN_GROUP is one.
        let unset = groups.contains { $0.contains("KEYCHAIN_GROUP") } ? 1 : 0
        #expect(report.findings.filter { $0.severity == .note }.count == unset, "\(report.lines)")
    }

    @Test func wrongCaseSaysKeychainGroupsAreCaseSensitive() throws {
        let folder = try Self.app(keychain: ["$(AppIdentifierPrefix)com.contoso.mail", "$(AppIdentifierPrefix)com.Microsoft.Intune.MAM"])
        defer { folder.remove() }
        let finding = try #require(Linter.lint(folder: folder.url, buildSettings: Self.team).findings.first)
        #expect(finding.problem.contains("only in case, and keychain groups are case-sensitive"))
    }

    @Test func firstGroupMustBeTheBundleIdEvenWhenIntuneIsAbsent() throws {
        let folder = try Self.app(keychain: ["$(AppIdentifierPrefix)com.microsoft.adalcache", "$(AppIdentifierPrefix)com.contoso.mail"])
        defer { folder.remove() }
        let report = Self.keychainLint(folder, Self.team)
        #expect(report.findings.map(\.keyPath) == ["keychain-access-groups[0]"])
        #expect(report.findings.first?.problem.contains("is \"ABCDE12345.com.microsoft.adalcache\", but the first keychain group must be the bundle id com.contoso.mail") == true)
    }

    @Test func missingBundleIdGroupIsToBeAddedFirst() throws {
        let folder = try Self.app(keychain: ["$(AppIdentifierPrefix)com.microsoft.intune.mam"])
        defer { folder.remove() }
        let report = Self.keychainLint(folder, Self.team)
        #expect(report.findings.map(\.fix) == ["add <string>$(AppIdentifierPrefix)com.contoso.mail</string> as the first entry"])
    }

    @Test func unresolvedTeamPrefixIsReportedOnceNotAsAnOrderProblem() throws {
        let folder = try Self.app(keychain: ["$(AppIdentifierPrefix)com.contoso.mail", "$(AppIdentifierPrefix)com.microsoft.intune.mam"])
        defer { folder.remove() }
        let report = Self.keychainLint(folder)
        // Code signing sets the prefix (issue 73: never "unset"), and the groups behind it are
        // in order: nothing is reported.
        #expect(report.findings.isEmpty, "\(report.lines)")
        #expect(!report.hasErrors)
    }

    @Test func extensionMayPutItsContainingAppsGroupFirst() throws {
        let folder = try ScratchFolder(copying: Fixtures.lint.appendingPathComponent("extension-missing-containing-app"))
        defer { folder.remove() }
        try folder.edit("Info.plist") {
            $0.replacingOccurrences(of: "\t</dict>\n\t<key>NSExtension</key>",
                                    with: "\t\t<key>ContainingAppBundleId</key>\n\t\t<string>com.contoso.mail</string>\n\t</dict>\n\t<key>NSExtension</key>")
        }
        try folder.edit("MailShare.entitlements") { $0.replacingOccurrences(of: "com.contoso.mail.share</string>", with: "com.contoso.mail</string>") }
        #expect(Linter.lint(folder: folder.url).findings.isEmpty)
    }

    @Test func extensionIdMustStartWithItsContainingAppsId() throws {
        let folder = try ScratchFolder(copying: Fixtures.lint.appendingPathComponent("unresolved-variable"))
        defer { folder.remove() }
        let report = Linter.lint(folder: folder.url, buildSettings: BuildSettings(["MARKETING_VERSION": "1", "PRODUCT_BUNDLE_IDENTIFIER": "com.fabrikam.share"]))
        #expect(report.findings.map(\.keyPath) == ["keychain-access-groups[0]", "CFBundleIdentifier"])
        #expect(report.findings.last?.problem.contains("does not start with the containing app's id com.contoso.mail") == true)
    }

    @Test func unparsableRuleIsReportedAndTheOtherChecksStillRun() throws {
        let folder = try ScratchFolder(copying: Fixtures.lint.appendingPathComponent("extension-missing-containing-app"))
        defer { folder.remove() }
        try folder.edit("Info.plist") { $0.replacingOccurrences(of: ").@count &gt; 0\n\t\t).@count &gt; 0", with: ").@count &gt;\n\t\t).@count &gt; 0") }
        let report = Linter.lint(folder: folder.url)
        #expect(report.findings.map(\.keyPath) == [Self.rule, "IntuneMAMSettings.ContainingAppBundleId"])
        #expect(report.findings.first?.problem.contains("cannot be parsed at line") == true)
    }

    @Test func activationKeysOutsideTheRuleAndDictionaryNotesAreWarnings() throws {
        let folder = try ScratchFolder(copying: Fixtures.lint.appendingPathComponent("rule-without-intune-types"))
        defer { folder.remove() }
        try folder.edit("Info.plist") {
            $0.replacingOccurrences(of: "<key>NSExtensionActivationSupportsText</key>\n\t\t\t\t<true/>",
                                    with: "<key>NSExtensionActivationSupportsText</key>\n\t\t\t\t<integer>1</integer>")
              .replacingOccurrences(of: "\t\t<key>NSExtensionPointIdentifier</key>",
                                    with: "\t\t<key>NSExtensionActivationSupportsImageWithMaxCount</key>\n\t\t<integer>3</integer>\n\t\t<key>NSExtensionPointIdentifier</key>")
        }
        let report = Linter.lint(folder: folder.url)
        #expect(report.findings.map(\.severity) == [.warning, .warning, .warning])
        #expect(report.findings.map(\.keyPath) == [Self.rule, "NSExtension.NSExtensionActivationSupportsImageWithMaxCount", Self.rule])
        #expect(report.findings[0].problem == "NSExtensionActivationSupportsText is <integer>1</integer>; accepted as <true/>")
        #expect(report.findings[1].problem == "is outside NSExtensionActivationRule and has no effect; move it into the rule dictionary")
        #expect(report.findings[1].line != nil)
    }

    @Test func malformedEntitlementsAreReportedWithTheirLine() throws {
        let folder = try ScratchFolder(copying: Fixtures.lint.appendingPathComponent("keychain-misspelled-group"))
        defer { folder.remove() }
        try folder.edit("Mail.entitlements") { $0.replacingOccurrences(of: "</array>", with: "</arra>") }
        let report = Linter.lint(folder: folder.url)
        #expect(report.findings.count == 1)
        #expect(report.findings.first?.file == "Mail.entitlements")
        #expect(report.findings.first?.line == 10)
    }

    /// Fixture 41 is a real "Open in" extension's Info.plist, cut off inside its rule.
    @Test func truncatedRealInfoPlistIsMalformedAtItsLastLine() throws {
        let text = try Fixtures.body("41-ms-intune-app-sdk-ios-issue340-OpenIn-extension-PARTIAL.txt")
        let folder = try ScratchFolder(files: ["Info.plist": text])
        defer { folder.remove() }
        let report = Linter.lint(folder: folder.url, displayName: "open-in")
        let lastLine = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
        #expect(report.lines == [
            "open-in/Info.plist:\(lastLine): error: is not a well-formed property list (Encountered unexpected EOF); check that every <dict>, <array> and <string> is closed [plist-malformed]",
        ])
    }

    /// The folder's xcconfig takes its team from an included file; a missing include is named.
    @Test func xcconfigIncludesAreFollowed() throws {
        let folder = try ScratchFolder(copying: Fixtures.lint.appendingPathComponent("keychain-mam-group-first"))
        defer { folder.remove() }
        try folder.edit("Mail.entitlements") {
            $0.replacingOccurrences(of: "<string>$(AppIdentifierPrefix)com.microsoft.intune.mam</string>\n\t\t<string>$(AppIdentifierPrefix)com.contoso.mail</string>",
                                    with: "<string>$(AppIdentifierPrefix)com.contoso.mail</string>\n\t\t<string>$(AppIdentifierPrefix)com.microsoft.intune.mam</string>")
        }
        try folder.edit("Mail.xcconfig") { "#include \"Config/Team.xcconfig\"\n" + $0.replacingOccurrences(of: "DEVELOPMENT_TEAM = ABCDE12345\n", with: "") }
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("Config"), withIntermediateDirectories: true)
        try Data("DEVELOPMENT_TEAM = ABCDE12345\n".utf8).write(to: folder.url.appendingPathComponent("Config/Team.xcconfig"))
        #expect(Linter.lint(folder: folder.url).findings.isEmpty, "\(Linter.lint(folder: folder.url).lines)")

        try FileManager.default.removeItem(at: folder.url.appendingPathComponent("Config/Team.xcconfig"))
        let report = Linter.lint(folder: folder.url)
        let include = try #require(report.findings.first { $0.rule == "xcconfig-include" })
        #expect(include.file == "Mail.xcconfig" && include.line == 1)
        #expect(include.problem.contains("includes Config/Team.xcconfig, which does not exist"))
    }

    // MARK: "Open in"

    static func openIn(_ edit: (ScratchFolder) throws -> Void) throws -> LintReport {
        let folder = try ScratchFolder(copying: Fixtures.lint.appendingPathComponent("good-open-in"))
        defer { folder.remove() }
        try edit(folder)
        return Linter.lint(folder: folder.url)
    }

    @Test func openInRuleAcceptingUnmanagedDataIsAnError() throws {
        let report = try Self.openIn { try $0.edit("Info.plist") { $0.replacingOccurrences(of: "\"com.microsoft.intune.mam.com.adobe.pdf\"", with: "\"com.adobe.pdf\"") } }
        #expect(report.findings.map(\.severity) == [.error, .warning])
        #expect(report.findings.first?.problem.contains("also accepts unmanaged data (com.adobe.pdf)") == true)
        #expect(report.findings.last?.problem.contains("does not accept com.microsoft.intune.mam.com.adobe.pdf, though the containing app opens com.adobe.pdf") == true)
    }

    @Test func openInRuleWithoutIntuneTypesIsAnError() throws {
        let report = try Self.openIn { try $0.edit("Info.plist") { $0.replacingOccurrences(of: "\"com.microsoft.intune.mam.", with: "\"") } }
        #expect(report.findings.map(\.severity) == [.error])
        #expect(report.findings.first?.keyPath == Self.rule)
        #expect(report.findings.first?.problem.contains("accepts none of the com.microsoft.intune.mam. types") == true)
    }

    /// An ordinary action extension shown as "Open in DuckDuckGo" (duckduckgo/iOS) is not
    /// Intune's stub: only OpenInActionExtension makes one. It gets the extension rules instead.
    @Test func openInNameAloneIsNotTheStub() throws {
        let report = try Self.openIn { try $0.edit("Info.plist") { $0.replacingOccurrences(of: "\t\t<key>OpenInActionExtension</key>\n\t\t<true/>\n", with: "") } }
        #expect(!report.findings.contains { $0.rule.hasPrefix("open-in-") }, "\(report.lines)")
        let ordinary = try Self.openIn { try $0.edit("Info.plist") {
            $0.replacingOccurrences(of: "\t\t<key>OpenInActionExtension</key>\n\t\t<true/>\n", with: "").replacingOccurrences(of: "\"com.microsoft.intune.mam.", with: "\"")
        } }
        #expect(ordinary.findings.map(\.rule) == ["extension-intune-types"], "\(ordinary.lines)")
    }

    @Test func openInFlagAsTheStringYESIsAWarning() throws {
        let report = try Self.openIn { try $0.edit("Info.plist") { $0.replacingOccurrences(of: "<key>OpenInActionExtension</key>\n\t\t<true/>", with: "<key>OpenInActionExtension</key>\n\t\t<string>YES</string>") } }
        #expect(report.findings.map(\.severity) == [.warning])
        #expect(!report.hasErrors)
    }

    @Test func openInAsAUIActionExtensionIsAWarning() throws {
        let report = try Self.openIn { try $0.edit("Info.plist") { $0.replacingOccurrences(of: "com.apple.services", with: "com.apple.ui-services") } }
        #expect(report.findings.map(\.keyPath) == ["NSExtension.NSExtensionPointIdentifier"])
        #expect(report.findings.first?.severity == .warning)
    }

    @Test func containingAppMustListTheSharedAppGroup() throws {
        let report = try Self.openIn { try $0.edit("container/Info.plist") { $0.replacingOccurrences(of: "\t\t\t<string>group.com.fabrikam.docs</string>\n", with: "") } }
        #expect(report.findings.map(\.file) == ["container/Info.plist"])
        #expect(report.findings.first?.keyPath == "IntuneMAMSettings.AppGroupIdentifiers")
    }

    @Test func containingAppMustShareTheIntuneKeychainGroup() throws {
        let report = try Self.openIn { try $0.edit("container/FabrikamDocs.entitlements") { $0.replacingOccurrences(of: "\t\t<string>$(AppIdentifierPrefix)com.microsoft.intune.mam</string>\n", with: "") } }
        #expect(report.findings.map(\.file) == ["container/FabrikamDocs.entitlements"])
        #expect(report.findings.first?.problem.contains("which the containing app must share") == true)
    }

    @Test func containingAppIdMustMatchTheContainer() throws {
        let report = try Self.openIn {
            try $0.edit("container/FabrikamDocs.xcconfig") { $0.replacingOccurrences(of: "= com.fabrikam.docs", with: "= com.fabrikam.writer") }
            try $0.edit("container/FabrikamDocs.entitlements") { $0.replacingOccurrences(of: ")com.fabrikam.docs</string>", with: ")com.fabrikam.writer</string>") }
        }
        // The extension's own id no longer starts with the real container's either.
        #expect(report.findings.map(\.keyPath) == ["IntuneMAMSettings.ContainingAppBundleId", "CFBundleIdentifier"])
        #expect(report.findings.first?.problem == "is com.fabrikam.docs but container/Info.plist is com.fabrikam.writer")
    }

    @Test func openInWithoutContainerIsCheckedWithAWarning() throws {
        let report = try Self.openIn { try $0.delete("container") }
        #expect(report.findings.map(\.severity) == [.warning])
        #expect(report.findings.first?.fix == "copy the app's Info.plist (and entitlements) to container/")
    }

    @Test func openInAcceptingSeveralFilesAtOnceIsAnError() throws {
        // Each document a separate extension item: the outer count must be 1 too.
        let report = try Self.openIn { try $0.edit("Info.plist") { $0.replacingOccurrences(of: "\t\t).@count == 1", with: "\t\t).@count &gt;= 1") } }
        #expect(report.findings.map(\.problem) == ["accepts 2 managed files at once; an \"Open in\" extension takes a single file"])
    }
}

struct XCConfigTests {
    @Test func readsSettingsCommentsConditionsAndIncludes() {
        let config = XCConfig(text: """
            // Team settings
            #include "Base.xcconfig"
            PRODUCT_BUNDLE_IDENTIFIER = com.contoso.word // the app
            DEVELOPMENT_TEAM[sdk=iphoneos*] = CONTOSO123
            OTHER_FLAGS=-DDEBUG
            not a setting
            """)
        #expect(config.settings == ["PRODUCT_BUNDLE_IDENTIFIER": "com.contoso.word", "DEVELOPMENT_TEAM": "CONTOSO123", "OTHER_FLAGS": "-DDEBUG"])
        #expect(config.ignoredLines == [.init(line: 6, text: "not a setting")])
        #expect(config.includes.map { "\($0.line) \($0.path) \($0.optional)" } == ["2 Base.xcconfig false"])
    }

    @Test func overridesWinAndTheTeamGivesTheIdentifierPrefixes() {
        let merged = BuildSettings(["DEVELOPMENT_TEAM": "CONTOSO123", "MARKETING_VERSION": "1.0"])
            .overlaid(with: BuildSettings(["MARKETING_VERSION": "2.0"]))
        #expect(merged.variables == ["DEVELOPMENT_TEAM": "CONTOSO123", "MARKETING_VERSION": "2.0",
                                     "AppIdentifierPrefix": "CONTOSO123.", "TeamIdentifierPrefix": "CONTOSO123."])
        let explicit = BuildSettings(["DEVELOPMENT_TEAM": "CONTOSO123"]).overlaid(with: BuildSettings(teamIdentifierPrefix: "OTHER12345."))
        #expect(explicit.variables["AppIdentifierPrefix"] == "OTHER12345.")
    }
}
