import Foundation
import MAMAdmin
import MAMModel
import Testing

/// The reports' JSON is their models' encoding (issue 100, item 7): `ReportJSONEncoder` writes
/// any `Encodable` in one pass with the report writer's escaping, and `GraphValueDecoder`
/// reads a `Decodable` back through the Graph reader. Expectations written from JSON's grammar
/// (RFC 8259) and `Encoder`'s documented behaviour before running.
struct ReportCodingTests {
    struct Inner: Codable, Equatable {
        var name: String
        var count: Int
        var ok: Bool
    }

    struct Outer: Codable, Equatable {
        var title: String
        var ratio: Double
        var items: [Inner]
        var tags: [String]
        var note: String?
        var nested: [[Int]]
    }

    struct Empty: Encodable {}

    /// Keys in the order the model encodes them, arrays of objects, an absent optional left
    /// out (`encodeIfPresent`, as Foundation's encoder does), nested arrays, an empty value `{}`.
    @Test func aModelIsWrittenInItsOwnOrder() throws {
        let value = Outer(title: "t", ratio: 0.5, items: [Inner(name: "a", count: 1, ok: true), Inner(name: "b", count: -2, ok: false)],
                          tags: [], note: nil, nested: [[1, 2], []])
        let json = try ReportJSONEncoder().encode(value)
        #expect(json == #"{"title":"t","ratio":0.5,"items":[{"name":"a","count":1,"ok":true},{"name":"b","count":-2,"ok":false}],"tags":[],"nested":[[1,2],[]]}"#)
        #expect(try ReportJSONEncoder().encode(Empty()) == "{}")
        #expect(try ReportJSONEncoder().encode(["x": 3.0]) == #"{"x":3}"#, "a whole number is written without a fraction")
        // What Foundation reads of it is the model again.
        #expect(try JSONDecoder().decode(Outer.self, from: Data(json.utf8)) == value)
    }

    /// Untrusted text stays text: quotes, backslashes and controls as JSON escapes, and the
    /// bidirectional override, line separator and escape character as `\u` escapes that no
    /// terminal obeys (Foundation's encoder writes the first two raw).
    @Test func hostileTextIsEscaped() throws {
        let hostile = "a\"b\\c\nd\u{1B}[31m\u{202E}e\u{2028}f"
        let json = try ReportJSONEncoder().encode(Inner(name: hostile, count: 0, ok: true))
        // A string holding one of them is written with every control a `\u` escape, its line
        // break too (the writer's escaping of an untrusted text, as before this encoder).
        #expect(json == #"{"name":"a\"b\\c\u000ad\u001b[31m\u202ee\u2028f","count":0,"ok":true}"#, "\(json)")
        #expect(try JSONDecoder().decode(Inner.self, from: Data(json.utf8)).name == hostile)
        // Text around an escape is kept whole, multi-byte characters too.
        #expect(try ReportJSONEncoder().encode(["k": "café — \"ok\" ✓"]) == "{\"k\":\"café — \\\"ok\\\" ✓\"}")
    }

    /// A diff's change goes out and comes back through the two, field for field; a line that
    /// is not one is refused.
    @Test func aChangeComesBackAsItWent() throws {
        let change = WhatIfChange(kind: .opened, persona: "Alice \u{202E}", app: BundleID("com.Contoso.Mail"), cell: "transfers → com.contoso.notes",
                                  before: "outbound-policy", after: "allowed", because: ["\"Level 2\".allowedOutboundDataTransferDestinations"])
        let json = try ReportJSONEncoder().encode(change)
        #expect(json.hasPrefix(#"{"after":"allowed","app":"com.Contoso.Mail","because":["#), "keys in the report's order: \(json)")
        let back = try GraphValueDecoder().decode(WhatIfChange.self, from: Array(json.utf8), source: "part-1")
        #expect(back == change && back.app.rawValue == "com.Contoso.Mail")
        for bad in [#"{"after":"allowed"}"#, #"{"after":1,"app":"a","because":[],"before":"b","cell":"c","kind":"other","persona":"p"}"#,
                    #"{"after":"a","app":"a","because":[],"before":"b","cell":"c","kind":"no-such-kind","persona":"p"}"#, "[]", "not json"] {
            #expect(throws: (any Error).self, "\(bad)") { try GraphValueDecoder().decode(WhatIfChange.self, from: Array(bad.utf8), source: "part-1") }
        }
    }

    /// Every shape a model may take reads back as Foundation's decoder reads it.
    @Test func theDecoderReadsWhatFoundationReads() throws {
        let text = #"{"title":"t","ratio":0.25,"items":[{"name":"a","count":7,"ok":false}],"tags":["x","y"],"note":"n","nested":[[3],[]]}"#
        let ours = try GraphValueDecoder().decode(Outer.self, from: Array(text.utf8), source: "s")
        #expect(ours == (try JSONDecoder().decode(Outer.self, from: Data(text.utf8))))
        let noNote = #"{"title":"t","ratio":1,"items":[],"tags":[],"note":null,"nested":[]}"#
        #expect(try GraphValueDecoder().decode(Outer.self, from: Array(noNote.utf8), source: "s").note == nil)
        #expect(throws: (any Error).self) { try GraphValueDecoder().decode(Inner.self, from: Array(#"{"name":"a","count":1.5,"ok":true}"#.utf8), source: "s") }
    }
}
