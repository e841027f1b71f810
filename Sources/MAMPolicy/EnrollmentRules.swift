public import MAMModel

/// What the Intune SDK and service answer an app's enrollment, policy check-in and
/// unenrollment (SCENARIOS.md v1.3, docs/LIFECYCLE.md): pure functions of what the device and
/// the tenant hold at that moment, as the service sees it (a licence or an assignment becomes
/// visible to it only after the tenant's propagation delay). The device gathers the facts,
/// asks, and records the status the app's delegate receives.
public enum EnrollmentRules {
    /// `registerAndEnrollAccountId` (`interactive: false`: the app has the account's token) or
    /// `loginAndEnrollAccount` (`interactive: true`: the SDK signs the user in first).
    public struct EnrollFacts: Sendable {
        /// The account the app names; `nil` when it names none.
        public var account: Account?
        public var interactive: Bool
        /// The user dismisses the sign-in the SDK shows (`loginAndEnrollAccount`).
        public var userCancels = false
        /// The call comes from an app extension.
        public var fromExtension = false
        /// The account holds a token in the app (an MSAL sign-in).
        public var signedIn = false
        /// The user holds an Intune licence, as the service sees it.
        public var licensed = true
        /// An app protection policy targets this app for the user, as the service sees it.
        public var targeted = false
        /// The user the device is MDM-enrolled by, if any.
        public var mdmEnrolledAs: Account?
        /// The account the app is enrolled with already, if any.
        public var enrolledInApp: Account?
        /// The device's managed account (Intune manages one a device), if any.
        public var deviceManagedAccount: Account?
        public var multiIdentity = false
        /// What an injected service fault makes the call answer.
        public var fault: EnrollmentStatus?

        public init(account: Account?, interactive: Bool) {
            self.account = account
            self.interactive = interactive
        }
    }

    /// The status an enrollment ends with.
    public static func enroll(_ f: EnrollFacts) -> EnrollmentStatus {
        if f.fromExtension { return .unsupportedAPI }
        if f.interactive, f.userCancels { return .loginCanceled }
        guard let account = f.account else { return .nilAccount }
        if let fault = f.fault { return fault }
        if let mdm = f.mdmEnrolledAs, !mdm.isSame(as: account) { return .mdmEnrolledDifferentUser }
        if let enrolled = f.enrolledInApp {
            if enrolled.isSame(as: account) { return .alreadyEnrolled }
            // One managed account per app, single- or multi-identity alike (SDK issue #537,
            // SCENARIOS.md v1.3's reading).
            return .singleManagedAccountMode
        }
        if !f.interactive, !f.signedIn { return .authRequired }
        if !f.licensed { return .accountNotLicensed }
        guard f.targeted else { return .licensedNotTargeted }
        if let managed = f.deviceManagedAccount, !managed.isSame(as: account) { return .singleManagedAccountMode }
        return .newPoliciesReceived
    }

    /// An enrolled app's policy request (a check-in).
    public struct CheckInFacts: Sendable {
        /// The account the app is enrolled with, if any.
        public var enrolled: Account?
        /// The account the request names (`nil`: the enrolled one).
        public var asked: Account?
        public var fault: EnrollmentStatus?
        /// The administrator's selective wipe waits for this app and account.
        public var wipePending = false
        public var licensed = true
        public var targeted = true
        /// The policy the service assigns differs from the one the app holds.
        public var policyChanged = false

        public init(enrolled: Account?) {
            self.enrolled = enrolled
        }
    }

    public static func checkIn(_ f: CheckInFacts) -> EnrollmentStatus {
        guard let enrolled = f.enrolled else { return .appNotEnrolled }
        if let asked = f.asked, !asked.isSame(as: enrolled) { return .notEnrolledAccount }
        if let fault = f.fault { return fault }
        if f.wipePending { return .wipeReceived }
        if !f.licensed { return .accountNotLicensed }
        if !f.targeted { return .noPolicyReceived }
        return f.policyChanged ? .newPoliciesReceived : .policiesHaveNotChanged
    }

    /// `deRegisterAndUnenrollAccountId(_:withWipe:)`.
    public static func unenroll(account: Account, enrolled: Account?, fromExtension: Bool, fault: EnrollmentStatus?) -> EnrollmentStatus {
        if fromExtension { return .unsupportedAPI }
        guard let enrolled else { return .appNotEnrolled }
        guard enrolled.isSame(as: account) else { return .notEnrolledAccount }
        return fault ?? .unenrollmentSuccess
    }

