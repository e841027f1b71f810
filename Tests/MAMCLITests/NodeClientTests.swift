import Foundation
import Testing

extension CLITests {
    /// The Node client (clients/node) runs a share extension written in Node through a real
    /// scenario: its codec and runtime, generated from the .proto, speak the host's wire.
    @Suite struct NodeClientTests {
        static var node: String? {
            ["/usr/bin/node", "/usr/local/bin/node", "/opt/homebrew/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) }
        }

        @Test func aShareExtensionWrittenInNodeRunsItsScenario() async throws {
            guard Self.node != nil else {
                print("node not found: skipping the Node client's scenario (plugins/node-share/scenario.yaml); apt-get install nodejs to run it")
                return
            }
            let r = try await CLI.run(["run", CLI.repo("plugins/node-share/scenario.yaml").path], timeout: 120)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout.contains("7 steps run, 5 with an expectation, all held"), "\(r.stdout)")
        }
    }
}
