import MAMModel
import Testing

/// A bundle id is one app whatever its case (RULES.md §1), as a key too: its hash is made once
/// from its folded spelling, so it must agree with its equality everywhere.
@Suite struct BundleIDTests {
    @Test func spellingsOfOneAppAreOneKey() {
        let spellings: [BundleID] = ["com.microsoft.Office.Outlook", "com.microsoft.office.outlook", "COM.MICROSOFT.OFFICE.OUTLOOK"]
        for a in spellings {
            for b in spellings {
                #expect(a == b)
                #expect(a.hashValue == b.hashValue)
            }
        }
        #expect(Set(spellings).count == 1)
        let apps: [BundleID: String] = [spellings[0]: "Outlook"]
        #expect(apps[spellings[2]] == "Outlook")
        #expect(spellings[1].description == "com.microsoft.office.outlook", "the spelling declared is kept for display")
    }

    @Test func differentAppsAreDifferentKeys() {
        let apps: [BundleID] = ["com.contoso.a", "com.contoso.b", "com.contoso.ab", "com.contoso.a.share", "", "a", "A.b"]
        #expect(Set(apps).count == apps.count)
        for (i, a) in apps.enumerated() {
            for (j, b) in apps.enumerated() where i != j {
                #expect(a != b, "\(a) and \(b)")
            }
        }
    }

    /// `none` is made without hashing anything; it is still the same key as a bundle id made
    /// from `""`.
    @Test func noneIsTheEmptyBundleID() {
        #expect(BundleID.none == BundleID(""))
        #expect(BundleID.none.hashValue == BundleID("").hashValue)
        #expect(Set([BundleID.none, BundleID("")]).count == 1)
        #expect(BundleID.none != BundleID("x"))
        #expect(BundleID.none < BundleID("a"))
    }
}
