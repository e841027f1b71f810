import Foundation
import Testing

extension CLITests {
    /// `mamsim init`: a first scenario from a real project runs green with `mamsim run`.
    @Suite struct InitCommandTests {
        static func scratch() throws -> URL {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-init-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            return dir
        }

        /// Issue 96, "never a dead end": two example apps with one bundle id get distinct ids
        /// (the second a stand-in, said) so the scenario loads and runs; an extension no app
        /// embeds is given no other app as its container — a comment says none was found.
        @Test func twoAppsOfOneIdAndAnExtensionWithoutItsAppStillLoad() async throws {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            func plist(_ id: String, _ point: String? = nil) -> String {
                let ext = point.map { "<key>NSExtension</key><dict><key>NSExtensionPointIdentifier</key><string>\($0)</string></dict>" } ?? ""
                return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict><key>CFBundleIdentifier</key><string>\(id)</string>"
                    + "<key>CFBundlePackageType</key><string>\(point == nil ? "APPL" : "XPC!")</string>\(ext)</dict></plist>"
            }
            let repo = dir.appendingPathComponent("repo")
            for (path, text) in [("Examples/Basic/Info.plist", plist("com.contoso.example")), ("Examples/Advanced/Info.plist", plist("com.contoso.example")),
                                 ("Orphan/Info.plist", plist("org.elsewhere.share", "com.apple.share-services"))] {
                try FileManager.default.createDirectory(at: repo.appendingPathComponent(path).deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: repo.appendingPathComponent(path))
            }
            let file = dir.appendingPathComponent("first.yaml").path
            let r = try await CLI.run(["init", repo.path, "-o", file], timeout: 120)
            #expect(r.status == 0 && r.stderr.contains("its bundle id com.contoso.example is"), "\(r)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.contains("bundle: \"com.contoso.example\"") && text.contains("bundle: \"com.contoso.example."), "\(text)")
            #expect(text.contains("no app of the project embeds it") && !text.contains("plugin: \"mamsim-extensions/orphan\""), "\(text)")
            let run = try await CLI.run(["run", file], timeout: 120)
            #expect(run.status == 0, "\(run)")
        }

        /// Microsoft's Chatr sample (an Xcode project) and the Intune MAUI sample with Microsoft's
        /// level-2 template: init writes the fleet and steps, their outcomes follow the rules,
        /// and the scenario passes `mamsim run`.
        @Test(arguments: [
            ("Tests/Fixtures/projects/Chatr", nil as String?, ["bundle: \"Intune.chatr\"", "expect: {blocked: outbound-policy}", "expect: {blocked: clipboard-policy}"]),
            ("Tests/Fixtures/projects/IntuneMauiSample", "Tests/Fixtures/shared/fixtures/policies/icf-level-2-enterprise-enhanced-data-protection-iOS.json",
             ["bundle: \"com.maui.microsoftintunemamsample\"", "- id: intunemamiosmauisample", "expect: {blocked: save-location}",
              "# left out, not URL schemes"]),
            ("Tests/Fixtures/projects/ContosoMail", nil, ["multiIdentity: true", "plugin: \"mamsim-extensions/mailshare\"", "expect: success"]),
        ])
        func aProjectBecomesAScenarioThatRuns(project: String, policy: String?, lines: [String]) async throws {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("first.yaml").path
            let r = try await CLI.run(["init", CLI.repo(project).path, "-o", file] + (policy.map { ["--policy", CLI.repo($0).path] } ?? []), timeout: 120)
            #expect(r.status == 0, "\(r)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for line in lines { #expect(text.contains(line), "\(line) in\n\(text)") }
            #expect(!text.contains("#expect#"), "\(text)")
            let run = try await CLI.run(["run", file], timeout: 120)
            #expect(run.status == 0, "\(run)")
            // An edited scenario is not written over unless asked.
            let again = try await CLI.run(["init", CLI.repo(project).path, "-o", file], timeout: 120)
            #expect(again.status == 2 && again.stderr.contains("--force"), "\(again)")
        }

