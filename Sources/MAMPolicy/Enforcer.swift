public import MAMModel

/// The rules of RULES.md §2–8 as pure functions over a `Fleet`.
///
/// Every function takes plain values and returns a `Verdict` (allow/block, a stable reason
/// code and a sentence naming the policy setting and the parties) or a small result value
/// holding one. Nothing here keeps state, reads a clock or touches a file: the host owns the
/// state and passes it in, so each rule is a table-driven unit test.
public enum Enforcer {}

/// The result of a transfer decision: the decision and who owns the item on arrival.
///
/// An allowed transfer keeps the parties its sentence names, not the sentence: the broker asks
/// only `isAllowed` of the transfers it delivers, so building the sentence for each one was
/// most of a decision's cost and all of its heap allocations. `decision` builds it when read.
public struct TransferDecision: Sendable, Hashable, CustomStringConvertible {
    /// Why an allowed transfer was allowed, as references to the fleet's entries.
    enum Allowance: Sendable {
        /// A sentence fixed in advance (a literal, or one built off the common path).
        case sentence(String)
        /// The accounts are managed, but no policy of theirs targets the app they are in.
        /// `notEnrolled`: which of them the app does not hold enrolled (deregistered, refused).
        case untargeted(owner: AccountEntry?, sender: AppEntry, receiver: AccountEntry?, target: AppEntry, notEnrolled: (owner: Bool, receiver: Bool))
        /// The owner's outbound check passed and the receiver has no policy in the target.
        case outbound(Enforcer.OutboundPass, owner: AccountEntry, target: AppEntry)
        /// The receiver's policy takes data from all apps.
        case inboundFromAllApps(receiver: AccountEntry)
        /// ... and makes the unmanaged item its account's.
        case inboundReowned(receiver: AccountEntry)
        /// The receiver's policy takes data from policy-managed apps, and the sender is one.
        case inboundFromManaged(receiver: AccountEntry, sender: AppEntry)

        var sentence: String {
            switch self {
            case .sentence(let s): s
            case .untargeted(let o, let sender, let r, let target, let notEnrolled):
                "no policy applies: " + [o.map { notEnrolled.owner ? Enforcer.notEnrolled($0, sender) : Enforcer.untargeted($0, sender) },
                                         r.map { notEnrolled.receiver ? Enforcer.notEnrolled($0, target) : Enforcer.untargeted($0, target) }]
                    .compactMap { $0 }.joined(separator: "; ")
            case .outbound(let pass, let o, let target): pass.explanation(owner: o, target: target)
            case .inboundFromAllApps(let r): "\(r.subject) receives data from all apps"
            case .inboundReowned(let r):
                "\(r.subject) receives data from all apps and treats incoming data as org data; the item now belongs to \(r.account)"
            case .inboundFromManaged(let r, let sender):
                "\(r.subject) receives data from policy-managed apps; \(sender.bundleID) is policy-managed"
            }
        }
    }

    enum Outcome: Sendable {
        case allowed(Allowance)
        case refused(Verdict)
    }

    let outcome: Outcome
    /// Set when the receiver's policy re-owns unmanaged data on arrival ("All apps with
    /// incoming Org data", `protectInboundDataFromUnknownSources`): the item now belongs to
    /// this account. `nil` means the owner is unchanged.
    public let reowned: Account?

    public init(decision: Verdict, reowned: Account? = nil) {
        self.outcome = decision.isAllowed ? .allowed(.sentence(decision.explanation)) : .refused(decision)
        self.reowned = reowned
    }

    init(allowed why: Allowance, reowned: Account? = nil) {
        self.outcome = .allowed(why)
        self.reowned = reowned
    }

    /// The verdict with its sentence (built here for an allowed transfer).
    public var decision: Verdict {
        switch outcome {
        case .allowed(let why): .allowed(why.sentence)
        case .refused(let v): v
        }
    }

    public var isAllowed: Bool { if case .allowed = outcome { true } else { false } }

    /// The owner the item has after arrival, given the owner it had before.
    public func owner(after owner: Account?) -> Account? { reowned ?? owner }

    public var description: String {
        if let reowned { return "\(decision) (re-owned by \(reowned))" }
        return decision.description
    }

    public static func == (a: TransferDecision, b: TransferDecision) -> Bool {
        a.decision == b.decision && a.reowned == b.reowned
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(decision)
        hasher.combine(reowned)
    }
}

extension Enforcer {
    static let unmanagedToUnmanaged = TransferDecision(allowed: .sentence("unmanaged data to an unmanaged identity: no policy applies"))

