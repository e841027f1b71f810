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
}

/// One share to decide: who shares what as whom to whom.
public struct ShareQuestion: Sendable {
    public var sender: BundleID
    public var senderHandle: String
    public var senderMultiIdentity: Bool
    public var target: BundleID
    public var targetHandle: String
    public var targetMultiIdentity: Bool
    /// The item's owner, as the sender named it or as its file is owned (`nil`: personal).
    public var owner: Account?
    /// The sender named an identity (an inline item) or shared a file (owned by the file).
    public var ownerNamed: Bool
    public var isFile: Bool
    /// The account the sender asked the target to receive as (`""`: the target's own).
    public var receiveAs: String
    /// The target's activation rule for this item, given whether the data is managed: why it
    /// does not accept it (`nil`: it does). `nil` for a target with no rule to pass.
    public var activation: (@Sendable (_ managed: Bool) -> String?)?

    public init(sender: BundleID, senderHandle: String, senderMultiIdentity: Bool, target: BundleID, targetHandle: String,
                targetMultiIdentity: Bool, owner: Account?, ownerNamed: Bool, isFile: Bool, receiveAs: String,
                activation: (@Sendable (_ managed: Bool) -> String?)?) {
        self.sender = sender
        self.senderHandle = senderHandle
        self.senderMultiIdentity = senderMultiIdentity
        self.target = target
        self.targetHandle = targetHandle
        self.targetMultiIdentity = targetMultiIdentity
        self.owner = owner
        self.ownerNamed = ownerNamed
        self.isFile = isFile
        self.receiveAs = receiveAs
        self.activation = activation
    }
}

/// What a share comes to.
public struct ShareDecision {
    public enum Outcome {
        /// Deliver it as `decision` says, received as `receiver`.
        case deliver(TransferDecision)
        /// Answer the sender with this verdict.
        case refuse(Verdict)
        /// The target may take it after switching identity (RULES.md §2): ask it; on no,
        /// answer `blocked` (for a switch to an account, with the app's reason after it).
        case askToSwitch(Switch, blocked: Verdict, because: String)
    }

    /// The identity switch a multi-identity target is asked for, and the decision the
    /// delivery takes once it switched.
    public enum Switch {
        case toUnmanaged(TransferDecision)
        case to(Account, TransferDecision)
    }

    public var outcome: Outcome
    /// The account the item is received as, once the decision got that far (`nil` inside:
    /// none; `nil` outside: not looked up, the request's stays).
    public var receiver: Account??
    /// Strict Mode's finding about this share, made whatever its outcome.
    public var strictFinding: StrictFindingEvent?
}

/// The share decision as one function of the fleet (its policies and apps), the item and the
/// device's answers (`ShareDecisionContext`): the order Microsoft's rules take a share —
/// conditional launch of the sender, the receiver, conditional launch of the receiver, the
/// transfer rules (`Enforcer`), the extension's activation rule, and the identity switches a
/// multi-identity target may make — with Strict Mode's share check as one of its rules.
/// `ShareDeciderTests` holds its table; the broker gathers the facts and carries the outcome.
public enum ShareDecider {
    public static func decide<Context: ShareDecisionContext>(_ q: ShareQuestion, in fleet: Fleet, _ context: Context) throws -> ShareDecision {
        var result = ShareDecision(outcome: .refuse(.blocked(.badRequest, "")), receiver: nil, strictFinding: nil)
        if !q.ownerNamed, q.senderMultiIdentity, let shown = try context.shownBySender(), fleet.isManaged(shown, in: q.sender) {
            result.strictFinding = ItemSharedWithoutOwner.finding(target: q.targetHandle, multiIdentity: true, ownerNamed: false,
                                                                  isFile: q.isFile, shownManaged: shown.description)
        }
        if q.isFile, q.senderMultiIdentity, let owner = q.owner, result.strictFinding == nil {
            result.strictFinding = try identityMismatch(q, owner: owner, in: fleet, context)
        }
        // The activation rule is decided now and reported after the policy: a transfer the
        // policy forbids is the policy's answer, whatever the rule says.
        let notActivated = q.activation.flatMap { $0(fleet.isManaged(q.owner, in: q.sender)) }
        // An app whose conditional launch failed has no access to org data (RULES.md §8).
        if let owner = q.owner, fleet.isManaged(owner, in: q.sender), let why = try context.accessBlock(app: q.sender) {
            result.outcome = .refuse(.blocked(.conditionalLaunch, "\(q.sender) has no access to \(owner)'s data: \(why)"))
            return result
        }
        guard let receiver = try context.receiver(named: q.receiveAs) else {
            result.outcome = .refuse(.blocked(.notSignedIn, "\(q.receiveAs) is not signed in to \(q.target), so it cannot receive there"))
            return result
        }
        result.receiver = .some(receiver)
        if let receiver, fleet.isManaged(receiver, in: q.target), let why = try context.accessBlock(app: q.target) {
            result.outcome = .refuse(.blocked(.conditionalLaunch, "\(q.target) cannot receive as \(receiver): \(why)"))
            return result
        }
        let decision = Enforcer.transfer(owner: q.owner, from: q.sender, to: q.target, receivedAs: receiver, isFile: q.isFile, in: fleet)
        guard decision.isAllowed else {
            result.outcome = try blocked(q, decision.decision, receiver: receiver, notActivated: notActivated, in: fleet, context)
            return result
        }
        if let notActivated {
            result.outcome = .refuse(.blocked(.notActivated, "\(q.targetHandle)'s activation rule does not accept this item: \(notActivated)"))
            return result
        }
        result.outcome = .deliver(decision)
        return result
    }

    /// A transfer the rules block: refused, unless a multi-identity target may switch to an
    /// identity that may take it.
    static func blocked<Context: ShareDecisionContext>(_ q: ShareQuestion, _ d: Verdict, receiver: Account?, notActivated: String?,
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
            let unmanaged = Enforcer.transfer(owner: q.owner, from: q.sender, to: q.target, receivedAs: nil, isFile: q.isFile, in: fleet)
            if unmanaged.isAllowed { return .askToSwitch(.toUnmanaged(unmanaged), blocked: blocked, because: d.explanation) }
        }
        // The other way (IntuneMAMIdentitySwitchDocumentImport): showing another identity, it
        // may switch to the item's managed owner when that account is signed in there; the
        // switch runs conditional launch.
        if let owner = q.owner, fleet.isManaged(owner, in: q.sender), !(receiver?.isSame(as: owner) ?? false),
           let signedIn = try context.ownerSignedInAtTarget(owner) {
            let managed = Enforcer.transfer(owner: owner, from: q.sender, to: q.target, receivedAs: signedIn, isFile: q.isFile, in: fleet)
            if managed.isAllowed { return .askToSwitch(.to(signedIn, managed), blocked: blocked, because: d.explanation) }
        }
        return .refuse(blocked)
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
