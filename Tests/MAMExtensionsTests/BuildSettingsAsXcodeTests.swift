import Foundation
import MAMActivation
import MAMBundle
import Testing

/// Issue 73, item 1: build settings resolve as Xcode resolves them — a setting that names itself
/// inherits, the signing prefixes are never unset, and an include in another letter case is read
/// as macOS reads it, with a portability note.
struct BuildSettingsAsXcodeTests {
    func folder(_ files: [String: String]) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-xcconfig-\(UUID().uuidString)")
        for (path, text) in files {
            let url = dir.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return dir
    }

    @Test func aSettingThatNamesItselfInherits() throws {
        let dir = try folder(["Base.xcconfig": "MARKETING_VERSION = 4.2\n", "App.xcconfig": "#include \"Base.xcconfig\"\nMARKETING_VERSION = $(MARKETING_VERSION)\nOTHER = ${MARKETING_VERSION}-beta\n"])
        defer { try? FileManager.default.removeItem(at: dir) }
        var problems: [XCConfig.LoadProblem] = []
        let settings = XCConfig.load(dir.appendingPathComponent("App.xcconfig"), name: "App.xcconfig", root: dir, problems: &problems)
        #expect(settings["MARKETING_VERSION"] == "4.2", "\(settings)")
        #expect(problems.isEmpty, "\(problems)")
        // A project layer over it, naming itself too (XcodeGen `settings:`, a target's build settings).
        var layered = settings
        BuildConditions.iOSDevice.apply(["MARKETING_VERSION": "$(MARKETING_VERSION)"], to: &layered)
        #expect(layered["MARKETING_VERSION"] == "4.2")
    }

    /// A file saved with Windows (CR LF) or classic Mac (CR) line ends reads as its LF twin:
    /// every setting, include and line number. Split on LF alone, its first line's comment
    /// cut away every setting after it.
    @Test(arguments: ["\r\n", "\r"])
    func anXCConfigReadsTheSameWhateverItsLineEnds(_ br: String) throws {
        let lines = ["// Contoso's app settings", "#include \"Base.xcconfig\"", "PRODUCT_BUNDLE_IDENTIFIER = com.contoso.mail", "", "MARKETING_VERSION = 4.2 // shipped"]
        let lf = XCConfig(text: lines.joined(separator: "\n") + "\n"), other = XCConfig(text: lines.joined(separator: br) + br)
        #expect(lf.settings == ["PRODUCT_BUNDLE_IDENTIFIER": "com.contoso.mail", "MARKETING_VERSION": "4.2"], "\(lf.settings)")
        #expect(other.settings == lf.settings, "\(other.settings)")
        #expect(other.includes.map(\.line) == [2] && other.includes.map(\.path) == ["Base.xcconfig"], "\(other.includes)")
        #expect(TextLines.split("a\r\nb\rc\n\nd") == ["a", "b", "c", "", "d"])
    }

    /// Issue 86, item 3: `$NAME` without parentheses, `${NAME}`, and the modifiers, as Xcode
    /// expands them — an app's bundle id written `$PRODUCT_BUNDLE_IDENTIFIER_ROOT.mail` resolves.
    @Test(arguments: [
        ("$PRODUCT_BUNDLE_IDENTIFIER_ROOT.mail", "com.contoso.mail"),
        ("${PRODUCT_BUNDLE_IDENTIFIER_ROOT}.mail", "com.contoso.mail"),
        ("$(PRODUCT_NAME:rfc1034identifier)", "My-App-2"),
        ("$(PRODUCT_NAME:c99extidentifier)", "My_App_2"),
        ("$(PRODUCT_NAME:lower)", "my app+2"),
        ("$ROOT_ALIAS.share", "com.contoso.share"),
        ("price: 5$", "price: 5$"),
    ])
    func everyWayXcodeWritesAReferenceExpands(_ written: String, _ expanded: String) {
        var unresolved: [UnresolvedBuildSetting] = []
        let settings = BuildSettings(["PRODUCT_BUNDLE_IDENTIFIER_ROOT": "com.contoso", "PRODUCT_NAME": "My App+2", "ROOT_ALIAS": "$PRODUCT_BUNDLE_IDENTIFIER_ROOT"])
        #expect(settings.expand(written, keyPath: "CFBundleIdentifier", unresolved: &unresolved) == expanded)
        #expect(unresolved.isEmpty, "\(unresolved)")
        #expect(!BuildSettings.hasReference(expanded) || expanded.hasSuffix("$"))
        _ = BuildSettings().expand("$UNSET_ROOT.mail", keyPath: "k", unresolved: &unresolved)
        #expect(unresolved.map(\.name) == ["UNSET_ROOT"] && BuildSettings.hasReference("$UNSET_ROOT.mail"))
    }

