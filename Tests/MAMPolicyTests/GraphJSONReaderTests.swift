import Foundation
@testable import MAMPolicy
import Testing

/// The one-pass JSON reader a tenant's export goes through (issue 85, item 8) reads every
/// document as Foundation's decoder does, and refuses every text it does not take — a syntax
/// error, a lone surrogate, a key twice in one object — with its line and column.
@Suite struct GraphJSONReaderTests {
    static func slow(_ text: String) -> GraphValue? { try? JSONDecoder().decode(GraphValue.self, from: Data(text.utf8)) }
    static func fast(_ text: String) -> GraphValue? { try? GraphJSONReader.read(text).get() }

    @Test(arguments: [
        #"{"a": [1, -2.5, 3e2, 0, true, false, null], "b": {"c": "d"}}"#,
        #"["\"quoted\" \\ \/ \b\f\n\r\t", "\u00e9\u4e2d", "\ud83d\ude00", "plain é 中"]"#,
        #"  {"nested": [[[]]], "empty": {}, "n": -0.0001}  "#,
        #""just a string""#, "42", "true",
    ])
    func readsAsFoundationDoes(_ text: String) throws {
        let fast = try #require(Self.fast(text), "\(text)")
        #expect(fast == Self.slow(text), "\(text)")
    }

    @Test(arguments: [
        #"{"a": 1,}"#, #"{"a" 1}"#, #"[1 2]"#, #"{"a": tru}"#, #"["\ud83d"]"#, #"["\x"]"#, "01", "1.", "-", #"{"a": "unterminated}"#,
        "[\"tab\tinside\"]", "[1] [2]", "",
    ])
    func refusesWhatItDoesNotTake(_ text: String) {
        #expect(Self.fast(text) == nil, "\(text)")
        #expect(throws: PolicyImportError.self) { try GraphValue.parse(Array(text.utf8), source: "t.json") }
    }

    /// Security issue 95, finding 2: a key twice in one object — the old value first, a weaker
    /// one last, as Python's json reads it — is refused at the second key's line and column,
    /// however deep and whichever the values.
    @Test(arguments: [
        (#"{"dup": 1, "dup": 2}"#, "dup", 1, 12),
        ("{\n  \"displayName\": \"p\",\n  \"allowedOutboundDataTransferDestinations\": \"managedApps\",\n  \"allowedOutboundDataTransferDestinations\": \"allApps\"\n}",
         "allowedOutboundDataTransferDestinations", 4, 3),
        (#"{"value": [{"a": {"k": [1], "k": [1]}}]}"#, "k", 1, 29),
        (#"{"a": 1, "\u0061": 2}"#, "a", 1, 10),
    ])
    func refusesAKeyWrittenTwice(_ text: String, _ key: String, _ line: Int, _ column: Int) {
        #expect(GraphJSONReader.read(text) == .failure(.duplicateKey(key, offset: Self.offset(of: key, nth: 2, in: text))))
        do {
            _ = try GraphValue.parse(Array(text.utf8), source: "export.json")
            Issue.record("\(text) was read")
        } catch {
            #expect(error.message.hasPrefix("export.json:\(line):\(column): the key \"\(key)\" is written twice"), "\(error.message)")
        }
    }

    /// The byte offset of the `nth` quoted spelling of `key` (written plainly or as `\u0061`).
    static func offset(of key: String, nth: Int, in text: String) -> Int {
        let bytes = Array(text.utf8)
        var found = 0
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\""), i + 1 < bytes.count {
                var j = i + 1
                while j < bytes.count, bytes[j] != UInt8(ascii: "\"") { j += bytes[j] == UInt8(ascii: "\\") ? 2 : 1 }
                let inner = String(decoding: bytes[(i + 1)..<j], as: UTF8.self)
                let decoded = inner == "\\u0061" ? "a" : inner
                if decoded == key, j + 1 < bytes.count, String(decoding: bytes[(j + 1)...], as: UTF8.self).drop(while: { $0 == " " }).hasPrefix(":") {
                    found += 1
                    if found == nth { return i }
                }
                i = j + 1
                continue
            }
            i += 1
        }
        return -1
    }

    /// Every policy fixture reads the same both ways.
    @Test func everyFixtureReadsTheSameBothWays() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.policiesDirectory).filter { $0.hasSuffix(".json") }
        #expect(names.count > 5)
        for name in names {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.policiesDirectory + "/" + name)))
            let text = try GraphValue.decodeText(bytes, source: name)
            #expect(Self.fast(text) == Self.slow(text), "\(name)")
        }
    }

    /// Nesting past the bound is refused where it goes past (nor overflows the stack).
    @Test func deepNestingIsRefused() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(GraphJSONReader.read(deep) == .failure(.tooDeep(offset: GraphJSONReader.maximumDepth)))
        #expect(throws: PolicyImportError.self) { try GraphValue.parse(Array(deep.utf8), source: "deep.json") }
    }
}
