@testable import MAMDevice
import MAMModel
import MAMWire
import Testing

/// The broker's ledger of one child, rule by rule: what an acknowledgement finds, what a
/// cumulative range may acknowledge, what expires, what a child's exit leaves owed, and where
/// each share's answer goes. The ledger is generic over its delivery: these rules are checked
/// with plain objects, no event loop, no child.
@Suite struct DeliveryLedgerTests {
    /// A delivery as the ledger sees it: batched or not, and its deadline.
    final class Delivery: LedgerDelivery {
        let itemID: String
        var batched = false
        var deadline: UInt64
        init(_ itemID: String, deadline: UInt64) { (self.itemID, self.deadline) = (itemID, deadline) }
    }

    typealias Ledger = DeliveryLedger<Delivery>

    /// `count` deliveries, with deadlines 100, 200, ….
    static func deliveries(_ count: Int) -> [Delivery] {
        (0..<count).map { Delivery("item-\($0)", deadline: UInt64(100 * ($0 + 1))) }
    }

    static func found(_ a: Ledger.Acknowledged) -> String {
        switch a {
        case .delivery(let p): p.itemID
        case .late: "late"
        case .unknown: "unknown"
        }
    }

    /// | acknowledged seq | finds |
    /// | a delivery in flight | it, taken out (a second acknowledgement finds nothing) |
    /// | one that expired | `late`, once |
    /// | one never sent | `unknown` |
    @Test func anAcknowledgementFindsWhatWasSentOnce() {
        let d = Self.deliveries(3)
        var ledger = Ledger()
        for (i, p) in d.enumerated() { ledger.awaitAcknowledgement(p, at: UInt64(10 + i)) }
        #expect(Self.found(ledger.acknowledge(10)) == "item-0")
        #expect(Self.found(ledger.acknowledge(10)) == "unknown")
        let expired = ledger.expire(at: 200)
        #expect(expired.map(\.0) == [11], "the one past its deadline (200) only")
        #expect(Self.found(ledger.acknowledge(11)) == "late")
        #expect(Self.found(ledger.acknowledge(11)) == "unknown", "late once")
        #expect(Self.found(ledger.acknowledge(99)) == "unknown")
        #expect(!ledger.hasExpired(at: 250) && ledger.hasExpired(at: 300))
        #expect(!ledger.isIdle)
        #expect(Self.found(ledger.acknowledge(12)) == "item-2")
        #expect(ledger.isIdle)
    }

    /// A cumulative range acknowledges only deliveries sent in a batch: a lone `deliver` in
    /// its range stays owed its own acknowledgement.
    @Test func aRangeAcknowledgesBatchedDeliveriesOnly() {
        let d = Self.deliveries(4)
        var ledger = Ledger()
        for (i, p) in d.enumerated() {
            p.batched = i != 2
            ledger.awaitAcknowledgement(p, at: UInt64(1 + i))
        }
        var found: [String] = []
        for seq in ledger.lookups(in: 1...4) { found.append(Self.found(ledger.acknowledgeBatched(seq))) }
        #expect(found == ["item-0", "item-1", "unknown", "item-3"])
        #expect(ledger.awaitsAcknowledgements && Self.found(ledger.acknowledge(3)) == "item-2" && !ledger.awaitsAcknowledgements)
    }

    /// A child's exit: everything it was owed an answer for comes out — sent, in its outbox,
    /// waiting for its handshake — and the ledger is left idle, keeping nothing.
    @Test func anExitDrainsEverythingOwed() {
        let d = Self.deliveries(4)
        var ledger = Ledger()
        ledger.awaitAcknowledgement(d[0], at: 1)
        ledger.enqueue(d[1], weight: 10)
        ledger.queue(d[2])
        ledger.keepSpare(d[3])
        #expect(ledger.outboxBytes == 10 && ledger.sparesKept == 1)
        #expect(ledger.drain().map(\.itemID) == ["item-0", "item-1", "item-2"])
        #expect(ledger.isIdle && ledger.sparesKept == 0 && ledger.outboxBytes == 0 && ledger.reuseSpare() == nil)
    }

    /// Deliveries wait for a child's handshake in the order they came; a sender keeps answered
    /// deliveries for its next shares, up to its bound.
    @Test func queuedDeliveriesWaitInOrderAndSparesAreBounded() {
        let d = Self.deliveries(3)
        var ledger = Ledger()
        ledger.queue(d[1])
        ledger.queue(d[0])
        #expect(!ledger.isIdle)
        #expect(ledger.takeQueued().map(\.itemID) == ["item-1", "item-0"] && ledger.isIdle)
        ledger.keepSpare(d[2])
        #expect(ledger.keptSpare === d[2] && ledger.reuseSpare() === d[2] && ledger.reuseSpare() == nil)
        var kept = 0
        while ledger.keepsMoreSpares {
            ledger.keepSpare(Delivery("spare", deadline: 0))
            kept += 1
        }
        #expect(kept == 1024 && ledger.sparesKept == 1024)
    }

    /// | share came | sender can read | outcome | answer goes | outbox holds |
    /// | alone | yes | any | alone | – |
    /// | alone | no | any | nowhere | – |
    /// | batched | yes | delivered | batched | (seq, 0) |
    /// | batched | yes | failed | batched | (seq, 1 + its outcome's index) |
    /// | batched | no | any | nowhere | – |
    @Test func eachAnswerGoesWhereItsShareCameFrom() {
        var ledger = Ledger()
        for seq: UInt64 in 1...5 { ledger.admit(seq, batched: seq >= 3) }
        #expect(ledger.sharesInFlight == 5 && ledger.isBatchedInFlight(3) && !ledger.isBatchedInFlight(2))
        var routes: [Ledger.Answer] = []
        routes.append(ledger.answered(1, .delivered, live: true))
        routes.append(ledger.answered(2, .delivered, live: false))
        routes.append(ledger.answered(3, .delivered, live: true))
        routes.append(ledger.answered(4, .failed(.timeout, "late"), live: true))
        routes.append(ledger.answered(5, .delivered, live: false))
        #expect(routes == [.alone, .nowhere, .batched, .batched, .nowhere])
        #expect(ledger.sharesInFlight == 0 && !(3...5).contains(where: ledger.isBatchedInFlight))
        #expect(ledger.hasAnswers)
        let (answers, exceptions) = ledger.takeAnswers()
        #expect(answers.map(\.0) == [3, 4] && answers.map(\.1) == [0, 1])
        #expect(exceptions == [.failed(.timeout, "late")] && !ledger.hasAnswers)
    }

    /// A sender's counters move only together: what a delivery carries (its bytes, its read
    /// buffer) is what its answer releases.
    @Test func whatADeliveryCarriesItsAnswerReleases() {
        var ledger = Ledger()
        ledger.carry(cost: 300, readBuffer: true)
        ledger.carry(cost: 256, readBuffer: false)
        #expect(ledger.bytesInFlight == 556 && ledger.readBuffersInFlight == 1)
        ledger.release(cost: 300, readBuffer: true)
        #expect(ledger.bytesInFlight == 256 && ledger.readBuffersInFlight == 0)
        ledger.release(cost: 256, readBuffer: false)
        #expect(ledger.bytesInFlight == 0 && ledger.readBuffersInFlight == 0)
    }
}
