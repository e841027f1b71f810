// The checks the façade in the app judges at the call, with the caller's line: the host
// keeps their findings as reported (bounded, escaped).

public enum AccountIdIsUPN: StrictRule {
    public static let check = StrictCheck.accountIdIsUPN
    public static let judge = StrictJudge.app
    public static let summary = "a UPN passed where the SDK takes an account id (the OID since SDK 20): the SDK treats it as no account"
}

public enum EnrollmentDelegateLate: StrictRule {
    public static let check = StrictCheck.enrollmentDelegateLate
    public static let judge = StrictJudge.app
    public static let summary = "the enrollment delegate was set after an enrollment call: the statuses sent before it are lost"
}

public enum EnrollmentRetriedAfterRefusal: StrictRule {
    public static let check = StrictCheck.enrollmentRetriedAfterRefusal
    public static let judge = StrictJudge.app
    public static let summary = "enrollment retried after a refusal no retry changes (210, 214, 227): it is refused again"
}

public enum DeregisterInCallback: StrictRule {
    public static let check = StrictCheck.deregisterInCallback
    public static let judge = StrictJudge.app
    public static let summary = "deregistration called from inside an enrollment callback: the SDK is still reporting the call that called it"
}

public enum LocationNeedsAccount: StrictRule {
    public static let check = StrictCheck.locationNeedsAccount
    public static let judge = StrictJudge.app
    public static let summary = "a location that belongs to an account asked with no account: the SDK reads nil as an unmanaged owner"
}

public enum PolicyCachedWithoutObserver: StrictRule {
    public static let check = StrictCheck.policyCachedWithoutObserver
    public static let judge = StrictJudge.app
    public static let summary = "a policy object read before the admin changed it was used after the change: observe IntuneMAMPolicyDidChange and read it again"
}

public enum ProtectMissingFile: StrictRule {
    public static let check = StrictCheck.protectMissingFile
    public static let judge = StrictJudge.app
    public static let summary = "a file protected before it exists: nothing is protected, and what the app writes there next is not the account's"
}

public enum IdentitySwitchUnhandled: StrictRule {
    public static let check = StrictCheck.identitySwitchUnhandled
    public static let judge = StrictJudge.app
    public static let summary = "an incoming identity switch not handled: identitySwitchRequired's completion handler called twice, or never"
}
