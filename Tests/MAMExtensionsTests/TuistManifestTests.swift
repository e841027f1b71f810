import Foundation
@testable import MAMBundle
import Testing
@testable import MAMExtensions

/// A Tuist manifest read as Swift source (issue 86, item 1): what mamsim does where it cannot run
/// one (TuistManifestRunnerTests runs them): literals, the manifest's
/// own constants (`let name = "…"`, `"com.x.\(name)"`, a dictionary named by
/// `.extendingDefault(with:)`), `.target`, `Target(` and `.init(` calls; a dependency is not a
/// target; what a helper computes is named, never a dead end.
@Suite struct TuistManifestTests {
    func manifest(_ text: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-tuist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent("Project.swift")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func whisperboardsManifestIsReadAsTuistWritesIt() throws {
        let url = Fixtures.projects.appendingPathComponent("WhisperboardTuist/Project.swift")
        let project = try TuistManifest.read(url, running: false)
        #expect(project.name == "WhisperBoard" && project.displayName == "Project.swift (Tuist)")
        #expect(project.targets.map(\.name) == ["WhisperBoard", "ShareExtension", "WhisperBoardKit", "WhisperBoardKitTests"])
        let app = try #require(project.targets.first)
        #expect(app.isApplication && app.embeddedTargets == ["ShareExtension"])
        #expect(app.configurations[0].settings["PRODUCT_BUNDLE_IDENTIFIER"] == "me.igortarasenko.Whisperboard")
        #expect(app.configurations[0].settings["CODE_SIGN_ENTITLEMENTS"] == "App/Support/app.entitlements")
        let info = try #require(project.generatedFiles.first { $0.key.hasSuffix("Derived/InfoPlists/ShareExtension-Info.plist") }?.value)
        let plist = try #require(try PropertyListSerialization.propertyList(from: info, format: nil) as? [String: Any])
        #expect((plist["NSExtension"] as? [String: Any])?["NSExtensionPointIdentifier"] as? String == "com.apple.share-services")
        #expect(project.targets[1].isAppExtension && project.targets[2].productType == "com.apple.product-type.framework")
    }

    @Test func constantsAndEveryCallShapeAreRead() throws {
        let url = try manifest(#"""
            import ProjectDescription
            let name = "NewsWidgetApp"
            let infoPlist: [String: InfoPlist.Value] = ["UILaunchStoryboardName": "LaunchScreen", "CFBundleURLTypes": [["CFBundleURLSchemes": ["news"]]]]
            let project = Project(
                name: name,
                targets: [
                    .init(name: name, platform: .iOS, product: .app, bundleId: "com.Appboong.\(name)",
                          infoPlist: .extendingDefault(with: infoPlist), dependencies: [.target(name: "Widget")]),
                    Target(name: "Widget", platform: .iOS, product: .appExtension, bundleId: "com.Appboong.\(name).widget",
                           infoPlist: .file(path: "Widget/Info.plist")),
                    makeFeature(name: "Search"),
                    .target(name: featureName, destinations: .iOS, product: .framework, bundleId: "com.x.\(featureName)"),
                ]
            )
            """#)
        let project = try TuistManifest.read(url, running: false)
        #expect(project.name == "NewsWidgetApp")
        #expect(project.targets.map(\.name) == ["NewsWidgetApp", "Widget"])
        #expect(project.targets[0].configurations[0].settings["PRODUCT_BUNDLE_IDENTIFIER"] == "com.Appboong.NewsWidgetApp")
        #expect(project.targets[1].configurations[0].settings["PRODUCT_BUNDLE_IDENTIFIER"] == "com.Appboong.NewsWidgetApp.widget")
        #expect(project.targets[1].configurations[0].settings["INFOPLIST_FILE"] == "Widget/Info.plist")
        #expect(project.targets[0].embeddedTargets == ["Widget"])
        let info = try #require(project.generatedFiles.values.first)
        let plist = try #require(try PropertyListSerialization.propertyList(from: info, format: nil) as? [String: Any])
        #expect(plist["UILaunchStoryboardName"] as? String == "LaunchScreen" && plist["CFBundleIdentifier"] as? String == "$(PRODUCT_BUNDLE_IDENTIFIER)")
        #expect(project.unread.count == 1 && project.unread[0].contains("line 12: a target whose name is computed (featureName)"), "\(project.unread)")
    }

    /// A hostile manifest: unterminated strings and comments are read to their end, never a
    /// crash; nesting deeper than any manifest — a hundred thousand brackets, twenty thousand
    /// nested `.target(` calls, which were read in time quadratic in their number (security
    /// issue 95, finding 3) — is refused at its file and line before any call is read.
    @Test func aHostileManifestEndsQuietly() throws {
        for text in [#""\("#, "/" + "* never closed", "\"\"\"" + "\n open"] {
            let project = try TuistManifest.read(try manifest(text), running: false)
            #expect(project.targets.isEmpty)
        }
        let deep = String(repeating: "[", count: 100_000)
        let nestedTargets = "import ProjectDescription\nlet p = Project(name: \"X\", targets: [\n"
            + String(repeating: ".target(name: \"A\", dependencies: [", count: 20_000) + String(repeating: "])", count: 20_000) + "])\n"
        for (text, line) in [("let x = " + deep, 1),
                             (#"let p = Project(name: "X", targets: [.target(name: "A", product: .app, infoPlist: .extendingDefault(with: "# + deep, 1),
                             (nestedTargets, 3)] {
            let url = try manifest(text)
            #expect {
                _ = try TuistManifest.read(url, running: false)
            } throws: { error in
                "\(error)".hasPrefix("\(url.path):\(line): brackets nest deeper than \(TuistManifest.maximumNesting) levels")
            }
        }
        // Nesting as deep as the bound, and a manifest's worth of targets one after another, read.
        let atBound = "let x = " + String(repeating: "[", count: TuistManifest.maximumNesting) + String(repeating: "]", count: TuistManifest.maximumNesting)
        #expect(try TuistManifest.read(try manifest(atBound), running: false).targets.isEmpty)
        let many = "import ProjectDescription\nlet p = Project(name: \"X\", targets: [\n"
            + (0..<2_000).map { ".target(name: \"T\($0)\", destinations: .iOS, product: .framework, bundleId: \"com.x.t\($0)\")," }.joined(separator: "\n") + "\n])\n"
        #expect(try TuistManifest.read(try manifest(many), running: false).targets.count == 2_000)
    }

    /// Constants that name each other (`let a1 = "\\(a0)\\(a0)"`, forty of them: a 6 KB
    /// manifest) grew past 800 MB when every constant was substituted into the result again
    /// (security issue 95, finding 3). As Swift reads them, `"\\("` is a backslash and a
    /// parenthesis, and an interpolation is filled once: the name is the last constant's text.
    @Test func constantsThatNameEachOtherAreFilledOnceAsSwiftDoes() throws {
        var text = "import ProjectDescription\nlet a0 = \"x\"\n"
        for k in 1..<40 { text += "let a\(k) = \"\\\\(a\(k - 1))\\\\(a\(k - 1))\"\n" }
        text += "let p = Project(name: \"X\", targets: [.target(name: \"\\(a39)\", destinations: .iOS, product: .app, bundleId: \"com.x.\\(a1)\")])\n"
        let project = try TuistManifest.read(try manifest(text), running: false)
        #expect(project.targets.map(\.name) == [#"\(a38)\(a38)"#])
        #expect(project.targets.first?.configurations[0].settings["PRODUCT_BUNDLE_IDENTIFIER"] == #"com.x.\(a0)\(a0)"#)
    }

    /// Issue 96, item 1's reader: a target built by a local function called with literals
    /// (`makeApp(suffix: "Beta")`, `"Notes" + suffix`, a `let` of the body), by a helper of
    /// `Tuist/ProjectDescriptionHelpers` (`Project.feature(name:)`), and a bundle id written
    /// `$(PRODUCT_BUNDLE_IDENTIFIER)` that a settings dictionary of the manifest sets — each
    /// read as Tuist runs it; what the code computes past that (`suffix.lowercased()`) is named.
    @Test func functionsHelpersAndSettingsDictionariesAreReadAsTuistRunsThem() throws {
        let url = try manifest(#"""
            import ProjectDescription
            import ProjectDescriptionHelpers

            let baseSettings: SettingsDictionary = ["PRODUCT_BUNDLE_IDENTIFIER": "com.contoso.settings", "SWIFT_VERSION": "5.9"]

            func makeApp(suffix: String, bundleSuffix: String = "") -> Target {
                let appName = "Notes" + suffix
                return .target(name: appName, destinations: .iOS, product: .app, bundleId: "com.contoso.notes\(bundleSuffix)",
                               infoPlist: .default, dependencies: [.target(name: "Widget" + suffix)])
            }

            func makeWidget(_ suffix: String) -> Target {
                .target(name: "Widget" + suffix, destinations: .iOS, product: .appExtension,
                        bundleId: "com.contoso.notes\(suffix.lowercased()).widget", infoPlist: .default)
            }

            let project = Project(name: "Notes", targets: [
                makeApp(suffix: ""),
                makeApp(suffix: "Beta", bundleSuffix: ".beta"),
                makeWidget(""),
                .target(name: "Settings", destinations: .iOS, product: .app, bundleId: "$(PRODUCT_BUNDLE_IDENTIFIER)",
                        settings: .settings(base: baseSettings)),
                Project.feature(name: "Search"),
            ])
            """#)
        let helpers = url.deletingLastPathComponent().appendingPathComponent("Tuist/ProjectDescriptionHelpers")
        try FileManager.default.createDirectory(at: helpers, withIntermediateDirectories: true)
        try #"""
            import ProjectDescription
            extension Project {
                public static func feature(name: String) -> Target {
                    .target(name: "\(name)Feature", destinations: .iOS, product: .framework, bundleId: "com.contoso.\(name)")
                }
            }
            """#.write(to: helpers.appendingPathComponent("Project+Feature.swift"), atomically: true, encoding: .utf8)
        let project = try TuistManifest.read(url, running: false)
        #expect(project.targets.map(\.name) == ["Notes", "NotesBeta", "Widget", "Settings", "SearchFeature"], "\(project.unread)")
        func id(_ name: String) -> String? { project.targets.first { $0.name == name }?.configurations[1].settings["PRODUCT_BUNDLE_IDENTIFIER"] }
        #expect(id("Notes") == "com.contoso.notes" && id("NotesBeta") == "com.contoso.notes.beta")
        #expect(id("Settings") == "com.contoso.settings" && id("SearchFeature") == "com.contoso.Search")
        #expect(project.targets.first?.embeddedTargets == ["Widget"])
        #expect(id("Widget") == nil && project.unread.contains { $0.contains("target Widget's bundle id is computed") }, "\(project.unread)")
    }

    /// Issue 96 (ScoreFive, WINEY, justspeaktoit): an xcconfig a target's settings name per
    /// configuration is its base configuration; `nil` entitlements (a helper's default) are none;
    /// dependencies written as a list the manifest names are read from it.
    @Test func xcconfigsNilAndNamedListsAreReadAsTuistReadsThem() throws {
        let url = try manifest(#"""
            import ProjectDescription
            var appDependencies: [TargetDependency] = [.target(name: "Widget")]
            let project = Project(name: "Speak", targets: [
                .target(name: "Speak", destinations: .iOS, product: .app, bundleId: "com.speak.ios", entitlements: nil,
                        dependencies: appDependencies,
                        settings: .settings(configurations: [.debug(name: .debug, xcconfig: "Config/Debug.xcconfig"),
                                                             .release(name: .release, xcconfig: .relativeToManifest("Config/Release.xcconfig"))])),
                .target(name: "Widget", destinations: .iOS, product: .appExtension, bundleId: "com.speak.ios.widget"),
            ])
            """#)
        let project = try TuistManifest.read(url, running: false)
        let app = try #require(project.targets.first)
        #expect(app.embeddedTargets == ["Widget"] && project.unread.isEmpty, "\(project.unread)")
        #expect(app.configurations.map(\.baseConfiguration) == ["Config/Debug.xcconfig", "Config/Release.xcconfig"])
        #expect(app.configurations[1].settings["CODE_SIGN_ENTITLEMENTS"] == nil)
    }

    @Test func aManifestBuiltByHelpersIsNamedNotADeadEnd() throws {
        let url = try manifest("import ProjectDescription\nimport ProjectDescriptionHelpers\nlet project = Project.app(name: \"Mail\", platform: .iOS)\n")
        let project = try TuistManifest.read(url, running: false)
        #expect(project.targets.isEmpty)
        #expect(project.unread.first?.contains("no target is written in it with literals") == true && project.unread.first?.contains("tuist generate --no-open` in") == true, "\(project.unread)")
        // `findProjects` takes a Tuist workspace's manifests when it has no .xcodeproj.
        #expect(try ProjectLinter.findProjects(in: url.deletingLastPathComponent(), displayName: "x") == [url])
    }
}

/// Issue 86, item 5: no Intune rule on an app without the SDK in any mode — a folder scan too
/// (no project): the app is said to show no sign of the SDK, once; `--sdk` checks it.
@Suite struct FolderScanSDKTests {
    @Test func aFolderScanChecksTheSDKOnlyWhereItIs() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-scan-\(UUID().uuidString)")
        let app = dir.appendingPathComponent("Notes")
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>CFBundleIdentifier</key><string>com.example.notes</string><key>CFBundleURLTypes</key><array><dict><key>CFBundleURLSchemes</key><array><string>notes</string></array></dict></array></dict></plist>"#
            .write(to: app.appendingPathComponent("Info.plist"), atomically: true, encoding: .utf8)
        let reports = try ProjectLinter.lint(path: dir, displayName: "repo")
        let rules = reports.flatMap(\.findings).map(\.rule)
        #expect(!rules.contains { LintRules.intuneRules.contains($0) }, "\(rules)")
        #expect(rules.contains("intune-sdk-absent"), "\(rules)")
        // Declared with --sdk, its requirements are checked.
        let declared = try ProjectLinter.lint(path: dir, displayName: "repo", options: ProjectLinter.Options(sdkTargets: ["Notes"]))
        #expect(declared.flatMap(\.findings).contains { $0.rule == "intune-settings" }, "\(declared.flatMap(\.findings).map(\.rule))")
    }
}

/// Issue 86, item 8: build products and index records echo their sources' names
/// (`AccessToken.o`) and are not called a credential; a real key file still is.
@Suite struct BuildProductsAreNoSecretsTests {
    @Test(arguments: [
        ("/repo/.build/debug/App.build/AccessToken.swift.o", false), ("/repo/DerivedData/Index.noindex/DataStore/v5/records/AB/api_token.swift-1X2", false),
        ("/repo/.build/debug/App.build/AccessToken.d", false), ("/repo/Config/deploy_key", true), ("/repo/certs/push.p12", true),
    ])
    func onlyWhatHoldsASecretIsCalledOne(_ path: String, _ secret: Bool) {
        #expect((SandboxDeclarations.secretFile(path) != nil) == secret, "\(path)")
    }
}
