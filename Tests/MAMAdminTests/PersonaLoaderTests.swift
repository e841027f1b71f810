import Foundation
@testable import MAMAdmin
import MAMDocument
import MAMModel
import MAMPolicy
import Testing

/// The personas file `mamsim whatif` reads (docs/WHATIF.md), read by MAMAdmin with no CLI:
/// what each key gives a persona, and every mistake of a file reported at once, each at its
/// line with what to write instead.
@Suite struct PersonaLoaderTests {
    let file = URL(fileURLWithPath: "personas.yaml")

    func problems(_ text: String) -> [String] {
        do {
            _ = try PersonaLoader.load(text: text, file: file)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    @Test func aFileGivesEachPersonaItsKeysAndTheFilesAppsWhereItHasNone() throws {
        let personas = try PersonaLoader.load(text: """
            apps: [com.microsoft.Office.Outlook, {bundle: com.contoso.crm, version: "2.1", sdk: false}]
            personas:
              - name: BYOD sales
                user: adele@contoso.com
                groups: [Sales]
                device: {mdmEnrolled: false, osVersion: "17.4", model: "iPhone15,2"}
              - name: Kiosk
                user: kiosk@contoso.com
                device: {enrollment: account driven user enrollment, platform: android}
                apps: [com.contoso.crm]
                signInRisk: HIGH
                country: fr
            """, file: file)
        #expect(personas.map(\.name) == ["BYOD sales", "Kiosk"])
        let byod = personas[0], kiosk = personas[1]
        #expect(byod.apps.map(\.bundleID) == [BundleID("com.microsoft.Office.Outlook"), BundleID("com.contoso.crm")])
        #expect(byod.apps[1].version == "2.1" && !byod.apps[1].sdkIntegrated && byod.apps[1].capabilities.isEmpty)
        #expect(byod.managementType == ManagementTypeValues.unmanaged && byod.device.osVersion == Version("17.4"))
        #expect(byod.groupsAt == "\(file.path):5", "where its groups are written, for messages about them")
        #expect(byod.resource == WhatIfPersona.office365)
        #expect(kiosk.apps.map(\.bundleID) == [BundleID("com.contoso.crm")], "its own apps, not the file's")
        #expect(kiosk.managementType == "Account Driven User Enrollment", "an enrollment type as Intune spells it, whatever its case")
        #expect(kiosk.device.mdmEnrolled && kiosk.device.platform == "android" && kiosk.device.model.isEmpty,
                "another platform's device has no model invented")
        #expect(kiosk.member.signInRisk == "high" && kiosk.member.country == "FR")
    }

    @Test func everyMistakeIsReportedAtOnceAtItsLine() {
        let found = problems("""
            personas:
              - name: A
                user: a@contoso.com
                grups: [Sales]
                apps: [com.contoso.mail]
                device: {osVersion: seventeen, platform: symbian}
              - name: A
                user: b@contoso.com
                apps: [com.contoso.mail, com.contoso.mail]
                signInRisk: extreme
                ipAddress: 300.1.1.1
            """)
        #expect(found == [
            "personas.yaml:4:5: personas[0].grups: unknown key \"grups\" in a persona; did you mean \"groups\"?",
            "personas.yaml:6:46: personas[0].device.platform: platform \"symbian\" is not one conditional access names; use one of iOS, android, windows, windowsPhone, macOS, linux, unknown",
            "personas.yaml:6:25: personas[0].device.osVersion: osVersion \"seventeen\" is not a version such as 17.4",
            "personas.yaml:9:30: personas[1].apps[1]: com.contoso.mail is listed twice",
            "personas.yaml:10:17: personas[1].signInRisk: signInRisk must be none, low, medium or high, but it is \"extreme\"",
            "personas.yaml:11:16: personas[1].ipAddress: ipAddress \"300.1.1.1\" is not an IPv4 or IPv6 address",
            "personas.yaml:7:5: personas[1]: two personas are named \"A\"; give each its own name",
        ])
    }

    @Test(arguments: [
        ("", "personas.yaml: the personas file is empty; it needs `personas:`"),
        ("personas: []", "personas.yaml:1:1: `personas:` lists no persona"),
        // (The parser says where it stopped: at the end of the file, after the mapping left open.)
        ("personas: [{name: A", "personas.yaml:2:1: not valid YAML or JSON: did not find expected ',' or '}'"),
        // The reader reads a tab as a space: the file reads, and says what it lacks.
        ("personas:\n\t- name: A", "personas.yaml:2:4: personas[0]: a persona needs \"user\""),
        ("persons: []", "personas.yaml:1:1: persons: unknown key \"persons\" in a personas file; did you mean \"personas\"?"),
        ("personas: [{name: A, user: a@contoso.com}]", "personas.yaml:1:12: personas[0]: persona \"A\" has no apps: give `apps:` to it or at the top of the file"),
    ])
    func aFileThatIsNotAPersonasFileSaysWhatToWrite(text: String, first: String) {
        let found = problems(text)
        #expect(found.first?.hasPrefix(first) == true, "\(found)")
    }

    @Test func aHostileValueIsReadAsTextAndAnAliasBombIsRefused() throws {
        let personas = try PersonaLoader.load(text: """
            apps: [com.contoso.mail]
            personas:
              - name: "\\e[31mred\\e[0m <script>"
                user: "x@contoso.com"
            """, file: file)
        #expect(personas[0].name == "\u{1B}[31mred\u{1B}[0m <script>", "kept as the text it is; every renderer escapes it")
        var bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1...9 { bomb += "\(Character(UnicodeScalar(97 + i)!)): &\(Character(UnicodeScalar(97 + i)!)) [*\(Character(UnicodeScalar(96 + i)!)), *\(Character(UnicodeScalar(96 + i)!)), *\(Character(UnicodeScalar(96 + i)!)), *\(Character(UnicodeScalar(96 + i)!)), *\(Character(UnicodeScalar(96 + i)!)), *\(Character(UnicodeScalar(96 + i)!)), *\(Character(UnicodeScalar(96 + i)!)), *\(Character(UnicodeScalar(96 + i)!)), *\(Character(UnicodeScalar(96 + i)!)), *\(Character(UnicodeScalar(96 + i)!))]\n" }
        bomb += "personas: *j\n"
        #expect(!problems(bomb).isEmpty, "a billion laughs is refused, not composed")
    }
}