        /// Every repository fixture, among them public projects of different shapes (an XcodeGen
        /// spec with includes and the projects generated from it, two empty project files among
        /// readable ones, CocoaPods without `Pods/`, bundle ids from a project-level xcconfig,
        /// iOS and macOS targets, seven extension kinds, test and UI-test bundles): init writes a
        /// scenario that loads and runs, and names every target of every project, in the fleet
        /// or in a comment with why.
        @Test(arguments: [
            ("NetNewsWire", 1, 2), ("DuckDuckGoiOS", 1, 5), ("Mattermost", 1, 2), ("XcodeGenTestProject", 3, 0),
            ("XcodeGenTestProject/project.yml", 3, 0), ("XcodeGenNotes", 1, 1), ("ContosoMail", 1, 1), ("Chatr", 1, 0),
            ("MauiContoso", 1, 0), ("IntuneMauiSample", 2, 0), ("HomeAssistant", 1, 7), ("WhisperboardTuist", 1, 1),
        ])
        func everyFixtureBecomesAScenarioNamingEveryTarget(fixture: String, apps: Int, extensions: Int) async throws {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("first.yaml").path
            let project = CLI.repo("Tests/Fixtures/projects/\(fixture)")
            let r = try await CLI.run(["init", project.path, "-o", file], timeout: 120)
            #expect(r.status == 0 && r.stdout.contains("wrote \(file): \(apps) app\(apps == 1 ? "" : "s"), \(extensions) extension\(extensions == 1 ? "" : "s")"), "\(r)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            // Each native target of each project file the fixture holds (project.yml: its targets).
            var names: [String] = []
            let base = project.pathExtension == "yml" ? project.deletingLastPathComponent() : project
            let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            for url in files where url.lastPathComponent == "project.pbxproj" && project.pathExtension != "yml" {
                let pbx = try String(contentsOf: url, encoding: .utf8)
                names += pbx.components(separatedBy: "Build configuration list for PBXNativeTarget \"").dropFirst()
                    .compactMap { $0.components(separatedBy: "\"").first }
            }
            for name in Set(names) {
                #expect(text.contains("target \(name)\n") || text.contains("target \(name))") || text.contains("#   \(name) ("), "\(fixture): target \(name) is not named in\n\(text)")
            }
            if fixture.hasPrefix("XcodeGenTestProject") {
                #expect(text.contains("#   App_macOS (") && text.contains("an App Clip") && text.contains("a UI-test bundle"), "\(text)")
            }
            if fixture == "XcodeGenTestProject" { #expect(r.stderr.contains("project.pbxproj: is empty; its targets are left out"), "\(r)") }
            let run = try await CLI.run(["run", file], timeout: 120)
            #expect(run.status == 0, "\(run)")
        }

        /// Issue 86, items 2–4: a spec named `project-bwa.yml`, found by its content and named
        /// itself; bundle ids written `$NAME` (resolved) and from a setting nothing sets (a
        /// stand-in, no `$` left, the written text in a comment); an include outside the
        /// folder skipped with a warning — and the scenario runs.
        @Test func anUnusualXcodeGenSpecBecomesAScenarioThatRuns() async throws {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let repo = dir.appendingPathComponent("repo")
            let files: [String: String] = [
                "project-bwa.yml": """
                    name: Authenticator
                    include: [../outside.yml]
                    settings:
                      PRODUCT_BUNDLE_IDENTIFIER_ROOT: com.example.bwa
                    targets:
                      Authenticator:
                        type: application
                        platform: iOS
                        info: {path: App/Info.plist, properties: {CFBundleIdentifier: $PRODUCT_BUNDLE_IDENTIFIER_ROOT}}
                        dependencies: [{target: Widget}, {target: Share}]
                      Widget:
                        type: app-extension
                        platform: iOS
                        info: {path: Widget/Info.plist, properties: {CFBundleIdentifier: $(UNSET_ROOT).widget, NSExtension: {NSExtensionPointIdentifier: com.apple.widgetkit-extension}}}
                      Share:
                        type: app-extension
                        platform: iOS
                        settings: {PRODUCT_BUNDLE_IDENTIFIER: com.example.bwa.share, INFOPLIST_FILE: Share/Info.plist}

                    """,
                ".git/HEAD": "ref: refs/heads/main\n",
            ]
            for (path, text) in files {
                let url = repo.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try text.write(to: url, atomically: true, encoding: .utf8)
            }
            try "targets: {}\n".write(to: dir.appendingPathComponent("outside.yml"), atomically: true, encoding: .utf8)
            let file = dir.appendingPathComponent("first.yaml").path
            for named in [repo.path, repo.appendingPathComponent("project-bwa.yml").path] {
                let r = try await CLI.run(["init", named, "-o", file, "--force"], timeout: 120)
                #expect(r.status == 0, "\(named): \(r)")
                #expect(r.stderr.contains("outside.yml, which is outside"), "\(r.stderr)")
                // An extension whose Info.plist is not in the checkout: said, left out, the rest written.
                #expect(r.stderr.contains("target Share: its Info.plist (Share/Info.plist) is not in the checkout"), "\(r.stderr)")
                let text = try String(contentsOfFile: file, encoding: .utf8)
                #expect(text.contains("bundle: \"com.example.bwa\""), "\(text)")
                #expect(!text.split(separator: "\n").contains { $0.contains("bundle: ") && $0.split(separator: "#")[0].contains("$") }, "\(text)")
                // The extension's id is built from a setting nothing sets: a stand-in, said.
                let plugin = try String(contentsOf: dir.appendingPathComponent("mamsim-extensions/widget/Info.plist"), encoding: .utf8)
                #expect(plugin.contains("<string>com.example.widget</string>"), "\(plugin)")
                #expect(r.stderr.contains("its bundle id is \".widget\" once $(UNSET_ROOT)") && r.stderr.contains("--set UNSET_ROOT="), "\(r.stderr)")
            }
            let run = try await CLI.run(["run", file], timeout: 120)
            #expect(run.status == 0, "\(run)")
        }

        /// An app whose Intune SDK comes in at build time (Mattermost's module) shows no sign of it
        /// in its files: init notes that the policy targets none, and `--sdk TARGET` makes it an
        /// SDK app — whose sign-in the real entitlements then block (no Intune keychain group).
        @Test func sdkNamesAnAppThatLinksTheSDKAtBuildTime() async throws {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let project = CLI.repo("Tests/Fixtures/projects/Mattermost").path
            let plain = try await CLI.run(["init", project, "-o", dir.appendingPathComponent("a.yaml").path], timeout: 120)
            #expect(plain.status == 0 && plain.stderr.contains("no app shows a sign of the Intune SDK") && plain.stderr.contains("--sdk TARGET"), "\(plain)")
            let file = dir.appendingPathComponent("b.yaml").path
            let r = try await CLI.run(["init", project, "--sdk", "Mattermost", "-o", file], timeout: 120)
            #expect(r.status == 0 && !r.stderr.contains("no app shows a sign"), "\(r)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.contains("apps: [\"com.mattermost.rnbeta\"]") && text.contains("# sdk: true by --sdk")
                    && text.contains("expect: {blocked: keychain-entitlement}"), "\(text)")
            let wrong = try await CLI.run(["init", project, "--sdk", "MattermostShare", "-o", dir.appendingPathComponent("c.yaml").path], timeout: 120)
            #expect(wrong.status == 2 && wrong.stderr.contains("its apps are Mattermost"), "\(wrong)")
        }

