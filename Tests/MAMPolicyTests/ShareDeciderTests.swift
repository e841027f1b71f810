import MAMModel
import MAMPolicy
import Testing

/// The share decision (`ShareDecider`) table by table, with the device's answers from a table
/// too: the order the rules take a share, and the identity switches a multi-identity target
/// may be asked for. Each row: who shares what to whom, what the device says, what comes.
@Suite("Share decision")
struct ShareDeciderTests {
    /// The device's answers, as a row gives them.
    struct Device: ShareDecisionContext, Sendable {
        var blocked: [BundleID: String] = [:]
        /// `receiver(named:)`: the target's own account, and the accounts signed in to it.
        var targetReceivesAs: Account?
        var targetSignedIn: [Account] = []
        var shown: Account?
        /// The sender's UI identity was set to `""` (its unmanaged identity).
        var showsUnmanaged = false
        var running = true

        func accessBlock(app: BundleID) throws -> String? { blocked[app] }
        func receiver(named receiveAs: String) throws -> Account?? {
            guard !receiveAs.isEmpty else { return .some(targetReceivesAs) }
            return targetSignedIn.first { $0.matches(receiveAs) }.map { .some($0) } ?? .none
        }
        func targetAccounts() throws -> [Account] { targetSignedIn }
        func ownerSignedInAtTarget(_ owner: Account) throws -> Account? { targetSignedIn.first { $0.isSame(as: owner) } }
        func shownBySender() throws -> Account? { shown }
        func senderShowsUnmanaged() throws -> Bool { showsUnmanaged }
        var targetIsRunning: Bool { running }
        /// The accounts signed in to the sender (every account of `World` unless a row says).
        var senderSignedIn = [World.alice, World.bob, World.carol]
        func signedInToSender(_ identity: String) throws -> Account? { senderSignedIn.first { $0.matches(identity) } }
        /// The sender's files: `Documents/<upn>` is that account's, `Documents/personal`
        /// nobody's; any other path is not there.
        func fileOwner(_ path: String) throws -> Account? {
            guard path.hasPrefix("Documents/") else { throw ShareFileUnreadable("it does not exist") }
            return [World.alice, World.bob, World.carol].first { $0.matches(String(path.dropFirst("Documents/".count))) }
        }
    }

    /// A share of `owner`'s data: an inline item naming `owner` (unless `named` is false; named
    /// with no owner, it names the personal account bob), or with `file`, `owner`'s file.
    static func question(from: BundleID = World.mine, to: BundleID, owner: Account?, named: Bool? = nil, file: Bool = false, receiveAs: String = "",
                         senderMulti: Bool = true, targetMulti: Bool = false, notActivated: String? = nil, lockedDown: Account? = nil) -> ShareQuestion {
        var activation: (@Sendable (Bool) -> String?)?
        if let notActivated { activation = { _ in notActivated } }
        let identity = !file && named ?? (owner != nil) ? (owner ?? World.bob).upn : ""
        return ShareQuestion(sender: from, senderHandle: "\(from)", senderMultiIdentity: senderMulti, target: to, targetHandle: "\(to)",
                             targetMultiIdentity: targetMulti, identity: identity, file: file ? "Documents/\(owner?.upn ?? "personal")" : nil,
                             receiveAs: receiveAs, lockedDown: lockedDown, activation: activation)
    }

    /// What an outcome is, in a word a row can name.
    static func word(_ d: ShareDecision) -> String {
        switch d.outcome {
        case .deliver: "deliver"
        case .refuse(let v): "refuse \(v.blockedBy?.rawValue ?? "?")"
        case .askToSwitch(.toUnmanaged, _, _): "ask unmanaged"
        case .askToSwitch(.to(let a, _, _), _, _): "ask \(a.upn)"
        }
    }

