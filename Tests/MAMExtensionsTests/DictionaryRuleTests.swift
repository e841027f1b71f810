import Foundation
import MAMExtensions
import MAMActivation
import MAMBundle
import Testing

struct DictionaryRuleTests {
    static func rule(_ plist: [String: Any]) throws -> ActivationDictionary {
        try ActivationDictionary(plist: plist, source: "test")
    }

    static let imageAndText = ShareInput(["public.jpeg"], ["public.plain-text"])

    @Test func strictMatchingNeedsEveryAttachmentFuzzyNeedsOne() throws {
        let strict = try Self.rule(["NSExtensionActivationSupportsImageWithMaxCount": 5])
        let fuzzy = try Self.rule(["NSExtensionActivationSupportsImageWithMaxCount": 5, "NSExtensionActivationDictionaryVersion": 2])
        let strictV2 = try Self.rule(["NSExtensionActivationSupportsImageWithMaxCount": 5, "NSExtensionActivationDictionaryVersion": 2,
                                      "NSExtensionActivationUsesStrictMatching": true])
        let fuzzyV1 = try Self.rule(["NSExtensionActivationSupportsImageWithMaxCount": 5, "NSExtensionActivationUsesStrictMatching": false])
        #expect(strict.isStrict && !fuzzy.isStrict && strictV2.isStrict && !fuzzyV1.isStrict)
        #expect(!strict.evaluate(Self.imageAndText).isActivated)
        #expect(strict.evaluate(Self.imageAndText).reason.contains("[public.plain-text] is none of: image"))
        #expect(fuzzy.evaluate(Self.imageAndText).isActivated)
        #expect(!strictV2.evaluate(Self.imageAndText).isActivated)
        #expect(fuzzyV1.evaluate(Self.imageAndText).isActivated)
        // Fuzzy still needs one attachment it takes.
        #expect(!fuzzy.evaluate(ShareInput(["public.plain-text"], ["public.url"])).isActivated)
        // Both still enforce the per-key limits.
        #expect(!fuzzy.evaluate(ShareInput(attachments: Array(repeating: Attachment(["public.png"]), count: 6))).isActivated)
    }

    @Test func versionTwoFileKeyYieldsToAMoreSpecificKey() throws {
        let keys: [String: Any] = ["NSExtensionActivationSupportsImageWithMaxCount": 1, "NSExtensionActivationSupportsFileWithMaxCount": 1]
        let v1 = try Self.rule(keys)
        var v2Keys = keys
        v2Keys["NSExtensionActivationDictionaryVersion"] = 2
        v2Keys["NSExtensionActivationUsesStrictMatching"] = true
        let v2 = try Self.rule(v2Keys)
        let imageAndPDF = ShareInput(["public.jpeg"], ["com.adobe.pdf", "public.file-url"])
        // Version 1: the image counts as an image *and* a file, so two files exceed the file limit of 1.
        #expect(v1.evaluate(imageAndPDF) == .notActivated(because: "rule accepts at most 1 file; got 2"))
        // Version 2: the image is only an image; the PDF is the one file.
        #expect(v2.evaluate(imageAndPDF).isActivated)
        // An explicit 0 is no key at all: with images at 0, version 2 lets the file key take an image.
        let imagesOff = try Self.rule(["NSExtensionActivationSupportsImageWithMaxCount": 0, "NSExtensionActivationSupportsFileWithMaxCount": 2,
                                       "NSExtensionActivationDictionaryVersion": 2])
        #expect(imagesOff.evaluate(Shares.twoImages).isActivated)
    }

    @Test func attachmentCountBoundsApplyToTheWholeShare() throws {
        let rule = try Self.rule(["NSExtensionActivationSupportsAttachmentsWithMinCount": 2, "NSExtensionActivationSupportsAttachmentsWithMaxCount": 3,
                                  "NSExtensionActivationSupportsImageWithMaxCount": 10])
        #expect(rule.evaluate(Shares.image) == .notActivated(because: "rule requires at least 2 attachments; got 1"))
        #expect(rule.evaluate(Shares.twoImages).isActivated)
        let four = ShareInput(attachments: Array(repeating: Attachment(["public.jpeg"]), count: 4))
        #expect(rule.evaluate(four) == .notActivated(because: "rule accepts at most 3 attachments in all; got 4"))
        #expect(!rule.evaluate(ShareInput(attachments: [])).isActivated)
    }

