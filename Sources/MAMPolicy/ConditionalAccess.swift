public import MAMModel

/// One Entra conditional access policy, as far as app protection is concerned (RULES.md §10,
/// Graph `conditionalAccessPolicy`).
public struct ConditionalAccessPolicy: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, CaseIterable {
        case enabled, disabled, enabledForReportingButNotEnforced
    }

    public var name: String
    /// Graph's `id`, where the document has one.
    public var id: String = ""
    public var state: State
    /// `conditions.users.includeUsers`: UPNs or OIDs, or `All`.
    public var includeUsers: [String]
    public var excludeUsers: [String]
    /// `conditions.users.includeGroups`/`excludeGroups`/`includeRoles`/`excludeRoles`: group
    /// ids and directory role template ids. Judged where the directory is known (`mamsim
    /// whatif`'s personas); a scenario's device has no directory, and its import says so.
    /// `conditions.signInRiskLevels` / `userRiskLevels` (`low`, `medium`, `high`, `none`): judged
    /// where the risk is known (a `whatif` persona's), else as if matched.
    public var signInRiskLevels: [String] = []
    public var userRiskLevels: [String] = []
    /// Conditions and controls the device cannot know (named locations, device filters,
    /// authentication strength…): judged as if matched or met, and named in reports.
    public var notSimulated: [String] = []
    public var includeGroups: [String] = []
    public var excludeGroups: [String] = []
    public var includeRoles: [String] = []
    public var excludeRoles: [String] = []
    /// `conditions.applications.includeApplications`: resource app ids, or `All`.
    public var includeApplications: [String]
    /// `conditions.applications.excludeApplications`: resource app ids (or `Office365`) the
    /// policy leaves out, whatever it includes (Graph: included "unless explicitly excluded").
    public var excludeApplications: [String] = []
    /// `grantControls.builtInControls`, e.g. `compliantApplication`, `approvedApplication`.
    public var builtInControls: [String]
    /// `grantControls.operator`: `OR` (one control suffices) or `AND` (all).
    public var requiresAll: Bool
    /// `conditions.platforms` (`conditionalAccessPlatforms`): empty = every platform. The
    /// simulated device is an iPhone (`iOS`).
    public var includePlatforms: [String] = []
    public var excludePlatforms: [String] = []
    /// `conditions.clientAppTypes`: empty or `all` = every client. An app asking through MSAL
    /// is `mobileAppsAndDesktopClients`.
    public var clientAppTypes: [String] = []
    /// `conditions.devices.deviceFilter`: judged on the device's Entra object (a persona's
    /// `device`, the simulated iPhone's facts).
    public var deviceFilter: ConditionalAccessDeviceFilter?
    /// `conditions.devices.excludeDevices` / `excludeDeviceStates` (deprecated): `Compliant`,
    /// `DomainJoined` — the device states left out.
    public var excludeDeviceStates: [String] = []
    /// The tenant the policy belongs to: `All` users means its users (the tenant's id, and the
    /// UPN domains of its users), never an account of another tenant signed in to the same app
    /// (RULES.md §10). Empty: every account (a document that says nothing of its tenant in a
    /// scenario that says nothing either).
    public var tenant: String = ""
    public var tenantDomains: Set<String> = []
    /// `conditions.locations`: named location ids (display names in a Microsoft365DSC export),
    /// `All`, `AllTrusted`. Judged by `mamsim whatif` where a persona says where it signs in.
    public var includeLocations: [String] = []
    public var excludeLocations: [String] = []
    /// `conditions.insiderRiskLevels` (`minor`, `moderate`, `elevated`).
    public var insiderRiskLevels: [String] = []
    /// `conditions.authenticationFlows.transferMethods` (`deviceCodeFlow`, `authenticationTransfer`).
    public var transferMethods: [String] = []
    /// `conditions.users.includeGuestsOrExternalUsers` / `excludeGuestsOrExternalUsers`.
    public var includeGuests: GuestSelection?
    public var excludeGuests: GuestSelection?
    /// `conditions.clientApplications`: the policy targets workload identities, not users.
    public var targetsWorkloadIdentities = false
    /// `sessionControls`, each said as the admin center names it ("sign-in frequency every 4 hours").
    public var sessionControls: [String] = []

    /// Graph `conditionalAccessGuestsOrExternalUsers`: the guest and external user types
    /// (`internalGuest`, `b2bCollaborationGuest`, `b2bCollaborationMember`, `b2bDirectConnectUser`,
    /// `otherExternalUser`, `serviceProvider`), and their tenants (`nil`: all; else the ids).
    public struct GuestSelection: Sendable, Hashable {
        public var types: Set<String>
        public var tenants: [String]?

        public init(types: some Sequence<String>, tenants: [String]? = nil) {
            self.types = Set(types.map { $0.lowercased() })
            self.tenants = tenants
        }
    }

    public init(name: String, state: State = .enabled, includeUsers: [String] = ["All"], excludeUsers: [String] = [],
                includeApplications: [String] = ["All"], builtInControls: [String] = ["compliantApplication"], requiresAll: Bool = false) {
        self.name = name
        self.state = state
        self.includeUsers = includeUsers
        self.excludeUsers = excludeUsers
        self.includeApplications = includeApplications
        self.builtInControls = builtInControls
        self.requiresAll = requiresAll
    }

    /// Whether the policy governs `account` requesting a token for `resource`. `member`: the
    /// account's groups and roles where they are known; `nil` judges users alone.
    public func applies(to account: Account, resource: String, member: DirectoryMembership? = nil, platform: String = "iOS", device: DeviceFacts? = nil) -> Bool {
        guard state == .enabled else { return false }
        return covers(account, resource: resource, member: member, platform: platform, device: device)
    }

    /// `applies` whatever the policy's state (report-only policies are listed apart). `device`:
    /// what the device conditions read; `nil` judges users, apps and platform alone.
    public func covers(_ account: Account, resource: String, member: DirectoryMembership? = nil, platform: String = "iOS", device: DeviceFacts? = nil) -> Bool {
        guard applies(toPlatform: platform), appliesToClientApps else { return false }
        if let device, !admits(device).admits { return false }
        var users = (includeUsers.contains { $0.lowercased() == "all" } && isOfTenant(account)) || includeUsers.contains { account.matches($0) }
        var excluded = excludeUsers.contains { account.matches($0) }
        if let member {
            users = users || includeGroups.contains { member.isMember(of: $0) } || includeRoles.contains { member.roles.contains($0.lowercased()) }
            excluded = excluded || excludeGroups.contains { member.isMember(of: $0) } || excludeRoles.contains { member.roles.contains($0.lowercased()) }
        }
        if let risk = member?.signInRisk, !signInRiskLevels.isEmpty, !signInRiskLevels.contains(where: { $0.lowercased() == risk }) { return false }
        if let risk = member?.userRisk, !userRiskLevels.isEmpty, !userRiskLevels.contains(where: { $0.lowercased() == risk }) { return false }
        let r = resource.lowercased()
        let apps = includeApplications.contains { $0.lowercased() == "all" } || includeApplications.contains { $0.lowercased() == r }
            || (includeApplications.contains { $0.lowercased() == "office365" } && Self.office365.contains(r))
        let appExcluded = excludeApplications.contains { $0.lowercased() == r }
            || (excludeApplications.contains { $0.lowercased() == "office365" } && Self.office365.contains(r))
        return users && !excluded && apps && !appExcluded
    }

    /// Resources `Office365` stands for in `includeApplications` (Microsoft Learn, "Conditional
    /// Access: target resources → Office 365"), those whose ids are fixed across tenants:
    /// Exchange Online, SharePoint Online, Skype for Business Online, Microsoft Teams.
    package static let office365: Set<String> = ["00000002-0000-0ff1-ce00-000000000000", "00000003-0000-0ff1-ce00-000000000000",
                                         "00000004-0000-0ff1-ce00-000000000000", "cc15fd57-2c6c-4117-a88c-83b1d56b4bbe"]

    /// Whether `account` is a user of the policy's tenant: its tenant is the policy's, or its
    /// UPN's domain is one of the tenant's.
    public func isOfTenant(_ account: Account) -> Bool {
        if tenant.isEmpty, tenantDomains.isEmpty { return true }
        if !account.tenant.isEmpty, account.tenant.lowercased() == tenant.lowercased() { return true }
        return tenantDomains.contains(Self.domain(of: account))
    }

    /// The lowercased domain of `account`'s UPN (`contoso.com`).
    public static func domain(of account: Account) -> String {
        account.upnKey.split(separator: "@").last.map(String.init) ?? ""
    }

    /// Whether the platform and client app conditions take in an iOS app asking through MSAL.
    public var appliesToThisDevice: Bool { applies(toPlatform: "iOS") && appliesToClientApps }

    /// Entra's device platform condition (Graph conditionalAccessPlatforms): no list includes
    /// every platform; `all` includes every platform, an unknown one too; an excluded platform
    /// is left out. A platform Entra cannot tell (`unknown`) is included only by `all` (or no
    /// list) and excluded by nothing but `all`: "block unknown platforms" policies include all
    /// and exclude the known ones.
    public func applies(toPlatform platform: String) -> Bool {
        func names(_ list: [String]) -> Set<String> { Set(list.map { $0.lowercased() }) }
        let include = names(includePlatforms), exclude = names(excludePlatforms), p = platform.lowercased()
        if !include.isEmpty, !include.contains("all"), !include.contains(p) { return false }
        if exclude.contains("all") || exclude.contains(p) { return false }
        return true
    }

    /// Whether the device conditions take `device` in, and why: the filter for devices, or
    /// the deprecated device states (`Compliant` excludes a device Intune marks compliant;
    /// `DomainJoined` one that is hybrid joined, which an iOS device never is).
    public func admits(_ device: DeviceFacts) -> (admits: Bool, why: String?) {
        if let deviceFilter {
            let (admits, why) = deviceFilter.admits(device)
            return (admits, why)
        }
        let states = Set(excludeDeviceStates.map { $0.lowercased() })
        if states.contains("compliant"), device.mdmEnrolled, device.compliant == true {
            return (false, "conditions.devices excludes compliant devices, and the device is compliant")
        }
        if states.contains("domainjoined"), device.entra.trustType?.lowercased() == "serverad" {
            return (false, "conditions.devices excludes hybrid joined devices, and the device is one")
        }
        return (true, nil)
    }

    /// Whether the policy's client app types take an app asking through MSAL (a mobile app).
    package var appliesToClientApps: Bool {
        let clients = Set(clientAppTypes.map { $0.lowercased() })
        return clients.isEmpty || clients.contains("all") || clients.contains("mobileappsanddesktopclients")
    }
}

