import Foundation
import Testing

extension CLITests {
    /// `mamsim lint`, `mamsim configure`, `mamsim activation`.
    @Suite struct ExtensionCommandTests {
        static let lintFixtures = CLI.repo("Tests/MAMExtensionsTests/Fixtures/lint")

        /// An "Open in" action extension rule: exactly one managed PDF.
        static let pdfRule = """
            SUBQUERY(extensionItems, $extensionItem, SUBQUERY($extensionItem.attachments, $attachment, \
            ANY $attachment.registeredTypeIdentifiers UTI-CONFORMS-TO "com.adobe.pdf" || \
            ANY $attachment.registeredTypeIdentifiers UTI-CONFORMS-TO "com.microsoft.intune.mam.com.adobe.pdf").@count == 1).@count == 1
            """

        /// Every plugin folder of the repository (`plugins/*` with an Info.plist), relative paths.
        static func repositoryPlugins() -> [String] {
            let root = CLI.repo("plugins")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
            return names.sorted()
                .filter { FileManager.default.fileExists(atPath: root.appendingPathComponent("\($0)/Info.plist").path) }
                .map { "plugins/\($0)" }
        }

        @Test func aRuleStartingWithADashIsTheRuleNotAnOption() async throws {
            let r = try await CLI.run(["activation", "--rule", "-1 == 1", "--item", "public.text"], timeout: 30)
            #expect(r.status == 1, "evaluated, not rejected as an unknown option: \(r)")
            #expect(r.stdout.contains("not activated"), "\(r)")
        }

        @Test func lintReportsNoProblemsInTheRepositoryPlugins() async throws {
            let plugins = Self.repositoryPlugins()
            #expect(Set(["plugins/open-in-word", "plugins/share-to-notes"]).isSubset(of: plugins), "\(plugins)")
            let r = try await CLI.run(["lint"] + plugins.map { CLI.repo($0).path }, timeout: 60)
            #expect(r.status == 0, "\(r)")
            for p in plugins {
                #expect(r.stdout.contains("\(CLI.repo(p).path): no problems"), "\(r)")
            }
            #expect(!r.stdout.contains("error:"), "\(r)")
        }

        @Test func lintExitsOneAndNamesTheKeyPathOfAMisconfiguration() async throws {
            let folder = Self.lintFixtures.appendingPathComponent("open-in-flag-not-yes").path
            let r = try await CLI.run(["lint", folder], timeout: 60)
            #expect(r.status == 1, "\(r)")
            #expect(r.stdout.contains("\(folder)/Info.plist:"), "\(r)")
            #expect(r.stdout.contains("error: IntuneMAMSettings.OpenInActionExtension: must be YES"), "\(r)")
            #expect(r.stdout.contains("1 error, 0 warnings in \(folder)"), "\(r)")
        }

        @Test func lintOfAMissingFolderIsBadInputNotAFinding() async throws {
            let r = try await CLI.run(["lint", "/nonexistent/app"], timeout: 60)
            #expect(r.status == 2, "\(r)")
            #expect(r.stderr.contains("error: /nonexistent/app does not exist; name an app or plugin folder, an .xcodeproj or a repository"), "\(r)")
            #expect(r.stdout.isEmpty, "\(r)")
        }

        @Test func lintOfAGoodAndABadFolderTogetherStillExitsOne() async throws {
            let good = Self.lintFixtures.appendingPathComponent("good-open-in").path
            let bad = Self.lintFixtures.appendingPathComponent("keychain-misspelled-group").path
            let r = try await CLI.run(["lint", good, bad], timeout: 60)
            #expect(r.status == 1, "\(r)")
            #expect(r.stdout.contains("\(good): no problems"), "\(r)")
            #expect(r.stdout.contains("error: keychain-access-groups[1]:"), "\(r)")
        }

        @Test(arguments: repositoryPlugins().map { "\($0)/Info.plist" }
                  + ["Tests/MAMExtensionsTests/Fixtures/lint/rule-without-intune-types/Info.plist"])
        func configureOutputIsAFixedPointOfConfigure(_ plist: String) async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let copy = tmp.url.appendingPathComponent("Info.plist")
            try FileManager.default.copyItem(at: CLI.repo(plist), to: copy)
            let original = try Data(contentsOf: copy)
            let once = tmp.path("once.plist"), twice = tmp.path("twice.plist")

            let first = try await CLI.run(["configure", copy.path, "-o", once], timeout: 60)
            #expect(first.status == 0, "\(first)")
            let second = try await CLI.run(["configure", once, "-o", twice], timeout: 60)
            #expect(second.status == 0, "\(second)")
            #expect(second.stdout == "\(twice): the activation rule already accepts every Intune type; unchanged\n", "\(second)")

