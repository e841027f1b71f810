import MAMModel
import MAMPolicy
import Testing

/// The enrollment lifecycle's decisions (SCENARIOS.md v1.3, docs/LIFECYCLE.md), table by table,
/// and the SDK's status codes pinned to the release they were read from.
@Suite struct EnrollmentRulesTests {
    /// `IntuneMAMEnrollmentStatusCode` of the Intune App SDK for iOS 21.7.1: every value, by
    /// name and number. A release that adds, removes or renumbers one fails here first.
    @Test func theStatusCodesAreTheSDKs() {
        let pinned: [(String, UInt32)] = [
            ("newPoliciesReceived", 100), ("policiesHaveNotChanged", 101), ("wipeReceived", 102), ("noPolicyReceived", 103),
            ("unenrollmentSuccess", 104), ("accountNotLicensed", 200), ("internalError", 201), ("mamServiceDisabled", 202),
            ("authRequired", 203), ("locationServiceFailure", 204), ("enrollmentEndPointNetworkFailure", 205),
            ("parsingFailure", 206), ("nilAccount", 207), ("alreadyEnrolled", 208), ("notEmmAccount", 209),
            ("mdmEnrolledDifferentUser", 210), ("notDeviceAccount", 211), ("policyEndPointNetworkFailure", 212),
            ("appNotEnrolled", 213), ("notEnrolledAccount", 214), ("failedToClearMamData", 215), ("timeout", 216),
            ("adalInternalError", 217), ("switchExistingAccount", 218), ("loginCanceled", 219), ("policyRecordGone", 220),
            ("reEnrollForUnenrolledUser", 221), ("tenantMigration", 222), ("unsupportedAPI", 223), ("adalMethodUnsupported", 224),
            ("licensedNotTargeted", 225), ("deviceBlockedEnrollment", 226), ("singleManagedAccountMode", 227),
        ]
        #expect(EnrollmentStatus.allCases.count == pinned.count)
        for (name, number) in pinned {
            let status = EnrollmentStatus(rawValue: number)
            #expect(status?.name == name, "\(number)")
            #expect(EnrollmentStatus(named: name) == status)
            #expect(EnrollmentStatus(named: name.uppercased()) == status, "names are read in any case")
            #expect(EnrollmentStatus(named: "\(number)") == status)
            #expect(status?.didSucceed == (number < 200))
        }
        #expect(EnrollmentStatus(named: "licensedButNotTargeted") == nil)
        #expect(EnrollmentStatus.mamServiceDisabled.origin == .obsolete)
        #expect(EnrollmentStatus.licensedNotTargeted.described == "licensedNotTargeted (225)")
    }

    static let alice = Account(upn: "alice@contoso.com")
    static let bob = Account(upn: "bob@contoso.com")

    /// A licensed, targeted, signed-in user of a single-identity app on an unmanaged device.
    static func facts(_ change: (inout EnrollmentRules.EnrollFacts) -> Void = { _ in }) -> EnrollmentRules.EnrollFacts {
        var f = EnrollmentRules.EnrollFacts(account: alice, interactive: false)
        f.signedIn = true
        f.targeted = true
        change(&f)
        return f
    }

    @Test(arguments: [
        // what changes from a licensed, targeted, signed-in user → the status
        ("nothing", facts(), EnrollmentStatus.newPoliciesReceived),
        ("not targeted", facts { $0.targeted = false }, .licensedNotTargeted),
        ("no licence", facts { $0.licensed = false }, .accountNotLicensed),
        ("no licence, not targeted", facts { $0.licensed = false; $0.targeted = false }, .accountNotLicensed),
        ("no token, registerAndEnroll", facts { $0.signedIn = false }, .authRequired),
        ("no token, loginAndEnroll", facts { $0.signedIn = false; $0.interactive = true }, .newPoliciesReceived),
        ("the user cancels the sign-in", facts { $0.interactive = true; $0.userCancels = true }, .loginCanceled),
        ("no account", facts { $0.account = nil }, .nilAccount),
        ("from an extension", facts { $0.fromExtension = true }, .unsupportedAPI),
        ("MDM-enrolled by another user", facts { $0.mdmEnrolledAs = bob }, .mdmEnrolledDifferentUser),
        ("MDM-enrolled by the same user", facts { $0.mdmEnrolledAs = Account(upn: "ALICE@contoso.com") }, .newPoliciesReceived),
        ("enrolled already", facts { $0.enrolledInApp = alice }, .alreadyEnrolled),
        // SDK issue #537: 227 in a single-identity app too (SCENARIOS.md v1.3).
        ("another account enrolled, single identity", facts { $0.enrolledInApp = bob }, .singleManagedAccountMode),
        ("another account enrolled, multi-identity", facts { $0.enrolledInApp = bob; $0.multiIdentity = true }, .singleManagedAccountMode),
        ("the device manages another account", facts { $0.deviceManagedAccount = bob }, .singleManagedAccountMode),
        ("the device manages another account, not targeted", facts { $0.deviceManagedAccount = bob; $0.targeted = false }, .licensedNotTargeted),
        ("a fault", facts { $0.fault = .enrollmentEndPointNetworkFailure }, .enrollmentEndPointNetworkFailure),
        ("a fault does not hide an extension's call", facts { $0.fault = .internalError; $0.fromExtension = true }, .unsupportedAPI),
    ])
    func enrollStatuses(_ change: String, _ facts: EnrollmentRules.EnrollFacts, _ expected: EnrollmentStatus) {
        #expect(EnrollmentRules.enroll(facts) == expected, "\(change)")
    }