        /// Home Assistant (no Intune SDK; eight extension kinds; bundle ids from an xcconfig whose
        /// suffixes only Debug or a missing optional file set): the ids are what Release builds
        /// (the unset suffixes empty, named in a comment); only the share extension gets a
        /// share; the notification extensions get a comment without a work account, and with
        /// `--sdk App` a `notify` step — whose outcome, a sign-in the real entitlements block,
        /// is written as a comment, not an expectation the step cannot have. Both runs are green.
        @Test func homeAssistantsExtensionsGetTheStepsTheirKindsHave() async throws {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let project = CLI.repo("Tests/Fixtures/projects/HomeAssistant").path
            let plain = dir.appendingPathComponent("plain.yaml").path
            let r = try await CLI.run(["init", project, "-o", plain], timeout: 120)
            #expect(r.status == 0, "\(r)")
            let text = try String(contentsOfFile: plain, encoding: .utf8)
            #expect(text.contains("bundle: \"io.robbie.HomeAssistant\"") && text.contains("keychainGroups: [\"io.robbie.HomeAssistant\"]")
                    && text.contains("appGroups: [\"group.io.robbie.homeassistant\"]")
                    && text.contains("built empty as Xcode builds them (pass --set NAME=VALUE to init for a value): BUNDLE_ID_SUFFIX, PROVISIONING_SUFFIX"), "\(text)")
            #expect(!text.contains("${") && !text.contains("$(BUNDLE"), "\(text)")
            let shares = text.split(separator: "\n").filter { $0.contains("- share: {from: app, to: ") }
            #expect(shares.map { $0.contains("to: extensions-share,") || $0.contains("to: notes,") } == [true, true], "\(shares)")
            #expect(text.contains("# extensions-notificationservice shows app's notifications; app signs no work account in"), "\(text)")
            #expect(text.contains("policyQuery: {app: extensions-widgets, setting: widgets}") && text.contains("policyQuery: {app: extensions-intents, setting: siriIntents}"), "\(text)")
            // The extensions' Info.plists are written as built: no unset setting left in them.
            let run = try await CLI.run(["run", plain], timeout: 120)
            #expect(run.status == 0 && !run.stderr.contains("is not set"), "\(run)")

