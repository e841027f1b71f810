import MAMModel
import MAMPolicy
import Testing

/// One row of seed 001's "Critères de sortie" data-sharing tables (send / import / receive),
/// with the policy "Send org data to other apps" and "Receive data from other apps" both set
/// to "Policy managed apps".
struct TransferRow: Sendable, CustomTestStringConvertible {
    /// The behaviour, as a test name.
    let behaviour: String
    /// The seed's row, translated.
    let seedRow: String
    let owner: Account?
    let from: BundleID
    let to: BundleID
    let receivedAs: Account?
    /// `nil` = allowed.
    let blockedBy: Reason?

    var testDescription: String { "\(behaviour): \(seedRow)" }
}

enum Seed001 {
    typealias W = World

    static let send: [TransferRow] = [
        TransferRow(behaviour: "managedIdentityCannotSendToUnmanagedApp",
                    seedRow: "Managed identity sends to an unmanaged app — you must be prevented from sending data to the unmanaged app",
                    owner: W.alice, from: W.mine, to: W.notes, receivedAs: nil, blockedBy: .outboundPolicy),
        TransferRow(behaviour: "managedIdentityCanSendToManagedApp",
                    seedRow: "Managed identity sends to a managed app — try sending to the other managed app signed in with the managed account; you must be allowed",
                    owner: W.alice, from: W.mine, to: W.outlook, receivedAs: W.alice, blockedBy: nil),
        TransferRow(behaviour: "unmanagedIdentityCannotSendToManagedApp",
                    seedRow: "Unmanaged identity sends to a managed app — try sending to the other managed app signed in with the managed account; you must be prevented",
                    owner: W.bob, from: W.mine, to: W.outlook, receivedAs: W.alice, blockedBy: .inboundPolicy),
        TransferRow(behaviour: "unmanagedIdentityCanSendToUnmanagedApp",
                    seedRow: "Unmanaged identity sends to an unmanaged app — you must still be allowed to send an unmanaged account's data to an unmanaged app",
                    owner: W.bob, from: W.mine, to: W.notes, receivedAs: nil, blockedBy: nil),
    ]

    /// Import (active) and receive (passive) rows have the same parties: your app is the
    /// destination and its current identity receives.
    static func intoMyApp(_ verb: String, _ noun: String) -> [TransferRow] {
        [
            TransferRow(behaviour: "managedIdentityCannot\(verb)FromUnmanagedApp",
                        seedRow: "Managed identity \(noun) from an unmanaged app — the managed account must not get data from the unmanaged app",
                        owner: nil, from: W.notes, to: W.mine, receivedAs: W.alice, blockedBy: .inboundPolicy),
            TransferRow(behaviour: "managedIdentityCan\(verb)FromManagedApp",
                        seedRow: "Managed identity \(noun) from a managed app (signed in with the managed account) — it must be allowed",
                        owner: W.alice, from: W.outlook, to: W.mine, receivedAs: W.alice, blockedBy: nil),
            TransferRow(behaviour: "unmanagedIdentityCannot\(verb)FromManagedApp",
                        seedRow: "Unmanaged identity \(noun) from a managed app (signed in with the managed account) — the unmanaged account must not get the data",
                        owner: W.alice, from: W.outlook, to: W.mine, receivedAs: W.bob, blockedBy: .outboundPolicy),
            TransferRow(behaviour: "unmanagedIdentityCan\(verb)FromUnmanagedApp",
                        seedRow: "Unmanaged identity \(noun) from an unmanaged app — the unmanaged account must still be allowed",
                        owner: nil, from: W.notes, to: W.mine, receivedAs: W.bob, blockedBy: nil),
        ]
    }

    static let importRows = intoMyApp("Import", "imports")
    static let receiveRows = intoMyApp("Receive", "receives")

    static func check(_ row: TransferRow) {
        let fleet = World.fleet()
        let result = Enforcer.transfer(owner: row.owner, from: row.from, to: row.to, receivedAs: row.receivedAs, in: fleet)
        #expect(result.decision.blockedBy == row.blockedBy, "\(row.behaviour): \(result)")
        #expect(result.reowned == nil, "no re-owning under managedApps")
        #expect(!result.decision.explanation.isEmpty)
    }
}

@Suite("Seed 001 data-sharing tables")
struct Seed001TransferTableTests {
    @Test("Send table: every row decides as the seed says", arguments: Seed001.send)
    func sendTableMatchesSeed(_ row: TransferRow) { Seed001.check(row) }

    @Test("Import table: every row decides as the seed says", arguments: Seed001.importRows)
    func importTableMatchesSeed(_ row: TransferRow) { Seed001.check(row) }

    @Test("Receive table: every row decides as the seed says", arguments: Seed001.receiveRows)
    func receiveTableMatchesSeed(_ row: TransferRow) { Seed001.check(row) }

    @Test func blockedSendExplainsPolicyAndParties() {
        let d = Enforcer.transfer(owner: World.alice, from: World.mine, to: World.notes, receivedAs: nil, in: World.fleet()).decision
        #expect(d.description == "blocked (outbound-policy): alice@contoso.com's policy \"Contoso strict\" sends org data only to policy-managed apps; com.example.notes is not policy-managed")
    }

    @Test func managedAppReceivingAsAnotherIdentityIsNamedInTheExplanation() {
        let d = Enforcer.transfer(owner: World.alice, from: World.outlook, to: World.mine, receivedAs: World.bob, in: World.fleet()).decision
        #expect(d.blockedBy == .outboundPolicy)
        #expect(d.explanation.contains("bob@outlook.com"))
        #expect(d.explanation.contains("signed in with alice@contoso.com"))
    }

    @Test func appsOutsideThePolicyAppListAreNotPolicyManaged() {
        var p = World.strictPolicy()
        p.apps = ["com.contoso.mail"]  // Graph stores bundle ids lowercased
        let fleet = World.fleet(policy: p)
        #expect(fleet.isPolicyManaged(World.mine, for: World.alice), "bundle ids compare case-insensitively")
        let toWord = Enforcer.transfer(owner: World.alice, from: World.mine, to: World.word, receivedAs: World.alice, in: fleet)
        #expect(toWord.decision.blockedBy == .outboundPolicy)
    }

    @Test func extensionIsManagedExactlyWhenItsContainingAppIs() {
        var p = World.strictPolicy()
        p.apps = [World.word]
        let fleet = World.fleet(policy: p)
        #expect(fleet.isPolicyManaged(World.wordOpenIn, for: World.alice))
        p.apps = [World.mine]
        #expect(!World.fleet(policy: p).isPolicyManaged(World.wordOpenIn, for: World.alice))
    }

    @Test func transferToAnUninstalledAppIsUnknownApp() {
        let d = Enforcer.transfer(owner: World.alice, from: World.mine, to: "com.nowhere.app", receivedAs: nil, in: World.fleet())
        #expect(d.decision.blockedBy == .unknownApp)
    }

    @Test func ownershipTagResolvesTheOwnerInAnyCase() {
        let tag = Ownership(upn: "ALICE@Contoso.com", oid: "", managed: true, sourceBundle: World.mine)
        let d = Enforcer.transfer(tag, to: World.notes, receivedAs: nil, in: World.fleet())
        #expect(d.decision.blockedBy == .outboundPolicy)
        let unowned = Enforcer.transfer(.unowned(from: World.notes), to: World.mine, receivedAs: World.bob, in: World.fleet())
        #expect(unowned.isAllowed)
    }
}
