import Foundation
import MAMBundle
import Testing
@testable import MAMExtensions

/// XcodeGen specs read as the project they generate (issue "first hour", item 2).
@Suite("XcodeGen specs")
struct XcodeGenSpecTests {
    func project(_ yaml: String) throws -> XcodeProject {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("xcodegen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try yaml.write(to: dir.appendingPathComponent("project.yml"), atomically: true, encoding: .utf8)
        return try XcodeGenSpec.read(dir.appendingPathComponent("project.yml"))
    }

    @Test func settingsMergeProjectThenTargetAndPerConfiguration() throws {
        let p = try project("""
            name: Mail
            options: {bundleIdPrefix: com.contoso}
            configs: {Debug: debug, Release: release}
            settings: {base: {SWIFT_VERSION: "5.0", ENABLE_BITCODE: false}, configs: {release: {OTHER: r}}}
            targets:
              Mail:
                type: application
                platform: [iOS, macOS]
                entitlements: {path: Mail/Mail.entitlements}
                settings: {PRODUCT_BUNDLE_IDENTIFIER: com.contoso.mail, FLAGS: [-a, -b]}
                dependencies: [{target: Share}, {target: Kit}, {target: Later, embed: false}]
              Share: {type: app-extension, platform: iOS}
              Later: {type: app-extension, platform: iOS}
              Kit: {type: framework, platform: iOS}
            """)
        #expect(p.name == "Mail" && p.displayName == "project.yml (XcodeGen)")
        let mail = try #require(p.targets.first { $0.name == "Mail" })
        #expect(mail.isApplication && mail.embeddedTargets == ["Share"] && mail.dependencies == ["Share", "Kit", "Later"])
        let release = try #require(mail.configuration(named: "Release")).settings
        #expect(release["PRODUCT_BUNDLE_IDENTIFIER"] == "com.contoso.mail", "the target's own setting beats bundleIdPrefix")
        #expect(release["SDKROOT"] == "iphoneos" && release["CODE_SIGN_ENTITLEMENTS"] == "Mail/Mail.entitlements")
        #expect(release["ENABLE_BITCODE"] == "NO" && release["FLAGS"] == "-a -b" && release["OTHER"] == "r" && release["SWIFT_VERSION"] == "5.0")
        #expect(mail.configuration(named: "Debug")?.settings["OTHER"] == nil)
        #expect(p.targets.first { $0.name == "Share" }?.configuration(named: "Debug")?.settings["PRODUCT_BUNDLE_IDENTIFIER"] == "com.contoso.Share")
    }

    /// Target templates (as in a public reader app's spec, which defines its app through one):
    /// the template's type, platforms and settings, under the target's own.
    @Test func targetTemplatesAreApplied() throws {
        let p = try project("""
            name: Reader
            targetTemplates:
              Base:
                settings: {base: {SWIFT_VERSION: "5.0", PRODUCT_BUNDLE_IDENTIFIER: org.example.base}}
              AppTemplate:
                templates: [Base]
                type: application
                supportedDestinations: [iOS, macOS]
                entitlements: {path: Support/App.entitlements}
                dependencies: [{target: Share}]
            targets:
              Reader:
                templates: [AppTemplate]
                settings: {base: {PRODUCT_BUNDLE_IDENTIFIER: org.example.reader}}
              Share: {type: app-extension, platform: iOS}
            """)
        let reader = try #require(p.targets.first { $0.name == "Reader" })
        let settings = try #require(reader.configuration(named: "Debug")).settings
        #expect(reader.isApplication && reader.embeddedTargets == ["Share"])
        #expect(settings["PRODUCT_BUNDLE_IDENTIFIER"] == "org.example.reader" && settings["SWIFT_VERSION"] == "5.0")
        #expect(settings["SDKROOT"] == "iphoneos" && settings["CODE_SIGN_ENTITLEMENTS"] == "Support/App.entitlements")
    }

    /// Issue 96: a key written twice is read as XcodeGen reads it — the last counts — and
    /// named; `${target_name}` and `templateAttributes` fill a template (ProjectSpec.md,
    /// "Target Template"), once each, never read again.
    @Test func aKeyWrittenTwiceKeepsTheLastAndTemplatesAreFilled() throws {
        let p = try project("""
            name: Notes
            options: {bundleIdPrefix: com.contoso}
            targetTemplates:
              App:
                type: application
                platform: iOS
                info: {path: "${target_name}/Info.plist"}
                settings: {PRODUCT_BUNDLE_IDENTIFIER: "com.contoso.${target_name}.${flavour}", LOOP: "${a}"}
            targets:
              Notes:
                templates: [App]
                templateAttributes: {flavour: beta, a: "${b}${b}", b: "${a}"}
              Notes:
                templates: [App]
                templateAttributes: {flavour: prod, a: "${b}${b}", b: "${a}"}
            """)
        let notes = try #require(p.targets.first { $0.name == "Notes" })
        let settings = try #require(notes.configuration(named: "Release")).settings
        #expect(settings["PRODUCT_BUNDLE_IDENTIFIER"] == "com.contoso.Notes.prod", "\(settings)")
        #expect(settings["INFOPLIST_FILE"] == "Notes/Info.plist")
        #expect(settings["LOOP"] == "${b}${b}")
        #expect(p.targets.count == 1)
        #expect(p.unread.contains { $0.hasPrefix("project.yml:10:3: \"Notes\" is written again") }, "\(p.unread)")
    }

    /// A spec saved with Windows line ends is the spec XcodeGen reads (its YAML parser ends a
    /// line at CR LF): the earlier of a key written twice named at its line, and a spec under another
    /// name than project.yml still known by its `name:` and `targets:`.
    @Test func aSpecWithWindowsLineEndsReadsTheSame() throws {
        let yaml = "name: Notes\r\noptions: {bundleIdPrefix: com.contoso}\r\ntargets:\r\n  Notes: {type: application, platform: iOS}\r\n  Notes: {type: application, platform: iOS, settings: {PRODUCT_BUNDLE_IDENTIFIER: com.contoso.notes.prod}}\r\n"
        let p = try project(yaml)
        let notes = try #require(p.targets.first { $0.name == "Notes" })
        #expect(notes.configuration(named: "Release")?.settings["PRODUCT_BUNDLE_IDENTIFIER"] == "com.contoso.notes.prod")
        #expect(p.unread.contains { $0.hasPrefix("project.yml:4:3: \"Notes\" is written again") }, "\(p.unread)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("xcodegen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let other = dir.appendingPathComponent("notes-spec.yml")
        try yaml.write(to: other, atomically: true, encoding: .utf8)
        #expect(ProjectLinter.isXcodeGenSpec(other))
    }

    @Test func aSpecWithoutTargetsOrTypesSaysWhatToRun() throws {
        #expect(throws: XcodeProjectError.self) { try project("name: X\ninclude: [targets.yml]\n") }
        do {
            _ = try project("name: X\ntargets:\n  App: {templates: [Base]}\n")
            Issue.record("a target without a type was read")
        } catch let error as XcodeProjectError {
            #expect(error.problem.contains("has no `type`") && error.fix.contains("xcodegen generate"))
        }
        do {
            _ = try project("name: [\n")
            Issue.record("broken YAML was read")
        } catch let error as XcodeProjectError {
            #expect(error.problem.contains("not valid YAML"))
        }
    }

    func write(_ files: [String: String]) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("xcodegen-\(UUID().uuidString)")
        for (path, text) in files {
            let url = dir.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return dir
    }

    /// Security issue 70, finding 3: an `include:` that leads out of the repository (through
    /// `../` or a link inside it) is refused and never read, and a YAML error in an included
    /// file names its line, never its text (a CI log is public). The control: the same
    /// secret file included from inside the repository is read (its YAML is broken, so it is
    /// reported), which shows the include is followed.
    @Test func anIncludeOutOfTheRepositoryIsRefusedAndNothingIsQuoted() throws {
        let secret = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
        let dir = try write([
            "outside/credentials.yml": "[default]\n\(secret)\n  : broken: [\n",
            "repo/.git/HEAD": "ref: refs/heads/main\n",
            "repo/up/project.yml": "name: Up\ninclude: [../../outside/credentials.yml]\ntargets:\n  App: {type: application, platform: iOS}\n",
            "repo/link/project.yml": "name: Link\ninclude: [shared/credentials.yml]\ntargets:\n  App: {type: application, platform: iOS}\n",
            "repo/inside/project.yml": "name: Inside\ninclude: [credentials.yml]\ntargets:\n  App: {type: application, platform: iOS}\n",
            "repo/inside/credentials.yml": "[default]\n\(secret)\n  : broken: [\n",
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent("repo/link/shared"), withDestinationURL: dir.appendingPathComponent("outside"))
        // Control: followed from inside, the broken file is reported at its line, unquoted.
        do {
            _ = try XcodeGenSpec.read(dir.appendingPathComponent("repo/inside/project.yml"))
            Issue.record("a broken include was read")
        } catch {
            #expect(error.problem.contains("is not valid YAML (line"), "\(error.problem)")
            #expect(!error.problem.contains("wJalrXUtnFEMI") && !error.fix.contains("wJalrXUtnFEMI"), "\(error.problem)")
        }
        // Issue 86, item 4: refused, never read — and skipped with a warning, the rest of the
        // spec read (it exited 2 before).
        for spec in ["repo/up/project.yml", "repo/link/project.yml"] {
            let project = try XcodeGenSpec.read(dir.appendingPathComponent(spec))
            #expect(project.targets.map(\.name) == ["App"], "\(spec)")
            #expect(project.unread.count == 1 && project.unread[0].contains("which is outside") && project.unread[0].contains("was not read"), "\(spec): \(project.unread)")
            #expect(!project.unread.joined().contains("wJalrXUtnFEMI"), "\(spec)")
        }
        // The folder the user named widens what may be read: an include inside it is followed.
        do {
            _ = try XcodeGenSpec.read(dir.appendingPathComponent("repo/up/project.yml"), within: dir)
            Issue.record("an include inside the named folder was not followed")
        } catch {
            #expect(error.problem.contains("is not valid YAML (line") && !error.problem.contains("wJalrXUtnFEMI"), "\(error.problem)")
        }
    }

    /// Issue 86, item 2: a spec of any name (`project-bwa.yml`, as Bitwarden names its specs) is
    /// found by its content — a top-level `name:` and `targets:` — and a file of targets it
    /// includes is read as its part, not as a spec of its own.
    @Test func aSpecOfAnyNameIsFoundByItsContent() throws {
        let dir = try write([
            "project-bwa.yml": "name: Authenticator\ninclude: [targets-shared.yml]\ntargets:\n  Authenticator: {type: application, platform: iOS, info: {path: App/Info.plist, properties: {CFBundleIdentifier: com.example.bwa}}}\n",
            "targets-shared.yml": "targets:\n  Shared: {type: framework, platform: iOS}\n",
            ".github/workflows/ci.yml": "name: CI\non: push\njobs: {}\n",
            "swiftlint.yml": "disabled_rules: [line_length]\n",
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let found = try ProjectLinter.findProjects(in: dir, displayName: "repo")
        #expect(found.map(\.lastPathComponent) == ["project-bwa.yml"], "\(found)")
        let project = try XcodeGenSpec.read(found[0])
        #expect(Set(project.targets.map(\.name)) == ["Authenticator", "Shared"])
    }

    /// Issue 73, item 5: an include missing from the checkout is left out and said so, the
    /// rest of the spec read; lint warns once, never fails the project.
    @Test func aMissingIncludeIsLeftOutAndTheRestRead() throws {
        let dir = try write([
            "project.yml": "name: Miss\ninclude: [generated/base.yml]\ntargets:\n  App: {type: application, platform: iOS, settings: {base: {PRODUCT_BUNDLE_IDENTIFIER: com.example.miss}}}\n",
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let p = try XcodeGenSpec.read(dir.appendingPathComponent("project.yml"))
        #expect(p.targets.map(\.name) == ["App"])
        #expect(p.unread.count == 1 && p.unread[0].contains("generated/base.yml"), "\(p.unread)")
        let reports = try ProjectLinter.lint(path: dir, displayName: "Miss")
        let unread = reports.flatMap(\.findings).filter { $0.rule == "project-unreadable" }
        #expect(unread.count == 1 && unread[0].severity == .warning, "\(reports.flatMap(\.lines))")
    }

    /// `include:` files are merged as XcodeGen merges them (mappings key by key, lists
    /// appended, `:REPLACE`), their paths made relative to the root spec; a file two specs
    /// include is read once; a file that includes itself is an error naming it.
    @Test func includesAreMergedWithTheirPathsRelativeToTheRootSpec() throws {
        let dir = try write([
            "project.yml": """
                include: [common.yml, Sub/targets.yml]
                name: Mail
                settings: {base: {FROM_ROOT: root}}
                targets:
                  Mail: {dependencies: [{target: Share}]}
                """,
            "common.yml": "options: {bundleIdPrefix: com.contoso}\nsettings: {base: {FROM_ROOT: common, FROM_COMMON: common}}\n",
            "Sub/targets.yml": """
                include: [../common.yml]
                targets:
                  Mail: {type: application, platform: iOS, info: {path: Mail/Info.plist}, dependencies: [{target: Kit}]}
                  Share: {type: app-extension, platform: iOS, entitlements: {path: Share.entitlements}}
                  Kit: {type: framework, platform: iOS}
                """,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let p = try XcodeGenSpec.read(dir.appendingPathComponent("project.yml"))
        let mail = try #require(p.targets.first { $0.name == "Mail" })
        #expect(mail.dependencies == ["Kit", "Share"], "lists are appended, the including file's last")
        let settings = try #require(mail.configuration(named: "Release")).settings
        #expect(settings["FROM_ROOT"] == "root" && settings["FROM_COMMON"] == "common" && settings["PRODUCT_BUNDLE_IDENTIFIER"] == "com.contoso.Mail")
        #expect(settings["INFOPLIST_FILE"] == "Sub/Mail/Info.plist", "a path in an included file is relative to that file")
        let share = try #require(p.targets.first { $0.name == "Share" }?.configuration(named: "Debug")).settings
        #expect(share["CODE_SIGN_ENTITLEMENTS"] == "Sub/Share.entitlements")

        let loop = try write(["project.yml": "include: [a.yml]\nname: X\n", "a.yml": "include: [project.yml]\n"])
        defer { try? FileManager.default.removeItem(at: loop) }
        #expect { try XcodeGenSpec.read(loop.appendingPathComponent("project.yml")) } throws: { e in
            (e as? XcodeProjectError)?.problem.contains("includes project.yml in a cycle") == true
        }
        let replaced = try write(["project.yml": "include: [base.yml]\ntargets:\n  App:\n    dependencies:REPLACE: [{target: B}]\n",
                                  "base.yml": "targets:\n  App: {type: application, dependencies: [{target: A}]}\n"])
        defer { try? FileManager.default.removeItem(at: replaced) }
        #expect(try XcodeGenSpec.read(replaced.appendingPathComponent("project.yml")).targets.first?.dependencies == ["B"])
    }

    /// Setting groups come under base and configuration settings; `info.properties` and
    /// `entitlements.properties` are the files XcodeGen writes, read in place of the disk.
    @Test func settingGroupsAndGeneratedFiles() throws {
        let dir = try write(["project.yml": """
            name: Notes
            settingGroups:
              shared: {base: {TEAM: T1, SWIFT_VERSION: "5"}}
              app: {groups: [shared], base: {PRODUCT_BUNDLE_IDENTIFIER: com.contoso.notes}}
            targets:
              Notes:
                type: application
                platform: iOS
                settings: {groups: [app], base: {SWIFT_VERSION: "6"}}
                info: {path: Notes/Info.plist, properties: {CFBundleURLTypes: [{CFBundleURLSchemes: [notes]}]}}
                entitlements: {path: Notes/Notes.entitlements, properties: {keychain-access-groups: ["$(AppIdentifierPrefix)com.contoso.notes"]}}
            """, "Notes/Notes.entitlements": "stale, overwritten by XcodeGen"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let p = try XcodeGenSpec.read(dir.appendingPathComponent("project.yml"))
        let settings = try #require(p.targets.first?.configuration(named: "Debug")).settings
        #expect(settings["TEAM"] == "T1" && settings["SWIFT_VERSION"] == "6" && settings["PRODUCT_BUNDLE_IDENTIFIER"] == "com.contoso.notes")
        let info = try #require(p.generatedFiles[dir.appendingPathComponent("Notes/Info.plist").standardizedFileURL.path])
        let plist = try #require(try PropertyListSerialization.propertyList(from: info, format: nil) as? [String: Any])
        #expect(plist["CFBundleIdentifier"] as? String == "$(PRODUCT_BUNDLE_IDENTIFIER)" && plist["CFBundleURLTypes"] != nil)
        // Lint reads the generated files: the entitlements' keychain group, not the stale file
        // (the target said to link the SDK, whose rules judge that group).
        let reports = try ProjectLinter.lint(path: dir, displayName: "Notes", options: .init(sdkTargets: ["Notes"]))
        let findings = reports.flatMap(\.findings)
        #expect(!findings.contains { $0.rule == "file-unreadable" || $0.rule == "info-plist-missing" }, "\(findings)")
        #expect(findings.contains { $0.rule == "keychain-intune-group" && $0.file.contains("written by XcodeGen") }, "\(findings)")
        // Issue 73, item 2: without --sdk, a target that shows no sign of the SDK is said to be
        // so, once, and no Intune requirement is reported on it.
        let plain = try ProjectLinter.lint(path: dir, displayName: "Notes").flatMap(\.findings)
        #expect(plain.filter { $0.rule == "intune-sdk-absent" }.count == 1, "\(plain)")
        #expect(!plain.contains { LintRules.intuneRules.contains($0.rule) }, "\(plain)")
    }
}