    @Test(arguments: [
        // Seed 001's table through the decision: managed data between managed apps goes, to
        // an unmanaged app it does not; personal data goes anywhere.
        ("managed to managed", question(to: World.outlook, owner: World.alice), Device(targetReceivesAs: World.alice), "deliver"),
        ("managed to unmanaged app", question(to: World.notes, owner: World.alice), Device(), "refuse outbound-policy"),
        ("personal to unmanaged app", question(to: World.notes, owner: nil), Device(), "deliver"),
        // Conditional launch of the sender comes first, then the receiver named, then the
        // receiver's own conditional launch.
        ("sender's launch blocked", question(to: World.outlook, owner: World.alice, receiveAs: "nobody@contoso.com"),
         Device(blocked: [World.mine: "PIN not set"]), "refuse conditional-launch"),
        ("receiver not signed in", question(to: World.outlook, owner: World.alice, receiveAs: "nobody@contoso.com"), Device(), "refuse not-signed-in"),
        ("receiver's launch blocked", question(to: World.outlook, owner: World.alice),
         Device(blocked: [World.outlook: "jailbroken"], targetReceivesAs: World.alice), "refuse conditional-launch"),
        ("personal data ignores a blocked sender", question(to: World.notes, owner: nil), Device(blocked: [World.mine: "PIN not set"]), "deliver"),
        // The policy's answer wins over the activation rule; an allowed item the rule refuses
        // is the rule's.
        ("policy before activation rule", question(to: World.notes, owner: World.alice, notActivated: "takes images only"), Device(), "refuse outbound-policy"),
        ("activation rule", question(to: World.outlook, owner: World.alice, notActivated: "takes images only"), Device(targetReceivesAs: World.alice), "refuse not-activated"),
        // A multi-identity target showing a managed account that may not take personal data
        // (inbound managed apps only) switches to its unmanaged identity, if one is signed in.
        ("switch to unmanaged", question(from: World.notes, to: World.mine, owner: nil, senderMulti: false, targetMulti: true),
         Device(targetReceivesAs: World.alice, targetSignedIn: [World.alice, World.bob]), "ask unmanaged"),
        ("no unmanaged account to switch to", question(from: World.notes, to: World.mine, owner: nil, senderMulti: false, targetMulti: true),
         Device(targetReceivesAs: World.alice, targetSignedIn: [World.alice]), "refuse inbound-policy"),
        ("a stopped target is not asked", question(from: World.notes, to: World.mine, owner: nil, senderMulti: false, targetMulti: true),
         Device(targetReceivesAs: World.alice, targetSignedIn: [World.alice, World.bob], running: false), "refuse inbound-policy"),
        ("a named receiver is not switched", question(from: World.notes, to: World.mine, owner: nil, receiveAs: "alice@contoso.com", senderMulti: false, targetMulti: true),
         Device(targetReceivesAs: World.alice, targetSignedIn: [World.alice, World.bob]), "refuse inbound-policy"),
        // Showing the personal account, it switches to the item's managed owner signed in
        // there (IntuneMAMIdentitySwitchDocumentImport).
        ("switch to the owner", question(from: World.outlook, to: World.mine, owner: World.alice, senderMulti: false, targetMulti: true),
         Device(targetReceivesAs: World.bob, targetSignedIn: [World.alice, World.bob]), "ask alice@contoso.com"),
        ("the owner is not signed in there", question(from: World.outlook, to: World.mine, owner: World.alice, senderMulti: false, targetMulti: true),
         Device(targetReceivesAs: World.bob, targetSignedIn: [World.bob]), "refuse outbound-policy"),
    ])
    func eachRowComesToItsOutcome(row: String, q: ShareQuestion, device: Device, expected: String) throws {
        let d = try ShareDecider.decide(q, in: World.fleet(), device)
        #expect(Self.word(d) == expected, "\(row): \(d.outcome)")
    }

    /// The decision resolves the owner itself: a named account must be signed in to the
    /// sender (naming one it does not have is hostile), and a file is its recorded owner's — a
    /// file the sender cannot share is refused before any rule.
    @Test func theOwnerIsResolvedByTheDecision() throws {
        let stranger = try ShareDecider.decide(Self.question(to: World.outlook, owner: World.alice), in: World.fleet(),
                                               Device(targetReceivesAs: World.alice, senderSignedIn: [World.bob]))
        #expect(Self.word(stranger) == "refuse not-signed-in")
        #expect(stranger.hostile?.contains("alice@contoso.com") == true)
        #expect(stranger.ownership == nil)
        let file = try ShareDecider.decide(Self.question(to: World.notes, owner: World.alice, file: true), in: World.fleet(), Device())
        #expect(file.owner == World.alice && Self.word(file) == "refuse outbound-policy" && file.hostile == nil)
        #expect(file.ownership?.managed == true)
        var missing = Self.question(to: World.notes, owner: nil, file: true)
        missing.file = "Library/gone.txt"
        let gone = try ShareDecider.decide(missing, in: World.fleet(), Device())
        guard case .refuse(.failed(let reason, let why)) = gone.outcome else { Issue.record("\(gone.outcome)"); return }
        #expect(reason == .badRequest && why.contains("cannot share Library/gone.txt: it does not exist"))
    }

