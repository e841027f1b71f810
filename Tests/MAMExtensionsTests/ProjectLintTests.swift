import Foundation
import MAMActivation
import MAMBundle
import MAMExtensions
import Testing

/// `mamsim lint` on an Xcode project: `projects/ContosoMail` (an app embedding a share
/// extension; settings from xcconfigs with `#include`, `$(inherited)`-free layering, standard
/// settings and `$(VAR:default=)`) lints clean without `--set`; each mutation of one
/// requirement yields exactly its rule.
@Suite("Project lint")
struct ProjectLintTests {
    static let project = Fixtures.projects.appendingPathComponent("ContosoMail")

    /// A copy of the project with each `(file, old, new)` applied.
    static func mutated(_ edits: [(String, String, String)]) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-project-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: project, to: dir)
        for (file, old, new) in edits {
            let url = dir.appendingPathComponent(file)
            let text = try String(contentsOf: url, encoding: .utf8)
            #expect(text.contains(old), "the fixture changed: \(file): \(old)")
            try Data(text.replacingOccurrences(of: old, with: new).utf8).write(to: url)
        }
        return dir
    }

    static func findings(_ reports: [LintReport]) -> [LintFinding] { reports.flatMap(\.findings) }

    @Test func theCorrectProjectLintsCleanWithoutSet() throws {
        let reports = try ProjectLinter.lint(path: Self.project, displayName: "ContosoMail")
        #expect(reports.map(\.target) == ["Mail", "MailShare"])
        #expect(Self.findings(reports).isEmpty, "\(reports.flatMap(\.lines))")
    }

    @Test func theXcodeprojAndTheProjectFileNameTheSameProject() throws {
        let viaProject = try ProjectLinter.lint(path: Self.project.appendingPathComponent("ContosoMail.xcodeproj"), displayName: "ContosoMail/ContosoMail.xcodeproj")
        let viaFile = try ProjectLinter.lint(path: Self.project.appendingPathComponent("ContosoMail.xcodeproj/project.pbxproj"), displayName: "x")
        #expect(viaProject.map(\.target) == ["Mail", "MailShare"])
        #expect(viaFile.map(\.target) == ["Mail", "MailShare"])
    }

    @Test func settingsAreLayeredAsXcodeDoes() throws {
        let project = try XcodeProject(url: Self.project.appendingPathComponent("ContosoMail.xcodeproj"))
        let share = try #require(project.targets.first { $0.name == "MailShare" })
        let app = try #require(project.targets.first { $0.name == "Mail" })
        #expect(app.embeddedTargets == ["MailShare"] && app.dependencies == ["MailShare"])
        var problems: [XCConfig.LoadProblem] = []
        let appSettings = BuildSettings(project.settings(for: app, configuration: "Release", problems: &problems))
        let shareSettings = BuildSettings(project.settings(for: share, configuration: "Debug", problems: &problems))
        #expect(problems.isEmpty)
        var unresolved: [UnresolvedBuildSetting] = []
        #expect(appSettings.expand("$(PRODUCT_BUNDLE_IDENTIFIER) $(EXECUTABLE_NAME) $(DEVELOPMENT_LANGUAGE) $(PRODUCT_BUNDLE_PACKAGE_TYPE)", keyPath: "", unresolved: &unresolved)
                == "com.contoso.mail Mail en APPL")
        #expect(shareSettings.expand("$(PRODUCT_BUNDLE_IDENTIFIER) $(PRODUCT_MODULE_NAME) $(CONFIGURATION) $(NOPE:default=x:y)", keyPath: "", unresolved: &unresolved)
                == "com.contoso.mail.share MailShare Debug x:y")
        #expect(unresolved.isEmpty)
    }

    static let mail = "Mail/Info.plist", share = "MailShare/Info.plist"
    static let mailEntitlements = "Mail/Mail.entitlements", shareEntitlements = "MailShare/MailShare.entitlements"
    static let pbxproj = "ContosoMail.xcodeproj/project.pbxproj"

    @Test(arguments: [
        ("no IntuneMAMSettings", [(mail, "<key>IntuneMAMSettings</key>", "<key>ContosoSettings</key>")], "intune-settings", "Mail"),
        ("misspelled key", [(mail, "<key>MultiIdentity</key>", "<key>MultiIdentiy</key>")], "intune-settings-key", "Mail"),
        ("string for a boolean", [(mail, "<key>MultiIdentity</key>\n\t\t<true/>", "<key>MultiIdentity</key>\n\t\t<string>YES</string>")], "intune-settings-type", "Mail"),
        ("placeholder client id", [(mail, "6f1c3b52-0e7d-4a8b-9b53-2d1c9a0e4f11", "YOUR_CLIENT_ID")], "adal-client-id", "Mail"),
        ("redirect for a declared scheme", [(mail, "<string>msauth.$(PRODUCT_BUNDLE_IDENTIFIER)://auth</string>", "<string>contoso-mail://auth</string>")], "adal-redirect-uri", "Mail"),
        ("redirect scheme not declared", [(mail, "<string>msauth.$(PRODUCT_BUNDLE_IDENTIFIER)</string>\n", "")], "adal-redirect-scheme", "Mail"),
        ("URL scheme without twin", [(mail, "<string>contoso-mail-intunemam</string>", "")], "url-scheme-twin", "Mail"),
        ("queried scheme without twin", [(mail, "<string>ms-outlook-intunemam</string>", "")], "query-scheme-twin", "Mail"),
        ("threat defense scheme not queried", [(mail, "\t\t<string>intunemam-mtd</string>\n", "")], "query-schemes-intune", "Mail"),
        ("placeholder URL scheme", [(mail, "<string>contoso-mail</string>", "<string>&lt;REPLACE WITH SCHEME&gt;</string>"),
                                    (mail, "<string>contoso-mail-intunemam</string>", "")], "url-scheme-invalid", "Mail"),
        ("placeholder redirect URI", [(mail, "<string>msauth.$(PRODUCT_BUNDLE_IDENTIFIER)://auth</string>", "<string>&lt;REPLACE WITH AAD REDIRECT URI&gt;</string>")], "adal-redirect-uri", "Mail"),
        ("no Face ID usage", [(mail, "<key>NSFaceIDUsageDescription</key>", "<key>NSCameraUsageDescription</key>")], "face-id-usage", "Mail"),
        ("no Intune keychain group", [(mailEntitlements, "<string>$(AppIdentifierPrefix)com.microsoft.intune.mam</string>", "")], "keychain-intune-group", "Mail"),
        ("misspelled Intune keychain group", [(mailEntitlements, "com.microsoft.intune.mam</string>", "com.microsoft.intune.man</string>")], "keychain-intune-group-misspelled", "Mail"),
        ("Intune keychain group first", [(mailEntitlements, "<string>$(AppIdentifierPrefix)com.contoso.mail</string>\n\t\t<string>$(AppIdentifierPrefix)com.microsoft.intune.mam</string>",
                                           "<string>$(AppIdentifierPrefix)com.microsoft.intune.mam</string>\n\t\t<string>$(AppIdentifierPrefix)com.contoso.mail</string>")], "keychain-bundle-id-first", "Mail"),
        ("no ADAL cache group", [(mailEntitlements, "<string>$(AppIdentifierPrefix)com.microsoft.adalcache</string>", "")], "keychain-adal-cache", "Mail"),
        ("app group not entitled", [(mailEntitlements, "<string>group.com.contoso.mail</string>", "<string>group.com.contoso.other</string>"),
                                    (shareEntitlements, "<string>group.com.contoso.mail</string>", "<string>group.com.contoso.other</string>")], "app-group-entitled", "Mail"),
        ("extension names another app", [(share, "<string>$(MAIL_BUNDLE_ID)</string>", "<string>com.contoso.calendar</string>")], "extension-containing-app", "MailShare"),
        ("extension shares no app group", [(shareEntitlements, "<string>group.com.contoso.mail</string>", "<string>group.com.contoso.share</string>")], "app-group-shared", "MailShare"),
        ("extension without the Intune keychain group", [(shareEntitlements, "\t\t<string>$(AppIdentifierPrefix)com.microsoft.intune.mam</string>\n", "")], "extension-keychain", "MailShare"),
        ("extension rule without Intune types", [(share, " || ANY $attachment.registeredTypeIdentifiers UTI-CONFORMS-TO \"com.microsoft.intune.mam.public.url\"", "")], "extension-intune-types", "MailShare"),
        ("extension not embedded", [(pbxproj, "\t\t\t\tA10000000000000000000001 /* MailShare.appex in Embed Foundation Extensions */,\n", ""),
                                    (pbxproj, "\t\t\t\tA70000000000000000000001 /* PBXTargetDependency */,\n", "")], "extension-container-missing", "MailShare"),
        ("setting defined nowhere", [(mail, "<string>Contoso Mail</string>", "<string>$(MAIL_DISPLAY_NAME)</string>")], "build-setting-unresolved", "Mail"),
        ("include names a missing file", [("Config/App.xcconfig", "#include \"Base.xcconfig\"", "#include \"Base.xcconfig\"\n#include \"Missing.xcconfig\"")], "xcconfig-include", "Mail"),
        ("malformed Info.plist", [(share, "</dict>\n</plist>", "</plist>")], "plist-malformed", "MailShare"),
    ])
    func eachMutationHasExactlyItsRule(row: String, edits: [(String, String, String)], rule: String, target: String) throws {
        let dir = try Self.mutated(edits)
        defer { try? FileManager.default.removeItem(at: dir) }
        let reports = try ProjectLinter.lint(path: dir, displayName: "ContosoMail")
        let findings = Self.findings(reports)
        #expect(findings.count == 1, "\(row): \(reports.flatMap(\.lines))")
        #expect(findings.first?.rule == rule, "\(row): \(reports.flatMap(\.lines))")
        #expect(reports.first { !$0.findings.isEmpty }?.target == target, "\(row)")
        // Every finding names a file of the project, with its line when the key is written.
        if let finding = findings.first, rule != "extension-container-missing" {
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(finding.file).path), "\(finding.file)")
        }
    }

    @Test func targetAndConfigurationChooseWhatIsLinted() throws {
        let only = try ProjectLinter.lint(path: Self.project, displayName: "p", options: .init(targets: ["MailShare"], configuration: "Debug"))
        #expect(only.map(\.target) == ["MailShare"])
        #expect(throws: LintInputError.self) { try ProjectLinter.lint(path: Self.project, displayName: "p", options: .init(targets: ["Nope"])) }
        let badConfiguration = #expect(throws: LintInputError.self) {
            try ProjectLinter.lint(path: Self.project, displayName: "p", options: .init(configuration: "Staging"))
        }
        #expect(badConfiguration?.message.contains("has no build configuration Staging; it has Debug, Release") == true)
    }

    /// A project that cannot be read is a finding about it, not the end of the run.
    @Test func aDamagedProjectFileIsAFindingNamingIt() throws {
        let dir = try Self.mutated([(Self.pbxproj, "rootObject = A90000000000000000000001 /* Project object */;\n}", "rootObject = A900")])
        defer { try? FileManager.default.removeItem(at: dir) }
        let reports = try ProjectLinter.lint(path: dir, displayName: "ContosoMail")
        let finding = try #require(reports.first?.findings.first)
        #expect(reports.count == 1 && finding.rule == "project-unreadable" && finding.severity == .error, "\(reports)")
        #expect(finding.file == "ContosoMail.xcodeproj/project.pbxproj" && finding.problem.contains("cannot be parsed"), "\(finding)")
    }

    /// A preprocessed Info.plist (`INFOPLIST_PREPROCESS`) is read as Xcode builds it, not called malformed.
    @Test func preprocessedInfoPlistIsPreprocessed() throws {
        let dir = try Self.mutated([
            (Self.pbxproj, "\t\t\t\tINFOPLIST_FILE = Mail/Info.plist;\n", "\t\t\t\tINFOPLIST_FILE = Mail/Info.plist;\n\t\t\t\tINFOPLIST_PREPROCESS = YES;\n\t\t\t\tINFOPLIST_PREPROCESSOR_DEFINITIONS = \"CLIENT_ID=6f1c3b52-0e7d-4a8b-9b53-2d1c9a0e4f11 STORE=1\";\n"),
            (Self.mail, "\t\t<string>6f1c3b52-0e7d-4a8b-9b53-2d1c9a0e4f11</string>", "#if STORE\n\t\t<string>CLIENT_ID</string>\n#else\n\t\t<string>not-a-guid</string>\n#endif"),
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let reports = try ProjectLinter.lint(path: dir, displayName: "ContosoMail")
        #expect(Self.findings(reports).isEmpty, "\(reports.flatMap(\.lines))")

        // The other branch is taken without STORE, and the finding keeps the file's line number.
        let debug = try Self.mutated([(Self.pbxproj, "\t\t\t\tINFOPLIST_FILE = Mail/Info.plist;\n", "\t\t\t\tINFOPLIST_FILE = Mail/Info.plist;\n\t\t\t\tINFOPLIST_PREPROCESS = YES;\n"),
                                      (Self.mail, "\t\t<string>6f1c3b52-0e7d-4a8b-9b53-2d1c9a0e4f11</string>", "#if STORE\n\t\t<string>CLIENT_ID</string>\n#else\n\t\t<string>not-a-guid</string>\n#endif")])
        defer { try? FileManager.default.removeItem(at: debug) }
        let findings = Self.findings(try ProjectLinter.lint(path: debug, displayName: "ContosoMail"))
        #expect(findings.map(\.rule) == ["adal-client-id"])
        #expect(findings.first?.problem.contains("\"not-a-guid\"") == true)
    }

    /// The same preprocessed Info.plist saved with Windows line ends: its directives are
    /// directives (a line ends at CR LF for the preprocessor as at LF), so the branch without
    /// STORE is taken and found at the same line.
    @Test func aPreprocessedInfoPlistWithWindowsLineEndsIsPreprocessed() throws {
        let dir = try Self.mutated([(Self.pbxproj, "\t\t\t\tINFOPLIST_FILE = Mail/Info.plist;\n", "\t\t\t\tINFOPLIST_FILE = Mail/Info.plist;\n\t\t\t\tINFOPLIST_PREPROCESS = YES;\n"),
                                    (Self.mail, "\t\t<string>6f1c3b52-0e7d-4a8b-9b53-2d1c9a0e4f11</string>", "#if STORE\n\t\t<string>CLIENT_ID</string>\n#else\n\t\t<string>not-a-guid</string>\n#endif")])
        defer { try? FileManager.default.removeItem(at: dir) }
        let lf = Self.findings(try ProjectLinter.lint(path: dir, displayName: "ContosoMail"))
        let plist = try #require(FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String }.first { $0.hasSuffix("Mail/Info.plist") })
        let url = dir.appendingPathComponent(plist)
        try String(contentsOf: url, encoding: .utf8).replacingOccurrences(of: "\n", with: "\r\n").write(to: url, atomically: true, encoding: .utf8)
        let crlf = Self.findings(try ProjectLinter.lint(path: dir, displayName: "ContosoMail"))
        #expect(lf.map(\.rule) == ["adal-client-id"], "\(lf)")
        #expect(crlf.map(\.rule) == lf.map(\.rule) && crlf.map(\.line) == lf.map(\.line), "\(crlf)")
    }

    /// Xcode 13+ projects generate the Info.plist from `INFOPLIST_KEY_*` settings.
    @Test func generatedInfoPlistKeysAreRead() throws {
        let dir = try Self.mutated([
            (Self.mail, "\t<key>NSFaceIDUsageDescription</key>\n\t<string>Face ID unlocks your organization's data.</string>\n", ""),
            (Self.pbxproj, "\t\t\t\tINFOPLIST_FILE = Mail/Info.plist;\n", "\t\t\t\tINFOPLIST_FILE = Mail/Info.plist;\n\t\t\t\tGENERATE_INFOPLIST_FILE = YES;\n\t\t\t\tINFOPLIST_KEY_NSFaceIDUsageDescription = \"Face ID unlocks your data.\";\n"),
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let reports = try ProjectLinter.lint(path: dir, displayName: "ContosoMail")
        #expect(Self.findings(reports).isEmpty, "\(reports.flatMap(\.lines))")
    }

    /// Issue 96, item 5: a finding on the Info.plist Xcode generates (no file of its own) is
    /// located at the project file, whose build settings make it — never at a file that does
    /// not exist — and its fix names the setting: `INFOPLIST_KEY_…` where one writes the key,
    /// an Info.plist file of the target's where none can (IntuneMAMSettings).
    @Test func aGeneratedInfoPlistsFindingsAreAtTheBuildSettings() throws {
        let dir = try Self.mutated([(Self.pbxproj, "INFOPLIST_FILE = Mail/Info.plist;", "GENERATE_INFOPLIST_FILE = YES;")])
        defer { try? FileManager.default.removeItem(at: dir) }
        let findings = Self.findings(try ProjectLinter.lint(path: dir, displayName: "ContosoMail")).filter { $0.problem.contains("GENERATE_INFOPLIST_FILE") }
        #expect(!findings.isEmpty)
        for f in findings {
            #expect(f.file == "ContosoMail.xcodeproj/project.pbxproj" && FileManager.default.fileExists(atPath: dir.appendingPathComponent(f.file).path), "\(f)")
        }
        let settings = findings.first { $0.rule == "intune-settings" }
        #expect(settings?.fix.hasPrefix("give target Mail an Info.plist file (INFOPLIST_FILE) with IntuneMAMSettings") == true, "\(findings)")
        let faceID = findings.first { $0.rule == "face-id-usage" }
        #expect(faceID?.fix.hasPrefix("set INFOPLIST_KEY_NSFaceIDUsageDescription in target Mail's build settings") == true, "\(findings)")
    }

    /// Issue 96, item 5: the package `init --facade` writes (a Swift package, no app bundle) is no
    /// "nothing to lint": it is said to hold no bundle, and its Swift is read for the SDK's
    /// delegate names — a drifted method in it is found.
    @Test func aFacadePackageIsLintedForItsSwift() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-package-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Sources/FleetApp"), withIntermediateDirectories: true)
        try Data("// swift-tools-version:6.1\nimport PackageDescription\nlet package = Package(name: \"P\")\n".utf8).write(to: dir.appendingPathComponent("Package.swift"))
        try Data("import IntuneMAMSwift\nfinal class E: NSObject, IntuneMAMEnrollmentDelegate {\n    func enrollmentRequest(with status: IntuneMAMEnrollmentStatus) {}\n    func unenrollmentRequest(with status: IntuneMAMEnrollmentStatus) {}\n}\n".utf8)
            .write(to: dir.appendingPathComponent("Sources/FleetApp/Team.swift"))
        let reports = try ProjectLinter.lint(path: dir, displayName: "package")
        #expect(reports.count == 1 && reports[0].skipped?.hasPrefix("a Swift package with no app bundle") == true, "\(reports)")
        let drift = try #require(DelegateLint.lint(path: dir.path))
        #expect(drift.findings.map(\.rule) == ["delegate-drift"] && drift.findings[0].fix.contains("unenrollRequest(with:)"), "\(drift.lines)")
    }

    /// Without a project, bundles are found by their files; MAUI keeps entitlements in Entitlements.plist.
    @Test func foldersWithoutAProjectAreDiscovered() throws {
        let dir = try Self.mutated([])
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.removeItem(at: dir.appendingPathComponent("ContosoMail.xcodeproj"))
        // Settings the project gave now come from an xcconfig beside each plist, MAUI-style names.
        try FileManager.default.moveItem(at: dir.appendingPathComponent("Mail/Mail.entitlements"), to: dir.appendingPathComponent("Mail/Entitlements.plist"))
        try Data("#include \"../Config/App.xcconfig\"\nPRODUCT_NAME = Mail\nEXECUTABLE_NAME = Mail\nPRODUCT_BUNDLE_PACKAGE_TYPE = APPL\nDEVELOPMENT_LANGUAGE = en\n".utf8)
            .write(to: dir.appendingPathComponent("Mail/Mail.xcconfig"))
        try Data("#include \"../Config/Base.xcconfig\"\nPRODUCT_BUNDLE_IDENTIFIER = com.contoso.mail.share\nEXECUTABLE_NAME = MailShare\nPRODUCT_MODULE_NAME = MailShare\nPRODUCT_BUNDLE_PACKAGE_TYPE = XPC!\n".utf8)
            .write(to: dir.appendingPathComponent("MailShare/Share.xcconfig"))
        let reports = try ProjectLinter.lint(path: dir, displayName: "ContosoMail")
        #expect(reports.map(\.bundle) == ["Mail", "MailShare"])
        #expect(reports.last?.summary == "ContosoMail (bundle MailShare): no problems")
        #expect(Self.findings(reports).isEmpty, "\(reports.flatMap(\.lines))")

        // The pairing is real: the extension's app group is checked against the discovered app.
        try Data(try String(contentsOf: dir.appendingPathComponent("MailShare/MailShare.entitlements"), encoding: .utf8)
            .replacingOccurrences(of: "group.com.contoso.mail", with: "group.com.contoso.share").utf8).write(to: dir.appendingPathComponent("MailShare/MailShare.entitlements"))
        #expect(Self.findings(try ProjectLinter.lint(path: dir, displayName: "ContosoMail")).map(\.rule) == ["app-group-shared"])
    }

    /// Microsoft's own Intune sample (Tests/Fixtures/projects/Chatr, provenance in its
    /// PROVENANCE.md), read from its project without --set: what it really lacks, and nothing
    /// it does right (the MTD vendors' queried schemes, the MSAL scheme without a twin).
    @Test func microsoftsChatrSampleShowsItsRealProblems() throws {
        let reports = try ProjectLinter.lint(path: Fixtures.projects.appendingPathComponent("Chatr"), displayName: "Chatr")
        #expect(reports.map(\.target) == ["chatr"])
        let found = Self.findings(reports).map { "\($0.rule) \($0.file):\($0.line.map(String.init) ?? "-")" }.sorted()
        #expect(found == [
            "face-id-usage chatr/Info.plist:-",
            "intune-settings chatr/Info.plist:-",
            "query-schemes-intune chatr/Info.plist:38",
        ])
        // msauth.com.microsoft.intunemam is what shipping Intune apps register: never a finding.
        #expect(!Self.findings(reports).contains { $0.rule == "msauth-scheme" })
        // With the team Xcode would sign with, the keychain groups resolve and nothing else changes.
        let signed = try ProjectLinter.lint(path: Fixtures.projects.appendingPathComponent("Chatr"), displayName: "Chatr",
                                            options: .init(buildSettings: BuildSettings(["DEVELOPMENT_TEAM": "ABCDE12345"])))
        #expect(Self.findings(signed).count == 3)
    }

    /// Home Assistant links no Intune SDK: each of its iOS targets gets the one note saying so and
    /// no Intune rule; its watchOS and macOS targets are skipped; the suffixes Release leaves
    /// unset are one note per target, never a warning.
    @Test func homeAssistantWithoutTheSDKGetsNoIntuneRule() throws {
        let reports = try ProjectLinter.lint(path: Fixtures.projects.appendingPathComponent("HomeAssistant"), displayName: "HomeAssistant")
        #expect(reports.filter { $0.skipped != nil }.map(\.target) == ["WatchApp", "Launcher", "Extensions-WatchWidgets"])
        let linted = reports.filter { $0.skipped == nil }
        #expect(linted.map(\.target) == ["App", "Extensions-Intents", "Extensions-Matter", "Extensions-NotificationService",
                                         "Extensions-NotificationContent", "Extensions-PushProvider", "Extensions-Share", "Extensions-Widgets"])
        for report in linted {
            #expect(report.findings.map(\.rule).sorted() == ["build-setting-unresolved", "intune-sdk-absent"], "\(report.lines)")
            #expect(report.findings.allSatisfy { $0.severity == .note }, "\(report.lines)")
        }
    }

    /// A .NET MAUI app: Platforms/iOS/Info.plist has no CFBundleIdentifier (the .csproj's
    /// ApplicationId is the bundle id) and the entitlements are Entitlements.plist.
    @Test func mauiAppsAreReadWithTheirProjectFile() throws {
        let team = ProjectLinter.Options(buildSettings: BuildSettings(["DEVELOPMENT_TEAM": "ABCDE12345"]))
        let maui = Fixtures.projects.appendingPathComponent("MauiContoso")
        let clean = try ProjectLinter.lint(path: maui, displayName: "MauiContoso", options: team)
        #expect(Self.findings(clean).isEmpty, "\(clean.flatMap(\.lines))")

        // The bundle id really comes from the project file: another id there breaks the redirect.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-maui-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: maui, to: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        let csproj = dir.appendingPathComponent("ContosoNotes.csproj")
        try Data(try String(contentsOf: csproj, encoding: .utf8).replacingOccurrences(of: "com.contoso.notes<", with: "com.contoso.jot<").utf8).write(to: csproj)
        let renamed = Self.findings(try ProjectLinter.lint(path: dir, displayName: "MauiContoso", options: team))
        #expect(renamed.map(\.rule).sorted() == ["adal-redirect-uri", "keychain-bundle-id-first", "msauth-scheme"], "\(renamed.map(\.description))")
        #expect(renamed.first { $0.rule == "keychain-bundle-id-first" }?.file == "Platforms/iOS/Entitlements.plist")
    }

    /// A Xamarin.iOS app keeps its .csproj beside Info.plist and links the SDK through NuGet
    /// (Microsoft's Xamarin bindings): the package reference is the SDK's sign, so its Intune
    /// requirements are judged and init marks it an SDK app; without it, only a note.
    @Test func aXamarinAppsIntunePackageIsTheSDKsSign() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-xamarin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let app = dir.appendingPathComponent("Contoso.iOS")
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>CFBundleIdentifier</key><string>com.contoso.xam</string></dict></plist>
            """.utf8).write(to: app.appendingPathComponent("Info.plist"))
        func project(_ packages: String) throws {
            try Data("""
                <Project><PropertyGroup><OutputType>Exe</OutputType></PropertyGroup>
                <ItemGroup>\(packages)<None Include="Info.plist" /></ItemGroup></Project>
                """.utf8).write(to: app.appendingPathComponent("Contoso.iOS.csproj"))
        }
        try project(#"<PackageReference Include="Newtonsoft.Json" Version="13.0.3" /><PackageReference Include="Microsoft.Intune.MAM.Xamarin.iOS" Version="19.1.0" />"#)
        let linked = Self.findings(try ProjectLinter.lint(path: dir, displayName: "xam"))
        #expect(linked.contains { $0.rule == "intune-settings" } && !linked.contains { $0.rule == "intune-sdk-absent" }, "\(linked.map(\.description))")
        let inventory = try ProjectInventory.inventory(path: dir, displayName: "xam")
        #expect(inventory.bundles.map(\.intunePackage) == ["Microsoft.Intune.MAM.Xamarin.iOS"])

        try project(#"<PackageReference Include="Newtonsoft.Json" Version="13.0.3" />"#)
        let plain = Self.findings(try ProjectLinter.lint(path: dir, displayName: "xam"))
        #expect(plain.map(\.rule) == ["intune-sdk-absent"], "\(plain.map(\.description))")
        #expect(plain.first?.problem.contains("no Microsoft.Intune NuGet package") == true)
    }

    /// A hostile project file cannot crash lint: nesting is measured before Foundation parses.
    @Test func deeplyNestedProjectFileIsBadInputNotACrash() throws {
        let url = URL(fileURLWithPath: "/nonexistent/Deep.xcodeproj")
        let deep = Data(("// !$*UTF8*$!\n{ a = " + String(repeating: "(", count: 100_000)).utf8)
        let error = #expect(throws: XcodeProjectError.self) { try XcodeProject(projectFile: deep, url: url) }
        #expect(error?.problem.contains("nests { } and ( ) more than 64 deep (line 2)") == true)
        // Braces inside strings and comments do not count.
        let quoted = Data(("{ a = \"" + String(repeating: "{", count: 500) + "\"; /* " + String(repeating: "(", count: 500) + " */ rootObject = x; objects = {}; }").utf8)
        #expect(XcodeProject.nestingBeyond(64, in: quoted) == nil)
    }

    @Test func aWorkspaceLintsTheProjectsBesideIt() throws {
        let dir = try Self.mutated([])
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("ContosoMail.xcworkspace"), withIntermediateDirectories: true)
        let reports = try ProjectLinter.lint(path: dir.appendingPathComponent("ContosoMail.xcworkspace"), displayName: "x/ContosoMail.xcworkspace")
        #expect(reports.map(\.target) == ["Mail", "MailShare"])
        #expect(reports.first?.folder == "x")
    }

    /// Microsoft's Intune samples for .NET (MAUI, and .NET for iOS; Tests/Fixtures/projects/
    /// IntuneMauiSample, provenance in its PROVENANCE.md) ship placeholders to replace: lint
    /// names each one. Their msauth.com.microsoft.intunemam scheme is Microsoft's own advice,
    /// never a finding (issue 73).
    @Test func microsoftsMauiSamplesShowTheirPlaceholders() throws {
        let reports = try ProjectLinter.lint(path: Fixtures.projects.appendingPathComponent("IntuneMauiSample"), displayName: "s")
        #expect(reports.map(\.bundle) == ["IntuneMAMiOSDotNetSample/IntuneMAMiOSDotNetSample", "IntuneMAMiOSMauiSample/IntuneMAMiOSMauiSample/Platforms/iOS"])
        for report in reports {
            #expect(report.findings.map(\.rule).sorted() == [
                "adal-client-id", "adal-redirect-uri", "face-id-usage", "url-scheme-invalid", "url-scheme-invalid",
            ], "\(report.lines)")
            #expect(report.findings.contains { $0.problem == "is \"<REPLACE WITH AAD CLIENT ID>\", not an Entra application (client) id; the SDK cannot sign the user in" })
        }
    }
}
