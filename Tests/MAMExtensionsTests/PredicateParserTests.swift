import Foundation
import MAMExtensions
import MAMActivation
import MAMBundle
import Testing

struct PredicateParserTests {
    typealias P = ActivationPredicate

    /// `SUBQUERY(extensionItems, $e, SUBQUERY($e.attachments, $a, <inner>).@count <op> <n>).@count >= 1`.
    static func countRule(_ op: String, _ n: Int, inner: String = "ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO \"public.image\"") -> String {
        "SUBQUERY(extensionItems, $e, SUBQUERY($e.attachments, $a, \(inner)).@count \(op) \(n)).@count >= 1"
    }

    struct OperatorCase: Sendable, CustomTestStringConvertible {
        var spelling: String, op: P.Operator
        /// Activation with two images, against the number 2.
        var activatesOnTwo: Bool
        var testDescription: String { spelling }
    }

    @Test(arguments: [
        OperatorCase(spelling: "==", op: .equal, activatesOnTwo: true),
        OperatorCase(spelling: "=", op: .equal, activatesOnTwo: true),
        OperatorCase(spelling: "!=", op: .notEqual, activatesOnTwo: false),
        OperatorCase(spelling: "<>", op: .notEqual, activatesOnTwo: false),
        OperatorCase(spelling: "<", op: .less, activatesOnTwo: false),
        OperatorCase(spelling: "<=", op: .lessOrEqual, activatesOnTwo: true),
        OperatorCase(spelling: "=<", op: .lessOrEqual, activatesOnTwo: true),
        OperatorCase(spelling: ">", op: .greater, activatesOnTwo: false),
        OperatorCase(spelling: ">=", op: .greaterOrEqual, activatesOnTwo: true),
        OperatorCase(spelling: "=>", op: .greaterOrEqual, activatesOnTwo: true),
    ])
    func everyComparisonSpellingParsesToItsOperator(_ c: OperatorCase) throws {
        let rule = try P(parsing: Self.countRule(c.spelling, 2))
        guard case .comparison(let outer) = rule, case .key(.subquery(_, _, .comparison(let inner)), "@count") = outer.lhs else {
            Issue.record("unexpected shape \(rule)")
            return
        }
        #expect(inner.op == c.op)
        #expect(rule.evaluate(Shares.twoImages).isActivated == c.activatesOnTwo)
    }

    @Test func keywordsAreCaseInsensitiveAndSymbolsEqualWords() throws {
        let words = try P(parsing: "subquery(extensionItems, $e, subquery($e.attachments, $a, any $a.registeredTypeIdentifiers uti-conforms-to 'public.url' or not (some $a.registeredTypeIdentifiers UTI-Conforms-To 'public.data') and truepredicate).@count > 0).@count > 0")
        let symbols = try P(parsing: "SUBQUERY(extensionItems, $e, SUBQUERY($e.attachments, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO \"public.url\" || !(ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO \"public.data\") && TRUEPREDICATE).@count > 0).@count > 0")
        #expect(words == symbols)
        #expect(words.evaluate(Shares.webURL).isActivated)
        #expect(words.evaluate(ShareInput(["org.example.unknown"])).isActivated, "NOT public.data holds for an undeclared type")
        #expect(!words.evaluate(Shares.image).isActivated)
    }

    @Test func andBindsTighterThanOrAndParenthesesOverride() throws {
        let loose = try P(parsing: "TRUEPREDICATE OR FALSEPREDICATE AND FALSEPREDICATE")
        let grouped = try P(parsing: "(TRUEPREDICATE OR FALSEPREDICATE) AND FALSEPREDICATE")
        #expect(loose == .or([.constant(true), .and([.constant(false), .constant(false)])]))
        #expect(loose.evaluate(Shares.image).isActivated)
        #expect(!grouped.evaluate(Shares.image).isActivated)
    }

    @Test func entitiesCommentsAndLineBreaksAreIgnored() throws {
        let plain = try P(parsing: Self.countRule(">", 0))
        let messy = try P(parsing: """
            /* only images */ SUBQUERY (
                extensionItems,   $e,
                SUBQUERY ( $e.attachments, $a, /* any image */
                    ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO &quot;public.image&quot;
                ).@count &gt; 0
            ).@count &gt;= 1
            """)
        #expect(plain == messy)
        #expect(try P(parsing: "$a UTI-CONFORMS-TO &apos;x&amp;y&apos; || 1 &lt; 2").mentionedTypes == ["x&y"])
    }

