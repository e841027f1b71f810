import Foundation
import MAMModel
import Testing
@testable import MAMAdmin
@testable import MAMPolicy

/// What If's renderers (`WhatIfReport`, `WhatIfHTML`) over one result, with no command: the
/// table, the JSON and the HTML say the same thing — one wording of a conflict, the persona's
/// own UPN (never the stand-in it was judged as), and a hostile name as text.
@Suite struct WhatIfRenderTests {
    static func result(user upn: String = "adele@contoso.com") -> WhatIfPersonaResult {
        let a = WhatIfTests.policy("Sales <b>\u{1B}[31m", [PolicyAssignment(.allLicensedUsers)], outbound: .allApps, print: true)
        let b = WhatIfTests.policy("B", [PolicyAssignment(.allLicensedUsers)], outbound: .none)
        var persona = WhatIfTests.persona
        persona.user = Account(upn: upn, oid: "0b6f1c2e-2f4b-4c1e-9a55-3c1f0e6d7a10", tenant: "contoso.onmicrosoft.com")
        // Two personas of one shape share one evaluation, judged for a stand-in user.
        var other = persona
        other.name = "other"
        other.user = Account(upn: "megan@contoso.com", oid: "1c7f2d3e-2f4b-4c1e-9a55-3c1f0e6d7a10", tenant: "contoso.onmicrosoft.com")
        return WhatIf.evaluate([persona, other], WhatIfPolicies(protections: [a, b]))[0]
    }

    @Test func theTableTheJSONAndTheHTMLSayTheSame() throws {
        let r = Self.result()
        var conflicts = 0
        let table = WhatIfReport.table(r, conflicts: &conflicts)
        let json = WhatIfReport.jsonHead + WhatIfReport.json(r) + WhatIfReport.jsonTail
        let html = WhatIfHTML.evaluation([r], sources: ["exports/"])
        #expect(conflicts == 1)
        let conflict = WhatIfAppResult.Protection.conflictTitle(["B", "Sales <b>\u{1B}[31m"])
        #expect(table.contains("app protection: " + UntrustedText.line(conflict)), "\(table)")
        #expect(html.contains(UntrustedText.xml(conflict)))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let personas = try #require(parsed["personas"] as? [[String: Any]])
        #expect(personas.count == 1 && "\(personas[0])".contains("CONFLICT between"))
        // The persona's own account in every output; the stand-in's bytes in none.
        for text in [table, json, html] {
            #expect(text.contains("adele@contoso.com"))
            #expect(!text.unicodeScalars.contains { $0.value == 1 || $0.value == 2 }, "a stand-in byte was written")
            #expect(!text.contains("\u{1B}["), "a terminal escape was written")
        }
        #expect(!html.contains("<b>"), "markup from a policy's name is text")
    }
}
