import MAMModel
import MAMPolicy
import Testing

@Suite("Accounts and identities")
struct AccountAndIdentityTests {
    typealias W = World

    @Test func accountIsFoundByUPNOrOIDInAnyCase() {
        let fleet = W.fleet()
        #expect(fleet.account(named: "ALICE@CONTOSO.COM") == W.alice)
        #expect(fleet.account(named: "0B6F1C2E-2F4B-4C1E-9A55-3C1F0E6D7A10") == W.alice)
        #expect(fleet.account(named: "9f1d2c3b-0000-4000-8000-00000000b0b0") == W.bob)
        #expect(fleet.account(named: "dave@contoso.com") == nil)
        #expect(W.alice.matches("Alice@Contoso.com") && W.alice.matches("0b6f1c2e-2F4B-4c1e-9a55-3c1f0e6d7a10"))
        #expect(!W.alice.matches(""))
    }

    @Test func managedMeansTargetedByAPolicy() {
        var fleet = W.fleet()
        #expect(fleet.isManaged(W.alice) && !fleet.isManaged(W.bob))
        #expect(!fleet.isManaged(nil) && !fleet.isManaged(Account(upn: "")))
        #expect(fleet.isManaged(Account(upn: "", oid: "0B6F1C2E-2F4B-4C1E-9A55-3C1F0E6D7A10")), "an OID alone finds the account")
        fleet.setPolicy(nil, for: Account(upn: "ALICE@contoso.com"))
        #expect(!fleet.isManaged(W.alice))
        #expect(fleet.accounts.count == 3, "untargeting keeps the account")
    }

    @Test func effectiveIdentityForUIIsThreadThenWindowThenProcess() {
        #expect(IdentityLayers(process: "p", ui: "w", thread: "t").effectiveForUI == "t")
        #expect(IdentityLayers(process: "p", ui: "w").effectiveForUI == "w")
        #expect(IdentityLayers(process: "p").effectiveForUI == "p")
        #expect(IdentityLayers(process: "p", ui: "").effectiveForUI == "", "\"\" is a set, personal identity")
        #expect(IdentityLayers().effectiveForUI == nil)
    }

    @Test func effectiveIdentityForFilesIgnoresTheWindow() {
        #expect(IdentityLayers(process: "p", ui: "w").effectiveForFile == "p")
        #expect(IdentityLayers(process: "p", ui: "w", thread: "t").effective(for: .file) == "t")
        #expect(IdentityLayers(process: nil, ui: "w").effective(for: .file) == nil)
    }

    @Test func emptyAndNilIdentitiesAreUnmanaged() {
        #expect(IdentityLayers.isUnmanaged(nil) && IdentityLayers.isUnmanaged(""))
        #expect(!IdentityLayers.isUnmanaged("alice@contoso.com"))
    }

    @Test func allowedAccountsMatchByUPNOrOIDCaseInsensitively() {
        var fleet = W.fleet()
        fleet.allowedAccounts = ["Alice@Contoso.com", "9F1D2C3B-0000-4000-8000-00000000B0B0"]
        #expect(Enforcer.isAccountAllowed(W.alice, in: fleet).isAllowed)
        #expect(Enforcer.isAccountAllowed(Account(upn: "someone@outlook.com", oid: "9f1d2c3b-0000-4000-8000-00000000b0b0"), in: fleet).isAllowed)
        let refused = Enforcer.isAccountAllowed(W.carol, in: fleet)
        #expect(refused.blockedBy == .accountNotAllowed)
        #expect(refused.explanation.contains("Alice@Contoso.com") && refused.explanation.contains("carol@fabrikam.com"),
                "both the admin's value and the entered account are named")
    }

    @Test func noAllowedAccountsListAllowsEveryone() {
        #expect(Enforcer.isAccountAllowed(W.carol, in: W.fleet()).isAllowed)
    }

    @Test func accountsNoLongerAllowedAreSignedOut() {
        var fleet = W.fleet()
        fleet.allowedAccounts = ["alice@contoso.com"]
        #expect(Enforcer.accountsToSignOut([W.alice, W.bob], in: fleet) == [W.bob])
    }

    @Test func secondManagedAccountIsRefusedUntilTheFirstIsRemoved() {
        var fleet = W.fleet()
        let dave = Account(upn: "dave@contoso.com", oid: "d")
        fleet.add(dave, policy: W.strictPolicy())
        let d = Enforcer.signIn(dave, enrolled: [W.alice, W.bob], in: fleet)
        #expect(d.blockedBy == .secondManagedAccount)
        #expect(d.explanation.contains("alice@contoso.com"))
        #expect(Enforcer.signIn(dave, enrolled: [W.bob], in: fleet).isAllowed)
        #expect(Enforcer.signIn(W.carol, enrolled: [W.alice], in: fleet).isAllowed, "unmanaged accounts are unlimited")
        #expect(Enforcer.signIn(Account(upn: "ALICE@contoso.com"), enrolled: [W.alice], in: fleet).isAllowed, "signing the same account in again")
    }

    @Test func signInChecksTheAllowedListFirst() {
        var fleet = W.fleet()
        fleet.allowedAccounts = ["bob@outlook.com"]
        #expect(Enforcer.signIn(W.alice, enrolled: [], in: fleet).blockedBy == .accountNotAllowed)
    }

    /// Allowed accounts is an Intune SDK setting: an app without the SDK is not bound by it.
    @Test(arguments: [(true, false), (false, true)])
    func theAllowedAccountsListBindsSDKAppsOnly(_ sdk: Bool, _ signsIn: Bool) {
        var fleet = W.fleet()
        fleet.allowedAccounts = ["bob@outlook.com"]
        let app = AppDescriptor(bundleID: "com.example.any", sdkIntegrated: sdk)
        #expect(Enforcer.signIn(W.alice, to: app, enrolled: [], in: fleet).isAllowed == signsIn)
        #expect(Enforcer.accountsToSignOut([W.alice], of: app, in: fleet) == (signsIn ? [] : [W.alice]))
    }

    /// The SDK's own keychain group: a managed account cannot enroll in an SDK app whose
    /// declared keychain-access-groups lack com.microsoft.intune.mam (-34018).
    @Test(arguments: [
        (["com.contoso.mail"], false), (["com.contoso.mail", "com.microsoft.intune.mam"], true),
        (["ABCDE12345.com.microsoft.intune.mam"], true), ([String](), true),
    ])
    func aManagedAccountEnrollsOnlyWhereTheSDKKeychainGroupIsEntitled(_ groups: [String], _ enrolls: Bool) {
        let app = AppDescriptor(bundleID: "com.contoso.mail", keychainAccessGroups: groups)
        let d = Enforcer.signIn(W.alice, to: app, enrolled: [], in: W.fleet())
        #expect(d.isAllowed == enrolls, "\(groups): \(d)")
        if !enrolls {
            #expect(d.blockedBy == .keychainEntitlement)
            #expect(d.explanation.contains("-34018"))
        }
        let unmanaged = Enforcer.signIn(W.carol, to: app, enrolled: [], in: W.fleet())
        #expect(unmanaged.isAllowed, "an unmanaged account needs no SDK keychain state")
    }
}
