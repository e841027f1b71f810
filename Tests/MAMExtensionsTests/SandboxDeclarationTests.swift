import Foundation
import MAMBundle
import MAMExtensions
import Testing

/// A `sandbox` declaration is a request: what it may have alone, and what needs the user's
/// `--allow-read`/`--allow-env` (security issue 46, findings 1-3).
@Suite(.serialized)
struct SandboxDeclarationTests {
    /// A repository with a plugin, two scenarios (the second with a PKCS #12 identity and a
    /// password), a client library, a kept device directory and a home folder with secrets.
    final class World {
        let root: URL
        let repo: URL
        let home: URL
        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-sandbox-\(UUID().uuidString)").resolvingSymlinksInPath()
            repo = root.appendingPathComponent("repo")
            home = root.appendingPathComponent("home")
            let files = [
                "repo/.git/config": "[http] extraheader = AUTHORIZATION: basic c2VjcmV0",
                "repo/plugins/evil/plugin.json": "{}",
                "repo/plugins/evil/run": "#!/bin/sh\n",
                "repo/clients/python/src/client.py": "print()\n",
                "repo/suite/one/one.yaml": "apps:\n  - id: a\nsteps: []\n",
                "repo/suite/two/two.yaml": "apps:\n  - id: b\npolicies:\n  p: policies/level2.json\ndeclarations:\n  - keys/alice.pw\nsteps: []\n",
                "repo/suite/two/identity.p12": "not really",
                "repo/suite/two/data/readme.txt": "data\n",
                "repo/suite/two/policies/level2.json": "{}",
                "repo/suite/two/keys/alice.pw": "hunter2",
                // A scenario saved with Windows line ends, and one naming its input in a flow
                // mapping three levels down: their inputs are the host's as any scenario's are.
                "repo/suite/crlf/three.yaml": "apps:\r\n  - id: c\r\npolicies:\r\n  p: policies/p.json\r\nsteps: []\r\n",
                "repo/suite/crlf/policies/p.json": "{}",
                "repo/suite/a/b/c/four.yaml": "# a team's suite\nsteps: [{share: {from: a, item: {file: inputs/x.json}}}]\n",
                "repo/suite/a/b/c/inputs/x.json": "{}",
                "repo/kept-device/store.key": "key",
                "repo/kept-device/device.sqlite": "db",
                "repo/kept-device/containers/com.victim/Documents/mail.txt": "the victim's mail",
                "repo/.env.production": "DATABASE_URL=postgres://u:p@db/prod",
                "repo/.git-credentials": "https://u:ghp_x@github.com",
                "repo/config/Secrets.xcconfig": "API_KEY = abc",
                "repo/ios/GoogleService-Info.plist": "<plist/>",
                "repo/deploy/id_deploy": "-----BEGIN OPENSSH PRIVATE KEY-----",
                "repo/deploy/kubeconfig": "apiVersion: v1",
                "repo/notes/draft.txt": "written after the checkout",
                "repo/tools/run": "#!/bin/sh\n",
                "repo/tools/.env": "SECRET=1",
                "repo/tools/signing.p12": "not really",
                "home/.ssh/id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY-----",
                "home/.aws/credentials": "[default]",
                "home/.pyenv/versions/3.11/bin/python3": "#!/bin/sh\n",
                "home/.pyenv/shims/python3": "#!/bin/sh\n",
                "home/work/notes.txt": "notes",
            ]
            for (path, text) in files {
                let url = root.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try text.write(to: url, atomically: true, encoding: .utf8)
            }
            for shim in ["home/.pyenv/shims/python3", "home/.pyenv/versions/3.11/bin/python3", "repo/tools/run", "repo/plugins/evil/run"] {
                chmod(root.appendingPathComponent(shim).path, 0o755)
            }
            // A checkout: git tracks the code and the scenarios' inputs (a team commits its
            // policies and test credentials too); what CI or a developer added beside is untracked.
            let tracked = ["plugins", "clients", "suite", "config/Secrets.xcconfig", "ios", "tools/run"]
            try Self.git(["init", "-q"], in: repo)
            try Self.git(["add"] + tracked, in: repo)
        }

