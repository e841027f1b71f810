import MAMWire
import Testing

/// The outbox the host and the apps both keep per conversation: what it batches, what it
/// folds, that one flush is scheduled per iteration, and that its storage is reused.
@Suite struct OutboxTests {
    /// Items leave in their order, cut at 16 items or about 256 KiB (a heavier item alone),
    /// and the outbox is empty after; its bytes are the weights not yet written.
    @Test func itemsLeaveInBatchesByCountAndBytes() {
        var box = Outbox<Int, Bool>()
        let weights = [100, 200, 300_000, 50] + Array(repeating: 10, count: 20)
        for (i, w) in weights.enumerated() { box.append(i, weight: w) }
        #expect(box.bytes == weights.reduce(0, +))
        #expect(box.itemCount == weights.count && box.hasItems && !box.hasAnswers)
        let (items, batches) = box.takeItems()
        #expect(items == Array(weights.indices))
        #expect(batches == [0..<2, 2..<3, 3..<19, 19..<24])
        #expect(box.isEmpty && box.bytes == 0)
    }

    /// Answers fold into cumulative runs that never span a seq still in flight.
    @Test func answersFoldAroundWhatIsStillInFlight() {
        var box = Outbox<Int, Bool>()
        for seq: UInt64 in [3, 4, 6, 7, 9] { box.answer(seq, seq != 6) }
        #expect(box.hasAnswers && !box.hasItems)
        let answers = box.takeAnswers()
        let runs = cumulativeRuns(answers, inFlight: { $0 == 8 }).map { ($0.first, $0.last, $0.answers.filter { !$0.1 }.map(\.0)) }
        #expect(runs.map(\.0) == [3, 9] && runs.map(\.1) == [7, 9])
        #expect(runs[0].2 == [6], "the declined one named in its run")
        #expect(box.isEmpty)
    }

    /// The first thing gathered schedules a flush; nothing else does until the flush begins.
    @Test func oneFlushIsScheduledPerIteration() {
        var box = Outbox<Int, Int>()
        var scheduled: [Bool] = []
        scheduled.append(box.schedule())
        scheduled.append(box.schedule())
        box.append(1, weight: 1)
        scheduled.append(box.schedule())
        box.beginFlush()
        scheduled.append(box.schedule())
        #expect(scheduled == [true, false, false, true], "a flush ends the iteration's, whatever it found to write")
    }

    /// What was taken is given back emptied and written into next time (no new storage per
    /// flush); a list a burst made large is let go, and one gathered into meanwhile kept.
    @Test func storageIsReusedUnlessABurstMadeItLarge() {
        var box = Outbox<Int, Bool>()
        for i in 0..<10 { box.append(i, weight: 1) }
        var (items, _) = box.takeItems()
        let capacity = items.capacity
        box.giveBack(&items)
        box.append(42, weight: 1)
        var (again, _) = box.takeItems()
        #expect(again == [42] && again.capacity == capacity, "the same storage")
        box.giveBack(&again)

        for i in 0..<(Outbox<Int, Bool>.keptCapacity * 2) { box.append(i, weight: 1) }
        var (burst, _) = box.takeItems()
        box.giveBack(&burst)
        box.append(1, weight: 1)
        var (after, _) = box.takeItems()
        #expect(after.capacity <= Outbox<Int, Bool>.keptCapacity, "the burst's storage was let go")
        box.append(7, weight: 1)
        box.giveBack(&after)
        let kept = box.takeItems().items
        #expect(kept == [7], "items gathered meanwhile are kept")

        for seq: UInt64 in 1...5 { box.answer(seq, true) }
        var answers = box.takeAnswers()
        box.giveBack(answers: &answers)
        box.answer(6, false)
        let next = box.takeAnswers().map(\.0)
        #expect(next == [6])
    }

    /// Items taken out unwritten (the peer is gone) come in their order; the answers stay.
    @Test func itemsRemovedUnwrittenLeaveTheAnswers() {
        var box = Outbox<String, Int>()
        box.append("a", weight: 5)
        box.append("b", weight: 7)
        box.answer(1, 0)
        let removed = box.removeItems()
        #expect(removed == ["a", "b"])
        #expect(box.bytes == 0 && !box.hasItems && box.hasAnswers)
    }

    /// Frames are numbered from 1, one each; a batch's items take the numbers before its
    /// frame's, at both ends (`FrameNumbers`).
    @Test func aBatchsItemsAreNumberedBeforeItsFrame() {
        var numbers = FrameNumbers()
        let lone = numbers.take()
        let items = numbers.take(3)
        let frame = numbers.take()
        let none = numbers.take(0)
        let next = numbers.take()
        #expect(lone == 1 && items == 2..<5 && frame == 5)
        #expect(none.isEmpty && next == 6, "a batch of none takes no number")
    }
}
