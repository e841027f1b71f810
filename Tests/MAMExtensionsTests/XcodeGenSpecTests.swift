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
}
