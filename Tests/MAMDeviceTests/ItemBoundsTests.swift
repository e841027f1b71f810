@testable import MAMDevice
import MAMModel
import Testing

/// The bounds on an item a child sends (`ItemBounds`), with no process: each hostile shape is
/// named, and an item within every bound passes.
@Suite struct ItemBoundsTests {
    static func item(id: String = "step5", types: [String] = ["public.plain-text"], file: String? = nil) -> Item {
        Item(id: id, typeIdentifiers: types, payload: file.map { .file(path: $0) } ?? .inline(Array("hi".utf8)))
    }

    @Test func anItemWithinEveryBoundPasses() {
        #expect(ItemBounds.problem(with: Self.item()) == nil)
        #expect(ItemBounds.problem(with: Self.item(id: "é-rapport_2026")) == nil, "a non-ASCII id without a control character")
        #expect(ItemBounds.problem(with: Self.item(types: Array(repeating: "public.data", count: 64))) == nil)
        #expect(ItemBounds.problem(with: Self.item(file: "Documents/a.pdf")) == nil)
    }

    @Test(arguments: [
        ("../etc", "contains a path separator, a control character or a leading dot"),
        ("a/b", "contains a path separator"),
        ("a\\b", "contains a path separator"),
        ("line\nbreak", "a control character"),
        ("del\u{7F}", "a control character"),
        ("c1\u{85}next", "a control character"),
        (".hidden", "a leading dot"),
    ])
    func aHostileIDIsNamed(id: String, why: String) throws {
        let problem = try #require(ItemBounds.problem(with: Self.item(id: id)))
        #expect(problem.contains(why), "\(problem)")
    }

    @Test func lengthsAndCountsAreBounded() {
        #expect(ItemBounds.problem(with: Self.item(id: String(repeating: "a", count: 257))) == "item id is longer than 256 bytes")
        #expect(ItemBounds.problem(with: Self.item(id: String(repeating: "a", count: 256))) == nil)
        #expect(ItemBounds.problem(with: Self.item(types: Array(repeating: "public.data", count: 65))) == "item has 65 type identifiers (at most 64)")
        #expect(ItemBounds.problem(with: Self.item(types: [""]))?.contains("is empty or longer than 256 bytes") == true)
        #expect(ItemBounds.problem(with: Self.item(types: [String(repeating: "t", count: 257)]))?.contains("is empty or longer than 256 bytes") == true)
        #expect(ItemBounds.problem(with: Self.item(file: "")) == "file item has an empty path")
    }
}
