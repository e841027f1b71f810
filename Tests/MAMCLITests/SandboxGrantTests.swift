import Foundation
import Testing

extension CLITests {
    /// A plugin's `sandbox` declaration is a request only the user can widen (security issue
    /// 46, finding 1): the same hostile plugin reads `/etc/shadow` and a CI token when the user
    /// allows both on the command line (so it demonstrably runs and attacks), and `mamsim run`
    /// refuses to start it when only its `plugin.json` asks.
    @Suite struct SandboxGrantTests {
        static func hostileScenario(in dir: TemporaryDirectory) throws -> URL {
            let client = CLI.repo("clients/python/src").path
            let plugin = CLI.repo("plugins/python-archiver")
            for name in ["Info.plist", "ArchiveShare.entitlements", "PythonArchiver.xcconfig"] {
                try dir.write("evil/\(name)", String(contentsOf: plugin.appendingPathComponent(name), encoding: .utf8))
            }
            try dir.write("evil/run", """
                #!/usr/bin/env python3
                import os, sys
                sys.stderr.write("hostile plugin started\\n")
                sys.path.insert(0, \(String(reflecting: client)))
                import mamsim_client
                mamsim_client.main(os.path.join(os.path.dirname(os.path.realpath(__file__)), "behaviour.py"), name="evil", runtime="evil/1")
                """, executable: true)
            try dir.write("evil/behaviour.py", """
                import os
                def on_item(item, ext):
                    # Accepts only when it could read the machine's secrets.
                    shadow = open("/etc/shadow").read()
                    return len(shadow) > 0 and os.environ.get("GITHUB_TOKEN") == "ghp_hostile_test"
                """)
            try dir.write("evil/plugin.json", """
                {"sandbox": {"read": [\(String(reflecting: client)), "/etc", "~/.pyenv", "$PYENV_ROOT", "$VIRTUAL_ENV"],
                             "environment": ["GITHUB_TOKEN", "PYENV_VERSION", "PYENV_ROOT", "VIRTUAL_ENV"]}}
                """)
            return try dir.write("hostile.yaml", """
                name: hostile plugin
                apps:
                  - id: mail
                    bundle: com.contoso.mail
                  - id: archive
                    bundle: com.contoso.archive
                    appGroups: [group.com.contoso.archive]
                extensions:
                  - id: evil
                    plugin: evil
                    container: archive
                steps:
                  - share: {from: mail, to: evil, item: {type: public.plain-text, text: "x"}}
                    expect: delivered
                """)
        }

        @Test(.enabled(if: getuid() == 0 && FileManager.default.isReadableFile(atPath: "/etc/shadow"), "needs a user who can read /etc/shadow"))
        func aDeclarationCannotGrantTheMachinesSecretsOnlyTheUserCan() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-hostile")
            defer { dir.remove() }
            let scenario = try Self.hostileScenario(in: dir)
            let environment = ["GITHUB_TOKEN": "ghp_hostile_test"]
            let client = CLI.repo("clients/python/src").path
            // Positive control: allowed by the user, the plugin starts and reads both secrets.
            let allowed = try await CLI.run(["run", scenario.path, "--device-dir", dir.path("device"), "--allow-read", client, "--allow-read", "/etc",
                                             "--allow-env", "GITHUB_TOKEN"], timeout: 120, environment: environment)
            #expect(allowed.status == 0, "\(allowed.stdout)\n\(allowed.stderr)")
            #expect(allowed.stdout.contains("grant: evil reads /etc (--allow-read)"), "\(allowed.stdout)")
            #expect(allowed.stdout.contains("grant: evil receives $GITHUB_TOKEN"), "\(allowed.stdout)")
            // Delivered: behaviour.py accepted the item, which it does only with both secrets.
            #expect(allowed.stdout.contains("delivered and acknowledged"), "\(allowed.stdout)")
            let log = (try? String(contentsOfFile: dir.path("device/logs/evil.stderr"), encoding: .utf8)) ?? ""
            #expect(log.contains("hostile plugin started"), "\(log)")
            // The plugin alone: refused before anything starts, naming each grant and the flag.
            let refused = try await CLI.run(["run", scenario.path, "--allow-read", client], timeout: 60, environment: environment)
            #expect(refused.status == 2, "\(refused.stdout)\n\(refused.stderr)")
            #expect(refused.stderr.contains("sandbox.read: /etc lies in /etc"), "\(refused.stderr)")
            #expect(refused.stderr.contains("--allow-read /etc"), "\(refused.stderr)")
            #expect(refused.stderr.contains("GITHUB_TOKEN names a secret"), "\(refused.stderr)")
            #expect(!refused.stdout.contains("fleet ready"), "\(refused.stdout)")
            // lint says the same of the plugin folder.
            let lint = try await CLI.run(["lint", dir.path("evil")])
            #expect(lint.status == 1, "\(lint.stdout)\n\(lint.stderr)")
            #expect(lint.stdout.contains("[sandbox-declaration]"), "\(lint.stdout)")
        }
    }
}
