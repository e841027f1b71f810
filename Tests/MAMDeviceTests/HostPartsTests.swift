import Foundation
import MAMDevice
import MAMDeviceState
import MAMModel
import MAMWire
import Testing
import MAMPolicy

/// The host's parts, each attacked or timed out on purpose, with real child processes.
@Suite(.serialized) struct HostPartsTests {
    @Test func aDeliveryNotAcknowledgedInTimeFailsWithTimeoutAndALateAckIsIgnoredNotPunished() async throws {
        let log = EventLog()
        // Says hello, waits for the first delivery (the host's frame 2, after Welcome), and
        // acknowledges it a second after its deadline.
        let ack = wireBytes(Frame(seq: 2, replyTo: 2, body: .deliverAck(DeliverAck(itemID: "late", accepted: true))))
        let late = try receivingChild("late", then: """
            time.sleep(1.5)
            os.write(3, bytes(\(ack)))
            time.sleep(30)
            """)
        let spec = AppSpec(handle: "late", descriptor: AppDescriptor(bundleID: "com.contoso.late"), executable: late)
        var config = try makeConfiguration(apps: 1, extra: [spec])
        config.fleet.install(spec.descriptor)
        config.deliveryTimeout = .milliseconds(500)
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let outcome = await host.share(from: "app0", to: "late", item: textItem("late", "x"))
        #expect(outcome.reason == .timeout, "\(outcome)")
        try await log.wait(for: "the late acknowledgement") {
            if case .note(let n) = $0, n.contains("after its deadline") { n } else { nil }
        }
        #expect(log.hostile.isEmpty, "an honest late answer is not hostile: \(log.hostile)")
        #expect(await host.pid(of: "late") != nil, "the late app is still running")
        #expect(await host.shutdown() == 0)
    }

