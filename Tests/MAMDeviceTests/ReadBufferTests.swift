import Foundation
@testable import MAMDevice
import MAMLoop
import MAMModel
import MAMWire
import Testing

/// A delivery's payload lies in the host's read buffer, which the loop reads into again only
/// when nothing refers to it. Once a delivery is written, nothing reads its item again unless
/// deliveries are reported (`reportDeliveries`), so it no longer holds that buffer while it
/// waits for its acknowledgement: at 50 sender→receiver pairs (25,600 items in flight) the
/// host's peak memory went from 113–115 MB to 84–86 MB (docs/ARCHITECTURE.md, "The hot path in detail").
@Suite(.serialized) struct ReadBufferTests {
    /// What the host holds once all `count` shares from `app0` were sent to the sink, which
    /// reads them all and acknowledges none: the sink's unacknowledged deliveries, and how
    /// many of them keep a read buffer.
    static func heldAfterSending(count: Int, reportDeliveries: Bool) async throws -> (pending: Int, keepingBuffers: Int) {
        let sink = AppSpec(handle: "sink", descriptor: AppDescriptor(bundleID: "com.evil.sink", sdkIntegrated: false),
                           executable: try BackpressureTests.sink())
        var config = try makeConfiguration(apps: 1, extra: [sink])
        config.reportDeliveries = reportDeliveries
        config.deliveryTimeout = .seconds(10)
        let host = try HostController(configuration: config) { _ in }
        #expect(await host.startFleet().isEmpty)
        let flood = Task { await host.command("app0", .flood(Flood(destination: "sink", count: UInt64(count), size: 1024, window: UInt32(count)))) }
        var held = (pending: 0, keepingBuffers: 0)
        for _ in 0..<500 {
            held = await host.run(orElse: (pending: 0, keepingBuffers: 0)) { host in
                let sink = host.supervisor.child(AppHandle("sink"))
                let sender = host.supervisor.child(AppHandle("app0"))
                return (sink?.value.ledger.awaitingAcknowledgement ?? 0, sender?.value.ledger.readBuffersInFlight ?? 0)
            }
            if held.pending == count { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        flood.cancel()
        _ = await host.shutdown()
        try? FileManager.default.removeItem(at: config.deviceDirectory)
        return held
    }

    @Test func aDeliveryWrittenAndNotReportedLetsItsReadBufferGo() async throws {
        let held = try await Self.heldAfterSending(count: 300, reportDeliveries: false)
        #expect(held.pending == 300, "the sink was sent \(held.pending) of 300 deliveries")
        #expect(held.keepingBuffers == 0, "\(held.keepingBuffers) deliveries written to the sink still keep a read buffer")
    }

    /// The control: a reported delivery is read again when acknowledged (its item goes into
    /// the event), so it keeps its payload where it lies until then.
    @Test func aReportedDeliveryKeepsItsPayloadToItsAcknowledgement() async throws {
        let held = try await Self.heldAfterSending(count: 300, reportDeliveries: true)
        #expect(held.pending == 300, "the sink was sent \(held.pending) of 300 deliveries")
        #expect(held.keepingBuffers == 300, "\(held.keepingBuffers) of 300 reported deliveries keep a read buffer")
    }
}
