import Foundation
import MAMLoop
import MAMModel
import MAMPlayedHost
import MAMWire
import Synchronization
import Testing
@testable import MAMKit

/// An app channel that lends payloads (`AppChannel.lendsReceivedPayloads`, the generic
/// runtime's) hands each delivery's bytes where they were read; one that does not (the
/// default, and `MAMApp`, whose app keeps what it is given) hands copies. Either way the app
/// sees the same items and the host the same acknowledgements.
@Suite(.serialized) struct LentPayloadTests {
    struct Seen: Sendable {
        let id: String
        let inReadBuffer: Bool
        let bytes: [UInt8]
    }

    final class Channel: @unchecked Sendable {
        var channel: AppChannel?
        let seen = Mutex<[Seen]>([])
    }

    /// Payloads of 1 byte, 1 KiB and 300 KiB: the last outgrows a read (256 KiB) and is
    /// gathered from several, in a buffer of its own.
    static let payloads: [[UInt8]] = [[0x61], (0..<1024).map { UInt8(truncatingIfNeeded: $0) },
                                      (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }]

    static func batch(firstSeq: UInt64) -> Frame {
        let deliveries = payloads.enumerated().map { i, bytes in
            BatchedDelivery(seq: firstSeq + UInt64(i), deliver: Deliver(
                item: Item(id: "item-\(firstSeq + UInt64(i))", typeIdentifiers: ["public.data"], payload: .inline(bytes),
                           ownership: Ownership(upn: "alice@contoso.com", oid: "", managed: true, sourceBundle: "com.contoso.mail")),
                senderBundleID: "com.contoso.mail"))
        }
        return Frame(seq: 0, replyTo: 0, body: .deliverBatch(deliveries))
    }

    /// A channel on a loop thread of its own, set up by `configure` before it starts, with a
    /// fake host at its other end; `body`'s answer, the channel closed once it returns.
    func withChannel<T>(_ configure: @escaping (AppChannel, Channel) -> Void, _ body: (PlayedHost, Channel) async throws -> T) async throws -> T {
        let host = try PlayedHost(answer: { _, _ in nil })
        let box = Channel()
        let thread = try LoopThread { loop in
            let channel = try AppChannel(loop: loop, fd: host.appEnd)
            box.channel = channel
            configure(channel, box)
            try channel.start(runtime: "test")
        }
        defer {
            thread.submit { box.channel?.close(); box.channel = nil }
            thread.submit { [thread] in thread.stopAcceptingJobs() }
            _ = thread.join()
        }
        return try await body(host, box)
    }

    /// What the app's `onDeliver` saw of two batches, and the acknowledgements the host got.
    func deliver(lending: Bool) async throws -> ([Seen], [DeliverAcks]) {
        try await withChannel({ channel, box in
            channel.lendsReceivedPayloads = lending
            channel.onDeliver = { d in
                box.seen.withLock {
                    $0.append(Seen(id: d.item.id, inReadBuffer: d.item.isInReadBuffer, bytes: d.item.withInlineBytes { Array($0) } ?? []))
                }
                return true
            }
        }) { host, box in
            host.send(Self.batch(firstSeq: 10))
            host.send(Self.batch(firstSeq: 20))
            let deadline = ContinuousClock.now + .seconds(20)
            while host.deliveryAcks.withLock({ $0.map { Int($0.last - $0.first) + 1 }.reduce(0, +) }) < 6, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            return (box.seen.withLock { $0 }, host.deliveryAcks.withLock { $0 })
        }
    }

    static let expectedIDs = ["item-10", "item-11", "item-12", "item-20", "item-21", "item-22"]

    @Test func aLendingChannelHandsEachPayloadWhereItWasRead() async throws {
        let (seen, acks) = try await deliver(lending: true)
        #expect(seen.map(\.id) == Self.expectedIDs)
        #expect(seen.allSatisfy { $0.inReadBuffer })
        let same = seen.map(\.bytes) == Self.payloads + Self.payloads
        #expect(same, "the payloads differ from those sent")
        #expect(acks.flatMap { Array($0.first...$0.last) } == [10, 11, 12, 20, 21, 22])
        #expect(acks.allSatisfy { $0.declined.isEmpty })
    }

    @Test func aChannelThatDoesNotLendHandsCopies() async throws {
        let (seen, acks) = try await deliver(lending: false)
        #expect(seen.map(\.id) == Self.expectedIDs)
        #expect(seen.allSatisfy { !$0.inReadBuffer })
        let same = seen.map(\.bytes) == Self.payloads + Self.payloads
        #expect(same, "the payloads differ from those sent")
        #expect(acks.flatMap { Array($0.first...$0.last) } == [10, 11, 12, 20, 21, 22])
    }

    /// The handler in place when a batch arrives receives all of it (it is read once per
    /// batch); one set while a batch is handled takes over from the next frame.
    @Test func aHandlerReplacedDuringABatchTakesOverFromTheNextOne() async throws {
        let seen = try await withChannel({ channel, box in
            channel.onDeliver = { [unowned channel] d in
                box.seen.withLock { $0.append(Seen(id: "first " + d.item.id, inReadBuffer: false, bytes: [])) }
                channel.onDeliver = { d in
                    box.seen.withLock { $0.append(Seen(id: "second " + d.item.id, inReadBuffer: false, bytes: [])) }
                    return true
                }
                return true
            }
        }) { host, box in
            host.send(Self.batch(firstSeq: 10))
            let deadline = ContinuousClock.now + .seconds(20)
            while box.seen.withLock({ $0.count }) < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            host.send(Self.batch(firstSeq: 20))
            while box.seen.withLock({ $0.count }) < 6, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            return box.seen.withLock { $0.map(\.id) }
        }
        #expect(seen == ["first item-10", "first item-11", "first item-12", "second item-20", "second item-21", "second item-22"])
    }

    /// `MAMApp` hands deliveries to the app's own code, which may keep them: copies.
    @Test func anAsyncAppGetsItemsOfItsOwn() async throws {
        let host = try PlayedHost(answer: { _, _ in nil })
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        host.send(Self.batch(firstSeq: 10))
        var received: [Deliver] = []
        for await d in app.deliveries {
            received.append(d)
            if received.count == 3 { break }
        }
        #expect(received.map(\.item.id) == ["item-10", "item-11", "item-12"])
        #expect(received.allSatisfy { !$0.item.isInReadBuffer })
        let same = received.map { $0.item.withInlineBytes { Array($0) } ?? [] } == Self.payloads
        #expect(same, "the payloads differ from those sent")
    }
}

/// The template's warm-up for a lending channel reads a whole frame where it lies (a frame
/// without its length prefix was once read as a length, failed, and warmed nothing).
@Test func theTemplateReadsAFrameWhereItLies() {
    #expect(AppChannel.readsAFrameInPlace())
}