/// What a token request came to (RULES.md §10).
public struct TokenDecision: Sendable, Hashable {
    public let decision: Verdict
    /// `<oid>.<tid>`, set with `protection-policy-required` so the app can remediate.
    public let homeAccountID: String?

    public init(decision: Verdict, homeAccountID: String?) {
        self.decision = decision
        self.homeAccountID = homeAccountID
    }
}

/// `IntuneMAMComplianceStatus`.
public enum ComplianceStatus: String, Sendable, Hashable, CaseIterable {
    case compliant, notCompliant, networkFailure, serviceFailure, userCancelled, interactionRequired
}

/// What a remediation came to: the status the compliance delegate is told, with the error
/// title and message an app shows, and whether the account is now enrolled in the app.
public struct RemediationOutcome: Sendable, Hashable {
    public let status: ComplianceStatus
    public let title: String
    public let message: String
    /// The account was signed in (enrolled) to the app by the remediation.
    public let enrolls: Bool

    public init(status: ComplianceStatus, title: String, message: String, enrolls: Bool) {
        self.status = status
        self.title = title
        self.message = message
        self.enrolls = enrolls
    }
}

/// What a token request knows of the device for conditional access's `compliantDevice` grant.
/// `compliant == nil` is "not said": the control is not met, and the answer says what was not
/// known. `hybridJoined`: Microsoft Entra hybrid joined (the device object's `trustType` is
/// `ServerAD`), which `domainJoinedDevice` requires; an iPhone never is.
public struct ConditionalAccessDevice: Sendable, Hashable, CustomStringConvertible {
    /// Enrolled in Intune (MDM): only an enrolled device has a compliance state.
    public var enrolled: Bool
    /// Marked compliant by Intune; `nil` when the device or persona does not say.
    public var compliant: Bool?
    public var hybridJoined = false

