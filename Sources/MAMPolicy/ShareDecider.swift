public import MAMModel

/// What a share decision asks of the device beyond the fleet, only when the decision needs
/// it: the host answers from its state, a test from a table. Each answer is the device's word
/// at the moment of the share.
public protocol ShareDecisionContext {
    /// Why `app` has no access to org data (its conditional launch failed), or `nil`.
    func accessBlock(app: BundleID) throws -> String?
    /// The account the target receives as: the one named `receiveAs` if it is signed in to
    /// the target (`.some(nil)`: named but not signed in), else the target's own.
    func receiver(named receiveAs: String) throws -> Account??
    /// The accounts signed in to the target.
    func targetAccounts() throws -> [Account]
    /// The owner's account as signed in to the target, if it is.
    func ownerSignedInAtTarget(_ owner: Account) throws -> Account?
    /// The account the sender's screen shows (for Strict Mode).
    func shownBySender() throws -> Account?
    /// Whether the sender's screen shows its unmanaged identity, set as `""` (for Strict Mode):
    /// an identity switch to it, or `setUIPolicyAccountId("")`; an identity never set is not.
    func senderShowsUnmanaged() throws -> Bool
    /// Whether the target runs and can be asked to switch identity.
    var targetIsRunning: Bool { get }
    /// The account `identity` names, signed in to the sender, or `nil`: a sender cannot make
    /// an item its own account's data by naming an account it does not have.
    func signedInToSender(_ identity: String) throws -> Account?
    /// The owner of the sender's file at `path` (`nil`: personal), read from the device's
    /// records, never from the file's bytes; `ShareFileUnreadable` when the sender has no
    /// such file it may share.
    func fileOwner(_ path: String) throws -> Account?
}

/// A file a share names that the sender cannot share: it does not exist in the sender's
/// containers, or lies outside them. The share is refused `failed(bad-request)` with `why`.
public struct ShareFileUnreadable: Error {
    public var why: String
    public init(_ why: String) { self.why = why }
}

/// One share to decide: who shares what as whom to whom.
public struct ShareQuestion: Sendable {
    public var sender: BundleID
    public var senderHandle: String
    public var senderMultiIdentity: Bool
    public var target: BundleID
    public var targetHandle: String
    public var targetMultiIdentity: Bool
    /// The identity the sender named as the item's owner (`""`: none; an inline item).
    public var identity: String
    /// The sender's file the item is (its path in the sender's containers), owned as the
    /// device recorded it; `nil` for an inline item.
    public var file: String?
    /// The account the sender asked the target to receive as (`""`: the target's own).
    public var receiveAs: String
    /// The managed account whose policy the sender's window replaces by the SDK's lock-down
    /// policy (a window showing several accounts, RULES.md §2), or `nil`.
    public var lockedDown: Account?
    /// The target's activation rule for this item, given whether the data is managed: why it
    /// does not accept it (`nil`: it does). `nil` for a target with no rule to pass.
    public var activation: (@Sendable (_ managed: Bool) -> String?)?

    /// The sender named an identity (an inline item) or shared a file (owned by the file).
    public var ownerNamed: Bool { !identity.isEmpty || file != nil }
    public var isFile: Bool { file != nil }

    public init(sender: BundleID, senderHandle: String, senderMultiIdentity: Bool, target: BundleID, targetHandle: String,
                targetMultiIdentity: Bool, identity: String, file: String?, receiveAs: String, lockedDown: Account? = nil,
                activation: (@Sendable (_ managed: Bool) -> String?)?) {
        self.sender = sender
        self.senderHandle = senderHandle
        self.senderMultiIdentity = senderMultiIdentity
        self.target = target
        self.targetHandle = targetHandle
        self.targetMultiIdentity = targetMultiIdentity
        self.identity = identity
        self.file = file
        self.receiveAs = receiveAs
        self.lockedDown = lockedDown
        self.activation = activation
    }
}

/// What a share comes to.
public struct ShareDecision: Sendable, Hashable {
    public enum Outcome: Sendable, Hashable {
        /// Deliver it as `decision` says, received as `receiver`, stamped with `stamp`.
        case deliver(TransferDecision, stamp: Ownership)
        /// Answer the sender with this verdict.
        case refuse(Verdict)
        /// The target may take it after switching identity (RULES.md §2): ask it; on no,
        /// answer `blocked` (for a switch to an account, with the app's reason after it).
        case askToSwitch(Switch, blocked: Verdict, because: String)
    }

    /// The identity switch a multi-identity target is asked for, and the decision the
    /// delivery takes once it switched.
    public enum Switch: Sendable, Hashable {
        case toUnmanaged(TransferDecision, stamp: Ownership)
        case to(Account, TransferDecision, stamp: Ownership)
    }

