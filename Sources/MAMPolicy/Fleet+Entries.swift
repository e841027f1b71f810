public import MAMModel

/// One account of the fleet with the policy that targets it (if any), plus the phrase the
/// explanations start with, composed once so decisions do not rebuild it.
///
/// A class, so a lookup hands out one reference instead of copying a policy of a hundred
/// fields; the settings a transfer decision reads are copied out flat for the same reason.
public final class AccountEntry: Sendable {
    public let account: Account
    /// `nil` ⇒ the account is unmanaged.
    public let policy: IosManagedAppProtection?
    package let isManaged: Bool
    /// `alice@contoso.com's policy "Contoso strict"`.
    let subject: String
    private let _outbound: DataTransferLevel
    private let _inbound: DataTransferLevel
    private let _osSharing: Bool
    private let _incomingOrgData: Bool
    private let _appSet: Set<BundleID>
    // Lent, not copied: a copy of a set is a retain and a release on each decision's lookup.
    package var appSet: Set<BundleID> {
        _read {
            if policyReadsRecording { PolicyReads.note(.appSet) }
            yield _appSet
        }
    }
    private let _appsListed: Bool
    private let _groupType: TargetedAppGroupType
    var groupType: TargetedAppGroupType { read(.appGroupType, _groupType) }
    private let _exemptKeys: Set<String>
    /// `targetedAppManagementLevels`: whether the policy targets every device type
    /// (`unspecified`, or none set), else whether it reaches apps on unmanaged devices and apps
    /// managed by MDM. Plain flags: each policy lookup of a decision reads them.
    private let _targetsEveryDeviceType: Bool
    private let _targetsUnmanaged: Bool
    private let _targetsMDM: Bool
    /// The entries of the account's other policies, when more than one applies to it (each to
    /// the apps it targets; `mamsim whatif` resolves which). An app one of them targets is
    /// policy-managed for the account, whichever policy's data is being judged; on the first
    /// entry, the one lookups find, they are also where the policy of another app is found.
    let siblings: [AccountEntry]

    package convenience init(account: Account, policy: IosManagedAppProtection?) {
        self.init(account: account, policy: policy, siblings: [])
    }

    /// The entry of `policies[0]`, with the others' entries as its siblings.
    convenience init(account: Account, policies: [IosManagedAppProtection]) {
        guard policies.count > 1 else {
            self.init(account: account, policy: policies.first)
            return
        }
        // The others' own siblings only need targeting: plain entries of the rest.
        let plain = policies.map { AccountEntry(account: account, policy: $0) }
        let others = policies.indices.dropFirst().map { i in
            AccountEntry(account: account, policy: policies[i], siblings: plain.indices.filter { $0 != i }.map { plain[$0] })
        }
        self.init(account: account, policy: policies[0], siblings: others)
    }

    private init(account: Account, policy: IosManagedAppProtection?, siblings: [AccountEntry]) {
        self.siblings = siblings
        self.account = account
        self.policy = policy
        self.isManaged = policy != nil
        self.subject = "\(account)'s policy \"\(policy?.title ?? "")\""
        self._outbound = policy?.allowedOutboundDataTransferDestinations ?? .allApps
        self._inbound = policy?.allowedInboundDataTransferSources ?? .allApps
        self._osSharing = policy?.disableProtectionOfManagedOutboundOpenInData ?? false
        self._incomingOrgData = policy?.protectInboundDataFromUnknownSources ?? false
        self._appSet = policy?.appSet ?? []
        self._appsListed = policy?.appsListed ?? false
        self._groupType = policy?.appGroupType ?? .selectedPublicApps
        self._exemptKeys = policy?.exemptSchemeKeys ?? []
        let levels = Set((policy?.targetedAppManagementLevels ?? "").split(separator: ",").map { $0.filter { $0 != " " }.lowercased() })
        self._targetsEveryDeviceType = levels.isEmpty || levels.contains("unspecified")
        self._targetsUnmanaged = levels.contains("unmanaged")
        self._targetsMDM = levels.contains("mdm")
    }