    public init(enrolled: Bool, compliant: Bool? = nil, hybridJoined: Bool = false) {
        self.enrolled = enrolled
        self.compliant = compliant
        self.hybridJoined = hybridJoined
    }

    public var description: String {
        enrolled ? "an enrolled device, compliance \(compliant.map { $0 ? "compliant" : "not compliant" } ?? "not stated")" : "an unenrolled device"
    }
}

/// The facts a remediation depends on.
public struct RemediationFacts: Sendable, Hashable {
    public var online: Bool
    /// Microsoft Authenticator is installed (the broker).
    public var brokerInstalled: Bool
    public var silent: Bool
    /// The user dismisses the prompt.
    public var userCancels: Bool
    /// The account is already signed in to the app (no interaction needed to enroll it).
    public var signedIn: Bool

    public init(online: Bool = true, brokerInstalled: Bool = true, silent: Bool = false, userCancels: Bool = false, signedIn: Bool = true) {
        self.online = online
        self.brokerInstalled = brokerInstalled
        self.silent = silent
        self.userCancels = userCancels
        self.signedIn = signedIn
    }
}

extension Enforcer {
    /// The MSAL client capability that says the app can handle app protection CA.
    public static let protectionCapability = "protapp"

    /// A token request by `app` for `account` to `resource` (RULES.md §10): every enabled CA
    /// policy that applies must have its grant controls met. `compliantApplication` is met
    /// when the app is compliant for the account (an SDK app the account is enrolled in, under
    /// a MAM policy that targets the app); `approvedApplication` by any SDK app. Unmet, the
    /// request fails with `protection-policy-required` (and the `homeAccountId` to remediate)
    /// when the app declares the `protapp` capability, else with `app-protection-unsupported`.
    ///
    /// The other grant controls as Entra applies them (Microsoft Learn, concept-conditional-
    /// access-grant.md): `block` is never met; `compliantDevice` only by a device known
    /// compliant (`device`; an unenrolled device has no compliance state), `domainJoinedDevice`
    /// never (an iPhone is not hybrid joined); a device control unmet, or `block`, fails with
    /// `access-blocked`, which no remediation of the app changes. `mfa`, `passwordChange` and
    /// the requirements the simulated sign-in has no methods for (authentication strength,
    /// terms of use, custom controls) are met by what the user does: the token is issued
    /// "after MFA", named, never a bare "satisfied".
    /// A policy's grant controls as this app and device meet them: those met (each said as the
    /// token's reason names it), the device controls unmet and why, and whether it blocks.
    package static func controls(of p: ConditionalAccessPolicy, app: AppDescriptor, device: ConditionalAccessDevice, compliant: Bool,
                         declaresProtapp: Bool) -> (met: [String], unmetDevice: [String], blocks: Bool) {
        var metControls: [String] = [], unmetDevice: [String] = []
        var blocks = false
        for control in p.builtInControls {
            switch control.lowercased() {
            case "block":
                blocks = true
            // Without `protapp` the app cannot take part in app protection CA: the control
            // is never met for it, whatever a remediation did (RULES.md §10).
            case "compliantapplication":
                if compliant && declaresProtapp { metControls.append("app protection (compliantApplication)") }
            case "approvedapplication":
                if app.sdkIntegrated { metControls.append("an approved client app (approvedApplication)") }
            case "compliantdevice":
                switch (device.enrolled, device.compliant) {
                case (true, true?): metControls.append("a compliant device (compliantDevice)")
                case (false, _): unmetDevice.append("compliantDevice: the device is not enrolled in Intune, so it has no compliance state")
                case (true, false?): unmetDevice.append("compliantDevice: the device is not compliant")
                case (true, nil): unmetDevice.append("compliantDevice: whether the device is compliant is not stated (say device.compliant)")
                }
            case "domainjoineddevice":
                if device.hybridJoined { metControls.append("a hybrid joined device (domainJoinedDevice)") } else {
                    unmetDevice.append("domainJoinedDevice: the device is not Microsoft Entra hybrid joined (trustType ServerAD); an iOS device never is")
                }
            case "mfa": metControls.append("after MFA (the user completes multifactor authentication)")
            case "passwordchange": metControls.append("after a password change (the user changes it)")
            default: metControls.append("after \(control) (the user meets it)")
            }
        }
        for extra in p.notSimulated where extra.hasPrefix("grantControls.") {
            metControls.append("after \(extra.dropFirst("grantControls.".count)) (the user meets it; not simulated)")
        }
        return (metControls, unmetDevice, blocks)
    }

