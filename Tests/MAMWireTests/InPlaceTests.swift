import MAMModel
import Testing

/// `forEachInPlace` lends each element where it lies: in order, and with every reference
/// count as it was once the loop is over, whether the body returned or threw.
@Suite struct InPlaceTests {
    private final class Box {
        let n: Int
        init(_ n: Int) { self.n = n }
    }

    private struct Failure: Error {}

    @Test func lendsEachElementInOrderAndLeavesEveryReferenceAsItWas() throws {
        var weak: [() -> Box?] = []
        do {
            let boxes = (0..<5).map { Box($0) }
            for box in boxes { weak.append { [weak box] in box } }
            let elements = boxes.map { ($0, "\($0.n)-a string too long to be stored inline") }
            var seen: [Int] = []
            elements.forEachInPlace { seen.append($0.0.n) }
            #expect(seen == [0, 1, 2, 3, 4])
            // A body that throws part way leaves the array whole as well.
            seen = []
            #expect(throws: Failure.self) {
                try elements.forEachInPlace { element in
                    seen.append(element.0.n)
                    if element.0.n == 2 { throw Failure() }
                }
            }
            #expect(seen == [0, 1, 2])
            #expect(elements.map(\.0.n) == [0, 1, 2, 3, 4])
            #expect(elements.map(\.1) == (0..<5).map { "\($0)-a string too long to be stored inline" })
            // Each box is still held by the array and the list it was made in: an element
            // released by the loop would be gone once the list is.
            _ = consume boxes
            #expect(weak.allSatisfy { $0() != nil })
            #expect(elements.count == 5)
        }
        // ... and none was retained once more than it was released.
        #expect(weak.allSatisfy { $0() == nil })
    }

    @Test func anEmptyArrayCallsNothing() {
        var calls = 0
        [Int]().forEachInPlace { _ in calls += 1 }
        #expect(calls == 0)
    }
}
