import Foundation
import MAMModel
@testable import MAMScenario
import Testing

/// A scenario's `strict:` (SCENARIOS v1.5, docs/STRICT.md): off unless asked; `true`, or the
/// findings a team accepted, each with its reason; a check that does not exist or a suppression
/// without a reason is a load error naming the line.
struct StrictSettingsTests {
    static func load(_ strict: String?) throws -> Scenario {
        try ScenarioLoader.load(text: """
            apps:
              - id: mail
                bundle: com.contoso.mail
            steps:
              - launch: {app: mail}
            \(strict.map { "strict: \($0)" } ?? "")
            """, file: URL(fileURLWithPath: "/tmp/strict.yaml"))
    }

    static let finding = StrictFindingEvent(check: "enrollment-delegate-late", call: "loginAndEnrollAccount(_:)", file: "FleetApp/main.swift", line: 46, detail: "")

    @Test func withoutTheKeyNothingChanges() throws {
        let s = try Self.load(nil)
        #expect(!s.strict.enabled && s.strict.suppressions.isEmpty)
    }

    @Test func trueTurnsItOnAndSuppressionsMatchByCheckAndFile() throws {
        #expect(try Self.load("true").strict.enabled)
        #expect(try !Self.load("false").strict.enabled)
        let s = try Self.load("""
            {suppress: [{check: enrollment-delegate-late, file: main.swift, reason: "set by the login screen"}, {check: account-id-is-upn, reason: "legacy accounts"}]}
            """).strict
        #expect(s.enabled)
        #expect(s.suppression(of: Self.finding)?.reason == "set by the login screen")
        var elsewhere = Self.finding
        elsewhere.file = "FleetApp/Login.swift"
        #expect(s.suppression(of: elsewhere) == nil, "a suppression with a file covers that file only")
        var upn = Self.finding
        (upn.check, upn.file) = ("account-id-is-upn", "Other/Any.swift")
        #expect(s.suppression(of: upn)?.reason == "legacy accounts", "one without a file covers the check everywhere")
        var suffix = Self.finding
        suffix.file = "FleetApp/domain.swift"
        #expect(s.suppression(of: suffix) == nil, "main.swift is a path component, not a suffix of domain.swift")
        #expect(try !Self.load("{enabled: false, suppress: []}").strict.enabled)
    }

    @Test(arguments: [
        ("{suppress: [{check: enrolment-delegate-late, reason: x}]}", "strict.yaml:6:", "is not a Strict Mode check; did you mean \"enrollment-delegate-late\"?"),
        ("{suppress: [{check: deregister-in-callback}]}", "strict.yaml:6:", "reason"),
        ("{suppress: [{check: deregister-in-callback, reason: \"  \"}]}", "strict.yaml:6:", "a suppression says why"),
        ("{strict: true}", "strict.yaml:6:", "unknown key \"strict\""),
        ("sometimes", "strict.yaml:6:", "strict"),
    ])
    func aBadStrictSectionNamesTheLine(_ strict: String, _ place: String, _ message: String) throws {
        #expect { try Self.load(strict) } throws: { "\($0)".contains(place) && "\($0)".contains(message) }
    }
}

/// Where a finding's source file is for code scanning: `Sources/<#fileID>` of the package that
/// built the app's program, relative to its git repository, else to the package.
@Suite struct StrictSourcesTests {
    @Test func aFileIDBecomesThePackagesSourcePath() throws {
        let fm = FileManager.default
        let repo = fm.temporaryDirectory.appendingPathComponent("mamsim-strict-sources-\(UUID().uuidString)")
        defer { try? fm.removeItem(at: repo) }
        let package = repo.appendingPathComponent("tests/IntuneFleet")
        try fm.createDirectory(at: package.appendingPathComponent("Sources/FleetApp"), withIntermediateDirectories: true)
        try fm.createDirectory(at: package.appendingPathComponent(".build/x86_64-unknown-linux-gnu/debug"), withIntermediateDirectories: true)
        try Data().write(to: package.appendingPathComponent("Sources/FleetApp/main.swift"))
        let program = package.appendingPathComponent("scenarios/../.build/x86_64-unknown-linux-gnu/debug/FleetApp")
        // No repository: relative to the package.
        #expect(StrictSources.path(of: "FleetApp/main.swift", program: program) == "Sources/FleetApp/main.swift")
        // In a repository: relative to it.
        try fm.createDirectory(at: repo.appendingPathComponent(".git"), withIntermediateDirectories: true)
        #expect(StrictSources.path(of: "FleetApp/main.swift", program: program) == "tests/IntuneFleet/Sources/FleetApp/main.swift")
        // Not there, not a #fileID, or leaving the package: nothing.
        #expect(StrictSources.path(of: "FleetApp/Other.swift", program: program) == nil)
        #expect(StrictSources.path(of: "main.swift", program: program) == nil)
        #expect(StrictSources.path(of: "FleetApp/../../../etc/passwd", program: program) == nil)
        #expect(StrictSources.path(of: "FleetApp/main.swift", program: URL(fileURLWithPath: "/usr/bin/true")) == nil)
        #expect(StrictSources.path(of: "FleetApp/main.swift", program: nil) == nil)
    }
}