        static func git(_ arguments: [String], in folder: URL) throws {
            let git = Process()
            git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            git.arguments = ["git", "-C", folder.path] + arguments
            try git.run()
            git.waitUntilExit()
            guard git.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
        deinit { try? FileManager.default.removeItem(at: root) }

        var environment: [String: String] {
            ["HOME": home.path, "PATH": home.path + "/.pyenv/shims:/usr/bin:/bin", "PYENV_ROOT": home.path + "/.pyenv"]
        }
        func judge(_ allowances: SandboxAllowances = SandboxAllowances()) -> SandboxDeclarations {
            SandboxDeclarations(ownFolder: repo.appendingPathComponent("plugins/evil"), scenarioFolder: repo.appendingPathComponent("suite/one"),
                                allowances: allowances, environment: environment)
        }
    }

    /// Each row: a path (relative to the test's world, or absolute), whether a declaration
    /// alone gets it, and a word the refusal must contain.
    @Test(arguments: [
        ("repo/plugins/evil", true, "its own folder"),
        ("repo/clients/python/src", true, "project"),
        ("home/.pyenv", true, "installation"),
        ("home/.pyenv/versions/3.11", true, "installation"),
        ("/etc", false, "/etc"),
        ("/etc/ssl/private", false, "/etc"),
        ("/run", false, "runtime"),
        ("/proc/1", false, "processes"),
        ("home/.ssh", false, ".ssh"),
        ("home/.aws", false, ".aws"),
        ("home/work", false, "outside"),
        ("home", false, "home folder"),
        ("/", false, "whole machine"),
        ("repo", false, "holds"),
        ("repo/suite", false, "scenario"),
        ("repo/suite/two", false, "scenario"),
        ("repo/suite/two/identity.p12", false, "credential"),
        ("repo/kept-device", false, "device directory"),
        // Security issue 70, finding 1: what a reviewer would never grant from the project.
        ("repo/.git/config", false, ".git"),
        ("repo/.git", false, ".git"),
        ("repo/.env.production", false, "credential"),
        ("repo/.git-credentials", false, "credential"),
        ("repo/config/Secrets.xcconfig", false, "credential"),
        ("repo/config", false, "credential"),
        ("repo/ios/GoogleService-Info.plist", false, "credential"),
        ("repo/deploy/id_deploy", false, "credential"),
        ("repo/deploy/kubeconfig", false, "credential"),
        ("repo/notes/draft.txt", false, "git does not track"),
        ("repo/notes", false, "git does not track"),
        ("repo/suite/two/policies", false, "an input of the scenario"),
        ("repo/suite/two/policies/level2.json", false, "an input of the scenario"),
        ("repo/suite/two/keys/alice.pw", false, "an input of the scenario"),
        ("repo/suite/crlf/policies/p.json", false, "an input of the scenario"),
        ("repo/suite/a/b/c/inputs", false, "an input of the scenario"),
        ("repo/suite/a/b/c/inputs/x.json", false, "an input of the scenario"),
        ("repo/kept-device/containers/com.victim", false, "device directory"),
        ("repo/kept-device/containers/com.victim/Documents/mail.txt", false, "device directory"),
        ("repo/tools", false, "credential"),
        ("repo/clients/python/src/client.py", true, "project"),
    ])
    func aDeclarationGetsOnlyWhatItMayAskForAlone(_ path: String, _ granted: Bool, _ word: String) throws {
        let world = try World()
        let absolute = path.hasPrefix("/") ? path : world.root.appendingPathComponent(path).path
        do {
            let grant = try world.judge().judgeRead(absolute)
            #expect(granted, "\(path) was granted: \(grant)")
            #expect(grant.reason.contains(word), "\(grant)")
        } catch {
            #expect(!granted, "\(path) was refused: \(error)")
            #expect(error.description.contains(word), "\(error)")
            #expect(error.description.contains("--allow-read"), "the refusal names the flag that allows it: \(error)")
        }
    }

