import Foundation
import MAMBundle
import MAMExtensions
import Testing

/// The Intune App SDK's app requirements (docs/LINT.md): the correct app `good-app` lints
/// clean; each single mutation of it produces exactly the finding of its rule.
@Suite("App requirements lint")
struct AppRequirementsLintTests {
    static let good = Fixtures.lint.appendingPathComponent("good-app")

    /// A copy of `good-app` with `file`'s `old` replaced by `new`.
    func mutated(_ file: String, _ old: String, _ new: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-lint-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.good, to: dir)
        let url = dir.appendingPathComponent(file)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains(old), "the fixture changed: \(old)")
        try Data(text.replacingOccurrences(of: old, with: new).utf8).write(to: url)
        return dir
    }

    @Test func theCorrectAppLintsClean() {
        let report = Linter.lint(folder: Self.good)
        #expect(report.findings.isEmpty, "\(report.lines)")
    }

    /// Issue 86, item 6: an app that sets the Entra settings in code (Microsoft Learn: the
    /// `aadClientIdOverride` family) has its missing IntuneMAMSettings as a note naming the
    /// line; reading the property is no setting (the control: still an error).
    @Test(arguments: [
        ("IntuneMAMSettings.aadClientIdOverride = \"6f1c3b52-0e7d-4a8b-9b53-2d1c9a0e4f11\"\n", "Sources/AppDelegate.swift", true),
        ("[IntuneMAMSettings setAadClientIdOverride:@\"6f1c3b52-0e7d-4a8b-9b53-2d1c9a0e4f11\"];\n", "Sources/AppDelegate.m", true),
        ("let id = IntuneMAMSettings.aadClientIdOverride\n", "Sources/AppDelegate.swift", false),
    ])
    func settingsSetInCodeMakeAMissingDictionaryANote(code: String, file: String, note: Bool) throws {
        let dir = try mutated("Info.plist", "<key>IntuneMAMSettings</key>", "<key>SomethingElse</key>")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent(file)
        try FileManager.default.createDirectory(at: source.deletingLastPathComponent(), withIntermediateDirectories: true)
        try ("import IntuneMAMSwift\n\n" + code).write(to: source, atomically: true, encoding: .utf8)
        let report = Linter.lint(folder: dir)
        let finding = report.findings.first { $0.rule == "intune-settings" }
        #expect(finding?.severity == (note ? .note : .error), "\(report.lines)")
        if note { #expect(finding?.problem.contains("\(file):3 sets the Entra settings in code") == true, "\(report.lines)") }
    }

    /// Issue 96, item 5: a client id set in code (`aadClientIdOverride`) makes a missing
    /// ADALClientId a note naming the line; without the code, a warning (the control).
    @Test(arguments: [true, false])
    func aClientIdSetInCodeIsANote(setInCode: Bool) throws {
        let dir = try mutated("Info.plist", "<key>ADALClientId</key>", "<key>SomethingElse</key>")
        defer { try? FileManager.default.removeItem(at: dir) }
        if setInCode {
            let source = dir.appendingPathComponent("Sources/AppDelegate.swift")
            try FileManager.default.createDirectory(at: source.deletingLastPathComponent(), withIntermediateDirectories: true)
            try "import IntuneMAMSwift\n\nIntuneMAMSettings.aadClientIdOverride = \"6f1c3b52-0e7d-4a8b-9b53-2d1c9a0e4f11\"\n".write(to: source, atomically: true, encoding: .utf8)
        }
        let report = Linter.lint(folder: dir)
        let finding = report.findings.first { $0.rule == "adal-client-id" }
        #expect(finding?.severity == (setInCode ? .note : .warning), "\(report.lines)")
        if setInCode { #expect(finding?.problem.contains("Sources/AppDelegate.swift:3 sets the Entra settings in code") == true, "\(report.lines)") }
    }

    /// Issue 86, item 6: ADAL's broker scheme `msauth`, queried, needs no twin, as msauthv2
    /// and msauthv3 do not.
    @Test func adalsBrokerSchemeNeedsNoTwin() throws {
        let dir = try mutated("Info.plist", "<key>LSApplicationQueriesSchemes</key>\n\t<array>", "<key>LSApplicationQueriesSchemes</key>\n\t<array>\n\t\t<string>msauth</string>")
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = Linter.lint(folder: dir)
        #expect(report.findings.isEmpty, "\(report.lines)")
    }

    @Test(arguments: [
        ("no IntuneMAMSettings", "Info.plist", "<key>IntuneMAMSettings</key>", "<key>SomethingElse</key>", "intune-settings"),
        ("misspelled key", "Info.plist", "<key>MultiIdentity</key>", "<key>MultiIdentiy</key>", "intune-settings-key"),
        ("string for a boolean", "Info.plist", "<key>MultiIdentity</key>\n\t\t<true/>", "<key>MultiIdentity</key>\n\t\t<string>YES</string>", "intune-settings-type"),
        ("placeholder client id", "Info.plist", "6f1c3b52-0e7d-4a8b-9b53-2d1c9a0e4f11", "YOUR-CLIENT-ID", "adal-client-id"),
        ("redirect for another app", "Info.plist", "<string>msauth.com.contoso.mail://auth</string>", "<string>contoso-mail://auth</string>", "adal-redirect-uri"),
        ("redirect scheme not declared", "Info.plist", "<string>msauth.com.contoso.mail</string>\n", "", "adal-redirect-scheme"),
        ("URL scheme without twin", "Info.plist", "<string>contoso-mail-intunemam</string>", "", "url-scheme-twin"),
        ("queried scheme without twin", "Info.plist", "<string>ms-outlook-intunemam</string>", "", "query-scheme-twin"),
        ("no Face ID usage", "Info.plist", "<key>NSFaceIDUsageDescription</key>", "<key>NSCameraUsageDescription</key>", "face-id-usage"),
        ("no Intune keychain group", "Mail.entitlements", "<string>$(AppIdentifierPrefix)com.microsoft.intune.mam</string>", "", "keychain-intune-group"),
        ("no ADAL cache group", "Mail.entitlements", "<string>$(AppIdentifierPrefix)com.microsoft.adalcache</string>", "", "keychain-adal-cache"),
    ])
    func eachMutationHasExactlyItsRule(row: String, file: String, old: String, new: String, rule: String) throws {
        let dir = try mutated(file, old, new)
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = Linter.lint(folder: dir)
        #expect(report.findings.count == 1, "\(row): \(report.lines)")
        #expect(report.findings.first?.rule == rule, "\(row): \(report.lines)")
    }
}

/// The rule catalogue is the documentation's: docs/LINT.md lists every rule of `LintRules.all`
/// in the same order, and every rule id the checks report is in the catalogue.
@Suite("Lint rule catalogue")
struct LintRuleCatalogueTests {
    @Test func docsListEveryRuleInOrder() throws {
        let text = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/LINT.md"), encoding: .utf8)
        let documented = text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| <a id=\""), let end = line.dropFirst(9).firstIndex(of: "\"") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 9)..<end])
        }
        #expect(documented == LintRules.all.map(\.id))
        #expect(Set(LintRules.all.map(\.id)).count == LintRules.all.count, "rule ids are unique")
    }

    @Test func everyReportedRuleIsInTheCatalogue() throws {
        let known = Set(LintRules.all.map(\.id))
        var used: Set<String> = []
        for folder in ["Sources/MAMExtensions", "Sources/MAMBundle"] {
            let dir = Fixtures.packageRoot.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) where name.hasSuffix(".swift") {
                let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
                // `rule: "id"` and `report(.error, "id", …)`.
                for pattern in [#"rule: "([a-z0-9-]+)""#, #"report\(\.(?:error|warning), "([a-z0-9-]+)""#] {
                    let regex = try NSRegularExpression(pattern: pattern)
                    for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                        used.insert(String(text[Range(match.range(at: 1), in: text)!]))
                    }
                }
            }
        }
        #expect(used.count > 30)
        #expect(used.subtracting(known).isEmpty, "not in the catalogue: \(used.subtracting(known).sorted())")
    }
}

