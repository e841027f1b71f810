import Foundation
import MAMActivation
import MAMBundle
import MAMExtensions
import MAMModel
import Testing

/// Lint reads only inside the folder it is given: a project that points outside it (an
/// xcconfig `#include` of an absolute path or out through `..`, an absolute `INFOPLIST_FILE`)
/// gets a finding, and nothing of the outside file reaches any reporter or is fixed.
@Suite("Lint stays inside the project")
struct LintContainmentTests {
    static let marker = "TOP-SECRET-\(UUID().uuidString)"

    /// A file outside the project holding the marker on lines lint does not understand.
    static func outsideFile(_ name: String, _ text: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-outside-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    static func everyReporter(_ reports: [LintReport]) -> String {
        LintFormat.allCases.map { $0.render(reports, version: "test") }.joined(separator: "\n")
    }

    @Test func anIncludeOfAnAbsolutePathIsAFindingAndNeverRead() throws {
        let secret = try Self.outsideFile("shadow", "root:\(Self.marker):19000:0:99999:7:::\n")
        defer { try? FileManager.default.removeItem(at: secret.deletingLastPathComponent()) }
        let project = try ProjectLintTests.mutated([("Config/App.xcconfig", "#include \"Base.xcconfig\"", "#include \"Base.xcconfig\"\n#include \"\(secret.path)\"")])
        defer { try? FileManager.default.removeItem(at: project) }
        let reports = try ProjectLinter.lint(path: project, displayName: "ContosoMail")
        let output = Self.everyReporter(reports)
        #expect(!output.contains(Self.marker), "the outside file's text reached a reporter")
        #expect(ProjectLintTests.findings(reports).contains { $0.rule == "xcconfig-include" && $0.problem.contains("outside the project") },
                "\(reports.flatMap(\.lines))")
    }

    @Test func anIncludeOutThroughDotDotIsAFindingAndAnIncludedFilesLinesAreNeverQuoted() throws {
        let project = try ProjectLintTests.mutated([("Config/App.xcconfig", "#include \"Base.xcconfig\"", "#include \"Base.xcconfig\"\n#include \"../../\(Self.marker)-neighbour.xcconfig\"\n#include \"Extra.xcconfig\"")])
        defer { try? FileManager.default.removeItem(at: project) }
        let neighbour = project.deletingLastPathComponent().appendingPathComponent("\(Self.marker)-neighbour.xcconfig")
        try Data("password \(Self.marker)\n".utf8).write(to: neighbour)
        defer { try? FileManager.default.removeItem(at: neighbour) }
        // Inside the project, but included: its lines are not quoted either.
        try Data("token \(Self.marker)\n".utf8).write(to: project.appendingPathComponent("Config/Extra.xcconfig"))
        let reports = try ProjectLinter.lint(path: project, displayName: "ContosoMail")
        let findings = ProjectLintTests.findings(reports)
        #expect(findings.contains { $0.rule == "xcconfig-include" && $0.problem.contains("outside the project") })
        #expect(findings.contains { $0.rule == "xcconfig-line" && $0.file.hasSuffix("Extra.xcconfig") }, "\(findings)")
        #expect(!Self.everyReporter(reports).contains("password \(Self.marker)") && !Self.everyReporter(reports).contains("token \(Self.marker)"))
    }

    /// `#include?` of a developer's own settings outside the repository (NetNewsWire's
    /// SharedXcodeSettings) is skipped when absent, as Xcode skips it; present, it is the finding.
    @Test func anOptionalIncludeOutsideThatIsAbsentIsNoFinding() throws {
        let line = "#include? \"../../\(Self.marker)-developer.xcconfig\""
        let project = try ProjectLintTests.mutated([("Config/App.xcconfig", "#include \"Base.xcconfig\"", "#include \"Base.xcconfig\"\n\(line)")])
        defer { try? FileManager.default.removeItem(at: project) }
        let absent = ProjectLintTests.findings(try ProjectLinter.lint(path: project, displayName: "ContosoMail"))
        #expect(!absent.contains { $0.rule == "xcconfig-include" }, "\(absent)")
        let developer = project.deletingLastPathComponent().appendingPathComponent("\(Self.marker)-developer.xcconfig")
        try Data("DEVELOPMENT_TEAM = X\n".utf8).write(to: developer)
        defer { try? FileManager.default.removeItem(at: developer) }
        let present = ProjectLintTests.findings(try ProjectLinter.lint(path: project, displayName: "ContosoMail"))
        #expect(present.contains { $0.rule == "xcconfig-include" && $0.problem.contains("outside the project") }, "\(present)")
    }