    public var outcome: Outcome
    /// The item's owner as the decision resolved it: the account the sender named, or its
    /// file's owner (`nil`: personal, or not resolved: the share was refused before).
    public var owner: Account?
    /// The owner as the share's record names it: managed where its policy targets the sender.
    public var ownership: Ownership?
    /// What the sender did that an honest app does not (named an account it does not have),
    /// for the host's log of hostile children; `nil` for an honest share.
    public var hostile: String?
    /// The account the item is received as, once the decision got that far (`nil` inside:
    /// none; `nil` outside: not looked up, the request's stays).
    public var receiver: Account??
    /// Strict Mode's finding about this share, made whatever its outcome.
    public var strictFinding: StrictFindingEvent?
}

/// The share decision, whole, as one function of the fleet (its policies and apps), the
/// question and the device's answers (`ShareDecisionContext`): the item's owner (the account
/// the sender named, which must be signed in to it, or its file's recorded owner), the
/// lock-down policy of a window showing several accounts, then the order Microsoft's rules
/// take a share — conditional launch of the sender, the receiver, conditional launch of the
/// receiver, the transfer rules (`Enforcer`), the extension's activation rule, and the identity
/// switches a multi-identity target may make — with Strict Mode's share check as one of its
/// rules, and what the delivery is stamped with. `ShareDeciderTests` holds its table; the
/// broker asks it and carries the outcome out.
public enum ShareDecider {
    public static func decide<Context: ShareDecisionContext>(_ q: ShareQuestion, in held: Fleet, _ context: Context) throws -> ShareDecision {
        var result = ShareDecision(outcome: .refuse(.blocked(.badRequest, "")), receiver: nil, strictFinding: nil)
        let fleet = q.lockedDown.map { held.lockingDown($0) } ?? held
        let owner: Account?
        switch try resolveOwner(q, context) {
        case .success(let resolved): owner = resolved
        case .failure(let refusal):
            (result.outcome, result.hostile) = (.refuse(refusal.verdict), refusal.hostile)
            return result
        }
        result.owner = owner
        result.ownership = owner.map { Ownership(upn: $0.upn, oid: $0.oid, tenant: $0.tenant, managed: fleet.isManaged($0, in: q.sender), sourceBundle: q.sender) }
        try decideTransfer(q, owner: owner, in: fleet, context, into: &result)
        return result
    }

    /// Why a share is refused before any rule reads it: its owner could not be resolved.
    struct Unresolved: Error {
        var verdict: Verdict
        var hostile: String?
    }

    /// The item's owner: the account the sender named (which must be signed in to it), or its
    /// file's owner as the device recorded it (a file the sender cannot share is refused).
    static func resolveOwner<Context: ShareDecisionContext>(_ q: ShareQuestion, _ context: Context) throws -> Result<Account?, Unresolved> {
        var owner: Account?
        if !q.identity.isEmpty {
            guard let named = try context.signedInToSender(q.identity) else {
                return .failure(Unresolved(verdict: .blocked(.notSignedIn, "\(q.identity) is not signed in to \(q.sender), so it cannot own what \(q.senderHandle) shares"),
                                           hostile: "claimed identity \(q.identity), which is not signed in to it"))
            }
            owner = named
        }
        if let path = q.file {
            do {
                owner = try context.fileOwner(path)
            } catch let unreadable as ShareFileUnreadable {
                return .failure(Unresolved(verdict: .failed(.badRequest, "\(q.senderHandle) cannot share \(path): \(unreadable.why)")))
            }
        }
        return .success(owner)
    }

    /// The rules in Microsoft's order, once the owner is known: Strict Mode's share checks,
    /// conditional launch of the sender, the receiver and its conditional launch, the transfer
    /// rules, the activation rule, and the switches a multi-identity target may make.
    static func decideTransfer<Context: ShareDecisionContext>(_ q: ShareQuestion, owner: Account?, in fleet: Fleet, _ context: Context,
                                                              into result: inout ShareDecision) throws {
        if !q.ownerNamed, q.senderMultiIdentity, let shown = try context.shownBySender(), fleet.isManaged(shown, in: q.sender) {
            result.strictFinding = ItemSharedWithoutOwner.finding(target: q.targetHandle, multiIdentity: true, ownerNamed: false,
                                                                  isFile: q.isFile, shownManaged: shown.description)
        }
        if q.isFile, q.senderMultiIdentity, let owner, result.strictFinding == nil {
            result.strictFinding = try identityMismatch(q, owner: owner, in: fleet, context)
        }
        // The activation rule is decided now and reported after the policy: a transfer the
        // policy forbids is the policy's answer, whatever the rule says.
        let notActivated = q.activation.flatMap { $0(fleet.isManaged(owner, in: q.sender)) }
        // An app whose conditional launch failed has no access to org data (RULES.md §8).
        if let owner, fleet.isManaged(owner, in: q.sender), let why = try context.accessBlock(app: q.sender) {
            result.outcome = .refuse(.blocked(.conditionalLaunch, "\(q.sender) has no access to \(owner)'s data: \(why)"))
            return
        }
        guard let receiver = try context.receiver(named: q.receiveAs) else {
            result.outcome = .refuse(.blocked(.notSignedIn, "\(q.receiveAs) is not signed in to \(q.target), so it cannot receive there"))
            return
        }
        result.receiver = .some(receiver)
        if let receiver, fleet.isManaged(receiver, in: q.target), let why = try context.accessBlock(app: q.target) {
            result.outcome = .refuse(.blocked(.conditionalLaunch, "\(q.target) cannot receive as \(receiver): \(why)"))
            return
        }
        let decision = Enforcer.transfer(owner: owner, from: q.sender, to: q.target, receivedAs: receiver, isFile: q.isFile, in: fleet)
        guard decision.isAllowed else {
            result.outcome = try blocked(q, decision.decision, owner: owner, receiver: receiver, notActivated: notActivated, in: fleet, context)
            return
        }
        if let notActivated {
            result.outcome = .refuse(.blocked(.notActivated, "\(q.targetHandle)'s activation rule does not accept this item: \(notActivated)"))
            return
        }
        result.outcome = .deliver(decision, stamp: stamp(owner, after: decision, q, in: fleet))
    }

