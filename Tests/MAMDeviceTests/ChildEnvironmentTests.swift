import Foundation
@testable import MAMDevice
import Testing

/// Security issue 70, finding 7: what a child receives of the host's environment undeclared.
/// Locale variables by their POSIX names only, and of mamsim's own only what a child's runtime
/// reads: a prefix let any `LC_…` or `MAMSIM_…` a CI job sets reach every child.
struct ChildEnvironmentTests {
    @Test func onlyNamedVariablesPass() {
        let host = [
            "PATH": "/usr/bin", "HOME": "/root", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "LC_CTYPE": "C.UTF-8",
            "MAMSIM_BATCHES": "0",
            // What a CI job or a developer's shell may hold: none of it reaches a child.
            "LC_DEPLOY_TOKEN": "ghp_x", "MAMSIM_SIGNING_PASSWORD": "hunter2", "MAMSIM_DEVICE_DIR": "/elsewhere",
            "DATABASE_URL": "postgres://u:p@db/prod", "GITHUB_TOKEN": "ghp_y",
        ]
        let passed = ChildEnvironment.filter(host)
        #expect(Set(passed.keys) == ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "MAMSIM_BATCHES"], "\(passed.keys.sorted())")
        // What the user declared (and the judge let through) passes too.
        #expect(ChildEnvironment.filter(host, alsoPassing: ["DATABASE_URL"])["DATABASE_URL"] == "postgres://u:p@db/prod")
    }
}

/// Issue 73, item 6: an interpreter that died for a module it could not read gets a hint naming
/// plugin.json's sandbox and the interpreter found; an error that says its own fix gets none.
struct MissingModuleHintTests {
    @Test(arguments: [
        ("Fatal Python error: init_fs_encoding: failed to get the Python codec | ModuleNotFoundError: No module named 'encodings'", "standard library"),
        ("ModuleNotFoundError: No module named 'mamsim_client'", "clients/python/src"),
        ("Error: Cannot find module '/work/clients/node' | Require stack:", "clients/node"),
    ])
    func aMissingModuleNamesTheSandbox(_ tail: String, _ word: String) {
        let hint = Supervisor.missingModuleHint(tail)
        #expect(hint?.contains("sandbox.read") == true && hint?.contains(word) == true, "\(hint ?? "nil")")
    }

    @Test func anErrorWithItsOwnFixGetsNoHint() {
        #expect(Supervisor.missingModuleHint("mamsim_client: cannot load the protobuf runtime (No module named 'google'); install it with: python3 -m pip install 'protobuf>=3.20,<5'") == nil)
        #expect(Supervisor.missingModuleHint("Traceback: ValueError: bad item") == nil)
    }
}