    @Test func aProjectFileBeyondTheInputLimitIsBadInputNotGigabytes() throws {
        let project = try ProjectLintTests.mutated([])
        defer { try? FileManager.default.removeItem(at: project) }
        let pbxproj = project.appendingPathComponent("ContosoMail.xcodeproj/project.pbxproj")
        // Sparse: 65 MiB to read, nothing on disk.
        let handle = try FileHandle(forWritingTo: pbxproj)
        try handle.truncate(atOffset: UInt64(InputFile.limit) + (1 << 20))
        try handle.close()
        let reports = try ProjectLinter.lint(path: project, displayName: "ContosoMail")
        let finding = try #require(reports.first?.findings.first)
        #expect(finding.rule == "project-unreadable" && finding.problem.contains("larger than 64 MiB"), "\(finding)")
    }

    @Test func terminalEscapesInAProjectReachNoReporterRaw() throws {
        let escape = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}31m"
        let project = try ProjectLintTests.mutated([("Config/App.xcconfig", "#include \"Base.xcconfig\"", "#include \"Base.xcconfig\"\n\(escape) echo owned")])
        defer { try? FileManager.default.removeItem(at: project) }
        let reports = try ProjectLinter.lint(path: project, displayName: "ContosoMail")
        #expect(ProjectLintTests.findings(reports).contains { $0.rule == "xcconfig-line" })
        for format in [LintFormat.human, .xcode, .githubActions] {
            let output = format.render(reports, version: "test")
            #expect(!output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" }, "\(format): \(output.debugDescription)")
        }
    }

    /// A project's file name and a value a finding quotes may carry a lone CR followed by a
    /// workflow command, bidirectional overrides and line separators (security issue 83): in
    /// GitHub's format every line is one annotation, nothing the project wrote starts a line or
    /// reorders one; in the others, nothing raw. (The control: the words are all there.)
    @Test func aProjectsTextForgesNoWorkflowCommand() throws {
        let hostile = "x\r::add-mask::secret\r::error file=a::forged \u{202E}txt.exe \u{2028}two \u{1B}]52;c;cHduZWQ=\u{07}"
        let report = LintReport(folder: "App", findings: [
            LintFinding(.error, rule: "twin", file: "Info\r::warning::x\u{202E}.plist", line: 3, keyPath: "LSApplicationQueriesSchemes", problem: "names \(hostile)", fix: "add it"),
        ])
        let github = LintFormat.githubActions.render([report], version: "test")
        #expect(github.hasPrefix("::error file=App/Info%0D%3A%3Awarning%3A%3Ax?.plist,line=3,"), "\(github.debugDescription)")
        #expect(github.contains("names x?::add-mask::secret?::error file=a::forged ?txt.exe ?two ?]52;c;cHduZWQ=?"), "\(github.debugDescription)")
        #expect(github.split(separator: "\n").count == 1 && !github.unicodeScalars.contains { UntrustedText.isUnsafe($0) && $0 != "\n" }, "\(github.debugDescription)")
        for format in [LintFormat.human, .xcode] {
            let output = format.render([report], version: "test")
            #expect(output.contains("add-mask") && !output.unicodeScalars.contains { UntrustedText.isUnsafe($0) && $0 != "\n" }, "\(format): \(output.debugDescription)")
        }
    }

    @Test func anAbsoluteInfoPlistFileIsAFindingNeitherReadNorFixed() throws {
        let original = try String(contentsOf: ProjectLintTests.project.appendingPathComponent("Mail/Info.plist"), encoding: .utf8)
        // The outside plist lacks the -intunemam twin: --fix would add it if it read the file.
        let outside = try Self.outsideFile("Info.plist", original.replacingOccurrences(of: "Mail", with: Self.marker))
        defer { try? FileManager.default.removeItem(at: outside.deletingLastPathComponent()) }
        let project = try ProjectLintTests.mutated([("ContosoMail.xcodeproj/project.pbxproj", "INFOPLIST_FILE = Mail/Info.plist;", "INFOPLIST_FILE = \"\(outside.path)\";")])
        defer { try? FileManager.default.removeItem(at: project) }
        let reports = try ProjectLinter.lint(path: project, displayName: "ContosoMail")
        #expect(ProjectLintTests.findings(reports).contains { $0.rule == "path-outside-project" && $0.keyPath == "INFOPLIST_FILE" })
        _ = LintFixer.fix(reports, base: project.deletingLastPathComponent())
        #expect(try String(contentsOf: outside, encoding: .utf8) == original.replacingOccurrences(of: "Mail", with: Self.marker), "--fix wrote outside the project")
    }
}