    static func checkInFacts(_ change: (inout EnrollmentRules.CheckInFacts) -> Void = { _ in }) -> EnrollmentRules.CheckInFacts {
        var f = EnrollmentRules.CheckInFacts(enrolled: alice)
        change(&f)
        return f
    }

    @Test(arguments: [
        ("nothing changed", checkInFacts(), EnrollmentStatus.policiesHaveNotChanged),
        ("the policy changed", checkInFacts { $0.policyChanged = true }, .newPoliciesReceived),
        ("a wipe waits", checkInFacts { $0.wipePending = true; $0.policyChanged = true }, .wipeReceived),
        ("untargeted since", checkInFacts { $0.targeted = false }, .noPolicyReceived),
        ("licence removed", checkInFacts { $0.licensed = false }, .accountNotLicensed),
        ("not enrolled", checkInFacts { $0.enrolled = nil }, .appNotEnrolled),
        ("another account asked", checkInFacts { $0.asked = bob }, .notEnrolledAccount),
        ("the enrolled account asked", checkInFacts { $0.asked = alice }, .policiesHaveNotChanged),
        ("a fault", checkInFacts { $0.fault = .policyEndPointNetworkFailure; $0.wipePending = true }, .policyEndPointNetworkFailure),
    ])
    func checkInStatuses(_ change: String, _ facts: EnrollmentRules.CheckInFacts, _ expected: EnrollmentStatus) {
        #expect(EnrollmentRules.checkIn(facts) == expected, "\(change)")
    }

    @Test func unenrollStatuses() {
        #expect(EnrollmentRules.unenroll(account: Self.alice, enrolled: Self.alice, fromExtension: false, fault: nil) == .unenrollmentSuccess)
        #expect(EnrollmentRules.unenroll(account: Self.alice, enrolled: nil, fromExtension: false, fault: nil) == .appNotEnrolled)
        #expect(EnrollmentRules.unenroll(account: Self.alice, enrolled: Self.bob, fromExtension: false, fault: nil) == .notEnrolledAccount)
        #expect(EnrollmentRules.unenroll(account: Self.alice, enrolled: Self.alice, fromExtension: true, fault: nil) == .unsupportedAPI)
        #expect(EnrollmentRules.unenroll(account: Self.alice, enrolled: Self.alice, fromExtension: false, fault: .failedToClearMamData) == .failedToClearMamData)
    }

    @Test func retriesFollowTheDocumentedIntervals() {
        #expect(EnrollmentRules.retryInterval(after: .licensedNotTargeted) == 12 * 3600)
        #expect(EnrollmentRules.retryInterval(after: .accountNotLicensed) == 12 * 3600)
        // A network failure backs off: 5 minutes, doubling, at most an hour (issue 71, item 5).
        #expect(EnrollmentRules.retryInterval(after: .enrollmentEndPointNetworkFailure) == 300)
        #expect((1...7).map { EnrollmentRules.retryInterval(after: .policyEndPointNetworkFailure, networkFailuresInARow: $0) }
                == [300, 600, 1200, 2400, 3600, 3600, 3600])
        #expect(EnrollmentRules.isNetworkFailure(.timeout) && !EnrollmentRules.isNetworkFailure(.accountNotLicensed))
        #expect(EnrollmentRules.retryInterval(after: .internalError) == 24 * 3600)
        #expect(EnrollmentRules.staysRegistered(after: .licensedNotTargeted))
        #expect(!EnrollmentRules.staysRegistered(after: .loginCanceled))
        #expect(!EnrollmentRules.staysRegistered(after: .newPoliciesReceived))
    }
}

extension EnrollmentRulesTests {
    @Test func aLoginComesBeforeTheServicesAnswer() {
        #expect(EnrollmentRules.signedInBeforeAnswer(.licensedNotTargeted))
        #expect(EnrollmentRules.signedInBeforeAnswer(.internalError))
        #expect(!EnrollmentRules.signedInBeforeAnswer(.loginCanceled))
        #expect(!EnrollmentRules.signedInBeforeAnswer(.unsupportedAPI))
        #expect(!EnrollmentRules.signedInBeforeAnswer(.mdmEnrolledDifferentUser))
        #expect(!EnrollmentRules.signedInBeforeAnswer(.singleManagedAccountMode))
    }

    /// RULES §10: the first MAM policy an app receives for an account asks it to restart; a
    /// later one (a change), a status without policy, or an extension does not.
    @Test(arguments: [
        (EnrollmentStatus.newPoliciesReceived, true, nil as String?, true, true),
        (.newPoliciesReceived, true, "policy:managed", true, false),       // it held one: a change
        (.newPoliciesReceived, false, nil, true, false),                   // no policy targets it there
        (.newPoliciesReceived, true, nil, false, false),                   // an extension
        (.policiesHaveNotChanged, true, nil, true, false),
        (.accountNotLicensed, true, nil, true, false),
        (.noPolicyReceived, false, nil, true, false),
    ])
    func theFirstPolicyRestartsTheApp(status: EnrollmentStatus, policyNow: Bool, heldBefore: String?, isApp: Bool, restarts: Bool) {
        #expect(EnrollmentRules.restartsForFirstPolicy(status: status, policyNow: policyNow, heldBefore: heldBefore, isApp: isApp) == restarts)
    }
}