    /// Decides a transfer of an item owned by `owner` from app `source` to app `destination`,
    /// received there as `receiver` (RULES.md §2): the owner's outbound check, then the
    /// receiver's inbound check.
    ///
    /// - Parameters:
    ///   - owner: the account owning the item; `nil` or `""` = unmanaged data.
    ///   - source: the sending app or extension.
    ///   - destination: the receiving app or extension.
    ///   - receiver: the destination's effective identity at delivery (for an extension, its
    ///     containing app's identity); `nil` or `""` = unmanaged.
    public static func transfer(owner: Account?, from source: BundleID, to destination: BundleID,
                                receivedAs receiver: Account?, isFile: Bool = false, in fleet: Fleet) -> TransferDecision {
        let ownerAccount = fleet.managedEntry(owner)
        // Data received as its own owner is the common case; a second lookup would hash the
        // same keys again, on every transfer decided.
        let receiverAccount = owner.flatMap { o in receiver.map { $0.upnKey == o.upnKey && $0.oidKey == o.oidKey } } ?? false
            ? ownerAccount : fleet.managedEntry(receiver)
        if ownerAccount == nil && receiverAccount == nil {
            // Checked first so the commonest personal case costs two dictionary lookups.
            return unmanagedToUnmanaged
        }
        guard let target = fleet.appEntry(destination) else {
            return TransferDecision(decision: .blocked(.unknownApp, because: "\(destination) is not installed on this device"))
        }
        guard let sender = fleet.appEntry(source) else {
            return TransferDecision(decision: .blocked(.unknownApp, because: "\(source) is not installed on this device"))
        }
        // An account is managed only inside the apps its policy targets (RULES.md §1): the
        // owner's data is org data in the sending app only if the owner's policy targets it,
        // and the receiver's policy judges the arrival only in an app it targets.
        // Nor where the app does not hold the account enrolled (deregistered, or its enrollment
        // refused): there its former policy no longer applies (memdocs app-sdk-ios-phase3,
        // "Deregister user accounts").
        let ownerEntry = ownerAccount.flatMap { fleet.enrolledPolicyEntry($0, in: sender) }
        let receiverEntry = receiverAccount.flatMap { fleet.enrolledPolicyEntry($0, in: target) }
        if ownerEntry == nil && receiverEntry == nil {
            let notEnrolled = (owner: ownerAccount.map { fleet.isInactive($0.account, in: sender.bundleID) } ?? false,
                               receiver: receiverAccount.map { fleet.isInactive($0.account, in: target.bundleID) } ?? false)
            return TransferDecision(allowed: .untargeted(owner: ownerAccount, sender: sender, receiver: receiverAccount, target: target, notEnrolled: notEnrolled))
        }
        var passed = OutboundPass.notApplicable
        if let o = ownerEntry {
            switch outboundCheck(owner: o, sender: sender, target: target, receiver: receiverEntry, receiverAccount: receiver, isFile: isFile, fleet: fleet) {
            case .blocked(let d): return TransferDecision(decision: d)
            case .passed(let why): passed = why
            }
        }
        // Both checks passed: explain the receiver's side when it has a policy, else the
        // owner's. Only one sentence is built: it is most of a decision's cost.
        guard let r = receiverEntry else {
            return TransferDecision(allowed: .outbound(passed, owner: ownerEntry!, target: target))
        }
        return inboundCheck(receiver: r, sender: sender, target: target, owner: ownerEntry, fleet: fleet)
    }

    /// `transfer` for an item the host stamped with an `Ownership`; resolves the owner by UPN
    /// or OID (an owner unknown to the fleet is unmanaged).
    public static func transfer(_ ownership: Ownership, to destination: BundleID,
                                receivedAs receiver: Account?, in fleet: Fleet) -> TransferDecision {
        transfer(owner: owner(of: ownership, in: fleet), from: ownership.sourceBundle, to: destination,
                 receivedAs: receiver, in: fleet)
    }

    /// The fleet account an `Ownership` tag names, `nil` for unowned data.
    public static func owner(of ownership: Ownership, in fleet: Fleet) -> Account? {
        if ownership.isUnowned { return nil }
        if !ownership.upn.isEmpty, let a = fleet.account(named: ownership.upn) { return a }
        if !ownership.oid.isEmpty, let a = fleet.account(named: ownership.oid) { return a }
        return Account(upn: ownership.upn, oid: ownership.oid, tenant: ownership.tenant)
    }

    /// "alice@contoso.com's policy "X" does not target com.example.notes": why an account is
    /// unmanaged inside an app.
    static func untargeted(_ e: AccountEntry, _ app: AppEntry) -> String {
        app.managementSDK
            ? "\(e.subject) does not target \(app.managementBundle) (appGroupType = \(e.groupType.rawValue)), where \(e.account) is unmanaged"
            : "\(app.managementBundle) does not integrate the Intune SDK"
    }

    /// "alice@contoso.com is not enrolled in com.contoso.mail": why an account's former policy no
    /// longer applies there (deregistered, or its enrollment refused).
    static func notEnrolled(_ e: AccountEntry, _ app: AppEntry) -> String {
        "\(e.account) is not enrolled in \(app.managementBundle) (deregistered, or its enrollment refused there), so no policy of \(e.account)'s applies to its data there"
    }

    /// Why no policy applies to `account`'s data in `app`: the data is unmanaged, or the
    /// account's policy does not target the app (RULES.md §1).
    static func unmanagedReason(_ account: Account?, in app: BundleID, _ fleet: Fleet) -> String {
        guard let e = fleet.managedEntry(account), let entry = fleet.appEntry(app) else { return "the data is unmanaged" }
        return fleet.isInactive(e.account, in: app) ? notEnrolled(e, entry) : untargeted(e, entry)
    }