/// What real repositories do that the fixtures did not (issue: lint on real repositories):
/// targets of other platforms, Xcode's conditional settings, a `;` after an xcconfig value.
@Suite struct RealRepositoryShapesTests {
    static let share = "PRODUCT_BUNDLE_IDENTIFIER = \"$(MAIL_BUNDLE_ID).share\";"

    /// A target is skipped, with its platform, when its SDK is not iOS; iOS and a
    /// multiplatform target that includes iOS are linted.
    @Test(arguments: [
        ("SDKROOT = watchos;", "a watchOS target (SDKROOT = watchos)"),
        ("SDKROOT = macosx;", "a macOS target (SDKROOT = macosx)"),
        ("SDKROOT = xros;", "a visionOS target (SDKROOT = xros)"),
        ("SDKROOT = appletvos;", "a tvOS target (SDKROOT = appletvos)"),
        ("SDKROOT = auto; SUPPORTED_PLATFORMS = \"macosx xros xrsimulator\";", "a macOS/visionOS target (SUPPORTED_PLATFORMS = macosx xros xrsimulator)"),
        ("SDKROOT = auto; SUPPORTED_PLATFORMS = \"iphoneos iphonesimulator macosx\";", nil),
        ("SDKROOT = iphoneos; SUPPORTS_MACCATALYST = YES;", nil),
    ] as [(String, String?)])
    func otherPlatformsAreSkipped(_ setting: String, _ skipped: String?) throws {
        let dir = try ProjectLintTests.mutated([(ProjectLintTests.pbxproj, Self.share, Self.share + " " + setting)])
        defer { try? FileManager.default.removeItem(at: dir) }
        let reports = try ProjectLinter.lint(path: dir, displayName: "ContosoMail")
        let share = try #require(reports.first { $0.target == "MailShare" })
        #expect(share.skipped == skipped, "\(share)")
        if skipped != nil {
            #expect(share.findings.isEmpty && !share.hasErrors)
            #expect(share.summary == "ContosoMail (target MailShare): skipped, \(skipped!): the Intune App SDK for iOS does not apply")
        }
        #expect(reports.first { $0.target == "Mail" }?.skipped == nil, "the iOS app is linted")
    }

    /// `NAME[sdk=…][config=…][arch=…] = value` applies as in an iOS device build of the
    /// configuration read; a `;` after an xcconfig value, a value quoted whole and `//`
    /// comments are read as Xcode reads them.
    @Test(arguments: [
        ("X = a\nX[sdk=iphoneos*] = b", "b"),
        ("X = a\nX[sdk=iphonesimulator*] = b", "a"),
        ("X[sdk=watchos*] = w\nX = a", "a"),
        ("X = a\nX[config=Release] = r", "r"),
        ("X = a\nX[config=Debug] = d", "a"),
        ("X = a\nX[sdk=iphoneos*][arch=arm64] = b", "b"),
        ("X = a\nX[arch=x86_64] = b", "a"),
        ("X = Mail/Info.plist;", "Mail/Info.plist"),
        ("X = \"My App/Info.plist\"", "My App/Info.plist"),
        ("X = a // the app's", "a"),
        ("X = a\nX = $(inherited) b", "a b"),
    ])
    func xcconfigReadAsXcode(_ text: String, _ expected: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-xcconfig-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("t.xcconfig")
        try Data(text.utf8).write(to: file)
        var problems: [XCConfig.LoadProblem] = []
        let settings = XCConfig.load(file, name: "t.xcconfig", conditions: BuildConditions(configuration: "Release"), problems: &problems)
        #expect(settings["X"] == expected, "\(text)")
        #expect(problems.isEmpty, "\(problems)")
    }

