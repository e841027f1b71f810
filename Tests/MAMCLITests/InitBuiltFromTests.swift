import Foundation
import Testing

extension CLITests {
    /// What `init` writes beside a scenario for a run's fixes to name the project's own files.
    @Suite struct InitBuiltFromTests {
        /// Issue 96, item 5: init's copy of an extension's Info.plist says which of the project's
        /// files it was built from (`plugin.json`'s `builtFrom`), and a share the rule takes only
        /// as personal data names that file in its fix — the one a team edits — not the copy.
        @Test func theNotActivatedFixNamesTheProjectsInfoPlist() async throws {
            let dir = try InitCommandTests.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let project = CLI.repo("Tests/Fixtures/projects/XcodeGenNotes")
            let r = try await CLI.run(["init", project.path, "-o", dir.appendingPathComponent("first.yaml").path], timeout: 120)
            #expect(r.status == 0, "\(r)")
            let json = try String(contentsOf: dir.appendingPathComponent("mamsim-extensions/notesshare/plugin.json"), encoding: .utf8)
            #expect(json.contains("\"builtFrom\"") && json.contains("XcodeGenNotes/Share/Info.plist"), "\(json)")
            let scenario = """
            accounts: [{upn: alice@contoso.com, tenant: contoso.onmicrosoft.com, policy: p}]
            policies: {p: {pinRequired: false, allowedOutboundDataTransferDestinations: managedApps}}
            apps: [{id: fieldnotes, bundle: com.contoso.FieldNotes}]
            extensions: [{id: notesshare, plugin: mamsim-extensions/notesshare, container: fieldnotes}]
            steps:
              - signIn: {app: fieldnotes, account: alice@contoso.com}
                expect: ok
              - share: {from: fieldnotes, to: notesshare, item: {type: public.plain-text, text: "org note"}}
                expect: {blocked: not-activated}
            """
            let file = dir.appendingPathComponent("fix.yaml")
            try scenario.write(to: file, atomically: true, encoding: .utf8)
            let run = try await CLI.run(["run", file.path], timeout: 120)
            let projectInfo = project.appendingPathComponent("Share/Info.plist").standardizedFileURL.path
            #expect(run.status == 0 && run.stdout.contains("`mamsim configure \(projectInfo)`") && run.stdout.contains("run `mamsim init` again"), "\(run)")
        }
    }
}