    static func describe(_ receiver: Account?) -> String {
        guard let receiver, !receiver.isEmpty else { return "an unmanaged identity" }
        return receiver.description
    }

    /// Why the outbound check passed; the sentence is built only if it is the one shown.
    enum OutboundPass {
        case notApplicable, allApps, managedDestination, osSharing

        func explanation(owner o: AccountEntry, target: AppEntry) -> String {
            switch self {
            case .notApplicable: "no policy applies"
            case .allApps: "\(o.subject) sends org data to all apps"
            case .managedDestination: "\(o.subject) sends org data to policy-managed apps; \(target.bundleID) is policy-managed and receives it as \(o.account)"
            case .osSharing: "\(o.subject) lets OS sharing send org documents to MDM-managed apps on an enrolled device; \(target.bundleID) is MDM-managed"
            }
        }
    }

    enum OutboundVerdict {
        case passed(OutboundPass)
        case blocked(Verdict)
    }

    /// The owner's policy P: where may its org data go (RULES.md §2, outbound table).
    static func outboundCheck(owner o: AccountEntry, sender: AppEntry, target: AppEntry, receiver: AccountEntry?,
                              receiverAccount: Account?, isFile: Bool, fleet: Fleet) -> OutboundVerdict {
        let settings = o.outboundSettings
        switch settings.level {
        case .allApps:
            return .passed(.allApps)
        case .managedApps:
            let managed = fleet.isPolicyManaged(target, for: o)
            // Received as the owner, under any of the owner's policies: an account with several
            // policies is one identity (Microsoft: an app is policy-managed when a policy of the
            // account targets it).
            if managed, let receiver, receiver === o || receiver.account == o.account { return .passed(.managedDestination) }
            // Exempted URL schemes open URL launches only (`openURL`); an Open-in or a share
            // of org data to an exempt app is judged like any other.
            // "With OS sharing": Apple's managed open-in carries documents (files) to
            // MDM-managed apps on an enrolled device; an MDM-managed app is managed, so
            // allowOpenFromManagedToUnmanaged never stops it. Off an enrolled device the
            // value is plain policy-managed apps.
            // The sending app must carry IntuneMAMUPN too: it names the enrolled user for the
            // transfer (memdocs data-transfer-between-apps-manage-ios, "Configure user UPN
            // setting": required "for the sending policy managed app").
            if settings.osSharing, isFile, fleet.device.mdmEnrolled, target.app.mdmManaged, !sender.app.lacksIntuneMAMUPN {
                return .passed(.osSharing)
            }
            if !managed {
                return .blocked(.blocked(.outboundPolicy, because: "\(o.subject) sends org data only to policy-managed apps; \(target.bundleID) is not policy-managed"))
            }
            return .blocked(.blocked(.outboundPolicy, because: "\(o.subject) sends org data only to policy-managed apps signed in with \(o.account); \(target.bundleID) would receive it as \(describe(receiverAccount))"))
        case .none:
            return .blocked(.blocked(.outboundPolicy, because: "\(o.subject) sends org data to no app (allowedOutboundDataTransferDestinations = none); exempted URL schemes open links only, not shares"))
        }
    }

    /// The receiver's policy Q: where may data it receives come from (RULES.md §2, inbound).
    static func inboundCheck(receiver r: AccountEntry, sender: AppEntry, target: AppEntry, owner: AccountEntry?, fleet: Fleet) -> TransferDecision {
        let settings = r.inboundSettings
        switch settings.level {
        case .allApps:
            // "All apps with incoming Org data" marks data with the MDM-enrolled user's
            // identity: it applies on an MDM-enrolled device only, plain allApps elsewhere.
            // It marks the data with the identity IntuneMAMUPN names: a receiving app without it
            // receives as "all apps" (memdocs app-protection-policy-settings-ios).
            if settings.incomingOrgData, owner == nil, fleet.device.mdmEnrolled, !target.app.lacksIntuneMAMUPN {
                return TransferDecision(allowed: .inboundReowned(receiver: r), reowned: r.account)
            }
            return TransferDecision(allowed: .inboundFromAllApps(receiver: r))
        case .managedApps:
            if !fleet.isPolicyManaged(sender, for: r) {
                return TransferDecision(decision: .blocked(.inboundPolicy, because: "\(r.subject) receives data only from policy-managed apps; \(sender.bundleID) is not policy-managed"))
            }
            if owner == nil {
                return TransferDecision(decision: .blocked(.inboundPolicy, because: "\(r.subject) receives only org data from policy-managed apps; this item from \(sender.bundleID) is unmanaged data"))
            }
            return TransferDecision(allowed: .inboundFromManaged(receiver: r, sender: sender))
        case .none:
            return TransferDecision(decision: .blocked(.inboundPolicy, because: "\(r.subject) receives data from no app (allowedInboundDataTransferSources = none)"))
        }
    }
}