    /// Positive control of every refusal above: each path exists and is what the attack reads,
    /// since the user's `--allow-read` of it grants it.
    @Test(arguments: ["repo/.git/config", "repo/.env.production", "repo/.git-credentials", "repo/config/Secrets.xcconfig",
                      "repo/ios/GoogleService-Info.plist", "repo/deploy/id_deploy", "repo/deploy/kubeconfig", "repo/notes/draft.txt",
                      "repo/suite/two/policies/level2.json", "repo/suite/two/keys/alice.pw", "repo/kept-device/containers/com.victim", "repo/tools"])
    func theUserCanGrantWhatADeclarationCannot(_ path: String) throws {
        let world = try World()
        let absolute = world.root.appendingPathComponent(path).path
        #expect(FileManager.default.fileExists(atPath: absolute))
        #expect(throws: PluginSandboxError.self) { try world.judge().judgeRead(absolute) }
        let grant = try world.judge(SandboxAllowances(read: [absolute])).judgeRead(absolute)
        #expect(grant.reason == "--allow-read", "\(grant)")
    }

    /// A program's folder is granted as a declaration of it would be (finding 2): whole when
    /// it holds nothing secret, else the program alone, with why.
    @Test func aProgramsFolderIsJudgedLikeADeclaration() throws {
        let world = try World()
        let clean = world.repo.appendingPathComponent("plugins/evil/run").path
        let (folder, alone) = world.judge().judgeProgram(clean)
        #expect(!alone && folder.path == world.repo.appendingPathComponent("plugins/evil").path && folder.reason == "its program's folder", "\(folder)")
        let tools = world.repo.appendingPathComponent("tools/run").path
        // Positive control: the folder exists and a declaration of it is refused.
        #expect(throws: PluginSandboxError.self) { try world.judge().judgeRead(world.repo.appendingPathComponent("tools").path) }
        let (program, programAlone) = world.judge().judgeProgram(tools)
        #expect(programAlone && program.path == tools, "\(program)")
        #expect(program.reason.contains("its program alone") && program.reason.contains("credential"), "\(program)")
    }

    /// A folder of the scenario's project holding nothing secret is granted (another scenario's
    /// data folder without its inputs, here).
    @Test func aProjectFolderWithoutSecretsIsGranted() throws {
        let world = try World()
        let grant = try world.judge().judgeRead(world.repo.appendingPathComponent("suite/two/data").path)
        #expect(grant.reason.contains("project"))
    }

    /// What the user allows on the command line is granted, and only that.
    @Test func theUsersAllowanceGrantsWhatADeclarationCannot() throws {
        let world = try World()
        let judge = world.judge(SandboxAllowances(read: [world.home.appendingPathComponent(".aws").path], environment: ["GITHUB_TOKEN"]))
        #expect(try judge.judgeRead(world.home.appendingPathComponent(".aws/credentials").path).reason.contains("--allow-read"))
        #expect(throws: PluginSandboxError.self) { try judge.judgeRead(world.home.appendingPathComponent(".ssh").path) }
        try judge.judgeEnvironment("GITHUB_TOKEN")
        #expect(throws: PluginSandboxError.self) { try judge.judgeEnvironment("AWS_SECRET_ACCESS_KEY") }
    }

    /// A symbolic link in the project that leads out of it is judged where it leads.
    @Test func aLinkOutOfTheProjectIsJudgedWhereItLeads() throws {
        let world = try World()
        let link = world.repo.appendingPathComponent("plugins/evil/etc")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/etc")
        #expect(throws: PluginSandboxError.self) { try world.judge().judgeRead(link.path) }
        let ssh = world.repo.appendingPathComponent("plugins/evil/keys")
        try FileManager.default.createSymbolicLink(atPath: ssh.path, withDestinationPath: world.home.appendingPathComponent(".ssh").path)
        #expect(throws: PluginSandboxError.self) { try world.judge().judgeRead(ssh.path) }
    }