            let sdk = dir.appendingPathComponent("sdk.yaml").path
            let withSDK = try await CLI.run(["init", project, "--sdk", "App", "-o", sdk], timeout: 120)
            #expect(withSDK.status == 0, "\(withSDK)")
            let sdkText = try String(contentsOfFile: sdk, encoding: .utf8)
            #expect(sdkText.contains("notify: {app: app, account: user@contoso.com, text: \"Q3 numbers are in\"}\n    # it gave {failed: not-signed-in}, which this step cannot expect"), "\(sdkText)")
            #expect(sdkText.components(separatedBy: "notify: {").count == 2, "one notification for the app, not one per extension: \(sdkText)")
            let sdkRun = try await CLI.run(["run", sdk], timeout: 120)
            #expect(sdkRun.status == 0, "\(sdkRun)")
        }

        /// With several projects, `--target` applies to the project that has the target, and
        /// init says which; a name no project has lists the targets there are.
        @Test func aTargetIsFoundInWhicheverProjectHasIt() async throws {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("first.yaml").path
            let project = CLI.repo("Tests/Fixtures/projects/XcodeGenTestProject").path
            let r = try await CLI.run(["init", project, "--target", "App_iOS", "--target", "ExternalTarget", "-o", file], timeout: 120)
            #expect(r.status == 0 && r.stderr.contains("note: App_iOS, ExternalTarget: targets of Project.xcodeproj")
                    && r.stderr.contains("note: ExternalTarget: a target of AnotherProject.xcodeproj"), "\(r)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.contains("- id: app-ios") && !text.contains("EntitledApp") && text.contains("#   ExternalTarget (AnotherProject.xcodeproj"), "\(text)")
            let missing = try await CLI.run(["init", project, "--target", "Nope", "-o", dir.appendingPathComponent("x.yaml").path], timeout: 120)
            #expect(missing.status == 2 && missing.stderr.contains("no project under") && missing.stderr.contains("App_iOS"), "\(missing)")
        }