    /// When the SDK tries again an enrollment that failed with `status`, in seconds: an
    /// unlicensed or untargeted user after 12 hours, a network failure after at most an hour,
    /// anything else after 24 hours (memdocs, app protection policy delivery; the SDK's
    /// enrollment manager). The first check-in after it tries again: a launch or resume never
    /// sooner (an explicit `checkIn` step asks at once).
    /// `networkFailuresInARow`: the failures of this kind the account met one after the other,
    /// this one included: a network failure backs off, 5 minutes doubling up to an hour.
    public static func retryInterval(after status: EnrollmentStatus, networkFailuresInARow: Int = 1) -> Double {
        switch status {
        case .accountNotLicensed, .licensedNotTargeted: 12 * 3600
        case .enrollmentEndPointNetworkFailure, .policyEndPointNetworkFailure, .locationServiceFailure, .timeout:
            min(3600, 300 * Double(1 << min(max(networkFailuresInARow, 1) - 1, 4)))
        default: 24 * 3600
        }
    }

    /// Whether a failure is the network's (backed off) rather than the service's answer.
    public static func isNetworkFailure(_ status: EnrollmentStatus) -> Bool {
        retryInterval(after: status, networkFailuresInARow: 5) == 3600
    }

    /// Whether the app is asked to restart (`restartApplication`, RULES.md §10): it receives MAM
    /// policy for the account for the first time — the status delivered a policy (`policyNow`:
    /// one targets the account in the app) and the app held none for it before
    /// (`heldBefore`, its catalogue key, `nil` when none). Extensions are never restarted.
    public static func restartsForFirstPolicy(status: EnrollmentStatus, policyNow: Bool, heldBefore: String?, isApp: Bool) -> Bool {
        isApp && policyNow && heldBefore == nil && status == .newPoliciesReceived
    }

    /// Why an app that receives its first policy is not restarted, when a documented exception
    /// holds; `nil` when the SDK restarts it (Learn, ios-phase-3, « Application restart »: « When
    /// an app receives MAM policies for the first time, it must restart to apply the required
    /// hooks »).
    public static func noRestartOnFirstPolicy(_ app: AppDescriptor, deviceMDMEnrolled: Bool) -> String? {
        // 20.9.0 / 21.2.0 release notes: the hooks are active while unmanaged.
        if app.hooksAlwaysEnabled {
            if let written = app.sdkVersion, let sdk = Version(written), sdk < hooksAlwaysEnabledSince(sdk) {
                return nil
            }
            return "IntuneMAMSettings HooksAlwaysEnabled: the SDK's hooks were active while the app was unmanaged, so it needs no restart (SDK 20.9.0 / 21.2.0 release notes)"
        }
        // Learn, ios-phase-3: « If you choose this option for your app, you don't have to handle
        // restarting your app after enrolling. »
        if app.autoEnrollOnLaunch && app.mamPolicyRequired {
            return "IntuneMAMSettings AutoEnrollOnLaunch with MAMPolicyRequired: the SDK enrolled before the app ran, so it needs no restart (Learn, Stage 3)"
        }
        // SDK issue #561, the SDK team's answer: with IntuneMAMUPN/IntuneMAMOID in the MDM's app
        // configuration on an MDM-managed device, « our hooks will be enabled as passthrough and a
        // restart would not occur after MAM enrollment ».
        // Said of the app, not assumed: Learn's general rule restarts it.
        if deviceMDMEnrolled && app.mdmManaged && app.intuneMAMUPNConfigured == true {
            return "an MDM-managed app its MDM gives IntuneMAMUPN: its hooks ran as passthrough before enrollment, so it needs no restart (ms-intune-app-sdk-ios issue #561, the SDK team's answer)"
        }
        return nil
    }

    /// The first release of `sdk`'s train that reads `HooksAlwaysEnabled`.
    static func hooksAlwaysEnabledSince(_ sdk: Version) -> Version {
        (sdk.components.first ?? 0) >= 21 ? Version("21.2.0")! : Version("20.9.0")!
    }

    /// Whether `loginAndEnrollAccount` leaves the user signed in after the service answered
    /// `status`: the sign-in comes first, so a refusal of the service (no licence, not
    /// targeted, a fault) leaves the account signed in to the app with its token; a dismissed
    /// sign-in, an extension's call, no account or an account already enrolled do not get that
    /// far, and an account the device refuses (another user's MDM device or designated
    /// account, a second managed account) is not kept.
    public static func signedInBeforeAnswer(_ status: EnrollmentStatus) -> Bool {
        switch status {
        case .loginCanceled, .unsupportedAPI, .nilAccount, .alreadyEnrolled, .switchExistingAccount, .singleManagedAccountMode: false
        default: !status.removesAccount
        }
    }

    /// Whether a failed enrollment leaves the account registered with the SDK, to be tried
    /// again: the service's answers do; what the app asked wrongly (no account, an
    /// extension, a cancelled sign-in, another account's device) does not.
    public static func staysRegistered(after status: EnrollmentStatus) -> Bool {
        switch status {
        case .nilAccount, .unsupportedAPI, .loginCanceled, .alreadyEnrolled, .switchExistingAccount, .singleManagedAccountMode,
             .mdmEnrolledDifferentUser, .notDeviceAccount, .notEmmAccount, .authRequired:
            false
        default: !status.didSucceed
        }
    }
}
