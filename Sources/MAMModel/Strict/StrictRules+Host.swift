// The checks the host judges: those it confirms from the app's declarations, and those it
// makes itself from what it saw. Each judgment is a pure function of the facts the host's
// services gather; `StrictRuleTests` holds their tables.

public enum RemediationWithoutProtapp: StrictHostConfirmedRule {
    public static let check = StrictCheck.remediationWithoutProtapp
    public static let summary = "compliance remediation asked by an app without the protapp client capability: app protection conditional access is never met for it"
    /// The MSAL client capability app protection conditional access asks for (the same
    /// as `Enforcer.protectionCapability`; a test holds them equal).
    public static let capability = "protapp"

    public static func noFinding(for app: StrictAppFacts) -> String? {
        app.clientCapabilities.contains { $0.lowercased() == capability } ? "\(app.bundle) declares the protapp capability: no finding" : nil
    }
}

public enum ProcessPolicyInMultiIdentity: StrictHostConfirmedRule {
    public static let check = StrictCheck.processPolicyInMultiIdentity
    public static let summary = "policy() read in a multi-identity app: it answers for the identity in effect, not for the account whose data the code handles"

    public static func noFinding(for app: StrictAppFacts) -> String? {
        app.multiIdentity ? nil : "\(app.bundle) is single-identity: its process policy is its one account's, no finding"
    }
}

public enum RestartUnhandledWithState: StrictHostConfirmedRule {
    public static let check = StrictCheck.restartUnhandledWithState
    public static let summary = "the SDK restarted the app while it showed an account's screen and nothing handled restartApplication(): the user's place is lost"

    public static func noFinding(for app: StrictAppFacts) -> String? {
        app.restoresState ? "\(app.bundle) restores its state when relaunched: no finding" : nil
    }
}

public enum WipeAnsweredWithFilesLeft: StrictRule {
    public static let check = StrictCheck.wipeAnsweredWithFilesLeft
    public static let judge = StrictJudge.host
    public static let summary = "the wipe delegate answered done while the account's files remain: the device trusted it and deleted nothing"

    /// After a selective wipe: the app said it wiped (`appHandledWipe`) while `filesLeft` of
    /// `account` remain. The SDK called the app here, so the finding names the delegate
    /// method, not a line of the app.
    public static func finding(account: String, appHandledWipe: Bool, filesLeft: [String]) -> StrictFindingEvent? {
        guard appHandledWipe, !filesLeft.isEmpty else { return nil }
        let shown = filesLeft.prefix(3).joined(separator: ", ") + (filesLeft.count > 3 ? " and \(filesLeft.count - 3) more" : "")
        return StrictFindingEvent(
            check: check.rawValue, call: "IntuneMAMPolicyDelegate.wipeData(forAccountId:)", file: "", line: 0,
            detail: "answered true (wiped) while \(filesLeft.count) file(s) of \(account) remain: \(shown); delete them before answering, or answer false and let the SDK delete them")
    }
}

public enum FileWrittenWithoutThreadIdentity: StrictRule {
    public static let check = StrictCheck.fileWrittenWithoutThreadIdentity
    public static let judge = StrictJudge.host
    public static let summary = "a file written while a managed account is on screen, with no identity on the writing thread: it took the process identity"

    /// A write of `path` (escaped and bounded by the caller) by a multi-identity app whose
    /// screen shows the managed account `shownManaged`, naming no owner and with no thread
    /// identity, filed as `filedAs` (`nil`: personal). No finding when the file is the shown
    /// account's anyway.
    public static func finding(path: String, multiIdentity: Bool, ownerNamed: Bool, threadIdentitySet: Bool,
                               shownManaged: String?, filedAs: String?) -> StrictFindingEvent? {
        guard !ownerNamed, !threadIdentitySet, multiIdentity, let shown = shownManaged else { return nil }
        guard filedAs.map({ $0.lowercased() != shown.lowercased() }) ?? true else { return nil }
        return StrictFindingEvent(
            check: check.rawValue, call: "write_file \(path)", file: "", line: 0,
            detail: "the screen shows \(shown) but no identity is set on the writing thread, so the file is \(filedAs.map { "\($0)'s" } ?? "personal") (the process identity); set the thread identity (IntuneMAMPolicyManager.setAccountId(_:forScope:)) or name the owner")
    }
}

public enum ItemSharedWithoutOwner: StrictRule {
    public static let check = StrictCheck.itemSharedWithoutOwner
    public static let judge = StrictJudge.host
    public static let summary = "an item shared with no owner while a managed account is on screen: it left as personal data"

    /// A share to `target` of an inline item naming no owner, by a multi-identity app whose
    /// screen shows the managed account `shownManaged`. A file is owned by its file's owner,
    /// so it is never this mistake.
    public static func finding(target: String, multiIdentity: Bool, ownerNamed: Bool, isFile: Bool, shownManaged: String?) -> StrictFindingEvent? {
        guard !ownerNamed, !isFile, multiIdentity, let shown = shownManaged else { return nil }
        return StrictFindingEvent(
            check: check.rawValue, call: "share to \(target)", file: "", line: 0,
            detail: "the screen shows \(shown) but the item names no owner, so it is shared as personal data; share it as the account whose data it is")
    }
}

public enum ItemIdentityMismatch: StrictRule {
    public static let check = StrictCheck.itemIdentityMismatch
    public static let judge = StrictJudge.host
    public static let summary = "a file of one account shared from a screen showing another: the share is not the file's account's"

    /// A share to `target` of a file owned by `fileOwner` by a multi-identity app whose screen
    /// shows `shown`, either of them managed there. The file keeps its owner (the policy judges
    /// it as that account's), but the user shared it from another account's screen; `shown`
    /// `""`: the screen shows the unmanaged (personal) identity.
    public static func finding(target: String, multiIdentity: Bool, isFile: Bool, fileOwner: String?, shown: String?, eitherManaged: Bool) -> StrictFindingEvent? {
        guard multiIdentity, isFile, eitherManaged, let shown, let fileOwner, !fileOwner.isEmpty,
              fileOwner.lowercased() != shown.lowercased() else { return nil }
        let screen = shown.isEmpty ? "the unmanaged (personal) identity" : shown
        return StrictFindingEvent(
            check: check.rawValue, call: "share to \(target)", file: "", line: 0,
            detail: "the file is \(fileOwner)'s but the screen shows \(screen): switch the screen to \(fileOwner) (setUIPolicyAccountId) before offering the file, or share only the shown account's files")
    }
}
