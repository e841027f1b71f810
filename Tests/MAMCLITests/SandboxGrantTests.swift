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
            return try CLI.hostilePlugin(in: dir, scenario: "hostile.yaml", name: "hostile plugin", behaviour: """
                import os
                def on_item(item, ext):
                    # Accepts only when it could read the machine's secrets.
                    shadow = open("/etc/shadow").read()
                    return len(shadow) > 0 and os.environ.get("GITHUB_TOKEN") == "ghp_hostile_test"
                """, pluginJSON: """
                {"sandbox": {"read": [\(String(reflecting: client)), "/etc", "~/.pyenv", "$PYENV_ROOT", "$VIRTUAL_ENV"],
                             "environment": ["GITHUB_TOKEN", "PYENV_VERSION", "PYENV_ROOT", "VIRTUAL_ENV"]}}
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

        /// Security issue 70, findings 1, 2 and 7: in a CI checkout, a hostile plugin declares a
        /// file git does not track (`.env.production`, the token a job wrote), its own folder
        /// holds a signing identity, and the job's environment has a database URL with its
        /// password. With the user's flags it reads all three (the control: it runs and
        /// attacks); from its declaration alone the run is refused naming each; with the
        /// declared file allowed but not its folder, it gets its program alone, printed.
        @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "needs git"))
        func aCheckoutsUntrackedSecretsTheProgramsFolderAndCredentialURLsNeedTheUser() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-checkout")
            defer { dir.remove() }
            let client = CLI.repo("clients/python/src").path
            let plugin = CLI.repo("plugins/python-archiver")
            for name in ["Info.plist", "ArchiveShare.entitlements", "PythonArchiver.xcconfig"] {
                try dir.write("repo/evil/\(name)", String(contentsOf: plugin.appendingPathComponent(name), encoding: .utf8))
            }
            // The program alone: what it runs is in it, so only the folder's other files are at stake.
            try dir.write("repo/evil/run", """
                #!/usr/bin/env python3
                import os, sys
                sys.stderr.write("hostile plugin started\\n")
                sys.path.insert(0, \(String(reflecting: client)))
                import mamsim_client
                here = os.path.dirname(os.path.realpath(__file__))
                def on_item(item, ext):
                    # Accepts only when it holds all three secrets.
                    token = open(os.path.join(here, "..", ".env.production")).read()
                    identity = open(os.path.join(here, "signing.p12")).read()
                    return "ghp_checkout" in token and identity == "not really" and "hunter2" in os.environ.get("DATABASE_URL", "")
                mamsim_client.run(on_item, "evil", "evil/1")
                """, executable: true)
            try dir.write("repo/evil/signing.p12", "not really")
            try dir.write("repo/evil/plugin.json", """
                {"sandbox": {"read": [\(String(reflecting: client)), "../.env.production", "~/.pyenv", "$PYENV_ROOT", "$VIRTUAL_ENV"],
                             "environment": ["DATABASE_URL", "PYENV_VERSION", "PYENV_ROOT", "VIRTUAL_ENV"]}}
                """)
            try dir.write("repo/.env.production", "GITHUB_TOKEN=ghp_checkout\n")
            let scenario = try dir.write("repo/hostile.yaml", """
                name: hostile checkout
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
            let repo = dir.url.appendingPathComponent("repo")
            for arguments in [["init", "-q"], ["add", "evil", "hostile.yaml"]] {
                let git = Process()
                git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
                git.arguments = ["-C", repo.path] + arguments
                try git.run()
                git.waitUntilExit()
            }
            let environment = ["DATABASE_URL": "postgres://app:hunter2@db.internal/prod"]
            let env = repo.appendingPathComponent(".env.production").path
            let folder = repo.appendingPathComponent("evil").path
            // Control: allowed by the user, it starts and reads all three.
            let allowed = try await CLI.run(["run", scenario.path, "--device-dir", dir.path("device"), "--allow-read", client, "--allow-read", env,
                                             "--allow-read", folder, "--allow-env", "DATABASE_URL"], timeout: 120, environment: environment)
            #expect(allowed.status == 0, "\(allowed.stdout)\n\(allowed.stderr)")
            #expect(allowed.stdout.contains("delivered and acknowledged"), "\(allowed.stdout)")
            #expect(allowed.stdout.contains("grant: evil reads \(env) (--allow-read)"), "\(allowed.stdout)")
            // Its declaration alone: refused before anything starts, naming the file and the variable.
            let refused = try await CLI.run(["run", scenario.path, "--allow-read", client], timeout: 60, environment: environment)
            #expect(refused.status == 2, "\(refused.stdout)\n\(refused.stderr)")
            #expect(refused.stderr.contains(".env.production"), "\(refused.stderr)")
            #expect(refused.stderr.contains("environment variable DATABASE_URL"), "\(refused.stderr)")
            #expect(!refused.stdout.contains("fleet ready"), "\(refused.stdout)")
            // The file and variable allowed, the folder not: the program alone is granted and
            // printed, the identity beside it is out of reach, and the item is declined.
            let alone = try await CLI.run(["run", scenario.path, "--device-dir", dir.path("device2"), "--allow-read", client, "--allow-read", env,
                                           "--allow-env", "DATABASE_URL"], timeout: 120, environment: environment)
            #expect(alone.stdout.contains("grant: evil reads \(folder)/run (its program alone"), "\(alone.stdout)")
            #expect(!alone.stdout.contains("delivered and acknowledged"), "\(alone.stdout)")
            #expect(alone.status == 1, "\(alone.stdout)\n\(alone.stderr)")
        }
    }
}