    @Test func kindsFollowConformanceNotEquality() {
        let types = UTIRegistry.system
        func kinds(_ ids: [String]) -> [ActivationDictionary.Kind] {
            ActivationDictionary.Kind.allCases.filter { ActivationDictionary.attachment(Attachment(ids), isA: $0, types: types) }
        }
        #expect(kinds(["public.heic"]) == [.image, .file])
        #expect(kinds(["com.apple.m4v-video"]) == [.movie, .file])
        #expect(kinds(["public.html"]) == [.text])
        #expect(kinds(["public.url"]) == [.webURL])
        #expect(kinds(["com.apple.active-webpage", "public.url"]) == [.webURL, .webPage])
        #expect(kinds(["public.plain-text", "public.file-url"]) == [.file])
        #expect(kinds(["com.adobe.pdf", "public.file-url"]) == [.file])
        #expect(kinds(["com.microsoft.intune.mam.public.jpeg"]).isEmpty)
    }

    @Test func integerOneIsAcceptedForABooleanWithANote() throws {
        let rule = try Self.rule(["NSExtensionActivationSupportsText": 1, "NSExtensionActivationSupportsImagesWithMaxCount": 3])
        #expect(rule.supportsText)
        #expect(rule.evaluate(Shares.plainText).isActivated)
        #expect(rule.notes.contains("NSExtensionActivationSupportsText is <integer>1</integer>; accepted as <true/>"))
        #expect(rule.notes.contains("unknown key NSExtensionActivationSupportsImagesWithMaxCount in the activation rule dictionary is ignored"))
        let joplin = try Fixtures.rule("19-laurent22_joplin.plist")
        guard case .dictionary(let d) = joplin else { Issue.record("Joplin's rule is a dictionary"); return }
        #expect(d.supportsText && d.version == 2)
    }

    @Test func wrongValueTypesAreErrorsNamingTheKey() {
        let negative = #expect(throws: ExtensionPlistError.self) { try Self.rule(["NSExtensionActivationSupportsImageWithMaxCount": -1]) }
        #expect(negative?.description == "test: NSExtensionActivationSupportsImageWithMaxCount: expected a non-negative <integer>, found <integer>-1</integer>")
        let text = #expect(throws: ExtensionPlistError.self) { try Self.rule(["NSExtensionActivationSupportsText": 2]) }
        #expect(text?.keyPath == "NSExtensionActivationSupportsText")
        let version = #expect(throws: ExtensionPlistError.self) { try Self.rule(["NSExtensionActivationDictionaryVersion": 3]) }
        #expect(version?.message == "expected 1 or 2, found 3")
    }

    static var dictionaryVariants: [[String: Any]] { [
        ["NSExtensionActivationSupportsImageWithMaxCount": 1, "NSExtensionActivationSupportsFileWithMaxCount": 1],
        ["NSExtensionActivationSupportsImageWithMaxCount": 2, "NSExtensionActivationSupportsFileWithMaxCount": 2, "NSExtensionActivationDictionaryVersion": 2],
        ["NSExtensionActivationSupportsImageWithMaxCount": 2, "NSExtensionActivationSupportsFileWithMaxCount": 1, "NSExtensionActivationDictionaryVersion": 2,
         "NSExtensionActivationUsesStrictMatching": true],
        ["NSExtensionActivationSupportsText": true, "NSExtensionActivationSupportsWebPageWithMaxCount": 1, "NSExtensionActivationUsesStrictMatching": false],
        ["NSExtensionActivationSupportsAttachmentsWithMinCount": 2, "NSExtensionActivationSupportsAttachmentsWithMaxCount": 2,
         "NSExtensionActivationSupportsMovieWithMaxCount": 2, "NSExtensionActivationSupportsWebURLWithMaxCount": 1],
        [:],
    ] }

    @Test func convertedPredicateAgreesWithTheDictionaryOnEveryShare() throws {
        var rules = try Self.dictionaryVariants.map { try Self.rule($0) }
        for row in FixtureActivationTests.table {
            if case .dictionary(let d) = try Fixtures.rule(row.file) { rules.append(d) }
        }
        #expect(rules.count == Self.dictionaryVariants.count + 9)
        for rule in rules {
            let predicate = rule.equivalentPredicate
            for share in Shares.grid {
                let direct = rule.evaluate(share).isActivated
                let converted = predicate.evaluate(share).isActivated
                #expect(direct == converted, "\(rule) on \(share): dictionary \(rule.evaluate(share)), predicate \(predicate.evaluate(share))")
            }
        }
    }
}
