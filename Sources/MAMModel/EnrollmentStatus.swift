/// The statuses an Intune App SDK for iOS enrollment, policy or unenrollment request ends
/// with, with the SDK's integer raw values (its `IntuneMAMEnrollmentStatusCode`, SDK 21.7.1:
/// 1xx succeeded, 2xx failed). Scenario files name them in lowerCamel without the SDK's prefix
/// (SCENARIOS.md v1.3), or by number.
///
/// `origin` says how a simulated device reaches each one: from the device's and tenant's state
/// (who is licensed, targeted, enrolled, MDM-enrolled; what the app asks), only by an injected
/// service fault (`serviceFault`), or never (obsolete). docs/LIFECYCLE.md has the table with
/// the scenario that reaches each.
public enum EnrollmentStatus: UInt32, Sendable, Hashable, CaseIterable {
    case newPoliciesReceived = 100
    case policiesHaveNotChanged = 101
    case wipeReceived = 102
    case noPolicyReceived = 103
    case unenrollmentSuccess = 104
    case accountNotLicensed = 200
    case internalError = 201
    /// Obsolete in the SDK: never produced, accepted in expectations.
    case mamServiceDisabled = 202
    case authRequired = 203
    case locationServiceFailure = 204
    case enrollmentEndPointNetworkFailure = 205
    case parsingFailure = 206
    case nilAccount = 207
    case alreadyEnrolled = 208
    case notEmmAccount = 209
    case mdmEnrolledDifferentUser = 210
    case notDeviceAccount = 211
    case policyEndPointNetworkFailure = 212
    case appNotEnrolled = 213
    case notEnrolledAccount = 214
    case failedToClearMamData = 215
    case timeout = 216
    case adalInternalError = 217
    case switchExistingAccount = 218
    case loginCanceled = 219
    case policyRecordGone = 220
    case reEnrollForUnenrolledUser = 221
    case tenantMigration = 222
    case unsupportedAPI = 223
    case adalMethodUnsupported = 224
    case licensedNotTargeted = 225
    case deviceBlockedEnrollment = 226
    case singleManagedAccountMode = 227

    /// How a simulated device comes to answer a status.
    public enum Origin: String, Sendable {
        /// The device's and tenant's state, or what the app asks, produces it.
        case state
        /// Only an injected service fault produces it.
        case fault
        /// The SDK no longer produces it.
        case obsolete
    }

    public var origin: Origin {
        switch self {
        case .newPoliciesReceived, .policiesHaveNotChanged, .wipeReceived, .noPolicyReceived, .unenrollmentSuccess,
             .accountNotLicensed, .authRequired, .nilAccount, .alreadyEnrolled, .mdmEnrolledDifferentUser, .appNotEnrolled, .notEnrolledAccount, .loginCanceled, .unsupportedAPI,
             .licensedNotTargeted, .singleManagedAccountMode:
            .state
        case .mamServiceDisabled: .obsolete
        case .internalError, .locationServiceFailure, .enrollmentEndPointNetworkFailure, .parsingFailure,
             .policyEndPointNetworkFailure, .failedToClearMamData, .timeout, .adalInternalError, .policyRecordGone,
             .reEnrollForUnenrolledUser, .tenantMigration, .adalMethodUnsupported, .deviceBlockedEnrollment,
             // Another EMM's designated account, or the device's: not modelled; injected.
             .notEmmAccount, .notDeviceAccount,
             // The SDK answers a second account with 227 (issue #537): 218 is the service's.
             .switchExistingAccount:
            .fault
        }
    }

    /// 1xx: the request succeeded.
    public var didSucceed: Bool { rawValue < 200 }

    /// 209–211: the SDK asks the app to remove the account (the device or another EMM
    /// designates another one).
    public var removesAccount: Bool { (209...211).contains(rawValue) }

    /// The name scenario files use.
    public var name: String { Self.names[self]! }

    /// The name with the SDK's number, as messages and reports write it: `licensedNotTargeted (225)`.
    /// (Not `description`: the names are the cases' own, read through the default conversion.)
    public var described: String { "\(name) (\(rawValue))" }

    /// A status named in a scenario: its lowerCamel name (any case) or its number.
    public init?(named text: String) {
        if let n = UInt32(text), let s = EnrollmentStatus(rawValue: n) {
            self = s
            return
        }
        guard let s = Self.byName[text.lowercased()] else { return nil }
        self = s
    }

    private static let names: [EnrollmentStatus: String] = {
        var names: [EnrollmentStatus: String] = [:]
        // The case's own name, which scenario files use.
        for s in allCases { names[s] = "\(s)" }
        return names
    }()

    private static let byName: [String: EnrollmentStatus] = {
        var byName: [String: EnrollmentStatus] = [:]
        for s in allCases { byName[s.name.lowercased()] = s }
        return byName
    }()
}
