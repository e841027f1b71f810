import Foundation
import MAMScenario
import Testing

/// The host's decisions of a run read back from its audit log (`RunDecisions`, `mamsim
/// mutate`): two runs compared as wholes, whatever step an app's own work fell in; the first
/// difference named with its step; a flood's refusals, which the clock coalesces, left out.
@Suite struct RunDecisionsTests {
    static func line(_ step: String, _ verb: String, _ source: String, to destination: String = "", owner: String = "",
                     _ decision: String, _ reason: String = "", time: String = "2026-01-01T09:00:00Z") -> String {
        let object: [String: String] = ["step": step, "verb": verb, "sourceApp": source, "sourceIdentity": owner, "destinationApp": destination,
                                        "destinationIdentity": "", "owner": owner, "decision": decision, "reason": reason, "time": time,
                                        "explanation": "worded \(UUID())", "scenario": "s"]
        return String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    static let base = [
        line("fleet start", "launch", "field", "allowed"),
        line("fleet start", "share", "field", to: "notes", owner: "alice@contoso.com", "blocked", "outbound-policy"),
        line("the note is saved", "print", "field", "allowed"),
    ]

    @Test func theSameDecisionsInOtherStepsAndWordsAreTheSameRun() {
        let a = RunDecisions.parse(Self.base.joined(separator: "\n"))
        // The launch share fell in the first step this time, worded otherwise, at another time.
        let moved = [Self.base[0], Self.line("the note is saved", "share", "field", to: "notes", owner: "alice@contoso.com", "blocked", "outbound-policy", time: "2026-01-01T09:00:05Z"), Self.base[2]]
        let b = RunDecisions.parse(moved.joined(separator: "\n"))
        #expect(a == b)
        #expect(a.firstDifference(in: b) == nil)
    }

    @Test(arguments: [
        (2, line("fleet start", "share", "field", to: "notes", owner: "alice@contoso.com", "delivered"),
         "fleet start", "the host decided field (alice@contoso.com)'s share to notes, alice@contoso.com's data: delivered (before: blocked (outbound-policy))"),
        (3, line("the note is saved", "print", "field", "blocked", "print-blocked"),
         "the note is saved", "the host decided field's print: blocked (print-blocked) (before: allowed)"),
    ] as [(Int, String, String, String)])
    func aDecisionMadeOtherwiseIsNamedWithItsStep(index: Int, replacement: String, label: String, what: String) throws {
        var lines = Self.base
        lines[index - 1] = replacement
        let d = try #require(RunDecisions.parse(Self.base.joined(separator: "\n")).firstDifference(in: RunDecisions.parse(lines.joined(separator: "\n"))))
        #expect(d.label == label && d.what == what, "\(d)")
    }

    @Test func aDecisionGoneOrNewIsNamed() throws {
        let a = RunDecisions.parse(Self.base.joined(separator: "\n"))
        let fewer = RunDecisions.parse(Self.base.prefix(2).joined(separator: "\n"))
        #expect(a.firstDifference(in: fewer)?.what == "the host no longer decided field's print: allowed")
        let more = RunDecisions.parse((Self.base + [Self.line("step 2", "notify", "field", owner: "alice@contoso.com", "allowed")]).joined(separator: "\n"))
        let d = try #require(a.firstDifference(in: more))
        #expect(d.label == "step 2" && d.what == "the host also decided field (alice@contoso.com)'s notify, alice@contoso.com's data: allowed", "\(d)")
    }

    /// A flood's refusals are coalesced by the clock: the source's refusals are not compared,
    /// its allowed decisions are; an app's text in a decision is escaped.
    @Test func aFloodsRefusalsAreNotComparedAndTextIsEscaped() throws {
        let flood = (0..<5).map { _ in Self.line("step 1", "paste", "evil", "blocked", "clipboard-policy") } + [Self.line("step 1", "audit-coalesced", "evil", "blocked")]
        let a = RunDecisions.parse((Self.base + flood).joined(separator: "\n"))
        let b = RunDecisions.parse((Self.base + flood.prefix(2) + [flood.last!]).joined(separator: "\n"))
        #expect(a.firstDifference(in: b) == nil)
        let hostile = RunDecisions.parse([Self.line("step 1", "share", "x\u{1B}[2J", to: "notes", "delivered")].joined(separator: "\n"))
        let d = try #require(RunDecisions.parse("").firstDifference(in: hostile))
        #expect(!d.what.contains("\u{1B}"), "\(d)")
    }
}
