import Foundation
import Testing

extension CLITests {
    /// A setting read from the environment by every host: a mistyped value is said up front,
    /// naming the variable and the values it takes, and the command still runs.
    @Suite struct EnvironmentSettingTests {
        @Test func aMistypedBrokerCPUSettingIsSaidAndTheCommandRuns() async throws {
            let result = try await CLI.run(["--version"], timeout: 30, environment: ["MAMSIM_BROKER_CPU": "Shared"])
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr.contains("warning: MAMSIM_BROKER_CPU=Shared is not shared, dedicated or automatic: automatic is used"), "\(result.stderr)")
            let known = try await CLI.run(["--version"], timeout: 30, environment: ["MAMSIM_BROKER_CPU": "shared"])
            #expect(known.status == 0 && known.stderr.isEmpty, "\(known)")
        }
    }
}
