import Foundation
import MAMDevice
import MAMModel
import MAMPolicy
import MAMWire
import Testing

/// Services asked for by an app's own process, over its channel.
@Suite(.serialized) struct ServiceCallTests {
    /// `policy_query` (isSpotlightIndexingAllowed…): under alice's policy, which sends org data
    /// only to managed apps, indexing her data for Spotlight is restricted; unmanaged data is
    /// not. The host decides and audits each call the child sent.
    @Test func anAppsOwnProcessReadsAFeatureSwitchOfItsPolicy() async throws {
        var frames: [UInt8] = []
        FrameEncoder.encode(Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "asker"))), appendingTo: &frames)
        FrameEncoder.encode(Frame(seq: 2, body: .serviceRequest(.policyQuery(.spotlight, as: "alice@contoso.com"))), appendingTo: &frames)
        FrameEncoder.encode(Frame(seq: 3, body: .serviceRequest(.policyQuery(.spotlight, as: ""))), appendingTo: &frames)
        let asker = try pythonChild("asker", """
            os.write(3, bytes(\(frames)))
            for _ in range(3):   # welcome and the two answers
                readFrame()
            time.sleep(30)
            """)
        let spec = AppSpec(handle: "asker", descriptor: AppDescriptor(bundleID: "com.contoso.asker"), executable: asker)
        var config = try makeConfiguration(apps: 0, extra: [spec])
        config.fleet.install(spec.descriptor)
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        let audit = config.deviceDirectory.appendingPathComponent("audit.jsonl")
        var lines: [Substring] = []
        for _ in 0..<100 {
            _ = await host.exportAudit(to: audit)
            lines = try String(contentsOf: audit, encoding: .utf8).split(separator: "\n").filter { $0.contains("\"verb\":\"policy_query\"") }
            if lines.count == 2 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first { $0.contains("\"owner\":\"alice@contoso.com\"") }.map {
            $0.contains("\"sourceApp\":\"asker\"") && $0.contains("\"destinationApp\":\"spotlight\"") && $0.contains("\"reason\":\"feature-restricted\"")
        } == true, "\(lines)")
        #expect(lines.first { !$0.contains("alice") }.map { $0.contains("\"decision\":\"allowed\"") } == true, "\(lines)")
        #expect(await host.shutdown() == 0)
    }

    /// A program of its own finds its data container in MAMSIM_CONTAINER and may keep files
    /// there (the file the device then serves it as Documents/… is the same file).
    @Test func aChildFindsItsContainerInItsEnvironment() async throws {
        var hello: [UInt8] = []
        FrameEncoder.encode(Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "keeper"))), appendingTo: &hello)
        let keeper = try pythonChild("keeper", """
            os.makedirs(os.path.join(os.environ["MAMSIM_CONTAINER"], "Documents"), exist_ok=True)
            with open(os.path.join(os.environ["MAMSIM_CONTAINER"], "Documents", "note.txt"), "w") as f:
                f.write("groups in " + os.environ["MAMSIM_APP_GROUPS_DIR"])
            os.write(3, bytes(\(hello)))
            readFrame()   # welcome
            time.sleep(30)
            """)
        let spec = AppSpec(handle: "keeper", descriptor: AppDescriptor(bundleID: "com.contoso.keeper", sdkIntegrated: false), executable: keeper)
        var config = try makeConfiguration(apps: 0, extra: [spec])
        config.fleet.install(spec.descriptor)
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        let read = await host.service("keeper", .readFile(path: "Documents/note.txt"))
        let expected = "groups in " + config.deviceDirectory.resolvingSymlinksInPath().path + "/groups"
        #expect(String(decoding: read.data, as: UTF8.self) == expected, "\(read)")
        #expect(await host.shutdown() == 0)
    }
}
