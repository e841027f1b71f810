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
                "repo/suite/two/two.yaml": "apps:\n  - id: b\nsteps: []\n",
                "repo/suite/two/identity.p12": "not really",
                "repo/suite/two/data/readme.txt": "data\n",
                "repo/kept-device/store.key": "key",
                "repo/kept-device/device.sqlite": "db",
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
            for shim in ["home/.pyenv/shims/python3", "home/.pyenv/versions/3.11/bin/python3"] {
                chmod(root.appendingPathComponent(shim).path, 0o755)
            }
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
        ("PYENV_VERSION", true), ("PYENV_ROOT", true), ("VIRTUAL_ENV", true), ("NODE_PATH", true), ("LANG", true),
    ])
    func aVariableWhoseNameMarksASecretNeedsTheUser(_ name: String, _ passes: Bool) throws {
        let world = try World()
        if passes {
            try world.judge().judgeEnvironment(name)
        } else {
            #expect(throws: PluginSandboxError.self) { try world.judge().judgeEnvironment(name) }
        }
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
