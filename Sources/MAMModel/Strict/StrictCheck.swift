/// Strict Mode's checks (docs/STRICT.md): integration mistakes the SDK-shaped façade sees an
/// app's own code make, each named, explained and reported at the caller's line. The host
/// accepts findings of these checks only; each has its rule in `StrictRules` (who judges it,
/// its summary, and the host's judgment where the host makes one).
public enum StrictCheck: String, CaseIterable, Sendable {
    /// An account id (the OID since SDK 20) given a UPN of an account the app knows by its OID.
    case accountIdIsUPN = "account-id-is-upn"
    /// The enrollment delegate set after an enrollment call: the statuses before it are lost.
    case enrollmentDelegateLate = "enrollment-delegate-late"
    /// `registerAndEnrollAccountId` called again for an account the SDK refused with a status
    /// no retry changes (210, 214, 227).
    case enrollmentRetriedAfterRefusal = "enrollment-retried-after-refusal"
    /// `deRegisterAndUnenrollAccountId` called from inside an enrollment delegate callback.
    case deregisterInCallback = "deregister-in-callback"
    /// `remediateCompliance(forAccountId:silent:)` asked by an app that does not declare the
    /// `protapp` MSAL client capability: app protection conditional access is never met for it,
    /// whatever the remediation does. The host judges it (it holds the app's capabilities).
    case remediationWithoutProtapp = "remediation-without-protapp"
    /// `IntuneMAMPolicyManager.policy()` — the policy of the identity in effect — read in a
    /// multi-identity app, where the data handled may be another account's: such an app asks
    /// `policy(forAccountId:)` with the account whose data it handles. The host judges it (it
    /// holds the app's `MultiIdentity` setting).
    case processPolicyInMultiIdentity = "process-policy-in-multi-identity"
    /// The app's policy delegate answered `wipeData(forAccountId:)` true (wiped) while the
    /// account's files remain in its containers. Seen by the host after the wipe, so the finding
    /// names the delegate method, with no line.
    case wipeAnsweredWithFilesLeft = "wipe-answered-with-files-left"
    /// A multi-identity app wrote a file while its screen showed a managed account, naming no
    /// owner and with no identity on the writing thread: the file took the process identity.
    /// Seen by the host at the write (no line).
    case fileWrittenWithoutThreadIdentity = "file-written-without-thread-identity"
    /// A multi-identity app showing a managed account shared an item naming no owner: it left
    /// as personal data. Seen by the host at the share (no line).
    case itemSharedWithoutOwner = "item-shared-without-owner"
    /// `isSaveToAllowed`/`isOpenFromAllowed` for a location that belongs to an account
    /// (OneDrive for Business, SharePoint, an account document) asked with no account: the SDK
    /// reads `nil` as an unmanaged owner, so the answer is not the location's account's.
    case locationNeedsAccount = "location-needs-account"
    /// The SDK restarted the app (its first policy, a remediation) while the app showed an
    /// account's screen, and no policy delegate handled `restartApplication()`: the app does
    /// not restore its state, so the user's place is lost. The host judges it (it knows
    /// whether the app restores its state).
    case restartUnhandledWithState = "restart-unhandled-with-state"
    /// A policy object read before the admin changed its account's policy and used after the
    /// change: it answers for the policy the admin replaced. (One simply not read again is no
    /// finding.)
    case policyCachedWithoutObserver = "policy-cached-without-observer"
    /// `IntuneMAMFileProtectionManager.protect` on a path the app's containers hold no file at:
    /// nothing is protected, and the file the app writes there next is not the account's.
    case protectMissingFile = "protect-missing-file"
    /// The policy delegate's `identitySwitchRequired` completion handler called twice, or not
    /// within the SDK's patience: the incoming switch is not handled (Android's
    /// INCOMING_IDENTITY_SWITCH). Named at the delegate method, with no line.
    case identitySwitchUnhandled = "identity-switch-unhandled"
    /// A multi-identity app shared a file of one account from a screen showing another (Android's
    /// INTENT_IDENTITY_MISMATCH: the identity of the transfer is not its file's). Seen by the
    /// host at the share (no line).
    case itemIdentityMismatch = "item-identity-mismatch"
}

/// One Strict Mode finding as the app reported it: the check, the SDK call it was seen in, the
/// caller's file (Swift's `#fileID`) and line, and what was wrong.
public struct StrictFindingEvent: Sendable, Hashable {
    public var check: String
    public var call: String
    public var file: String
    public var line: Int
    public var detail: String

    public init(check: String, call: String, file: String, line: Int, detail: String) {
        self.check = check
        self.call = call
        self.file = file
        self.line = line
        self.detail = detail
    }
}
