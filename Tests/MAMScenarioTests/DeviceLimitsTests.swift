import Foundation
import MAMScenario
import MAMDevice
import Testing

/// `device.limits`: what all the device's apps may use together.
struct DeviceLimitsTests {
    static func load(_ device: String) throws -> Scenario {
        try ScenarioLoader.load(text: """
            device:
            \(device)
            apps:
              - id: mail
                bundle: com.contoso.mail
            steps:
              - launch: {app: mail}
            """, file: URL(fileURLWithPath: "/tmp/limits.yaml"))
    }

    @Test(arguments: [("2GiB", UInt64(2) << 30), ("512 MiB", UInt64(512) << 20), ("1.5G", UInt64(1536) << 20), ("1048576", UInt64(1) << 20)])
    func memoryTakesASizeInAnyCommonSpelling(_ text: String, _ bytes: UInt64) throws {
        let scenario = try Self.load("  limits: {memory: \(text), storage: \(text), processes: 300}")
        #expect(scenario.device.limits.memoryBytes == bytes)
        #expect(scenario.device.limits.storageBytes == bytes)
        #expect(scenario.device.limits.processes == 300)
    }

    @Test func withoutLimitsTheDefaultsHold() throws {
        let scenario = try Self.load("  mdmEnrolled: false")
        #expect(scenario.device.limits.memoryBytes == 4 << 30)
        #expect(scenario.device.limits.processes == 1024)
        #expect(scenario.device.limits.storageBytes == 1 << 30)
    }

    @Test(arguments: [
        ("  limits: {memory: lots}", "device.limits.memory: limits.memory must be a size of at least 1MiB such as 2GiB"),
        ("  limits: {storage: 12}", "device.limits.storage: limits.storage must be a size of at least 1MiB"),
        ("  limits: {processes: 0}", "limits.processes must be at least 1"),
        ("  limits: {memroy: 1GiB}", "unknown key \"memroy\""),
    ])
    func aBadLimitNamesTheKey(_ device: String, _ message: String) throws {
        #expect { try Self.load(device) } throws: { "\($0)".contains(message) }
    }
}
