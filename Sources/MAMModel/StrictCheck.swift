/// Strict Mode's checks (docs/STRICT.md): integration mistakes the SDK-shaped façade sees an
/// app's own code make, each named, explained and reported at the caller's line. The host
/// accepts findings of these checks only.
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

    public static let names: Set<String> = Set(allCases.map(\.rawValue))

    /// A check only the host can judge: the façade reports each such call, and the host keeps
    /// the finding only when the app made the mistake.
    public var judgedByHost: Bool {
        self == .remediationWithoutProtapp || self == .processPolicyInMultiIdentity || self == .restartUnhandledWithState
    }

    /// A check the host makes itself, from what it saw (a wipe, a write, a share): no app may
    /// report it, or an app could put a finding of the device's in the run.
    public var madeByHost: Bool {
        self == .wipeAnsweredWithFilesLeft || self == .fileWrittenWithoutThreadIdentity || self == .itemSharedWithoutOwner
    }

    /// What the check found wrong, for reports (SARIF's rule description, the human output).
    public var summary: String {
        switch self {
        case .accountIdIsUPN: "a UPN passed where the SDK takes an account id (the OID since SDK 20): the SDK treats it as no account"
        case .enrollmentDelegateLate: "the enrollment delegate was set after an enrollment call: the statuses sent before it are lost"
        case .enrollmentRetriedAfterRefusal: "enrollment retried after a refusal no retry changes (210, 214, 227): it is refused again"
        case .deregisterInCallback: "deregistration called from inside an enrollment callback: the SDK is still reporting the call that called it"
        case .itemSharedWithoutOwner: "an item shared with no owner while a managed account is on screen: it left as personal data"
        case .fileWrittenWithoutThreadIdentity: "a file written while a managed account is on screen, with no identity on the writing thread: it took the process identity"
        case .wipeAnsweredWithFilesLeft: "the wipe delegate answered done while the account's files remain: the device trusted it and deleted nothing"
        case .processPolicyInMultiIdentity: "policy() read in a multi-identity app: it answers for the identity in effect, not for the account whose data the code handles"
        case .remediationWithoutProtapp: "compliance remediation asked by an app without the protapp client capability: app protection conditional access is never met for it"
        case .locationNeedsAccount: "a location that belongs to an account asked with no account: the SDK reads nil as an unmanaged owner"
        case .restartUnhandledWithState: "the SDK restarted the app while it showed an account's screen and nothing handled restartApplication(): the user's place is lost"
        case .policyCachedWithoutObserver: "a policy object read before the admin changed it was used after the change: observe IntuneMAMPolicyDidChange and read it again"
        }
    }
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