    /// duckduckgo/iOS writes `INFOPLIST_FILE = …/Info.plist;` in an xcconfig and puts a team
    /// condition in the project: the Info.plist is found and the prefix resolves.
    @Test func projectSettingsWithConditionsAndSemicolons() throws {
        let dir = try ProjectLintTests.mutated([
            (ProjectLintTests.pbxproj, "INFOPLIST_FILE = MailShare/Info.plist;\n\t\t\t\tPRODUCT_BUNDLE_IDENTIFIER", "PRODUCT_BUNDLE_IDENTIFIER"),
            ("Config/Base.xcconfig", "DEVELOPMENT_TEAM = ABCDE12345", "DEVELOPMENT_TEAM = \nDEVELOPMENT_TEAM[sdk=iphoneos*] = ABCDE12345\nDEVELOPMENT_TEAM[sdk=iphonesimulator*] = SIMULATOR1\nSHARE_PLIST = MailShare/Info.plist;"),
            (ProjectLintTests.pbxproj, "PRODUCT_BUNDLE_IDENTIFIER = \"$(MAIL_BUNDLE_ID).share\";", "PRODUCT_BUNDLE_IDENTIFIER = \"$(MAIL_BUNDLE_ID).share\"; INFOPLIST_FILE = \"$(SHARE_PLIST)\";"),
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let reports = try ProjectLinter.lint(path: dir, displayName: "ContosoMail")
        let findings = reports.flatMap(\.findings)
        #expect(!findings.contains { $0.rule == "info-plist-missing" || $0.rule == "build-setting-unresolved" }, "\(reports.flatMap(\.lines))")
    }

    /// duckduckgo/iOS's real "Open in DuckDuckGo" extension (no Intune SDK): not the stub, so no
    /// `open-in-*` finding; its rule accepts no Intune type, which is the finding it deserves.
    @Test func duckDuckGosOpenInExtensionIsAnOrdinaryActionExtension() throws {
        let report = Linter.lint(folder: Fixtures.projects.appendingPathComponent("DuckDuckGoOpenAction"), displayName: "OpenAction")
        #expect(!report.findings.contains { $0.rule.hasPrefix("open-in-") }, "\(report.lines)")
        #expect(report.findings.contains { $0.rule == "extension-intune-types" && $0.severity == .warning }, "\(report.lines)")
    }

    /// Viewers key a JUnit case by suite, class and name: duckduckgo/iOS's app has ten
    /// `url-scheme-twin` findings on the same key path, which collapsed into one case.
    @Test func junitCaseNamesAreUniqueWithinASuite() throws {
        let findings = (0..<10).map { i in
            LintFinding(.error, rule: "url-scheme-twin", file: "DuckDuckGo/Info.plist", line: i < 9 ? 132 : nil, keyPath: "CFBundleURLTypes",
                        problem: "the URL scheme s\(i) has no s\(i)-intunemam twin", fix: "add it")
        } + [LintFinding(.error, rule: "url-scheme-twin", file: "DuckDuckGo/Info.plist", line: 140, keyPath: "CFBundleURLTypes", problem: "p", fix: "")]
        let xml = LintFormat.junit.render([LintReport(folder: "repo", findings: findings, target: "DuckDuckGo")], version: "test")
        let names = xml.split(separator: "\n").filter { $0.contains("<testcase ") }.compactMap { line -> String? in
            guard let start = line.range(of: " name=\"") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != "\"" })
        }
        #expect(names.count == 11)
        #expect(Set(names).count == names.count, "\(names)")
        #expect(names.contains("url-scheme-twin CFBundleURLTypes") && names.contains("url-scheme-twin CFBundleURLTypes (line 140)"), "\(names)")
    }
}