    public static func token(for account: Account, resource: String, app: AppDescriptor, capabilities: [String],
                             compliant: Bool, policies: [ConditionalAccessPolicy], member: DirectoryMembership? = nil,
                             device: ConditionalAccessDevice? = nil, in fleet: Fleet) -> TokenDecision {
        let member = member ?? fleet.membership(of: account)
        let device = device ?? ConditionalAccessDevice(enrolled: fleet.device.mdmEnrolled, compliant: fleet.device.mdmEnrolled ? fleet.device.compliant : false)
        let applying = policies.filter { $0.applies(to: account, resource: resource, member: member, platform: fleet.device.platform, device: fleet.device) }
        let declaresProtapp = capabilities.contains { $0.lowercased() == protectionCapability }
        var grantedBy: [String] = []
        for p in applying {
            let (metControls, unmetDevice, blocks) = controls(of: p, app: app, device: device, compliant: compliant, declaresProtapp: declaresProtapp)
            if blocks {
                return TokenDecision(decision: .blocked(.accessBlocked, because: "conditional access policy \"\(p.name)\" blocks access (grantControls: block) for \(account) to \(resource): no control can satisfy it, only a change of the policy (Entra AADSTS53003)"), homeAccountID: nil)
            }
            let total = p.builtInControls.count + p.notSimulated.filter { $0.hasPrefix("grantControls.") }.count
            let satisfied = p.requiresAll ? metControls.count == total : (total == 0 || !metControls.isEmpty)
            if satisfied {
                // OR: the control the app or device meets where one does, else what the user does.
                grantedBy.append("\"\(p.name)\" granted " + (p.requiresAll ? metControls.joined(separator: " and ") : (metControls.first { !$0.hasPrefix("after ") } ?? metControls.first ?? "(no control)")))
                continue
            }
            // A device control unmet where the app's own compliance would not help: nothing the
            // app does (no remediation) changes it.
            let appControlUnmet = p.builtInControls.contains { ["compliantapplication", "approvedapplication"].contains($0.lowercased()) }
                && !metControls.contains { $0.contains("compliantApplication") || $0.contains("approvedApplication") }
            if !unmetDevice.isEmpty, p.requiresAll || !appControlUnmet {
                return TokenDecision(decision: .blocked(.accessBlocked, because: "conditional access policy \"\(p.name)\" requires \(p.builtInControls.joined(separator: p.requiresAll ? " and " : " or ")) for \(account): \(unmetDevice.joined(separator: "; "))"), homeAccountID: nil)
            }
            let controls = p.builtInControls.joined(separator: p.requiresAll ? " and " : " or ")
            guard declaresProtapp else {
                return TokenDecision(decision: .blocked(.appProtectionUnsupported, because: "conditional access policy \"\(p.name)\" requires \(controls) for \(account), and \(app.bundleID) does not declare the \(protectionCapability) client capability: it cannot be remediated; add \(protectionCapability) to the app's MSAL client capabilities"), homeAccountID: nil)
            }
            let home = "\(account.oid).\(account.tenant)"
            let named = account.oid.isEmpty || account.tenant.isEmpty ? "the account's homeAccountId (its oid.tenant id)" : "homeAccountId \(home)"
            return TokenDecision(decision: .blocked(.protectionPolicyRequired, because: "conditional access policy \"\(p.name)\" requires \(controls) for \(account); \(app.bundleID) is not compliant: call remediateCompliance for \(named)"), homeAccountID: home)
        }
        let why = applying.isEmpty ? "no conditional access policy applies" : grantedBy.joined(separator: "; ")
        return TokenDecision(decision: .allowed("token issued to \(app.bundleID) for \(account) (\(resource)): \(why)"), homeAccountID: nil)
    }