@Suite("Suggested commands")
struct SuggestedCommandTests {
    /// A suggested command can be pasted into a shell: a path with a space is quoted.
    @Test func pathsInSuggestionsAreShellQuoted() throws {
        let folder = Fixtures.lint.appendingPathComponent("rule-without-intune-types")
        let report = Linter.lint(folder: folder, displayName: "My Shares/it's here")
        #expect(report.findings.first?.fix.contains("run `mamsim configure 'My Shares/it'\\''s here/Info.plist'`") == true, "\(report.lines)")
        #expect("plugins/open-in/Info.plist".shellQuoted == "plugins/open-in/Info.plist")
    }
}

@Suite("Lint configuration")
struct LintConfigurationTests {
    static func report() -> LintReport {
        LintReport(folder: "repo", findings: [
            LintFinding(.warning, rule: "face-id-usage", file: "Mail/Info.plist", keyPath: "NSFaceIDUsageDescription", problem: "p", fix: ""),
            LintFinding(.error, rule: "url-scheme-twin", file: "MailShare/Info.plist", keyPath: "CFBundleURLTypes", problem: "p", fix: ""),
            LintFinding(.error, rule: "keychain-intune-group", file: "Vendor/Lib/Lib.entitlements", keyPath: "", problem: "p", fix: ""),
        ])
    }

    @Test func excludedEntriesAreFilesOrFoldersNotNamePrefixes() throws {
        let config = try LintConfiguration(yaml: "excluded: [Mail, repo/Vendor/]\n", file: ".mamsim-lint.yml")
        let kept = config.apply(to: [Self.report()])[0].findings.map(\.file)
        #expect(kept == ["MailShare/Info.plist"], "Mail excludes Mail/…, not MailShare/…; repo/Vendor/ the vendored library")
    }

    @Test func severitiesAndStrictChangeWhatFails() throws {
        let config = try LintConfiguration(yaml: "severity: {url-scheme-twin: warning}\ndisabled_rules: [keychain-intune-group]\n", file: "c.yml")
        let relaxed = config.apply(to: [Self.report()])[0]
        #expect(!relaxed.hasErrors && relaxed.findings.count == 2)
        #expect(config.apply(to: [Self.report()], strict: true)[0].errors.count == 2)
        #expect(throws: LintInputError.self) { try LintConfiguration(yaml: "strict: maybe\n", file: "c.yml") }
        #expect(throws: LintInputError.self) { try LintConfiguration(yaml: "severity: {face-id-usage: fatal}\n", file: "c.yml") }
    }
}
