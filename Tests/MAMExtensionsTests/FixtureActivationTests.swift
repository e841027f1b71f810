import Foundation
import MAMExtensions
import MAMActivation
import MAMBundle
import Testing

/// Every real-world rule in `fixtures/activation/`, pinned against the representative shares.
/// Columns: image, pdf file URL, plain text, web URL, two images, movie, Intune PDF, Intune image.
struct FixtureActivationTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var file: String
        var expected: [Bool]
        /// Whether Intune keeps the extension listed for managed data (`acceptsIntuneTypes`).
        var acceptsIntune: Bool
        var testDescription: String { file }
    }

    static let T = true, F = false
    static let table: [Row] = [
        // All attachments must conform to one of nine types, public.data among them.
        Row(file: "01-TelegramMessenger_Telegram-iOS.plist", expected: [T, T, T, T, T, T, F, F], acceptsIntune: F),
        // Version 2 (fuzzy): text, 1 web URL, 1 image; a PDF is only a file, which no key takes.
        Row(file: "03-wordpress-mobile_WordPress-iOS.plist", expected: [T, F, T, T, F, F, F, F], acceptsIntune: F),
        // Version 1 (strict): text, web page, web URL only.
        Row(file: "05-mozilla-mobile_firefox-ios.plist", expected: [F, F, T, T, F, F, F, F], acceptsIntune: F),
        // `SUBQUERY(…).@count <= 2` also holds for 0 matching attachments: DuckDuckGo's rule accepts any one-item share.
        Row(file: "07-duckduckgo_iOS-ShareExtension.plist", expected: [T, T, T, T, T, T, T, T], acceptsIntune: T),
        Row(file: "09-element-hq_element-ios.plist", expected: [T, F, T, T, T, T, F, F], acceptsIntune: F),
        Row(file: "11-owncloud_ios-app-ActionExtension.plist", expected: [T, T, T, T, T, T, F, F], acceptsIntune: F),
        // Explicit WebURL 0: a web URL is the one thing refused.
        Row(file: "13-haiwen_seafile-iOS-SeafShare.plist", expected: [T, T, T, F, T, T, F, F], acceptsIntune: F),
        // Explicit zeros and <false/>: only a web URL.
        Row(file: "15-Dimillian_IceCubesApp-Action.plist", expected: [F, F, F, T, F, F, F, F], acceptsIntune: F),
        Row(file: "17-nextcloud_ios.plist", expected: [T, T, T, F, T, T, F, F], acceptsIntune: F),
        // SupportsText given as <integer>1</integer> still supports text.
        Row(file: "19-laurent22_joplin.plist", expected: [T, F, T, T, T, T, F, F], acceptsIntune: F),
        Row(file: "21-Infomaniak_ios-kDrive-Share.plist", expected: [T, T, T, T, T, T, F, F], acceptsIntune: F),
        // Strict, files/images/movies: plain text and web URLs are refused.
        Row(file: "23-OpenArchive_Save-app-ios.plist", expected: [T, T, F, F, T, T, F, F], acceptsIntune: F),
        // Five alternatives incl. a nested SUBQUERY over $uti.
        Row(file: "25-tutao_tutanota.plist", expected: [T, T, T, T, T, T, F, F], acceptsIntune: F),
        Row(file: "27-rabble_nostrvine.plist", expected: [F, F, F, F, F, T, F, F], acceptsIntune: F),
        Row(file: "29-MicrosoftDocs_memdocs-intune-before.txt", expected: [T, T, T, T, T, T, F, F], acceptsIntune: F),
        // Only Intune-prefixed text/image types, exactly one attachment.
        Row(file: "31-MicrosoftDocs_memdocs-intune-openin-stub.txt", expected: [F, F, F, F, F, F, F, T], acceptsIntune: T),
        Row(file: "33-achorein_expo-share-intent.txt", expected: [T, T, F, T, T, F, F, F], acceptsIntune: F),
    ]

    @Test(arguments: table)
    func fixtureRuleActivatesOnExactlyTheExpectedShares(_ row: Row) throws {
        let rule = try Fixtures.rule(row.file)
        let got = Shares.columns.map { rule.evaluate($0.share).isActivated }
        for (index, column) in Shares.columns.enumerated() where got[index] != row.expected[index] {
            Issue.record("\(row.file) on \(column.name): expected \(row.expected[index]), got \(rule.evaluate(column.share))")
        }
        #expect(got == row.expected)
    }

    @Test(arguments: table)
    func intuneFilterKeepsOnlyRulesAcceptingPrefixedTypes(_ row: Row) throws {
        #expect(acceptsIntuneTypes(try Fixtures.rule(row.file)) == row.acceptsIntune)
    }

    @Test func everyRuleFixtureHasARowAndEveryActivationFileLoads() throws {
        let names = try Fixtures.activationFileNames()
        #expect(names.count == 21)
        let ruleFiles = names.filter { ($0.hasSuffix(".plist") && !$0.hasSuffix("Info.plist")) || ($0.hasSuffix(".txt") && !$0.contains("PARTIAL")) }
        #expect(Set(ruleFiles) == Set(Self.table.map(\.file)))
        for name in ruleFiles { _ = try Fixtures.rule(name) }
        // The others: entitlements, an app Info.plist and a truncated extension Info.plist.
        for name in names where name.hasSuffix(".entitlements") {
            let entitlements = try Entitlements(data: Data(try Fixtures.body(name).utf8), source: name,
                                                buildSettings: BuildSettings(teamIdentifierPrefix: "ABCDE12345."))
            #expect(entitlements.keychainAccessGroups.contains("ABCDE12345.com.microsoft.intune.mam"))
        }
        let app = try ExtensionManifest(infoPlist: Data(try Fixtures.body("39-microsoftconnect_sample-intune-maui-ios-Info.plist").utf8), source: "39")
        #expect(app.bundleIdentifier == "com.maui.microsoftintunemamsample")
        let partial = try Fixtures.body("41-ms-intune-app-sdk-ios-issue340-OpenIn-extension-PARTIAL.txt")
        #expect(ExtensionManifest.salvageIntuneMAMSettings(fromMalformed: Data(partial.utf8)) != nil)
    }

    @Test func reasonNamesTheRequirementAndWhatWasShared() throws {
        let rule = try ActivationRule(predicate: """
            SUBQUERY(extensionItems, $extensionItem, SUBQUERY($extensionItem.attachments, $attachment,
                ANY $attachment.registeredTypeIdentifiers UTI-CONFORMS-TO "com.adobe.pdf").@count == 1).@count == 1
            """)
        let two = ShareInput(["com.adobe.pdf"], ["com.adobe.pdf"])
        #expect(rule.evaluate(two) == .notActivated(because: "rule requires exactly 1 attachment conforming to com.adobe.pdf; got 2"))
        #expect(rule.evaluate(Shares.pdfFileURL).isActivated)
    }

    /// A rule that cannot be evaluated on an element is said first; a type identifier a sender
    /// made up that reads like that sentence is only quoted, never taken for it.
    @Test func anUnevaluableElementIsFoundByItsOutcomeNotItsWords() throws {
        let rule = try ActivationRule(predicate: """
            SUBQUERY(extensionItems, $extensionItem, SUBQUERY($extensionItem.attachments, $attachment,
                ANY $attachment.registeredTypeIdentifiers UTI-CONFORMS-TO "com.adobe.pdf").@count == 1).@count == 1
            """)
        let expected = "rule requires exactly 1 attachment conforming to com.adobe.pdf; got 0"
        #expect(rule.evaluate(Shares.image) == .notActivated(because: expected))
        #expect(rule.evaluate(ShareInput(["com.contoso.rule cannot be evaluated"])) == .notActivated(because: expected))
        let unevaluable = try ActivationRule(predicate: """
            SUBQUERY(extensionItems, $extensionItem, SUBQUERY($extensionItem.attachments, $attachment,
                $attachment.registeredTypeIdentifiers UTI-CONFORMS-TO "com.adobe.pdf").@count == 1).@count == 1
            """)
        let result = unevaluable.evaluate(Shares.pdfFileURL)
        #expect(!result.isActivated && result.reason.hasPrefix("rule cannot compare") && result.reason.hasSuffix("(a collection needs ANY, ALL or NONE)"), "\(result)")
    }

    @Test func everyAttachmentRuleReasonCountsTheMisfits() throws {
        let telegram = try Fixtures.rule("01-TelegramMessenger_Telegram-iOS.plist")
        let result = telegram.evaluate(ShareInput(["public.jpeg"], ["com.microsoft.intune.mam.public.jpeg"]))
        #expect(!result.isActivated)
        #expect(result.reason.hasPrefix("rule requires every attachment conforming to public.file-url, public.movie,"))
        #expect(result.reason.hasSuffix("or com.apple.pkpass (2); got 1"))
    }

    @Test func dictionaryReasonNamesTheKeyLimit() throws {
        let wordpress = try Fixtures.rule("03-wordpress-mobile_WordPress-iOS.plist")
        #expect(wordpress.evaluate(Shares.twoImages) == .notActivated(because: "rule accepts at most 1 image; got 2"))
        let openArchive = try Fixtures.rule("23-OpenArchive_Save-app-ios.plist")
        #expect(openArchive.evaluate(Shares.webURL).reason.contains("attachment [public.url] is none of: image, movie, file"))
    }
}