    /// `remediateCompliance(accountId:silent:)` (RULES.md §10): the status the compliance
    /// delegate receives. Offline → `networkFailure`; no broker → `serviceFailure`; a
    /// dismissed prompt → `userCancelled`; a silent call that needs the user (the account is
    /// not signed in to the app) → `interactionRequired`; no MAM policy targeting the user in
    /// this app → `notCompliant`; otherwise the account is enrolled → `compliant`.
    public static func remediate(_ account: Account, app: AppDescriptor, facts: RemediationFacts, in fleet: Fleet) -> RemediationOutcome {
        if !facts.online {
            return RemediationOutcome(status: .networkFailure, title: "No network connection",
                                      message: "Connect to the internet and try again to access your organization's data.", enrolls: false)
        }
        if !facts.brokerInstalled {
            return RemediationOutcome(status: .serviceFailure, title: "Microsoft Authenticator required",
                                      message: "Install Microsoft Authenticator to access your organization's data (broker-required).", enrolls: false)
        }
        if facts.silent, !facts.signedIn {
            return RemediationOutcome(status: .interactionRequired, title: "Sign in required",
                                      message: "Sign in to access your organization's data.", enrolls: false)
        }
        if facts.userCancels {
            return RemediationOutcome(status: .userCancelled, title: "Sign in canceled",
                                      message: "You canceled the sign-in; your organization's data is not available.", enrolls: false)
        }
        guard app.sdkIntegrated, fleet.isManaged(account), fleet.isPolicyManaged(app.bundleID, for: account) else {
            return RemediationOutcome(status: .notCompliant, title: "Access blocked",
                                      message: "Your organization requires an app protection policy for this app, and none is assigned to \(account).", enrolls: false)
        }
        return RemediationOutcome(status: .compliant, title: "", message: "", enrolls: true)
    }
}