    /// Issue 96: a property list's own `$name` — an activation rule's predicate variable
    /// (`$fileproviderItem`, `$attachment`) — is no build setting when none is defined: kept as
    /// written and never "unset"; a defined one still expands (the control), and a setting's
    /// value keeps reporting an unset `$NAME`.
    @Test func aPredicateVariableInAPlistIsNoBuildSetting() throws {
        var unresolved: [UnresolvedBuildSetting] = []
        let rule = "SUBQUERY(fileproviderItems, $fileproviderItem, $fileproviderItem.contentType UTI-CONFORMS-TO \"public.item\").@count > 0"
        let plist: [String: Any] = ["NSExtension": ["NSExtensionFileProviderActions": [["NSExtensionFileProviderActionActivationRule": rule]]],
                                    "CFBundleIdentifier": "$PRODUCT_BUNDLE_IDENTIFIER_ROOT.files"]
        let settings = BuildSettings(["PRODUCT_BUNDLE_IDENTIFIER_ROOT": "com.contoso"])
        let expanded = try #require(settings.expand(plist: plist, keyPath: "", unresolved: &unresolved) as? [String: Any])
        let actions = (expanded["NSExtension"] as? [String: Any])?["NSExtensionFileProviderActions"] as? [[String: Any]]
        #expect(actions?.first?["NSExtensionFileProviderActionActivationRule"] as? String == rule)
        #expect(expanded["CFBundleIdentifier"] as? String == "com.contoso.files")
        #expect(unresolved.isEmpty, "\(unresolved)")
        _ = settings.expand("$fileproviderItem", keyPath: "k", unresolved: &unresolved)
        #expect(unresolved.map(\.name) == ["fileproviderItem"])
    }

    /// Issue 96: an `#include` not found beside the including file is looked for from the
    /// project's folder, as Xcode does; without the project's folder it is missing (the control).
    @Test func anIncludeIsFoundFromTheProjectsFolder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("xcconfig-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Config"), withIntermediateDirectories: true)
        try Data("#include \"Config/Shared.xcconfig\"\nB = 2\n".utf8).write(to: dir.appendingPathComponent("Config/App.xcconfig"))
        try Data("A = 1\n".utf8).write(to: dir.appendingPathComponent("Config/Shared.xcconfig"))
        var problems: [XCConfig.LoadProblem] = []
        let found = XCConfig.load(dir.appendingPathComponent("Config/App.xcconfig"), name: "Config/App.xcconfig", root: dir, projectFolder: dir, problems: &problems)
        #expect(found["A"] == "1" && found["B"] == "2" && problems.isEmpty, "\(found) \(problems)")
        let alone = XCConfig.load(dir.appendingPathComponent("Config/App.xcconfig"), name: "Config/App.xcconfig", root: dir, problems: &problems)
        #expect(alone["A"] == nil && problems.contains { $0.problem.contains("does not exist") })
    }

    /// Issue 96 (Brave, UTM): what Xcode defines on the machine that builds — `$(USER)`, the
    /// build's own folders — is never "unset"; a file in a build folder is the build's.
    @Test func whatTheBuildDefinesIsNeverUnset() {
        var unresolved: [UnresolvedBuildSetting] = []
        let text = BuildSettings().expand("brave.$(USER).local.id $(DERIVED_FILE_DIR)/Info.plist", keyPath: "k", unresolved: &unresolved)
        #expect(text == "brave.$(USER).local.id $(DERIVED_FILE_DIR)/Info.plist" && unresolved.isEmpty, "\(unresolved)")
        #expect(BuildSettings.namesABuildFolder("$(DERIVED_FILE_DIR)/Info.plist") && !BuildSettings.namesABuildFolder("$(SRCROOT)/Info.plist"))
    }

    @Test func theSigningPrefixesAreNeverUnset() {
        var unresolved: [UnresolvedBuildSetting] = []
        let text = BuildSettings().expand("$(AppIdentifierPrefix)com.example.app", keyPath: "keychain-access-groups[0]", unresolved: &unresolved)
        #expect(text == "$(AppIdentifierPrefix)com.example.app" && unresolved.isEmpty, "\(unresolved)")
        // Control: any other unset setting is reported.
        _ = BuildSettings().expand("$(KEYCHAIN_GROUP)", keyPath: "k", unresolved: &unresolved)
        #expect(unresolved.map(\.name) == ["KEYCHAIN_GROUP"])
    }

    @Test func anIncludeInAnotherCaseIsReadAsOnMacOS() throws {
        let dir = try folder(["Shared/base.xcconfig": "TEAM_NAME = Contoso\n", "App.xcconfig": "#include \"Shared/Base.xcconfig\"\nDISPLAY = $(TEAM_NAME) Mail\n"])
        defer { try? FileManager.default.removeItem(at: dir) }
        var problems: [XCConfig.LoadProblem] = []
        let settings = XCConfig.load(dir.appendingPathComponent("App.xcconfig"), name: "App.xcconfig", root: dir, problems: &problems)
        #expect(settings["TEAM_NAME"] == "Contoso", "nothing expands to empty: \(settings)")
        #expect(problems.map(\.rule) == ["xcconfig-include-case"], "\(problems)")
        #expect(problems.first?.fix.contains("base.xcconfig") == true)
    }
}
