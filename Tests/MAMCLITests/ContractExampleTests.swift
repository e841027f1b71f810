import Foundation
import Testing

extension CLITests {
    /// A contract keeps its meaning: the readings of SCENARIOS.md v1.3, written as scenarios in
    /// `Tests/Fixtures/contract-v1.3` with none of mamsim's own keys, hold (lifecycle issue 71).
    /// A project key that changed what a contract verb means fails here.
    @Suite struct ContractExampleTests {
        @Test func theV13ReadingsHoldWithoutProjectKeys() async throws {
            let folder = CLI.repo("Tests/Fixtures/contract-v1.3")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") }
            #expect(files.count >= 3)
            // None uses a key of the project's own (the contract's keys only).
            for name in files {
                let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                for key in ["msalAccounts", "delegate:", "sandbox:", "executable:", "restoresState"] {
                    #expect(!text.contains(key), "\(name) uses the project's own key \(key)")
                }
            }
            let result = try await CLI.run(["test", folder.path], timeout: 120)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.contains("\(files.count) passed, 0 failed"), "\(result.stdout)")
        }
    }
}
