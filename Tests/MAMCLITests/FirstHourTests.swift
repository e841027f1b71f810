import Foundation
import Testing

extension CLITests {
    /// A first hour with nothing to misread (issue 86, item 8): `--version` names the format the
    /// loader reads, `init --help` says its default once, a scenario with no steps is an error,
    /// and the confinement is one short line (every protection under `--verbose`).
    @Suite struct FirstHourTests {
        @Test func theFirstCommandsSayOneThingEach() async throws {
            let version = try await CLI.run(["--version"], timeout: 30)
            #expect(version.stdout.contains("scenario format 1.5"), "\(version.stdout)")
            let help = try await CLI.run(["init", "--help"], timeout: 30)
            #expect(help.stdout.components(separatedBy: "mamsim-scenario.yaml").count == 2, "\(help.stdout)")

            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-first-hour-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let empty = dir.appendingPathComponent("empty.yaml")
            try "name: nothing\napps:\n  - {id: a, bundle: com.example.a}\nsteps: []\n".write(to: empty, atomically: true, encoding: .utf8)
            let r = try await CLI.run(["run", empty.path], timeout: 60)
            #expect(r.status == 2 && r.stderr.contains("empty.yaml: the scenario has no steps"), "\(r)")

            // `init --policy baseline:level-2` writes Microsoft's template beside the scenario.
            let scenario = dir.appendingPathComponent("mamsim/first.yaml")
            let initialized = try await CLI.run(["init", CLI.repo("Tests/Fixtures/projects/ContosoMail").path, "--policy", "baseline:level-2", "-o", scenario.path], timeout: 120)
            #expect(initialized.status == 0 && FileManager.default.fileExists(atPath: dir.appendingPathComponent("mamsim/level-2.json").path), "\(initialized)")
            #expect(try String(contentsOf: scenario, encoding: .utf8).contains("file: \"level-2.json\""))

            let one = dir.appendingPathComponent("one.yaml")
            try "name: one\napps:\n  - {id: a, bundle: com.example.a}\nsteps:\n  - policyQuery: {app: a, setting: contactSync}\n    expect: allowed\n".write(to: one, atomically: true, encoding: .utf8)
            let run = try await CLI.run(["run", one.path], timeout: 120)
            #expect(run.status == 0, "\(run)")
            let line = run.stdout.split(separator: "\n").first { $0.contains("children are confined") }
            #expect(line.map { $0.count < 200 && $0.contains("--verbose") } == true, "\(run.stdout)")
            let verbose = try await CLI.run(["run", one.path, "--verbose"], timeout: 120)
            #expect(verbose.stdout.contains("default-deny filesystem"), "\(verbose.stdout.prefix(2000))")
        }
    }
}
