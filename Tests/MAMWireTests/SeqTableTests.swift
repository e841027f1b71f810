import MAMModel
import MAMWire
import Testing

/// `SeqTable` holds what a `Dictionary` keyed by seq would, whatever the order of inserts,
/// lookups and removals.
@Suite struct SeqTableTests {
    private struct Generator {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(n))
        }
    }

    private static func check(seed: UInt64, steps: Int, outOfOrder: Bool) {
        var random = Generator(state: seed)
        var table = SeqTable<Int>()
        var model: [UInt64: Int] = [:]
        var next: UInt64 = 1
        for step in 0..<steps {
            switch random.next(10) {
            case 0...3:
                // Seqs are handed out in increasing order with gaps (other frames); now and then
                // one out of order, or one given again.
                let seq: UInt64
                if outOfOrder, random.next(8) == 0, next > 1 {
                    seq = UInt64(random.next(Int(next))) + 1
                } else {
                    next += UInt64(random.next(3))
                    seq = next
                    next += 1
                }
                // Through the subscript, or moved in (`insert`): the same table either way.
                if random.next(2) == 0 { table[seq] = step } else { table.insert(step, at: seq) }
                model[seq] = step
            case 4...6:
                // Mostly the oldest, sometimes any.
                let seq = random.next(4) == 0 ? UInt64(random.next(Int(next) + 2)) : (model.keys.min() ?? 0)
                #expect(table.removeValue(forKey: seq) == model.removeValue(forKey: seq), "remove \(seq), step \(step)")
            case 7:
                let seq = UInt64(random.next(Int(next) + 2))
                table[seq] = nil
                model[seq] = nil
            case 8 where random.next(2) == 0:
                // Taken only when the value says so (here: an even one), else left where it is.
                let seq = random.next(4) == 0 ? UInt64(random.next(Int(next) + 2)) : (model.keys.min() ?? 0)
                let expected = model[seq].flatMap { $0 % 2 == 0 ? model.removeValue(forKey: seq) : nil }
                #expect(table.take(seq, if: { $0 % 2 == 0 }) == expected, "take \(seq), step \(step)")
            default:
                let seq = UInt64(random.next(Int(next) + 2))
                #expect(table[seq] == model[seq], "lookup \(seq), step \(step)")
            }
            #expect(table.count == model.count && table.isEmpty == model.isEmpty, "count, step \(step)")
        }
        #expect(table.entries.map(\.seq) == model.keys.sorted())
        #expect(table.entries.map(\.value) == model.sorted { $0.key < $1.key }.map(\.value))
        // Values held, not values taken back or never given: every threshold around them.
        for bound in Set(model.values.flatMap { [$0 - 1, $0, $0 + 1] }) + [-1, steps] {
            #expect(table.contains { $0 < bound } == model.values.contains { $0 < bound }, "contains below \(bound)")
        }
        for range in [UInt64(0)...UInt64.max, 1...1, 5...(next / 2), (next / 2)...(next + 10)] {
            #expect(table.seqs(in: range) == model.keys.filter { range.contains($0) }.sorted())
            #expect(seqs(in: range, among: table) == seqs(in: range, among: model))
        }
    }

    @Test(arguments: [1, 2, 3, 4])
    func holdsWhatADictionaryHolds(seed: UInt64) {
        Self.check(seed: seed, steps: 5000, outOfOrder: false)
        Self.check(seed: seed + 100, steps: 5000, outOfOrder: true)
    }

    @Test func aTableEmptiedInOrderKeepsNoEntries() {
        var table = SeqTable<String>()
        for seq in UInt64(1)...1000 { table[seq * 2] = "\(seq)" }
        for seq in UInt64(1)...1000 { #expect(table.removeValue(forKey: seq * 2) == "\(seq)") }
        #expect(table.isEmpty && table.entries.isEmpty && table.seqs(in: 0...UInt64.max).isEmpty)
        table[7] = "again"
        #expect(table[7] == "again" && table.count == 1)
    }

    /// `SeqSet` (a connection's batched shares in flight) answers as a `Set` would: seqs in
    /// increasing order with gaps, now and then one out of order or again; removals mostly of
    /// the oldest, sometimes of any seq, held or not.
    @Test(arguments: [5, 6, 7])
    func aSeqSetHoldsWhatASetHolds(seed: UInt64) {
        var random = Generator(state: seed)
        var set = SeqSet()
        var model = Set<UInt64>()
        var next: UInt64 = 1
        for step in 0..<5000 {
            switch random.next(10) {
            case 0...4:
                let seq: UInt64
                if random.next(10) == 0, next > 1 {
                    seq = UInt64(random.next(Int(next))) + 1
                } else {
                    next += UInt64(random.next(3))
                    seq = next
                    next += 1
                }
                set.insert(seq)
                model.insert(seq)
            case 5...7:
                let seq = random.next(4) == 0 ? UInt64(random.next(Int(next) + 2)) : (model.min() ?? 0)
                #expect(set.remove(seq) == (model.remove(seq) != nil), "remove \(seq), step \(step)")
            default:
                let seq = UInt64(random.next(Int(next) + 2))
                #expect(set.contains(seq) == model.contains(seq), "contains \(seq), step \(step)")
            }
            #expect(set.count == model.count && set.isEmpty == model.isEmpty, "count, step \(step)")
        }
        for seq in 0...(next + 1) { #expect(set.contains(seq) == model.contains(seq)) }
        set.removeAll()
        #expect(set.isEmpty && !set.contains(next - 1))
    }
}

/// Reading ahead over a range of objects (`touchObjects`, before acknowledgements are
/// answered): ranges inside, across and beyond the table, with holes, read only objects that
/// are there, change nothing and keep no reference to any of them.
@Test func touchingARangeOfObjectsChangesNothingAndKeepsNoReference() {
    final class Delivery {
        let seq: UInt64
        var padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (1, 2, 3, 4, 5, 6, 7, 8)
        init(seq: UInt64) { self.seq = seq }
    }
    final class Weak { weak var object: Delivery? }
    var table = SeqTable<Delivery>()
    var watched: [Weak] = []
    for seq in UInt64(10)...200 where seq % 7 != 0 {
        let delivery = Delivery(seq: seq)
        let watch = Weak()
        watch.object = delivery
        watched.append(watch)
        table[seq] = delivery
    }
    table[50] = nil
    let held = table.count
    // 16 bytes of header plus eight words: at most the object's size.
    let bytes = 16 + 8 + 8 * 8
    for range: ClosedRange<UInt64> in [10...200, 0...5, 1...15, 49...51, 195...400, 300...900] {
        _ = table.touchObjects(in: range, bytes: bytes)
    }
    #expect(table.touchObjects(in: 300...900, bytes: bytes) == 0)
    #expect(table.count == held)
    #expect(table.seqs(in: 0...1000) == (UInt64(10)...200).filter { $0 % 7 != 0 && $0 != 50 })
    #expect(table[11]?.seq == 11)
    table.removeAll()
    #expect(watched.allSatisfy { $0.object == nil }, "an object outlived the table")
}
