import MAMModel
import Testing

/// What may not reach an output as itself (security issue 83), and the byte bound that holds
/// for a letter with a million combining marks.
@Suite struct UntrustedTextTests {
    @Test(arguments: [
        ("\u{1B}]52;c;cHduZWQ=\u{07}", #"\u{1B}]52;c;cHduZWQ=\u{7}"#), ("a\rb", #"a\u{D}b"#), ("a\nb", #"a\u{A}b"#),
        ("admin\u{202E}gpj.exe", #"admin\u{202E}gpj.exe"#), ("one\u{2028}two\u{2029}", #"one\u{2028}two\u{2029}"#),
        ("\u{2066}iso\u{2069}", #"\u{2066}iso\u{2069}"#), ("\u{9B}31m", #"\u{9B}31m"#), ("\u{FEFF}bom", #"\u{FEFF}bom"#),
        ("\u{200F}rlm\u{061C}", #"\u{200F}rlm\u{61C}"#), ("DEL\u{7F}", #"DEL\u{7F}"#),
        ("plain café 漢字 🙂", "plain café 漢字 🙂"), ("e\u{301}", "e\u{301}"), ("zero\u{200D}width joiner", "zero\u{200D}width joiner"),
    ])
    func eachUnsafeCharacterIsWrittenAsItsEscape(_ input: String, _ shown: String) {
        #expect(UntrustedText.escaped(input) == shown)
        #expect(UntrustedText.isSafe(input) == (input == shown))
    }

    @Test func lineBreaksMayBeKeptForMessagesOfOurOwn() {
        #expect(UntrustedText.escaped("a\nb\tc\rd", keepingLineBreaks: true) == #"a\#nb\#tc\u{D}d"#)
    }

    @Test func aBoundCountsBytesAndNeverCutsAScalar() {
        let huge = "a" + String(repeating: "\u{301}", count: 1_000_000)
        #expect(huge.count == 1, "one Character")
        let cut = UntrustedText.prefix(huge, utf8Bytes: 600)
        #expect(cut.utf8.count <= 600 && cut.hasSuffix("…") && cut.unicodeScalars.dropLast().allSatisfy { $0 == "a" || $0 == "\u{301}" })
        #expect(UntrustedText.prefix("short", utf8Bytes: 600) == "short")
        #expect(UntrustedText.prefix("🙂🙂🙂", utf8Bytes: 8) == "🙂…")
    }
}