    /// The outbound table's settings, read together: one read of both for a decision.
    var outboundSettings: (level: DataTransferLevel, osSharing: Bool) {
        if policyReadsRecording { PolicyReads.note(Self.outboundFields) }
        return (_outbound, _osSharing)
    }
    static let outboundFields = PolicyFields([.allowedOutboundDataTransferDestinations, .disableProtectionOfManagedOutboundOpenInData])

    /// The inbound table's settings, read together.
    var inboundSettings: (level: DataTransferLevel, incomingOrgData: Bool) {
        if policyReadsRecording { PolicyReads.note(Self.inboundFields) }
        return (_inbound, _incomingOrgData)
    }
    static let inboundFields = PolicyFields([.allowedInboundDataTransferSources, .protectInboundDataFromUnknownSources])

    /// Whether the policy's app list and device types take `app` (`Fleet.targets`), read from
    /// the copies without saying so: `Fleet` records the read of `targetingFields` itself,
    /// once per question, where a decision asks it.
    @inline(__always)
    func takes(_ app: AppEntry) -> Bool {
        Fleet.targets(groupType: _groupType, apps: _appSet, listed: _appsListed, app) && reachesUnrecorded(app)
    }
    static let targetingFields = PolicyFields([.appSet, .appsListed, .appGroupType, .targetedAppManagementLevels])

    /// `targetedAppManagementLevels` (Intune's "Target to apps on all device types"): a policy
    /// for apps on unmanaged devices does not reach an app on an MDM-enrolled device or one
    /// MDM manages, and a policy for MDM-managed apps reaches only those.
    func reaches(deviceTypeOf app: AppEntry) -> Bool {
        if policyReadsRecording { PolicyReads.note(.targetedAppManagementLevels) }
        return reachesUnrecorded(app)
    }

    @inline(__always)
    private func reachesUnrecorded(_ app: AppEntry) -> Bool {
        _targetsEveryDeviceType || (app.mdmManaged ? _targetsMDM : _targetsUnmanaged)
    }

    /// A setting copied out of the policy, read as the policy's own (`PolicyReads`).
    @inline(__always) private func read<T>(_ field: PolicyField, _ value: T) -> T {
        if policyReadsRecording { PolicyReads.note(field) }
        return value
    }

    func isExempt(_ app: AppEntry) -> Bool {
        if policyReadsRecording { PolicyReads.note(.exemptSchemeKeys) }
        for key in app.app.schemeKeys where _exemptKeys.contains(key) { return true }
        return false
    }
}

/// One installed app or extension, with what decides whether a policy manages it resolved
/// when the fleet changes (an extension is managed iff its containing app is).
public final class AppEntry: Sendable {
    public let app: AppDescriptor
    /// The bundle a policy's app list must name: the containing app's for an extension.
    package let managementBundle: BundleID
    /// Whether that app integrates the SDK.
    package let managementSDK: Bool
    /// Whether that app is one of Microsoft's core apps / one of Microsoft's apps, for a
    /// policy's `appGroupType` (RULES.md §1).
    package let microsoftCore: Bool
    package let microsoft: Bool
    /// Whether that app is managed by MDM and given IntuneMAMUPN (`apps[].mdmManaged`,
    /// `apps[].intuneMAMUPN`), for `targetedAppManagementLevels`: the SDK knows the device's
    /// management by that configuration.
    package let mdmManaged: Bool

    init(app: AppDescriptor, container: AppDescriptor?) {
        self.app = app
        let subject = app.isExtension ? (container ?? app) : app
        self.managementBundle = subject.bundleID
        self.managementSDK = subject.sdkIntegrated
        self.microsoftCore = MicrosoftApps.isCore(subject)
        self.microsoft = MicrosoftApps.isMicrosoft(subject)
        self.mdmManaged = subject.carriesIntuneMAMUPN
    }

    var bundleID: BundleID { app.bundleID }
}