    /// An app acknowledging a whole flood of batched deliveries in one range after their
    /// deadline is late, not hostile — also when the range is long and nothing is pending.
    @Test func aLateCumulativeAcknowledgementOfManyExpiredDeliveriesIsIgnoredNotPunished() async throws {
        let log = EventLog()
        var hello: [UInt8] = []
        FrameEncoder.encode(Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "late", batches: true))), appendingTo: &hello)
        // Reads the host's frames until they stop, then, past the deadline, acknowledges every
        // seq from 2 (after Welcome) to the last one seen: Frame{seq 2, deliver_acks{first, last}}.
        let late = try pythonChild("lateBatches", """
            import select
            def varint(n):
                out = b""
                while True:
                    if n < 0x80:
                        return out + bytes([n])
                    out += bytes([n & 0x7f | 0x80]); n >>= 7
            def frameSeq(frame):
                assert frame[0] == 0x08
                n, shift, i = 0, 0, 1
                while True:
                    n |= (frame[i] & 0x7f) << shift
                    if frame[i] < 0x80:
                        return n
                    shift += 7; i += 1
            os.write(3, bytes(\(hello)))
            last = frameSeq(readFrame())   # welcome
            while select.select([3], [], [], 1.0)[0]:
                last = max(last, frameSeq(readFrame()))
            acks = b"\\x08" + varint(2) + b"\\x10" + varint(last)
            frame = b"\\x08\\x02" + varint(73 << 3 | 2) + varint(len(acks)) + acks
            os.write(3, struct.pack(">I", len(frame)) + frame)
            time.sleep(30)
            """)
        let spec = AppSpec(handle: "late", descriptor: AppDescriptor(bundleID: "com.contoso.late"), executable: late)
        var config = try makeConfiguration(apps: 1, extra: [spec])
        config.fleet.install(spec.descriptor)
        config.deliveryTimeout = .milliseconds(300)
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let result = await host.command("app0", .flood(Flood(destination: "late", count: 100, size: 16, window: 100)))
        guard case .flood(let delivered, let problem) = result else { Issue.record("\(result)"); return }
        #expect(delivered == 0)
        #expect(problem?.reason == .timeout, "\(String(describing: problem))")
        let note = try await log.wait(for: "the late acknowledgement") {
            if case .note(let n) = $0, n.contains("after their deadline") { n } else { nil }
        }
        #expect(note.contains("acknowledged 100 deliveries"), "\(note)")
        #expect(log.hostile.isEmpty, "an honest late answer is not hostile: \(log.hostile)")
        #expect(await host.pid(of: "late") != nil, "the late app is still running")
        #expect(await host.shutdown() == 0)
    }

    /// The built-in runtime's flood names its items `f0`, `f1`, … (written digit by digit, as
    /// interpolation spells them): the receiver keeps the last ones, in order.
    @Test func aFloodNamesItsItemsInOrder() async throws {
        let host = try HostController(configuration: try makeConfiguration(apps: 2)) { _ in }
        #expect(await host.startFleet().isEmpty)
        let count: UInt64 = 1_010
        let result = await host.command("app0", .flood(Flood(destination: "app1", count: count, size: 16, window: 64)))
        guard case .flood(let delivered, let problem) = result else { Issue.record("\(result)"); return }
        #expect(delivered == count, "\(String(describing: problem))")
        guard case .received(let kept) = await host.command("app1", .listReceived) else { Issue.record("no list"); return }
        #expect(!kept.isEmpty)
        let expected = (count - UInt64(kept.count)..<count).map { "f\($0)" }
        #expect(kept.map(\.itemID) == expected)
        #expect(await host.shutdown() == 0)
    }

    @Test func aChildThatNeverSaysHelloIsCutOffAfterTheHandshakeTimeout() async throws {
        let log = EventLog()
        let mute = try scriptedChild("mute", frames: [])
        let spec = AppSpec(handle: "mute", descriptor: AppDescriptor(bundleID: "com.contoso.mute"), executable: mute)
        var config = try makeConfiguration(apps: 1, extra: [spec])
        config.fleet.install(spec.descriptor)
        config.handshakeTimeout = .milliseconds(300)
        let host = try HostController(configuration: config) { log.record($0) }
        let failures = await host.startFleet()
        #expect(failures["mute"] != nil)
        #expect(log.hostile.contains { $0.hasPrefix("mute: sent no hello within") }, "\(log.hostile)")
        #expect(await host.shutdown() == 0)
    }

    @Test func aFloodBeyondTheSharesInFlightCapIsRefusedAndTheRestDelivered() async throws {
        var config = try makeConfiguration(apps: 2)
        config.maximumSharesInFlight = 8
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        // 64 shares with up to 64 unanswered: those beyond 8 in flight are refused.
        let result = await host.command("app0", .flood(Flood(destination: "app1", count: 64, size: 16, window: 64)))
        guard case .flood(let delivered, let problem) = result else { Issue.record("\(result)"); return }
        #expect(delivered >= 8 && delivered < 64, "\(delivered) delivered")
        #expect(problem?.reason == .badRequest)
        #expect(problem?.explanation.contains("shares in flight") == true, "\(String(describing: problem))")
        #expect(await host.shutdown() == 0)
    }

    /// An app remembers the ids and owners of its last 16,384 items, oldest first: kept whole,
    /// a flood of millions grew the receiver without bound, and the list would not fit in
    /// the one frame that answers `listReceived`.
    @Test func anAppListsTheLastItemsItReceivedOldestFirst() async throws {
        var config = try makeConfiguration(apps: 2)
        config.reportDeliveries = false
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        let result = await host.command("app0", .flood(Flood(destination: "app1", count: 20_000, size: 16, window: 512)))
        guard case .flood(let delivered, let problem) = result else { Issue.record("\(result)"); return }
        #expect(delivered == 20_000 && problem == nil, "\(delivered) delivered, \(String(describing: problem))")
        guard case .received(let entries) = await host.command("app1", .listReceived) else { Issue.record("no list"); return }
        #expect(entries.count == 16_384)
        #expect(entries.first?.itemID == "f3616" && entries.last?.itemID == "f19999",
                "from \(entries.first?.itemID ?? "-") to \(entries.last?.itemID ?? "-")")
        #expect(entries.map(\.itemID) == (3_616..<20_000).map { "f\($0)" })
        #expect(await host.shutdown() == 0)
    }

    @Test func aChildSpeakingProtocolVersion1IsToldWhichVersionTheHostSpeaks() async throws {
        let log = EventLog()
        let old = try scriptedChild("old", frames: [Frame(seq: 1, body: .hello(Hello(protocolVersion: 1, pid: 1, runtime: "v1")))])
        let spec = AppSpec(handle: "old", descriptor: AppDescriptor(bundleID: "com.contoso.old"), executable: old)
        var config = try makeConfiguration(apps: 1, extra: [spec])
        config.fleet.install(spec.descriptor)
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet()["old"] != nil)
        #expect(log.hostile.contains { $0.contains("speaks protocol version 1; this host speaks 2") }, "\(log.hostile)")
        #expect(await host.shutdown() == 0)
    }

    /// An acknowledgement naming another item than the delivery carried cuts the child off,
    /// and the sender is answered when it is gone (the delivery was taken out of the table
    /// before the check and never answered: the sender waited for its own timeout). Whether
    /// the host reports deliveries or not.
    @Test(arguments: [true, false])
    func anAcknowledgementOfAnotherItemCutsTheChildOffAndTheSenderIsAnswered(reportDeliveries: Bool) async throws {
        let log = EventLog()
        let ack = wireBytes(Frame(seq: 2, replyTo: 2, body: .deliverAck(DeliverAck(itemID: "other", accepted: true))))
        let forger = try receivingChild("forger", then: """
            os.write(3, bytes(\(ack)))
            time.sleep(30)
            """)
        let spec = AppSpec(handle: "forger", descriptor: AppDescriptor(bundleID: "com.contoso.forger"), executable: forger)
        var config = try makeConfiguration(apps: 1, extra: [spec])
        config.fleet.install(spec.descriptor)
        config.reportDeliveries = reportDeliveries
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let outcome = await host.share(from: "app0", to: "forger", item: textItem("mine", "x"))
        #expect(outcome.reason == .appNotRunning, "\(outcome)")
        let why = try await log.wait(for: "forger cut off") {
            if case .hostile(let h, let what, true) = $0, h == "forger" { what } else { nil }
        }
        #expect(why.contains("with item other, but it carried mine"), "\(why)")
        #expect(await host.shutdown() == 0)
    }

    @Test func anAnswerToTheWrongCommandCutsTheChildOffAndTheCallerGetsAnError() async throws {
        let log = EventLog()
        // Says hello, waits for the first command (the host's frame 2) and answers it with a
        // flood result.
        var hello: [UInt8] = []
        FrameEncoder.encode(Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "liar"))), appendingTo: &hello)
        var answer: [UInt8] = []
        FrameEncoder.encode(Frame(seq: 2, replyTo: 2, body: .commandResult(.flood(delivered: 1, firstProblem: nil))), appendingTo: &answer)
        let liar = try pythonChild("liar", """
            os.write(3, bytes(\(hello)))
            readFrame()   # welcome
            readFrame()   # the command
            os.write(3, bytes(\(answer)))
            time.sleep(30)
            """)
        let spec = AppSpec(handle: "liar", descriptor: AppDescriptor(bundleID: "com.contoso.liar"), executable: liar)
        var config = try makeConfiguration(apps: 1, extra: [spec])
        config.fleet.install(spec.descriptor)
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let added = await host.command("liar", .addIdentity(account: "alice@contoso.com"))
        #expect(added == .error(.badRequest, "liar answered add_identity with flood"), "\(added)")
        try await log.wait(for: "liar cut off") { if case .hostile(let h, _, true) = $0, h == "liar" { h } else { nil } }
        #expect(await host.shutdown() == 0)
    }

    @Test func aHostThatCannotOpenItsDeviceFailsCleanlyAndLeavesNoThreadOrLoop() async throws {
        var config = try makeConfiguration(apps: 1)
        // A regular file where the device directory should be.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-not-a-dir-\(UUID().uuidString)")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        config.deviceDirectory = file
        #expect(throws: HostError.self) { try HostController(configuration: config) }
        var duplicate = try makeConfiguration(apps: 1)
        duplicate.apps.append(AppSpec(handle: "APP0", descriptor: AppDescriptor(bundleID: "com.contoso.other")))
        #expect(throws: HostError.duplicateApp("APP0")) { try HostController(configuration: duplicate) }
    }

    @Test func everyAnsweredShareHasItsAuditLineCommittedBeforeTheAnswerLeft() async throws {
        let config = try makeConfiguration(apps: 2)
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        _ = await host.signIn("app0", account: "alice@contoso.com")
        _ = await host.signIn("app1", account: "alice@contoso.com")
        for i in 0..<20 {
            _ = await host.share(from: "app0", to: i % 2 == 0 ? "app1" : "notes", item: textItem("a\(i)", "x"), identity: "alice@contoso.com")
        }
        // Read the store from a second connection, as a restarted host would after a SIGKILL:
        // only committed lines are there.
        let store = try DeviceState(directory: config.deviceDirectory, fleet: config.fleet)
        let shares = try store.auditEvents().filter { $0.verb == .share }
        #expect(shares.count == 20, "\(shares.count) share lines committed")
        #expect(shares.filter { $0.decision == .blocked }.count == 10)
        #expect(await host.shutdown() == 0)
    }

    @Test func aSecondHostOnTheSameDeviceDirectoryIsRefusedUntilTheFirstIsGone() async throws {
        let config = try makeConfiguration(apps: 1)
        let first = try HostController(configuration: config)
        let error = #expect(throws: HostError.self) { try HostController(configuration: config) }
        #expect(error == .deviceInUse(config.deviceDirectory.path))
        #expect(error?.description.contains("another mamsim host is running on the device directory") == true)
        #expect(await first.shutdown() == 0)
        let again = try HostController(configuration: config)
        #expect(await again.shutdown() == 0)
    }
}
