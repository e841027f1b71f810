import Foundation
import MAMExtensions
import MAMActivation
import MAMBundle
import Testing

/// One fixture folder per misconfiguration (`Fixtures/lint/`), each pinned to the single
/// finding it must produce; `good-open-in` and the repository's own plugins must lint clean.
struct LintFixtureTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var fixture: String
        var rule: String
        var severity: LintFinding.Severity
        var file: String
        var keyPath: String
        /// The line of the key (or of the parse error); `nil` when the key is absent.
        var line: Int?
        /// Must appear in the problem.
        var problem: String
        /// Must appear in the fix.
        var fix: String
        var testDescription: String { fixture }
    }

    static let rule = "NSExtension.NSExtensionAttributes.NSExtensionActivationRule"

    static let cases: [Case] = [
        Case(fixture: "open-in-missing-intunemam-scheme", rule: "open-in-url-scheme", severity: .error, file: "container/Info.plist", keyPath: "CFBundleURLTypes", line: 47,
             problem: "no URL scheme has its -intunemam twin (fabrikam-docs)", fix: "add <string>fabrikam-docs-intunemam</string>"),
        Case(fixture: "open-in-missing-app-group", rule: "app-group-entitled", severity: .error, file: "OpenIn.entitlements", keyPath: "com.apple.security.application-groups", line: nil,
             problem: "does not include group.com.fabrikam.docs, which IntuneMAMSettings.AppGroupIdentifiers lists",
             fix: "add <string>group.com.fabrikam.docs</string>"),
        Case(fixture: "open-in-missing-mam-keychain-group", rule: "open-in-keychain", severity: .error, file: "OpenIn.entitlements", keyPath: "keychain-access-groups", line: 5,
             problem: "does not include com.microsoft.intune.mam", fix: "<string>$(AppIdentifierPrefix)com.microsoft.intune.mam</string>"),
        Case(fixture: "open-in-flag-not-yes", rule: "open-in-flag", severity: .error, file: "Info.plist", keyPath: "IntuneMAMSettings.OpenInActionExtension", line: 31,
             problem: "must be YES for an \"Open in\" action extension, found <false/>", fix: "set <key>OpenInActionExtension</key><true/>"),
        Case(fixture: "open-in-rule-not-single-file-intune", rule: "open-in-rule", severity: .error, file: "Info.plist", keyPath: rule, line: 38,
             problem: "accepts 2 managed files at once; an \"Open in\" extension takes a single file", fix: ").@count == 1).@count == 1"),
        Case(fixture: "keychain-mam-group-first", rule: "keychain-bundle-id-first", severity: .warning, file: "Mail.entitlements", keyPath: "keychain-access-groups[0]", line: 7,
             problem: "com.microsoft.intune.mam is the first keychain group, but the bundle id com.contoso.mail must come first",
             fix: "move <string>$(AppIdentifierPrefix)com.contoso.mail</string> (keychain-access-groups[1]) to the top"),
        Case(fixture: "keychain-misspelled-group", rule: "keychain-intune-group-misspelled", severity: .error, file: "Mail.entitlements", keyPath: "keychain-access-groups[1]", line: 8,
             problem: "\"ABCDE12345.com.microsot.intune.mam\" is not com.microsoft.intune.mam (misspelled)",
             fix: "write <string>$(AppIdentifierPrefix)com.microsoft.intune.mam</string>"),
        Case(fixture: "extension-missing-containing-app", rule: "extension-containing-app", severity: .error, file: "Info.plist", keyPath: "IntuneMAMSettings.ContainingAppBundleId", line: 23,
             problem: "is missing", fix: "add <key>ContainingAppBundleId</key><string>com.contoso.mail</string>"),
        Case(fixture: "rule-without-intune-types", rule: "extension-intune-types", severity: .warning, file: "Info.plist", keyPath: rule, line: 36,
             problem: "accepts none of the com.microsoft.intune.mam. types, so Intune hides this extension",
             fix: "run `mamsim configure rule-without-intune-types/Info.plist`"),
        Case(fixture: "unresolved-variable", rule: "build-setting-unresolved", severity: .note, file: "Info.plist", keyPath: "", line: 19,
             problem: "so Xcode would expand it to empty: $(MARKETING_VERSION) (Info.plist CFBundleShortVersionString)", fix: "pass --set NAME=VALUE"),
        Case(fixture: "malformed-plist", rule: "plist-malformed", severity: .error, file: "Info.plist", keyPath: "", line: 30,
             problem: "is not a well-formed property list (Close tag on line 30 does not match open tag array)",
             fix: "check that every <dict>, <array> and <string> is closed"),
    ]

    @Test(arguments: cases)
    func fixtureYieldsExactlyItsFinding(_ c: Case) throws {
        let report = Linter.lint(folder: Fixtures.lint.appendingPathComponent(c.fixture), displayName: c.fixture)
        #expect(report.findings.count == 1, "\(report.lines.joined(separator: "\n"))")
        let finding = try #require(report.findings.first)
        #expect(finding.severity == c.severity)
        #expect(finding.rule == c.rule)
        #expect(finding.file == c.file)
        #expect(finding.keyPath == c.keyPath)
        #expect(finding.line == c.line)
        #expect(finding.problem.contains(c.problem), "\(finding.problem)")
        #expect(finding.fix.contains(c.fix), "\(finding.fix)")
        #expect(report.hasErrors == (c.severity == .error))
        #expect(report.exitCode == (c.severity == .error ? 1 : 0))
    }

    @Test func everyFixtureFolderIsPinned() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Fixtures.lint.path).filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }
        #expect(Set(folders) == Set(Self.cases.map(\.fixture) + ["good-open-in", "good-app"]))
    }

    @Test func goodOpenInExtensionLintsClean() {
        let report = Linter.lint(folder: Fixtures.lint.appendingPathComponent("good-open-in"))
        #expect(report.findings.isEmpty, "\(report.lines.joined(separator: "\n"))")
        #expect(!report.hasErrors)
        #expect(report.exitCode == 0)
    }

    @Test(arguments: ["open-in-word", "share-to-notes"])
    func repositoryPluginLintsClean(_ name: String) {
        let report = Linter.lint(folder: Fixtures.plugins.appendingPathComponent(name), displayName: "plugins/" + name)
        #expect(report.findings.isEmpty, "\(report.lines.joined(separator: "\n"))")
    }

    @Test func findingRendersAsOneLineWithFileLineKeyProblemAndFix() {
        let report = Linter.lint(folder: Fixtures.lint.appendingPathComponent("open-in-flag-not-yes"), displayName: "plugins/open-in")
        #expect(report.lines == [
            "plugins/open-in/Info.plist:31: error: IntuneMAMSettings.OpenInActionExtension: must be YES for an \"Open in\" action extension, found <false/>; set <key>OpenInActionExtension</key><true/> [open-in-flag]",
        ])
        #expect(report.summary == "1 error, 0 warnings in plugins/open-in")
    }

    @Test func malformedPlistFindingCarriesTheParserLine() throws {
        let report = Linter.lint(folder: Fixtures.lint.appendingPathComponent("malformed-plist"), displayName: "malformed-plist")
        let finding = try #require(report.findings.first)
        #expect(finding.line == 30)
        #expect(report.lines.first?.hasPrefix("malformed-plist/Info.plist:30: error: is not a well-formed property list") == true)
    }

    @Test func setValuesWinOverTheFolderXCConfig() {
        let folder = Fixtures.lint.appendingPathComponent("unresolved-variable")
        #expect(Linter.lint(folder: folder, buildSettings: BuildSettings(["MARKETING_VERSION": "2.5"])).findings.isEmpty)
        // A wrong bundle id given on the command line is believed, and shows in the keychain check.
        let renamed = Linter.lint(folder: Fixtures.lint.appendingPathComponent("keychain-misspelled-group"),
                                  buildSettings: BuildSettings(["PRODUCT_BUNDLE_IDENTIFIER": "com.contoso.mail2"]))
        #expect(renamed.findings.map(\.keyPath).sorted() == ["CFBundleURLTypes", "IntuneMAMSettings.ADALRedirectUri", "keychain-access-groups[0]", "keychain-access-groups[1]"])
    }
}