            let onceData = try Data(contentsOf: URL(fileURLWithPath: once))
            let twiceData = try Data(contentsOf: URL(fileURLWithPath: twice))
            #expect(onceData == twiceData, "configure is not idempotent on \(plist)")
            // `-o` leaves the input alone.
            #expect(try Data(contentsOf: copy) == original)
            // The result accepts the Intune twins and is a property list.
            let root = try PropertyListSerialization.propertyList(from: onceData, format: nil) as? [String: Any]
            let ext = root?["NSExtension"] as? [String: Any]
            let rule = (ext?["NSExtensionAttributes"] as? [String: Any])?["NSExtensionActivationRule"]
            #expect((rule as? String)?.contains("com.microsoft.intune.mam.") == true, "rule: \(String(describing: rule))")
        }

        @Test func configureConvertsADictionaryRuleAddingTheIntuneTwins() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let plist = tmp.url.appendingPathComponent("Info.plist")
            try FileManager.default.copyItem(
                at: Self.lintFixtures.appendingPathComponent("rule-without-intune-types/Info.plist"), to: plist)
            let before = try Data(contentsOf: plist)
            let r = try await CLI.run(["configure", plist.path], timeout: 60)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout.hasPrefix("\(plist.path): dictionary activation rule converted to a predicate string naming com.microsoft.intune.mam.public.image"), "\(r)")
            let after = try Data(contentsOf: plist)
            #expect(after != before)
            let text = String(decoding: after, as: UTF8.self)
            #expect(text.contains("com.microsoft.intune.mam.public.image"))
            #expect(!text.contains("NSExtensionActivationSupportsImageWithMaxCount"))
            // Only the rule changed: every line before and after it is the developer's, in order.
            let old = String(decoding: before, as: UTF8.self)
            let head = try #require(old.range(of: "<key>NSExtensionActivationRule</key>")).upperBound
            #expect(text.hasPrefix(String(old[..<head])))
            #expect(text.hasSuffix(String(old[try #require(old.range(of: "</dict>\n\t\t<key>NSExtensionPointIdentifier</key>")).lowerBound...])))
        }

        @Test func activationRuleAcceptsAMatchingItemWithExitZero() async throws {
            let r = try await CLI.run(["activation", "--rule", Self.pdfRule, "--item", "com.adobe.pdf"], timeout: 60)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout.hasPrefix("activated: "), "\(r)")
        }

        @Test func activationRuleRejectsANonMatchingItemWithExitOne() async throws {
            let r = try await CLI.run(["activation", "--rule", Self.pdfRule, "--item", "public.png"], timeout: 60)
            #expect(r.status == 1, "\(r)")
            #expect(r.stdout.hasPrefix("not activated: "), "\(r)")
        }

        @Test func activationRuleRejectsTwoItemsWhenItTakesExactlyOne() async throws {
            let r = try await CLI.run(
                ["activation", "--rule", Self.pdfRule, "--item", "com.adobe.pdf", "--item", "com.adobe.pdf"], timeout: 60)
            #expect(r.status == 1, "\(r)")
            #expect(r.stdout.hasPrefix("not activated: "), "\(r)")
        }

        @Test func activationOfThePluginPlistOffersManagedDataAsIntuneTypes() async throws {
            let plist = CLI.repo("plugins/open-in-word/Info.plist").path
            let managed = try await CLI.run(["activation", plist, "--item", "com.adobe.pdf", "--managed"], timeout: 60)
            #expect(managed.status == 0, "\(managed)")
            #expect(managed.stdout.hasPrefix("activated: "), "\(managed)")
            // The "Open in" extension takes only the Intune twins: unmanaged data does not activate it.
            let plain = try await CLI.run(["activation", plist, "--item", "com.adobe.pdf"], timeout: 60)
            #expect(plain.status == 1, "\(plain)")
            #expect(plain.stdout.hasPrefix("not activated: "), "\(plain)")
        }
        /// The configurator only rewrites a rule when a twin is missing: share-to-notes already
        /// lists the twin of every alternative it accepts, including `url AND NOT file-url`.
        @Test func configureLeavesARuleThatAlreadyHasEveryTwinUnchanged() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let copy = tmp.url.appendingPathComponent("Info.plist")
            try FileManager.default.copyItem(at: CLI.repo("plugins/share-to-notes/Info.plist"), to: copy)
            let out = tmp.path("out.plist")
            let r = try await CLI.run(["configure", copy.path, "-o", out], timeout: 60)
            #expect(r.status == 0, "\(r)")
            let same = try Data(contentsOf: URL(fileURLWithPath: out)) == Data(contentsOf: copy)
            #expect(r.stdout == "\(out): the activation rule already accepts every Intune type; unchanged\n", "\(r)")
            #expect(same)
        }
    }
}