    /// A share from a window of several accounts is decided under the SDK's lock-down policy
    /// for the managed one: what her policy lets go between managed apps no longer goes.
    @Test func aLockedDownWindowDecidesUnderTheLockDownPolicy() throws {
        let open = try ShareDecider.decide(Self.question(to: World.outlook, owner: World.alice), in: World.fleet(), Device(targetReceivesAs: World.alice))
        #expect(Self.word(open) == "deliver")
        let locked = try ShareDecider.decide(Self.question(to: World.outlook, owner: World.alice, lockedDown: World.alice), in: World.fleet(),
                                             Device(targetReceivesAs: World.alice))
        #expect(Self.word(locked) == "refuse outbound-policy")
    }

    /// What a delivery is stamped with comes with the decision: a managed owner's data leaving
    /// a managed app stays hers and managed; personal data is nobody's.
    @Test func theStampComesWithTheDecision() throws {
        let managed = try ShareDecider.decide(Self.question(to: World.outlook, owner: World.alice), in: World.fleet(), Device(targetReceivesAs: World.alice))
        guard case .deliver(_, let stamp) = managed.outcome else { Issue.record("\(managed.outcome)"); return }
        #expect(stamp.upn == World.alice.upn && stamp.managed && stamp.sourceBundle == World.mine)
        let personal = try ShareDecider.decide(Self.question(to: World.notes, owner: nil), in: World.fleet(), Device())
        guard case .deliver(_, let none) = personal.outcome else { Issue.record("\(personal.outcome)"); return }
        #expect(none == .unowned(from: World.mine))
    }

    /// The receiver is reported once it is looked up, so the record says who received.
    @Test func theReceiverIsReportedOnceLookedUp() throws {
        let refused = try ShareDecider.decide(Self.question(to: World.outlook, owner: World.alice), in: World.fleet(), Device(blocked: [World.mine: "PIN"]))
        #expect(refused.receiver == nil)
        let delivered = try ShareDecider.decide(Self.question(to: World.outlook, owner: World.alice), in: World.fleet(), Device(targetReceivesAs: World.alice))
        #expect(delivered.receiver == .some(World.alice))
    }

    /// Strict Mode's share check is one of the decision's rules: made whatever the outcome,
    /// for a multi-identity sender showing a managed account and naming no owner.
    @Test(arguments: [
        (true, World.alice as Account?, false, true), (true, World.bob, false, false), (false, World.alice, false, false),
        (true, World.alice, true, false), (true, nil, false, false),
    ])
    func strictModesShareCheck(senderMulti: Bool, shown: Account?, named: Bool, finding: Bool) throws {
        let q = Self.question(to: World.notes, owner: nil, named: named, senderMulti: senderMulti)
        let d = try ShareDecider.decide(q, in: World.fleet(), Device(shown: shown))
        #expect((d.strictFinding != nil) == finding)
        #expect(d.strictFinding.map { $0.check == StrictCheck.itemSharedWithoutOwner.rawValue } ?? true)
    }

    /// Android's INTENT_IDENTITY_MISMATCH on iOS: a managed account's file shared by a
    /// multi-identity app from a screen showing another account, or its unmanaged identity
    /// (an identity switch to it, `setUIPolicyAccountId("")`); an identity never set is no
    /// screen to compare, and a personal file from the personal screen is right.
    @Test(arguments: [
        (World.alice as Account?, World.bob as Account?, false, true),   // alice's file, bob's screen
        (World.alice, nil, true, true),                                  // alice's file, the personal screen
        (World.alice, nil, false, false),                                // no UI identity set: nothing to compare
        (World.alice, World.alice, false, false),                        // her own screen
        (World.bob, nil, true, false),                                   // a personal account's file, the personal screen
        (nil, nil, true, false),                                         // an unowned file
    ])
    func aFileSharedFromAnotherIdentitysScreen(owner: Account?, shown: Account?, showsUnmanaged: Bool, finding: Bool) throws {
        let q = Self.question(to: World.notes, owner: owner, file: true)
        let d = try ShareDecider.decide(q, in: World.fleet(), Device(shown: shown, showsUnmanaged: showsUnmanaged))
        #expect((d.strictFinding != nil) == finding, "\(String(describing: d.strictFinding))")
        #expect(d.strictFinding.map { $0.check == StrictCheck.itemIdentityMismatch.rawValue } ?? true)
        #expect(d.strictFinding.map { showsUnmanaged ? $0.detail.contains("the unmanaged (personal) identity") : true } ?? true)
    }
}
