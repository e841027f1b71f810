import Testing
import MAMModel
@testable import MAMWire

/// How answers fold into cumulative ranges: a range never covers an item still in flight.
@Suite struct CumulativeRunsTests {
    func runs(_ answered: [UInt64], inFlight: Set<UInt64> = [], gap: UInt64 = 64) -> [ClosedRange<UInt64>] {
        cumulativeRuns(answered.map { ($0, ()) }, inFlight: { inFlight.contains($0) }, maximumGap: gap).map { $0.first...$0.last }
    }

    @Test func consecutiveAnswersInAnyOrderAreOneRange() {
        #expect(runs([5, 3, 4, 2]) == [2...5])
    }

    @Test func anItemInFlightSplitsTheRange() {
        #expect(runs([2, 3, 5, 6], inFlight: [4]) == [2...3, 5...6])
    }

    @Test func seqsOfOtherFramesMayLieInsideARange() {
        // 4 is not an item (another frame's seq): the range spans it.
        #expect(runs([2, 3, 5], inFlight: [9]) == [2...5])
    }

    @Test func aWideGapStartsANewRangeWithoutWalkingIt() {
        #expect(runs([1, 2, 1_000_000_000_000], gap: 64) == [1...2, 1_000_000_000_000...1_000_000_000_000])
    }

    @Test func everyAnswerIsInExactlyOneRun() {
        let answered: [UInt64] = [10, 1, 7, 3, 2, 8]
        let folded = cumulativeRuns(answered.map { ($0, $0 * 2) }, inFlight: { $0 == 5 })
        #expect(folded.flatMap { $0.answers.map(\.0) } == answered.sorted())
        #expect(folded.allSatisfy { run in run.answers.allSatisfy { $0.1 == $0.0 * 2 && (run.first...run.last).contains($0.0) } })
    }

    @Test func nothingAnsweredIsNoRange() {
        #expect(runs([]).isEmpty)
    }
}

/// How items are cut into batches: bounded in count and in bytes, a heavy item alone.
@Suite struct BatchRangesTests {
    @Test func batchesHoldAtMostTheCount() {
        #expect(batchRanges(Array(repeating: 10, count: 40), maximumCount: 16, weight: { $0 }) == [0..<16, 16..<32, 32..<40])
    }

    @Test func batchesStayUnderTheByteBudgetAndAHeavyItemTravelsAlone() {
        let weights = [100, 100, 500, 100, 2000, 100]
        #expect(batchRanges(weights, maximumCount: 16, maximumBytes: 700, weight: { $0 }) == [0..<3, 3..<4, 4..<5, 5..<6])
    }

    @Test func noItemsNoBatch() {
        #expect(batchRanges([Int](), weight: { $0 }).isEmpty)
    }
}

/// Which seqs a cumulative answer is checked against: a short range is walked, a long one
/// costs only what is waiting — what is pending and what the caller also waits for.
@Suite struct SeqsInRangeTests {
    @Test func aShortRangeIsWalkedWhole() {
        #expect(seqs(in: 3...6, among: [4: ()]) == [3, 4, 5, 6])
    }

    @Test func aLongRangeYieldsOnlyTheWaitingSeqsInsideItInOrder() {
        let pending: [UInt64: Void] = [9: (), 2: (), 500: (), 70: ()]
        #expect(seqs(in: 2...400, among: pending) == [2, 9, 70])
        #expect(seqs(in: 0...UInt64.max, among: pending) == [2, 9, 70, 500])
    }

    @Test func theAlsoWaitingSeqsCountAndAreFoundInALongRange() {
        var expired = RecentSet<UInt64>(capacity: 8)
        for seq: UInt64 in [40, 41, 900] { expired.remember(seq) }
        let nothingPending: [UInt64: Void] = [:]
        #expect(seqs(in: 1...200, among: nothingPending, alsoWaiting: expired) == [40, 41])
        // Short next to what is waiting (3 × 2 + 64): walked whole.
        #expect(seqs(in: 1...60, among: nothingPending, alsoWaiting: expired) == Array(1...60))
    }

    /// `lookups` yields what `seqs` lists, walking a short range without a list.
    @Test func lookupsAreTheSeqsAndAShortRangeIsNotListed() {
        var expired = RecentSet<UInt64>(capacity: 8)
        for seq: UInt64 in [40, 41, 900] { expired.remember(seq) }
        var table = SeqTable<Int>()
        var dictionary: [UInt64: Int] = [:]
        for seq: UInt64 in [2, 9, 70, 500, 501, 10_000] {
            table[seq] = Int(seq)
            dictionary[seq] = Int(seq)
        }
        for range: ClosedRange<UInt64> in [3...6, 1...60, 2...400, 0...UInt64.max, 450...520, 10_000...10_000, 20_000...20_100] {
            for also in [nil, expired] {
                #expect(Array(lookups(in: range, among: table, alsoWaiting: also)) == seqs(in: range, among: table, alsoWaiting: also), "\(range)")
                #expect(Array(lookups(in: range, among: dictionary, alsoWaiting: also)) == seqs(in: range, among: dictionary, alsoWaiting: also), "\(range)")
            }
        }
        guard case .every(3...6) = lookups(in: 3...6, among: table) else { Issue.record("a short range is walked, not listed"); return }
        guard case .listed([2, 9, 70]) = lookups(in: 2...400, among: dictionary) else { Issue.record("a long range lists what waits in it"); return }
    }
}
