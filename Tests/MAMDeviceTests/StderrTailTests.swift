import Foundation
import Testing
@testable import MAMDevice

/// What a failed child's stderr says in the host's message: the last lines, and the first
/// error line when the last ones are a stack (Node's "Cannot find module" under its require
/// stack, as a plugin that links its client through a symlink the sandbox does not grant).
@Suite struct StderrTailTests {
    func tail(_ text: String) throws -> String? {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return Supervisor.stderrTail(path)
    }

    @Test func theFirstErrorLineIsKeptAboveAStack() throws {
        let node = """
            node:internal/modules/cjs/loader:1228
              throw err;
              ^

            Error: Cannot find module 'mamsim-client'
            Require stack:
            - /tmp/np/run
                at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15) {
              code: 'MODULE_NOT_FOUND',
              requireStack: [ '/tmp/np/run' ]
            }

            Node.js v20.20.2
            """
        #expect(try tail(node) == "Error: Cannot find module 'mamsim-client' …   requireStack: [ '/tmp/np/run' ] | } | Node.js v20.20.2")
    }

    @Test func anErrorAmongTheLastLinesIsNotRepeated() throws {
        let python = "Traceback (most recent call last):\n  File \"run\", line 3, in <module>\nModuleNotFoundError: No module named 'mamsim_client'\n"
        #expect(try tail(python) == "Traceback (most recent call last): |   File \"run\", line 3, in <module> | ModuleNotFoundError: No module named 'mamsim_client'")
        #expect(try tail("one\ntwo\nthree\nfour\n") == "two | three | four")
        // A Swift program that stopped: its one line, not the backtrace's tail (issue 87, item 2).
        let swift = """
            FleetApp/main.swift:12: Fatal error: Error raised at top level: MAMKit.ConnectError.noHost

            💣 Program crashed: System trap at 0x00007f5e1c2d3e4f

            Thread 0 crashed:

            0 0x00007f5e1c2d3e4f $ss17_assertionFailure in libswiftCore.so
            1 0x0000555555559abc main + 188 in FleetApp at /src/main.swift:12:5
            """
        #expect(try tail(swift) == "FleetApp/main.swift:12: Fatal error: Error raised at top level: MAMKit.ConnectError.noHost (its backtrace is in the device's logs/)")
        #expect(try tail("Error: \u{1B}[31mred\u{1B}[0m\nx\ny\nz\n") == "Error: ?[31mred?[0m … x | y | z", "control characters never reach the terminal")
    }
}

/// The template alone is asked to bind every symbol at load (`LD_BIND_NOW`), with a marker
/// that lets it remove the request before it forks; a user's own `LD_BIND_NOW` is left as it is.
@Suite struct TemplateEnvironmentTests {
    @Test func theTemplateIsAskedToBindEverySymbolAndToldItWasUs() {
        let env = SpawnEnvironment.template(["PATH": "/usr/bin"], appsConfined: false)
        #expect(env == ["PATH": "/usr/bin", "LD_BIND_NOW": "1", "MAMSIM_TEMPLATE_BIND_NOW": "1", "GLIBC_TUNABLES": SpawnEnvironment.runtimeMallocTunables])
    }

    @Test func aUsersOwnBindNowIsLeftAloneAndNotRemoved() {
        let env = SpawnEnvironment.template(["LD_BIND_NOW": "0"], appsConfined: false)
        #expect(env == ["LD_BIND_NOW": "0", "GLIBC_TUNABLES": SpawnEnvironment.runtimeMallocTunables])
    }

    /// Only a template whose apps all confine themselves prepares their confinement (it
    /// empties its own capability bounding set, which an unconfined app must keep).
    @Test func theTemplateIsToldWhenEveryAppItForksConfinesItself() {
        #expect(SpawnEnvironment.template(["LD_BIND_NOW": "0"], appsConfined: true)
                == ["LD_BIND_NOW": "0", "MAMSIM_TEMPLATE_CONFINES": "1", "GLIBC_TUNABLES": SpawnEnvironment.runtimeMallocTunables])
        #expect(SpawnEnvironment.template([:], appsConfined: true)["MAMSIM_TEMPLATE_CONFINES"] == "1")
        #expect(SpawnEnvironment.template([:], appsConfined: false)["MAMSIM_TEMPLATE_CONFINES"] == nil)
    }
}