        /// A custom keyboard is an extension of the fleet but no share target; init run again in
        /// the same folder (`--force`) does not take its own copies of Info.plists for targets.
        @Test func aKeyboardIsNoShareTargetAndInitReadsNotItsOwnOutput() async throws {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            for (folder, plist) in [
                ("App", "<key>CFBundleIdentifier</key><string>com.example.typer</string><key>CFBundleExecutable</key><string>Typer</string><key>IntuneMAMSettings</key><dict><key>ADALClientId</key><string>x</string></dict>"),
                ("Keys", "<key>CFBundleIdentifier</key><string>com.example.typer.keys</string><key>NSExtension</key><dict><key>NSExtensionAttributes</key><dict><key>RequestsOpenAccess</key><true/></dict><key>NSExtensionPointIdentifier</key><string>com.apple.keyboard-service</string><key>NSExtensionPrincipalClass</key><string>Keys.KeyboardViewController</string></dict>"),
            ] {
                try FileManager.default.createDirectory(at: dir.appendingPathComponent(folder), withIntermediateDirectories: true)
                try #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>\#(plist)</dict></plist>"#
                    .write(to: dir.appendingPathComponent(folder).appendingPathComponent("Info.plist"), atomically: true, encoding: .utf8)
            }
            let file = dir.appendingPathComponent("first.yaml").path
            for extra in [[], ["--force"]] {
                let r = try await CLI.run(["init", dir.path, "-o", file] + extra, timeout: 120)
                #expect(r.status == 0 && r.stdout.contains("1 app, 1 extension,"), "\(r)")
            }
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.contains("- id: keys") && text.contains("# fullAccess: true") && !text.contains("to: keys"), "\(text)")
            let run = try await CLI.run(["run", file], timeout: 120)
            #expect(run.status == 0, "\(run)")
        }

        /// The extension kinds of SCENARIOS v1.4 (a File Provider, a widget, a notification
        /// service) are fleet members with their kind and what reaches them; the kinds a fleet
        /// does not host (an unknown point, an ExtensionKit extension) are comments saying why,
        /// never members the loader refuses; the scenario loads and runs.
        @Test func everyExtensionKindIsAMemberOrACommentSayingWhy() async throws {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            func ext(_ id: String, _ point: String) -> String {
                "<key>CFBundleIdentifier</key><string>com.example.sync.\(id)</string><key>NSExtension</key><dict><key>NSExtensionPointIdentifier</key><string>\(point)</string><key>NSExtensionPrincipalClass</key><string>X</string></dict>"
            }
            for (folder, plist) in [
                ("App", "<key>CFBundleIdentifier</key><string>com.example.sync</string><key>CFBundleExecutable</key><string>Sync</string><key>IntuneMAMSettings</key><dict><key>ADALClientId</key><string>x</string></dict>"),
                ("Files", ext("files", "com.apple.fileprovider-nonui")),
                ("Widget", ext("widget", "com.apple.widgetkit-extension")),
                // Issue 86, item 7: an AutoFill provider gets its launch step; a File Provider
                // UI extension is not asked the encryption question.
                ("Passwords", ext("passwords", "com.apple.authentication-services-credential-provider-ui")),
                ("FilesUI", ext("filesui", "com.apple.fileprovider-actionsui")),
                ("Alerts", ext("alerts", "com.apple.usernotifications.service")),
                ("Odd", ext("odd", "com.example.unknown-point")),
                // ExtensionKit: no NSExtension at all, never an app of the fleet.
                ("Kit", "<key>CFBundleIdentifier</key><string>com.example.sync.kit</string><key>EXAppExtensionAttributes</key><dict><key>EXExtensionPointIdentifier</key><string>com.example.sync.point</string></dict>"),
                ("Share", ext("share", "com.apple.share-services").replacingOccurrences(of: "<key>NSExtensionPrincipalClass</key>", with: "<key>NSExtensionAttributes</key><dict><key>NSExtensionActivationRule</key><string>TRUEPREDICATE</string></dict><key>NSExtensionPrincipalClass</key>")),
            ] {
                try FileManager.default.createDirectory(at: dir.appendingPathComponent(folder), withIntermediateDirectories: true)
                try #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>\#(plist)</dict></plist>"#
                    .write(to: dir.appendingPathComponent(folder).appendingPathComponent("Info.plist"), atomically: true, encoding: .utf8)
            }
            let file = dir.appendingPathComponent("first.yaml").path
            let r = try await CLI.run(["init", dir.path, "-o", file], timeout: 120)
            #expect(r.status == 0 && r.stdout.contains("1 app, 8 extensions (2 as comments: kinds a fleet does not host, or no app embeds them)"), "\(r)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for line in ["- id: files", "kind: fileProvider", "setting: fileProviderEncryption", "kind: widget", "setting: widgets",
                         "kind: notificationService", "com.example.unknown-point is not a fleet member: mamsim hosts share, action and keyboard extensions and the kinds of SCENARIOS v1.4",
                         "# kit (Kit/Info.plist): com.example.sync.point is not a fleet member", "to: share,",
                         // Issue 73, item 4: the other kinds get their kind's step, never a share.
                         "policyQuery: {app: files, setting: fileProviderEncryption}", "policyQuery: {app: widget, setting: widgets}",
                         "'s notifications (alerts shows them): what may one carrying org data show?", "notify: {app: "] {
                #expect(text.contains(line), "\(line) in\n\(text)")
            }
            #expect(text.contains("launch: {app: passwords}") && text.contains("# filesui is a File Provider UI extension: it shows the provider's actions and serves no file"), "\(text)")
            #expect(!text.contains("policyQuery: {app: filesui, setting: fileProviderEncryption}"), "\(text)")
            #expect(!text.contains("to: odd") && !text.contains("to: kit"), "\(text)")
            #expect(!text.contains("to: files,") && !text.contains("to: widget,") && !text.contains("to: alerts,"), "no share to a kind the share sheet never lists: \(text)")
            let run = try await CLI.run(["run", file], timeout: 120)
            #expect(run.status == 0, "\(run)")
        }

        /// An XcodeGen project (its `project.yml`, no `.xcodeproj`) is read as the project it
        /// generates: lint names its targets (the watchOS app skipped, the test bundle no app,
        /// the bundle id from `bundleIdPrefix`), init's scenario runs; a Tuist manifest that makes
        /// no target is said so by lint and is bad input to init, exit 2.
        @Test func anXcodeGenSpecIsReadAndATuistManifestWithoutTargetsIsSaid() async throws {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let project = CLI.repo("Tests/Fixtures/projects/XcodeGenNotes").path
            let lint = try await CLI.run(["lint", project], timeout: 60)
            #expect(lint.stdout.contains("(target FieldNotes)") && lint.stdout.contains("(target NotesShare)"), "\(lint)")
            #expect(lint.stdout.contains("(target FieldNotesWatch): skipped, a watchOS target"), "\(lint)")
            #expect(lint.stdout.contains("<string>com.contoso.FieldNotes</string>") && !lint.stdout.contains("FieldNotesTests"), "\(lint)")
            let file = dir.appendingPathComponent("first.yaml").path
            let r = try await CLI.run(["init", project, "-o", file], timeout: 120)
            #expect(r.status == 0 && r.stdout.contains("1 app, 1 extension,"), "\(r)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.contains("bundle: \"com.contoso.FieldNotes\"") && text.contains("# project.yml (XcodeGen), target NotesShare"), "\(text)")
            let run = try await CLI.run(["run", file], timeout: 120)
            #expect(run.status == 0, "\(run)")
            let tuist = dir.appendingPathComponent("tuist")
            try FileManager.default.createDirectory(at: tuist, withIntermediateDirectories: true)
            try "import ProjectDescription\nlet project = Project(name: \"X\")\n".write(to: tuist.appendingPathComponent("Project.swift"), atomically: true, encoding: .utf8)
            for command in [["lint", tuist.path], ["init", tuist.path, "-o", dir.appendingPathComponent("t.yaml").path]] {
                let t = try await CLI.run(command, timeout: 180)
                if command[0] == "lint" {
                    // Run as Tuist runs it (issue 96, item 1): the project it makes has no target, said.
                    #expect(t.status == 0 && t.stdout.contains("makes an app or app extension target (its targets: none)") && t.stdout.contains("[project-without-bundles]"), "\(t)")
                    continue
                }
                // Nothing to make a fleet of: bad input, said.
                #expect(t.status == 2 && t.stderr.contains("no iOS app target or app Info.plist was found"), "\(command[0]): \(t)")
            }
        }

        /// `init --facade DIR`: the test package of a team's own Intune code. Its IntuneMAMSwift
        /// module says it is unofficial and re-exports the façade of this checkout; its scenario
        /// sits in a folder of its own (an app never reads a folder holding the scenario) and
        /// runs the app's static build. Building it is the conformance script's and docs/GUIDE.md's
        /// walk-through's (scripts/conformance-thirdparty), not this test's.
        @Test func aFacadePackageIsWrittenOnceAndNamesItsSource() async throws {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let pkg = dir.appendingPathComponent("team").path
            let r = try await CLI.run(["init", "--facade", pkg, "--mamsim-source", CLI.repo(".").path], timeout: 60)
            #expect(r.status == 0 && r.stdout.contains("UNOFFICIAL"), "\(r)")
            let manifest = try String(contentsOfFile: pkg + "/Package.swift", encoding: .utf8)
            // Portable: no absolute path of this machine, the checkout relative to the package
            // (or MAMSIM_SOURCE), and the dependency's name taken from wherever it is.
            #expect(!manifest.contains("\"" + CLI.repo(".").standardizedFileURL.path), "\(manifest)")
            let relative = try #require(manifest.split(separator: "\n").first { $0.hasPrefix("let mamsimSource = ") }?
                .split(separator: "\"").dropFirst(3).first.map(String.init), "\(manifest)")
            #expect(URL(fileURLWithPath: pkg).appendingPathComponent(relative).resolvingSymlinksInPath().standardizedFileURL.path
                    == CLI.repo(".").resolvingSymlinksInPath().standardizedFileURL.path, "\(relative)")
            #expect(manifest.contains("Context.environment[\"MAMSIM_SOURCE\"]") && manifest.contains(".product(name: \"MAMIntuneFacade\", package: mamsim)"), "\(manifest)")
            let module = try String(contentsOfFile: pkg + "/Sources/IntuneMAMSwift/IntuneMAMSwift.swift", encoding: .utf8)
            #expect(module.hasPrefix("// UNOFFICIAL") && module.contains("@_exported import MAMIntuneFacade"), "\(module)")
            let scenario = try String(contentsOfFile: pkg + "/scenarios/fleet.yaml", encoding: .utf8)
            #expect(scenario.contains("executable: ../.build/debug/FleetApp"), "\(scenario)")
            let again = try await CLI.run(["init", "--facade", pkg], timeout: 60)
            #expect(again.status == 2 && again.stderr.contains("--force"), "\(again)")
            let both = try await CLI.run(["init", dir.path, "--facade", pkg], timeout: 60)
            #expect(both.status != 0 && both.stderr.contains("one or the other"), "\(both)")
            let wrongSource = try await CLI.run(["init", "--facade", dir.appendingPathComponent("other").path, "--mamsim-source", dir.path], timeout: 60)
            #expect(wrongSource.status == 2 && wrongSource.stderr.contains("no Package.swift"), "\(wrongSource)")
        }

        @Test func aPathWithoutAnAppIsNamed() async throws {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let r = try await CLI.run(["init", dir.path, "-o", dir.appendingPathComponent("x.yaml").path], timeout: 60)
            #expect(r.status == 2 && r.stderr.contains("no iOS app target"), "\(r)")
            let missing = try await CLI.run(["init", dir.appendingPathComponent("nothing").path], timeout: 60)
            #expect(missing.status == 2 && missing.stderr.contains("does not exist"), "\(missing)")
        }
    }
}
