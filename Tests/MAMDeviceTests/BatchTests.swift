import Foundation
import MAMDevice
import MAMModel
import MAMTestSupport
import MAMWire
import Testing
import MAMPolicy
import MAMLoop

/// The batched share path: many shares in one frame, deliveries to one destination in one
/// frame, cumulative answers — and still exactly one answer per share, one delivery per item.
@Suite struct BatchTests {
    @Test func aFloodTravelsInBatchesAndEveryItemArrivesOnceWithOneAnswerEach() async throws {
        let log = EventLog()
        let host = try HostController(configuration: try makeConfiguration(apps: 2)) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        #expect(await host.signIn("app0", account: "alice@contoso.com").isAllowed)
        #expect(await host.signIn("app1", account: "alice@contoso.com").isAllowed)
        let result = await host.command("app0", .flood(Flood(destination: "app1", count: 500, size: 64, window: 64, identity: "alice@contoso.com")))
        guard case .flood(let delivered, _) = result else { Issue.record("\(result)"); return }
        #expect(delivered == 500)
        guard case .received(let entries) = await host.command("app1", .listReceived) else { Issue.record("no list"); return }
        #expect(entries.count == 500)
        #expect(Set(entries.map(\.itemID)).count == 500)
        #expect(entries.allSatisfy { $0.owner == "alice@contoso.com" })
        let shares = log.all.compactMap { if case .share(let r) = $0 { r } else { nil } }
        #expect(shares.count == 500)
        #expect(Set(shares.map(\.itemID)).count == 500)
        // The first share was decided; the others took its route, and their records say the
        // same parties as the decided one did.
        let first = try #require(shares.first)
        #expect(first.from == "app0" && first.to == "app1" && first.identity == "alice@contoso.com" && first.receivedAs == "alice@contoso.com", "\(first)")
        #expect(first.owner?.upn == "alice@contoso.com" && first.owner?.managed == true, "\(first)")
        #expect(shares.allSatisfy {
            $0.from == first.from && $0.fromBundle.rawValue == first.fromBundle.rawValue && $0.identity == first.identity && $0.to == first.to
                && $0.receivedAs == first.receivedAs && $0.owner == first.owner && $0.outcome.isDelivered
        })
        #expect(log.hostile.isEmpty, "\(log.hostile)")
        #expect(await host.shutdown() == 0)
    }

    /// Items near the frame limit are never batched past it: each travels alone, and the
    /// host cuts nobody off.
    @Test func largeItemsAreNotBatchedPastTheFrameLimit() async throws {
        var config = try makeConfiguration(apps: 2)
        config.maximumFrameSize = 1 << 20
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let result = await host.command("app0", .flood(Flood(destination: "app1", count: 40, size: 300 << 10, window: 16)))
        guard case .flood(let delivered, _) = result else { Issue.record("\(result)"); return }
        #expect(delivered == 40)
        #expect(log.hostile.isEmpty, "\(log.hostile)")
        #expect(await host.shutdown() == 0)
    }

    /// A child sends four shares in one frame. The two shares to apps that do not exist are
    /// answered at once (a range of their own, each its own exception); the two delivered ones
    /// in one range once both destinations acknowledged — it may span the seqs already answered.
    @Test func batchedSharesGetOneCumulativeAnswerWithTheirExceptions() async throws {
        var hello: [UInt8] = []
        FrameEncoder.encode(Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "batcher", batches: true))), appendingTo: &hello)
        var batch: [UInt8] = []
        FrameEncoder.encode(Frame(seq: 6, body: .shareBatch([
            BatchedShare(seq: 2, request: ShareRequest(destination: "app0", item: textItem("b1", "one"), identity: "")),
            BatchedShare(seq: 3, request: ShareRequest(destination: "nowhere", item: textItem("b2", "two"), identity: "")),
            BatchedShare(seq: 4, request: ShareRequest(destination: "elsewhere", item: textItem("b3", "three"), identity: "")),
            BatchedShare(seq: 5, request: ShareRequest(destination: "app0", item: textItem("b4", "four"), identity: "")),
        ])), appendingTo: &batch)
        let batcher = try pythonChild("batcher", """
            os.write(3, bytes(\(hello)))
            readFrame()   # welcome
            os.write(3, bytes(\(batch)))
            # Confined: the child writes in its own container only.
            first, second = readFrame(), readFrame()
            with open(os.environ["MAMSIM_DEVICE_DIR"] + "/containers/com.contoso.batcher/answer.bin", "wb") as f:
                f.write(struct.pack(">I", len(first)) + first + second)
            time.sleep(30)
            """)
        let spec = AppSpec(handle: "batcher", descriptor: AppDescriptor(bundleID: "com.contoso.batcher", sdkIntegrated: false), executable: batcher)
        var config = try makeConfiguration(apps: 1, extra: [spec])
        config.fleet.install(spec.descriptor)
        let out = config.deviceDirectory.appendingPathComponent("containers/com.contoso.batcher/answer.bin")
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        var answer: Data?
        for _ in 0..<500 where answer == nil {
            answer = try? Data(contentsOf: out)
            if answer?.isEmpty ?? true { answer = nil; try await Task.sleep(for: .milliseconds(10)) }
        }
        let bytes = Array(try #require(answer, "\(log.all)"))
        let firstLength = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let first = try FrameParser.parse(Array(bytes[4..<(4 + firstLength)]))
        let second = try FrameParser.parse(Array(bytes[(4 + firstLength)...]))
        #expect(first.body == .shareResults(ShareResults(first: 3, last: 4, exceptions: [
            ShareException(seq: 3, outcome: .blocked(.unknownApp, "no app or extension named \"nowhere\" is installed on this device")),
            ShareException(seq: 4, outcome: .blocked(.unknownApp, "no app or extension named \"elsewhere\" is installed on this device")),
        ])), "\(first)")
        #expect(second.body == .shareResults(ShareResults(first: 2, last: 5)), "\(second)")
        guard case .received(let entries) = await host.command("app0", .listReceived) else { Issue.record("no list"); return }
        #expect(entries.map(\.itemID) == ["b1", "b4"])
        #expect(await host.shutdown() == 0)
    }

    @Test func aBatchWhoseSharesAreMisnumberedCutsTheChildOff() async throws {
        let misnumbered = try scriptedChild("misnumbered", frames: [
            Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "misnumbered", batches: true))),
            Frame(seq: 4, body: .shareBatch([
                BatchedShare(seq: 2, request: ShareRequest(destination: "app0", item: textItem("m1", "x"), identity: "")),
                BatchedShare(seq: 2, request: ShareRequest(destination: "app0", item: textItem("m2", "y"), identity: "")),
            ])),
        ])
        let spec = AppSpec(handle: "misnumbered", descriptor: AppDescriptor(bundleID: "com.evil.misnumbered", sdkIntegrated: false), executable: misnumbered)
        var config = try makeConfiguration(apps: 1, extra: [spec])
        config.fleet.install(spec.descriptor)
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        _ = await host.startFleet()
        let cut = try await log.wait(for: "misnumbered cut off") { e -> String? in
            if case .hostile("misnumbered", let what, true) = e { what } else { nil }
        }
        #expect(cut.contains("share_batch"), "\(cut)")
        guard case .received(let entries) = await host.command("app0", .listReceived) else { Issue.record("no list"); return }
        #expect(entries.isEmpty)
        #expect(await host.shutdown() == 0)
    }

    /// A device that is shutting down answers nothing it was asked: each answer is a failure
    /// (app-not-running), never a rule's refusal.
    @Test func aShutDownDeviceFailsWhatItIsAskedNeverBlocksIt() async throws {
        let host = try HostController(configuration: try makeConfiguration(apps: 2))
        #expect(await host.startFleet().isEmpty)
        #expect(await host.shutdown() == 0)
        let signIn = await host.signIn("app0", account: "alice@contoso.com")
        #expect(signIn == .failed(.appNotRunning, HostFailure.shutDown.message), "\(signIn)")
        let share = await host.share(from: "app0", to: "app1", item: textItem("late", "x"))
        #expect(share == .failed(.appNotRunning, HostFailure.shutDown.message), "\(share)")
        let service = await host.service("app0", .print)
        #expect(service.verdict == .failed(.appNotRunning, HostFailure.shutDown.message), "\(service)")
        // The failure keeps the host's error it was made from.
        #expect(HostFailure.shutDown.underlying as? HostError == .shuttingDown)
    }
}