    @Test func utiEqualsIsExactButCaseInsensitiveWhileConformsFollowsTheTree() throws {
        let equals = try P(parsing: Self.countRule(">", 0, inner: "ANY $a.registeredTypeIdentifiers UTI-EQUALS \"Public.Image\""))
        let conforms = try P(parsing: Self.countRule(">", 0, inner: "ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO \"public.image\""))
        #expect(equals.evaluate(ShareInput(["public.image"])).isActivated)
        #expect(!equals.evaluate(Shares.image).isActivated, "public.jpeg is not equal to public.image")
        #expect(conforms.evaluate(Shares.image).isActivated)
    }

    @Test func countsCompareWithOtherCountsAndTopLevelKeyPaths() throws {
        let allImages = try P(parsing: "SUBQUERY(attachments, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO 'public.image').@count == attachments.@count AND extensionItems.@count == 1")
        #expect(allImages.evaluate(Shares.twoImages).isActivated)
        #expect(!allImages.evaluate(ShareInput(["public.jpeg"], ["public.url"])).isActivated)
        #expect(!allImages.evaluate(ShareInput(extensionItems: [ExtensionItem(attachments: [Attachment(["public.jpeg"])]),
                                                               ExtensionItem(attachments: [Attachment(["public.png"])])])).isActivated)
        let anyPDF = try P(parsing: "ANY registeredTypeIdentifiers UTI-CONFORMS-TO 'com.adobe.pdf'")
        #expect(anyPDF.evaluate(ShareInput(["public.url"], ["com.adobe.pdf"])).isActivated)
    }

    @Test func collectionComparedWithoutAnyIsNotActivatedAndSaysWhy() throws {
        let rule = try P(parsing: "SUBQUERY(extensionItems, $e, SUBQUERY($e.attachments, $a, $a.registeredTypeIdentifiers UTI-CONFORMS-TO 'public.image').@count > 0).@count > 0")
        let result = rule.evaluate(Shares.image)
        #expect(!result.isActivated)
        #expect(result.reason.contains("a collection needs ANY, ALL or NONE"))
        let unknownKey = try P(parsing: "SUBQUERY(extensionItems, $e, $e.attributedTitle == 'x').@count > 0").evaluate(Shares.image)
        #expect(!unknownKey.isActivated)
    }

    @Test func allAndNoneModifiersQuantifyOverTheCollection() throws {
        let all = try P(parsing: Self.countRule(">", 0, inner: "ALL $a.registeredTypeIdentifiers UTI-CONFORMS-TO 'public.data'"))
        let none = try P(parsing: Self.countRule(">", 0, inner: "NONE $a.registeredTypeIdentifiers UTI-CONFORMS-TO 'public.url'"))
        #expect(all.evaluate(Shares.pdfFileURL).isActivated)
        #expect(!all.evaluate(ShareInput(["public.jpeg", "public.folder"])).isActivated)
        #expect(none.evaluate(Shares.image).isActivated)
        #expect(!none.evaluate(Shares.pdfFileURL).isActivated)
    }

    // MARK: Errors

    @Test func missingOperandReportsLineColumnOffsetAndExpectation() throws {
        let text = "SUBQUERY(extensionItems, $e,\n  SUBQUERY($e.attachments, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO ).@count > 0).@count > 0"
        let error = #expect(throws: ActivationRuleSyntaxError.self) { try P(parsing: text, source: "plugins/notes/Info.plist") }
        let offset = text.unicodeScalars.count - " ).@count > 0).@count > 0".unicodeScalars.count + 1
        #expect(error?.offset == offset)
        #expect(error?.line == 2)
        #expect(error?.column == 81)
        #expect(error?.found == "')'")
        #expect(error?.expected.hasPrefix("a value after UTI-CONFORMS-TO") == true)
        #expect(error?.description.hasPrefix("plugins/notes/Info.plist: activation rule cannot be parsed at line 2, column 81 (offset \(offset)): expected a value after UTI-CONFORMS-TO") == true)
    }

    @Test func unclosedSubqueryNamesWhereItOpened() {
        let error = #expect(throws: ActivationRuleSyntaxError.self) {
            try P(parsing: "SUBQUERY(extensionItems, $e,\n   TRUEPREDICATE\n.@count > 0")
        }
        #expect(error?.line == 3)
        #expect(error?.column == 1)
        #expect(error?.expected == "')' to close the SUBQUERY opened at 1:1, or AND/OR")
    }

    @Test func errorPositionsPointIntoTheTextAsWrittenBeforeEntityDecoding() {
        let text = "ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO &quot;public.url&quot; &amp;&amp;"
        let error = #expect(throws: ActivationRuleSyntaxError.self) { try P(parsing: text) }
        #expect(error?.offset == text.count)
        #expect(error?.found == "the end of the rule")
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var text: String, offset: Int, found: String, expected: String
        var testDescription: String { text }
    }

    @Test(arguments: [
        ErrorCase(text: "", offset: 0, found: "the end of the rule", expected: "a predicate (the rule is empty)"),
        ErrorCase(text: "ANY $a.x UTI-CONFORMS-TO \"public.url", offset: 36, found: "the end of the rule", expected: "the closing \" of the string opened at 1:26"),
        ErrorCase(text: "TRUEPREDICATE & FALSEPREDICATE", offset: 14, found: "a single '&'", expected: "'&&' (or AND)"),
        ErrorCase(text: "ANY $a.types CONTAINS 'x'", offset: 13, found: "the operator 'CONTAINS', which activation rules do not support",
                  expected: "a comparison operator (==, !=, <, <=, >, >=, UTI-CONFORMS-TO, UTI-EQUALS)"),
        ErrorCase(text: "SUBQUERY(extensionItems, e, TRUEPREDICATE).@count > 0", offset: 25, found: "'e'",
                  expected: "a $variable naming each element, as the second SUBQUERY argument"),
        ErrorCase(text: "extensionItems.@sum > 1", offset: 15, found: "the aggregate '@sum'", expected: "@count (the only aggregate activation rules use)"),
        ErrorCase(text: "extensionItems.@count > 1.5", offset: 24, found: "a decimal number", expected: "a whole number (counts are integers)"),
        ErrorCase(text: "TRUEPREDICATE /* unterminated", offset: 29, found: "the end of the rule", expected: "'*/' to close the comment opened at 1:15"),
        ErrorCase(text: "TRUEPREDICATE FALSEPREDICATE", offset: 14, found: "'FALSEPREDICATE'", expected: "AND, OR or the end of the rule"),
        ErrorCase(text: "(TRUEPREDICATE", offset: 14, found: "the end of the rule", expected: "')' to close the '(' opened at 1:1, or AND/OR"),
        ErrorCase(text: "extensionItems.@count > # 1", offset: 24, found: "the character '#'", expected: "a key path, variable, string, number, operator or parenthesis"),
    ])
    func malformedRuleIsRejectedWithFoundAndExpected(_ c: ErrorCase) {
        let error = #expect(throws: ActivationRuleSyntaxError.self) { try P(parsing: c.text) }
        #expect(error?.offset == c.offset)
        #expect(error?.found == c.found)
        #expect(error?.expected == c.expected)
    }

    // MARK: Printer

    @Test(arguments: FixtureActivationTests.table.map(\.file))
    func printedRuleParsesBackToTheSameRule(_ file: String) throws {
        let rule = try Fixtures.rule(file).asPredicate
        #expect(try P(parsing: rule.description) == rule)
        #expect(try P(parsing: rule.formatted) == rule)
        #expect(try P(parsing: rule.addingIntuneTwins.formatted) == rule.addingIntuneTwins)
    }

    @Test func printerEscapesQuotesAndKeepsNegationExplicit() throws {
        let rule = P.not(.comparison(.init(.direct, .path("$a.name"), .equal, .string("say \"hi\" \\ bye"))))
        #expect(rule.description == #"NOT ($a.name == "say \"hi\" \\ bye")"#)
        #expect(try P(parsing: rule.description) == rule)
    }
}
