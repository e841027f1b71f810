import Foundation
@testable import MAMPolicy
import Testing

/// The one-pass JSON reader a tenant's export goes through (issue 85, item 8) reads every
/// document as Foundation's decoder does, and leaves every text it does not take — a syntax
/// error, a lone surrogate — to the slow path, whose error names the line and column.
@Suite struct GraphJSONReaderTests {
    static func slow(_ text: String) -> GraphValue? { try? JSONDecoder().decode(GraphValue.self, from: Data(text.utf8)) }

    @Test(arguments: [
        #"{"a": [1, -2.5, 3e2, 0, true, false, null], "b": {"c": "d"}}"#,
        #"["\"quoted\" \\ \/ \b\f\n\r\t", "\u00e9\u4e2d", "\ud83d\ude00", "plain é 中"]"#,
        #"  {"nested": [[[]]], "empty": {}, "n": -0.0001}  "#,
        #"{"dup": 1, "dup": 2}"#,
        #""just a string""#, "42", "true",
    ])
    func readsAsFoundationDoes(_ text: String) throws {
        let fast = try #require(GraphJSONReader.read(text), "\(text)")
        #expect(fast == Self.slow(text), "\(text)")
    }

    @Test(arguments: [
        #"{"a": 1,}"#, #"{"a" 1}"#, #"[1 2]"#, #"{"a": tru}"#, #"["\ud83d"]"#, #"["\x"]"#, "01", "1.", "-", #"{"a": "unterminated}"#,
        "[\"tab\tinside\"]", "[1] [2]", "",
    ])
    func leavesWhatItDoesNotTakeToTheSlowPath(_ text: String) {
        #expect(GraphJSONReader.read(text) == nil, "\(text)")
    }

    /// Every policy fixture reads the same both ways.
    @Test func everyFixtureReadsTheSameBothWays() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.policiesDirectory).filter { $0.hasSuffix(".json") }
        #expect(names.count > 5)
        for name in names {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.policiesDirectory + "/" + name)))
            let text = try GraphValue.decodeText(bytes, source: name)
            #expect(GraphJSONReader.read(text) == Self.slow(text), "\(name)")
        }
    }

    /// Nesting past the bound is not read here (nor overflows the stack): the slow path decides.
    @Test func deepNestingIsLeftToTheSlowPath() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(GraphJSONReader.read(deep) == nil)
    }
}
