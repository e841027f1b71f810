public import MAMModel

/// The result of a paste: the decision and the text the destination actually gets.
public struct PasteDecision: Sendable, Hashable {
    public let decision: Verdict
    /// The copied text when allowed; `Enforcer.blockedPastePlaceholder` when blocked, never
    /// the data.
    public let text: String

    public init(decision: Verdict, text: String) {
        self.decision = decision
        self.text = text
    }
}

extension Enforcer {
    /// What a blocked paste yields (our reading of Intune's behaviour, RULES.md §3).
    public static let blockedPastePlaceholder = "Your organization's data cannot be pasted here."

    /// Decides pasting `text`, copied in `source` with data owned by `owner`, into
    /// `destination` as identity `receiver` (RULES.md §3).
    ///
    /// The owner's level limits where managed data may be pasted out; the receiver's level
    /// limits where a managed identity may paste from. A paste of at most
    /// `allowedOutboundClipboardSharingExceptionLength` characters passes that policy's check
    /// whatever its level. A paste inside the same app and identity always passes.
    public static func paste(_ text: String, owner: Account?, copiedIn source: BundleID,
                             into destination: BundleID, as receiver: Account?, in fleet: Fleet) -> PasteDecision {
        let d = pasteDecision(length: text.count, owner: owner, copiedIn: source, into: destination, as: receiver, in: fleet)
        return PasteDecision(decision: d, text: d.isAllowed ? text : blockedPastePlaceholder)
    }

    /// `paste` without the text: `length` is the number of characters pasted.
    public static func pasteDecision(length: Int, owner: Account?, copiedIn source: BundleID,
                                     into destination: BundleID, as receiver: Account?, in fleet: Fleet) -> Verdict {
        // Each account is managed only in the apps its policy targets (RULES.md §1): the
        // owner where the text was copied, the receiver where it is pasted.
        let o = fleet.managedEntry(owner, in: source)
        let r = fleet.managedEntry(receiver, in: destination)
        if o == nil && r == nil { return .allowed("unmanaged data to an unmanaged identity: no policy applies") }
        if source == destination && sameAccount(owner, receiver) {
            return .allowed("copy and paste inside \(source) with the same identity")
        }
        let targetApp = fleet.appEntry(destination)
        let sourceApp = fleet.appEntry(source)
        if let o {
            let p = o.policy!
            let n = clipboardLimit(p, in: sourceApp)
            if !(n > 0 && length <= n) {
                switch p.allowedOutboundClipboardSharingLevel {
                case .allApps:
                    break
                case .managedAppsWithPasteIn, .managedApps:
                    let managedTarget = targetApp.map { fleet.isPolicyManaged($0, for: o) } ?? false
                    if !(managedTarget && r != nil) {
                        let why = managedTarget ? "it would be pasted as \(describe(receiver))" : "\(destination) is not policy-managed"
                        return .blocked(.clipboardPolicy, because: "\(o.subject) lets org data be pasted only into policy-managed apps with a managed identity (allowedOutboundClipboardSharingLevel = \(p.allowedOutboundClipboardSharingLevel.rawValue)); \(why)")
                    }
                case .blocked:
                    if source != destination {
                        return .blocked(.clipboardPolicy, because: "\(o.subject) lets org data be pasted only inside the app it was copied in (allowedOutboundClipboardSharingLevel = blocked); \(destination) is not \(source)")
                    }
                }
            }
        }
        if let r {
            let q = r.policy!
            // The character limit is about data cut or copied *from* org data (Microsoft's
            // "Cut and copy character limit for any app"): it never opens a managed
            // identity's paste-in.
            switch q.allowedOutboundClipboardSharingLevel {
            case .allApps, .managedAppsWithPasteIn:
                break
            case .managedApps:
                let managedSource = sourceApp.map { fleet.isPolicyManaged($0, for: r) } ?? false
                if !(managedSource && o != nil) {
                    let why = managedSource ? "the copied data is unmanaged" : "\(source) is not policy-managed"
                    return .blocked(.clipboardPolicy, because: "\(r.subject) pastes in only org data copied in policy-managed apps (allowedOutboundClipboardSharingLevel = managedApps); \(why)")
                }
            case .blocked:
                if source != destination {
                    return .blocked(.clipboardPolicy, because: "\(r.subject) pastes in only data copied inside \(destination) (allowedOutboundClipboardSharingLevel = blocked); it was copied in \(source)")
                }
            }
        }
        if let o {
            let p = o.policy!
            let n = clipboardLimit(p, in: fleet.appEntry(source))
            if n > 0, length <= n, p.allowedOutboundClipboardSharingLevel != .allApps {
                return .allowed("\(o.subject) lets a paste of \(length) characters through whatever the level: it is within the cut and copy character limit (allowedOutboundClipboardSharingExceptionLength = \(n))")
            }
            return .allowed("\(o.subject) lets this paste through (allowedOutboundClipboardSharingLevel = \(p.allowedOutboundClipboardSharingLevel.rawValue))")
        }
        return .allowed("\(r!.subject) lets this paste in (allowedOutboundClipboardSharingLevel = \(r!.policy!.allowedOutboundClipboardSharingLevel.rawValue))")
    }

    static func sameAccount(_ a: Account?, _ b: Account?) -> Bool {
        let aEmpty = a?.isEmpty ?? true, bEmpty = b?.isEmpty ?? true
        if aEmpty || bEmpty { return aEmpty && bEmpty }
        return a!.isSame(as: b!)
    }

    /// The cut and copy character limit as the copying app's SDK applies it: none below the
    /// SDK that introduced it (SDKVersionFloors).
    static func clipboardLimit(_ p: IosManagedAppProtection, in app: AppEntry?) -> Int {
        let n = p.allowedOutboundClipboardSharingExceptionLength
        guard n > 0, let sdk = app?.app.sdkVersion else { return n }
        return SDKVersionFloors.unmet("allowedOutboundClipboardSharingExceptionLength", sdkVersion: sdk) == nil ? n : 0
    }
}