    @Test(arguments: [
        ("GITHUB_TOKEN", false), ("AWS_SECRET_ACCESS_KEY", false), ("AWS_ACCESS_KEY_ID", false), ("NPM_TOKEN", false),
        ("SSH_AUTH_SOCK", false), ("DOCKER_HOST", false), ("KUBECONFIG", false), ("AZURE_CLIENT_SECRET", false),
        ("OPENAI_API_KEY", false), ("DATABASE_PASSWORD", false), ("CI_JOB_TOKEN", false), ("ACTIONS_RUNTIME_URL", false),
        // Security issue 70, finding 7.
        ("DATABASE_URL", false), ("HTTPS_PROXY", false), ("MYSQL_PWD", false), ("SENTRY_DSN", false), ("KEYSTORE_PASS", false),
        ("PGPASSWORD", false), ("REDIS_URL", false), ("APP_SECRET", false), ("GOOGLE_APPLICATION_CREDENTIALS", false),
        // Security issue 83, finding 6: secrets by names no pattern knows.
        ("MY_JWT", false), ("REGISTRY_CREDS", false), ("WEBHOOK_URL", false), ("UPSTREAM", false), ("BEARER", false),
        ("PYENV_VERSION", true), ("PYENV_ROOT", true), ("VIRTUAL_ENV", true), ("NODE_PATH", true), ("LANG", true), ("PWD", true),
        ("LC_CTYPE", true), ("TZ", true),
        // Security issue 95, finding 5: a locale category passes by its name, never by `LC_`.
        ("LC_DEPLOY_CREDS", false), ("LC_JWT", false), ("LC_WEBHOOK", false), ("LC_", false), ("LC_ALL_TOKEN", false),
        ("LC_MESSAGES", true), ("LC_TELEPHONE", true), ("LC_IDENTIFICATION", true),
    ])
    func aVariableWhoseNameMarksASecretNeedsTheUser(_ name: String, _ passes: Bool) throws {
        let world = try World()
        if passes {
            try world.judge().judgeEnvironment(name)
        } else {
            #expect(throws: PluginSandboxError.self) { try world.judge().judgeEnvironment(name) }
        }
    }

    /// A harmless name still carries a secret when its value is a URL with a user and a
    /// password; the same name without one passes. A name off the harmless list needs the
    /// user whatever its value, and passes with `--allow-env`.
    @Test func aURLWithCredentialsNeedsTheUser() throws {
        let world = try World()
        func judge(_ value: String, name: String = "NODE_PATH", allowing: Set<String> = []) -> SandboxDeclarations {
            var environment = world.environment
            environment[name] = value
            return SandboxDeclarations(ownFolder: world.repo.appendingPathComponent("plugins/evil"), scenarioFolder: world.repo.appendingPathComponent("suite/one"),
                                       allowances: SandboxAllowances(environment: allowing), environment: environment)
        }
        try judge("https://proxy.example.com:8080").judgeEnvironment("NODE_PATH")
        #expect(throws: PluginSandboxError.self) { try judge("http://ci:s3cr3t@proxy.example.com:8080").judgeEnvironment("NODE_PATH") }
        #expect(throws: PluginSandboxError.self) { try judge("postgres://app:pw@db/prod").judgeEnvironment("NODE_PATH") }
        #expect(throws: PluginSandboxError.self) { try judge("https://hooks.example.com/T0/B0/x", name: "WEBHOOK_URL").judgeEnvironment("WEBHOOK_URL") }
        try judge("https://hooks.example.com/T0/B0/x", name: "WEBHOOK_URL", allowing: ["WEBHOOK_URL"]).judgeEnvironment("WEBHOOK_URL")
    }

    /// `mamsim lint` on a plugin folder reports every risky declaration as an error.
    @Test func lintReportsRiskyDeclarationsAsErrors() throws {
        let world = try World()
        let plugin = world.repo.appendingPathComponent("plugins/evil")
        try #"{"sandbox": {"read": ["/etc", "~/.ssh", "../../clients/python/src"], "environment": ["GITHUB_TOKEN", "PYENV_VERSION"]}}"#
            .write(to: plugin.appendingPathComponent("plugin.json"), atomically: true, encoding: .utf8)
        setenv("HOME", world.home.path, 1)
        defer { setenv("HOME", NSHomeDirectory(), 1) }
        let findings = Linter.lint(folder: plugin).findings.filter { $0.rule == "sandbox-declaration" }
        #expect(findings.count == 3, "\(findings.map(\.problem))")
        #expect(findings.allSatisfy { $0.severity == .error })
        #expect(findings.contains { $0.problem.contains("/etc") })
        #expect(findings.contains { $0.problem.contains(".ssh") })
        #expect(findings.contains { $0.problem.contains("GITHUB_TOKEN") })
    }
}
