import Foundation
import MAMExtensions
import MAMActivation
import MAMBundle
import Testing

struct IntuneConfiguratorTests {
    static let beforeFile = "29-MicrosoftDocs_memdocs-intune-before.txt"

    /// An extension Info.plist holding `rule` (a predicate string, or a dictionary given as XML).
    static func infoPlist(ruleXML: String) -> Data {
        Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
                <key>CFBundleIdentifier</key><string>com.contoso.notes.share</string>
                <key>CFBundleVersion</key><string>42</string>
                <key>IntuneMAMSettings</key>
                <dict>
                    <key>AppGroupIdentifiers</key><array><string>group.com.contoso.notes</string></array>
                    <key>ContainingAppBundleId</key><string>com.contoso.notes</string>
                </dict>
                <key>NSExtension</key>
                <dict>
                    <key>NSExtensionAttributes</key>
                    <dict>
                        <key>NSExtensionActivationRule</key>
                        \(ruleXML)
                        <key>NSExtensionServiceAllowsFinderPreviewItem</key><true/>
                    </dict>
                    <key>NSExtensionPointIdentifier</key><string>com.apple.share-services</string>
                    <key>NSExtensionPrincipalClass</key><string>ShareViewController</string>
                </dict>
            </dict>
            </plist>
            """.utf8)
    }

    static func xmlString(_ text: String) -> String {
        "<string>" + text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;") + "</string>"
    }

    static func plist(_ data: Data) throws -> NSDictionary {
        try #require(try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? NSDictionary)
    }

    static func rule(in data: Data) throws -> ActivationPredicate {
        let manifest = try ExtensionManifest(infoPlist: data, source: "configured")
        return try #require(manifest.activationRule).asPredicate
    }

    /// Managed and unmanaged shares, singly and mixed.
    static var equivalenceShares: [ShareInput] {
        let unmanaged = Shares.grid
        let managed = unmanaged.map(\.intuneTwin)
        let mixed = Shares.grid.prefix(12).map { share in
            ShareInput(attachments: share.allAttachments + [Attachment(["com.microsoft.intune.mam.public.jpeg"])])
        }
        return unmanaged + managed + mixed
    }

    @Test func configuredBeforeRuleIsMicrosoftsAfterRule() throws {
        let before = try Fixtures.rule(Self.beforeFile)
        let after = try ActivationPredicate(parsing: try Fixtures.microsoftAfterRule(), source: "seed 000")
        #expect(after.mentionedTypes.count == 8)
        let configured = IntuneConfigurator.configuredRule(before)
        #expect(configured == after, "same twins, appended in the same order")
        for share in Self.equivalenceShares {
            #expect(configured.evaluate(share).isActivated == after.evaluate(share).isActivated, "\(share)")
        }
        // And the point of it: before ignores managed data, after takes it.
        #expect(!before.evaluate(Shares.intunePDF).isActivated)
        #expect(after.evaluate(Shares.intunePDF).isActivated)
        #expect(!acceptsIntuneTypes(before))
        #expect(acceptsIntuneTypes(.predicate(configured)))
    }

    @Test func configuratorRewritesTheInfoPlistOnceAndKeepsEveryOtherKey() throws {
        let original = Self.infoPlist(ruleXML: Self.xmlString(try Fixtures.body(Self.beforeFile)))
        let once = try IntuneConfigurator.configure(infoPlist: original, source: "Info.plist")
        let twice = try IntuneConfigurator.configure(infoPlist: once, source: "Info.plist")
        #expect(once != original)
        #expect(twice == once, "a second run changes nothing")
        #expect(try IntuneConfigurator.configureReporting(infoPlist: once, source: "Info.plist").change == .unchanged)

        let after = try ActivationPredicate(parsing: try Fixtures.microsoftAfterRule())
        #expect(try Self.rule(in: once) == after)
        // Everything but the rule is as it was.
        let before = try Self.plist(original).mutableCopy() as! NSMutableDictionary
        let rewritten = try Self.plist(once).mutableCopy() as! NSMutableDictionary
        for dict in [before, rewritten] {
            let ext = (dict["NSExtension"] as! NSDictionary).mutableCopy() as! NSMutableDictionary
            let attributes = (ext["NSExtensionAttributes"] as! NSDictionary).mutableCopy() as! NSMutableDictionary
            attributes.removeObject(forKey: "NSExtensionActivationRule")
            ext["NSExtensionAttributes"] = attributes
            dict["NSExtension"] = ext
        }
        #expect(before == rewritten)
        #expect((rewritten["IntuneMAMSettings"] as? NSDictionary)?["ContainingAppBundleId"] as? String == "com.contoso.notes")
    }

    @Test(arguments: FixtureActivationTests.table.map(\.file).filter { !$0.contains("openin-stub") })
    func configuredRuleTakesManagedDataExactlyWhereTheOriginalTakesTheUnmanagedTwin(_ file: String) throws {
        let rule = try Fixtures.rule(file)
        let configured = IntuneConfigurator.configuredRule(rule)
        #expect(configured.addingIntuneTwins == configured, "idempotent")
        for share in Shares.grid {
            let original = rule.evaluate(share).isActivated
            // Unmanaged shares: unchanged behaviour (the dictionary's conversion is exact for one extension item).
            #expect(configured.evaluate(share).isActivated == original, "\(file) on \(share)")
            // Managed twin: taken exactly when the original takes the unmanaged share.
            #expect(configured.evaluate(share.intuneTwin).isActivated == original, "\(file) on managed \(share)")
        }
        #expect(acceptsIntuneTypes(.predicate(configured)))
    }

    @Test func dictionaryRuleIsConvertedToAPredicateStringWithTwins() throws {
        let xml = """
            <dict>
                <key>NSExtensionActivationSupportsImageWithMaxCount</key><integer>2</integer>
                <key>NSExtensionActivationSupportsText</key><true/>
            </dict>
            """
        let (data, change) = try IntuneConfigurator.configureReporting(infoPlist: Self.infoPlist(ruleXML: xml), source: "Info.plist")
        guard case .convertedDictionary(let predicate) = change else { Issue.record("expected a conversion, got \(change)"); return }
        let stored = try #require((((try Self.plist(data))["NSExtension"] as? NSDictionary)?["NSExtensionAttributes"] as? NSDictionary)?["NSExtensionActivationRule"] as? String)
        #expect(try ActivationPredicate(parsing: stored) == predicate)
        #expect(stored.contains("\"com.microsoft.intune.mam.public.image\""))
        #expect(predicate.evaluate(ShareInput(["com.microsoft.intune.mam.public.png"], ["com.microsoft.intune.mam.public.plain-text"])).isActivated)
        #expect(!predicate.evaluate(ShareInput(attachments: Array(repeating: Attachment(["com.microsoft.intune.mam.public.png"]), count: 3))).isActivated)
        let again = try IntuneConfigurator.configure(infoPlist: data, source: "Info.plist")
        #expect(again == data)
    }

    @Test func lonelyComparisonBecomesADisjunctionAndTwinsAreNotDoubled() throws {
        let rule = try ActivationPredicate(parsing: "SUBQUERY(extensionItems, $e, SUBQUERY($e.attachments, $a, SUBQUERY($a.registeredTypeIdentifiers, $uti, $uti UTI-EQUALS 'com.adobe.pdf').@count > 0).@count == 1).@count == 1")
        let configured = rule.addingIntuneTwins
        #expect(configured.description == "SUBQUERY(extensionItems, $e, SUBQUERY($e.attachments, $a, SUBQUERY($a.registeredTypeIdentifiers, $uti, $uti UTI-EQUALS \"com.adobe.pdf\" || $uti UTI-EQUALS \"com.microsoft.intune.mam.com.adobe.pdf\").@count > 0).@count == 1).@count == 1")
        #expect(configured.addingIntuneTwins == configured)
        #expect(configured.evaluate(Shares.intunePDF).isActivated)
        let stub = try Fixtures.rule("31-MicrosoftDocs_memdocs-intune-openin-stub.txt").asPredicate
        #expect(stub.addingIntuneTwins == stub, "already-prefixed types get no twin")
    }

    @Test func aConjunctionAlternativeGetsAWholeTwinAndIsLeftAloneWhenItHasOne() throws {
        let rule = try ActivationPredicate(parsing: "SUBQUERY(extensionItems, $e, SUBQUERY($e.attachments, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO 'public.image' || (ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO 'public.url' AND NOT (ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO 'public.file-url'))).@count >= 1).@count == 1")
        let configured = rule.addingIntuneTwins
        // AND binds tighter than OR: the printer needs no parentheses around the twin.
        #expect(configured.description.contains("|| ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO \"com.microsoft.intune.mam.public.url\" AND NOT (ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO \"com.microsoft.intune.mam.public.file-url\"))"), "\(configured)")
        #expect(configured.addingIntuneTwins == configured)
        // A managed web link activates it; a managed file URL still does not.
        #expect(configured.evaluate(ShareInput(["com.microsoft.intune.mam.public.url"])).isActivated)
        #expect(!configured.evaluate(ShareInput(["com.microsoft.intune.mam.public.file-url", "com.microsoft.intune.mam.public.url"])).isActivated)
    }

    @Test func plistWithoutARuleIsReturnedUntouchedAndABadRuleIsAnError() throws {
        let noRule = Data(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>CFBundleIdentifier</key><string>x</string></dict></plist>"#.utf8)
        #expect(try IntuneConfigurator.configure(infoPlist: noRule, source: "app") == noRule)
        let broken = Self.infoPlist(ruleXML: "<string>SUBQUERY(extensionItems, $e, TRUEPREDICATE</string>")
        let error = #expect(throws: ActivationRuleError.self) { try IntuneConfigurator.configure(infoPlist: broken, source: "plugins/x/Info.plist") }
        guard case .syntax(let syntax) = error else { Issue.record("expected a syntax error, got \(String(describing: error))"); return }
        #expect(syntax.source == "plugins/x/Info.plist: NSExtension.NSExtensionAttributes.NSExtensionActivationRule")
        #expect(syntax.expected.hasPrefix("')' to close the SUBQUERY"))
    }
}