    /// A transfer the rules block: refused, unless a multi-identity target may switch to an
    /// identity that may take it.
    static func blocked<Context: ShareDecisionContext>(_ q: ShareQuestion, _ d: Verdict, owner: Account?, receiver: Account?, notActivated: String?,
                                                       in fleet: Fleet, _ context: Context) throws -> ShareDecision.Outcome {
        var why = d.explanation
        if let notActivated { why += "; \(q.targetHandle)'s activation rule would not accept the item either (\(notActivated))" }
        let blocked = Verdict.blocked(d.blockedBy ?? .badRequest, why)
        // Only a running multi-identity target the sender did not name a receiver for, and
        // only for an item its rule accepts.
        guard notActivated == nil, q.receiveAs.isEmpty, q.targetMultiIdentity, context.targetIsRunning else { return .refuse(blocked) }
        // It may switch to its unmanaged identity to take data its managed identity may not
        // receive (RULES.md §2, our reading of "will attempt to switch to an unmanaged account
        // ... if there's none the incoming data is blocked"): only with an unmanaged account
        // signed in.
        if receiver != nil, try context.targetAccounts().contains(where: { !fleet.isManaged($0, in: q.target) }) {
            let unmanaged = Enforcer.transfer(owner: owner, from: q.sender, to: q.target, receivedAs: nil, isFile: q.isFile, in: fleet)
            if unmanaged.isAllowed { return .askToSwitch(.toUnmanaged(unmanaged, stamp: stamp(owner, after: unmanaged, q, in: fleet)), blocked: blocked, because: d.explanation) }
        }
        // The other way (IntuneMAMIdentitySwitchDocumentImport): showing another identity, it
        // may switch to the item's managed owner when that account is signed in there; the
        // switch runs conditional launch.
        if let owner, fleet.isManaged(owner, in: q.sender), !(receiver?.isSame(as: owner) ?? false),
           let signedIn = try context.ownerSignedInAtTarget(owner) {
            let managed = Enforcer.transfer(owner: owner, from: q.sender, to: q.target, receivedAs: signedIn, isFile: q.isFile, in: fleet)
            if managed.isAllowed { return .askToSwitch(.to(signedIn, managed, stamp: stamp(owner, after: managed, q, in: fleet)), blocked: blocked, because: d.explanation) }
        }
        return .refuse(blocked)
    }

    /// What a delivery is stamped with: its owner after the decision (a transfer may re-own
    /// it), managed where the owner's policy targets the app it leaves or, re-owned on
    /// arrival, the app it reaches.
    static func stamp(_ owner: Account?, after decision: TransferDecision, _ q: ShareQuestion, in fleet: Fleet) -> Ownership {
        guard let finalOwner = decision.owner(after: owner) else { return .unowned(from: q.sender) }
        return Ownership(upn: finalOwner.upn, oid: finalOwner.oid, tenant: finalOwner.tenant,
                         managed: fleet.isManaged(finalOwner, in: decision.reowned == nil ? q.sender : q.target), sourceBundle: q.sender)
    }
}

extension ShareDecider {
    /// Strict Mode's `item-identity-mismatch` for a file `owner` owns, shared by a multi-identity
    /// app: its screen shows another account, or its unmanaged identity while the file is a
    /// managed account's (the SDK for iOS manages one account at a time, so the personal
    /// screen is where a managed file is shared from the wrong place).
    static func identityMismatch<Context: ShareDecisionContext>(_ q: ShareQuestion, owner: Account, in fleet: Fleet, _ context: Context) throws -> StrictFindingEvent? {
        let ownerManaged = fleet.isManaged(owner, in: q.sender)
        if let shown = try context.shownBySender(), !shown.isEmpty {
            guard !owner.isSame(as: shown) else { return nil }
            return ItemIdentityMismatch.finding(target: q.targetHandle, multiIdentity: true, isFile: true, fileOwner: owner.description,
                                                shown: shown.description, eitherManaged: ownerManaged || fleet.isManaged(shown, in: q.sender))
        }
        guard ownerManaged, try context.senderShowsUnmanaged() else { return nil }
        return ItemIdentityMismatch.finding(target: q.targetHandle, multiIdentity: true, isFile: true, fileOwner: owner.description,
                                            shown: "", eitherManaged: true)
    }
}
