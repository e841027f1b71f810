import MAMModel
import MAMPolicy
import Testing

/// `policyQuery`: the feature switches of `IntuneMAMPolicy` (seed 000; the SDK header), one row
/// per setting and policy value, for the managed identity in a targeted app; unmanaged data and
/// untargeted apps are never restricted.
@Suite("Feature switches (policyQuery)")
struct PolicyQueryTests {
    typealias W = World

    struct Row: Sendable, CustomTestStringConvertible {
        let setting: PolicySetting
        let change: @Sendable (inout IosManagedAppProtection) -> Void
        let restricted: Bool
        let why: String
        var testDescription: String { "\(setting.rawValue): \(why) → \(restricted ? "feature-restricted" : "allowed")" }
    }

    static let rows: [Row] = [
        Row(setting: .contactSync, change: { $0.contactSyncBlocked = false }, restricted: false, why: "contactSyncBlocked = false"),
        Row(setting: .contactSync, change: { $0.contactSyncBlocked = true }, restricted: true, why: "contactSyncBlocked = true"),
        Row(setting: .widgets, change: { $0.allowWidgetContentSync = true }, restricted: false, why: "allowWidgetContentSync = true"),
        Row(setting: .widgets, change: { _ in }, restricted: true, why: "allowWidgetContentSync = false"),
        Row(setting: .spotlight, change: { $0.allowedOutboundDataTransferDestinations = .allApps }, restricted: false, why: "allApps"),
        Row(setting: .spotlight, change: { _ in }, restricted: true, why: "managedApps"),
        Row(setting: .siriIntents, change: { $0.allowedOutboundDataTransferDestinations = .allApps }, restricted: false, why: "allApps"),
        Row(setting: .siriIntents, change: { $0.allowedOutboundDataTransferDestinations = .managedApps }, restricted: true, why: "managedApps"),
        Row(setting: .appIntents, change: { $0.allowedOutboundDataTransferDestinations = .none }, restricted: true, why: "none"),
        Row(setting: .appSharing, change: { $0.allowedOutboundDataTransferDestinations = .managedApps }, restricted: false, why: "managedApps"),
        Row(setting: .appSharing, change: { $0.allowedOutboundDataTransferDestinations = .none }, restricted: true, why: "none"),
        Row(setting: .documentPicker, change: { $0.saveAsBlocked = false }, restricted: false, why: "saveAsBlocked = false"),
        Row(setting: .documentPicker, change: { $0.saveAsBlocked = true }, restricted: true, why: "saveAsBlocked = true"),
        Row(setting: .thirdPartyKeyboards, change: { $0.thirdPartyKeyboardsBlocked = true }, restricted: true, why: "thirdPartyKeyboardsBlocked = true"),
        Row(setting: .thirdPartyKeyboards, change: { _ in }, restricted: false, why: "thirdPartyKeyboardsBlocked = false"),
        Row(setting: .backup, change: { $0.dataBackupBlocked = true }, restricted: true, why: "dataBackupBlocked = true"),
        Row(setting: .backup, change: { _ in }, restricted: false, why: "dataBackupBlocked = false"),
        Row(setting: .fileEncryption, change: { _ in }, restricted: true, why: "a managed identity's files are encrypted"),
        Row(setting: .fileProviderEncryption, change: { $0.appDataEncryptionType = .afterDeviceRestart }, restricted: true, why: "any encryption type"),
    ]

    @Test(arguments: rows)
    func theManagedIdentityInATargetedApp(_ row: Row) {
        var p = W.strictPolicy()
        row.change(&p)
        let d = Enforcer.policyQuery(row.setting, as: W.alice, app: W.mine, in: W.fleet(policy: p))
        #expect(d.blockedBy == (row.restricted ? .featureRestricted : nil), "\(d)")
        #expect(d.explanation.contains(row.setting.sdkName), "the answer names the SDK property: \(d)")
    }

    @Test(arguments: PolicySetting.allCases)
    func unmanagedDataAndUntargetedAppsAreNeverRestricted(_ setting: PolicySetting) {
        var p = W.strictPolicy()
        p.contactSyncBlocked = true
        p.dataBackupBlocked = true
        p.thirdPartyKeyboardsBlocked = true
        p.saveAsBlocked = true
        p.allowedOutboundDataTransferDestinations = .none
        p.apps = [W.outlook]
        let fleet = W.fleet(policy: p)
        #expect(Enforcer.policyQuery(setting, as: nil, app: W.outlook, in: fleet).isAllowed)
        #expect(Enforcer.policyQuery(setting, as: W.bob, app: W.outlook, in: fleet).isAllowed)
        #expect(Enforcer.policyQuery(setting, as: W.alice, app: W.mine, in: fleet).isAllowed, "mail is not among the policy's apps")
        #expect(!Enforcer.policyQuery(setting, as: W.alice, app: W.outlook, in: fleet).isAllowed, "every switch is off in Outlook")
    }

    /// RULES §7 (memdocs: third-party keyboards "affects both the organization and personal
    /// accounts"): in an app holding a managed account whose policy blocks them, keyboards are
    /// blocked for its personal account and unmanaged data too; every other switch stays open
    /// there; an app where the managed account is not signed in, or not targeted, is untouched.
    @Test(arguments: PolicySetting.allCases)
    func keyboardsAreBlockedForEveryAccountOfAnAppHoldingAManagedOne(_ setting: PolicySetting) {
        var p = W.strictPolicy()
        p.thirdPartyKeyboardsBlocked = true
        p.contactSyncBlocked = true
        let fleet = W.fleet(policy: p)
        let both = [W.alice, W.bob]
        let personal = Enforcer.policyQuery(setting, as: W.bob, app: W.mine, in: fleet, signedIn: both)
        #expect(personal.isAllowed == (setting != .thirdPartyKeyboards), "\(setting): \(personal)")
        if setting == .thirdPartyKeyboards {
            #expect(personal.explanation.contains("for every account of"), "\(personal)")
            #expect(!Enforcer.policyQuery(setting, as: nil, app: W.mine, in: fleet, signedIn: both).isAllowed)
            #expect(Enforcer.policyQuery(setting, as: W.bob, app: W.mine, in: fleet, signedIn: [W.bob]).isAllowed, "alice is not signed in there")
            var open = p
            open.thirdPartyKeyboardsBlocked = false
            #expect(Enforcer.policyQuery(setting, as: W.bob, app: W.mine, in: W.fleet(policy: open), signedIn: both).isAllowed)
        }
    }

    /// policyForAccountIds: a view of more than one account with a managed one among them gets
    /// the SDK's standard lock-down policy — every switch restricted even where the managed
    /// account's own policy allows it; one account is that account's policy; none managed,
    /// nothing restricted.
    @Test(arguments: PolicySetting.allCases)
    func aViewOfSeveralAccountsWithAManagedOneIsLockedDown(_ setting: PolicySetting) {
        var p = W.strictPolicy()
        p.allowedOutboundDataTransferDestinations = .allApps
        p.allowWidgetContentSync = true
        let fleet = W.fleet(policy: p)
        let merged = Enforcer.policyQuery(setting, accounts: [W.alice, W.bob], app: W.mine, in: fleet)
        #expect(merged.blockedBy == .featureRestricted && merged.explanation.contains("lock-down"), "\(merged)")
        #expect(Enforcer.policyQuery(setting, accounts: [W.alice], app: W.mine, in: fleet) == Enforcer.policyQuery(setting, as: W.alice, app: W.mine, in: fleet))
        #expect(Enforcer.policyQuery(setting, accounts: [W.bob, Account(upn: "")], app: W.mine, in: fleet).isAllowed)
        #expect(Enforcer.policyQuery(setting, accounts: [W.alice, W.bob], app: W.outlook, in: W.fleet(policy: { var q = p; q.apps = [W.mine]; return q }())).isAllowed,
                "an app the policy does not target: alice is unmanaged there")
    }

    /// The lock-down policy: every data restriction at its strictest, whatever the account's
    /// own policy allowed; its targeting and conditional-launch settings kept.
    @Test func theLockDownPolicyRestrictsEverythingAndKeepsTargetingAndLaunchChecks() {
        var p = W.strictPolicy()
        p.allowedOutboundDataTransferDestinations = .allApps
        p.allowedInboundDataTransferSources = .allApps
        p.allowedOutboundClipboardSharingLevel = .allApps
        p.printBlocked = false
        p.allowWidgetContentSync = true
        p.apps = [W.mine]
        p.minimumPinLength = 6
        let l = Enforcer.lockDown(p)
        #expect(l.apps == p.apps && l.appGroupType == p.appGroupType && l.minimumPinLength == 6 && l.pinRequired == p.pinRequired)
        #expect(l.allowedOutboundDataTransferDestinations == .none && l.allowedInboundDataTransferSources == .none)
        #expect(l.allowedOutboundClipboardSharingLevel == .blocked && l.printBlocked && l.saveAsBlocked && l.allowedDataStorageLocations.isEmpty)
        #expect(l.screenCaptureConfigurationState == .blocked && l.notificationRestriction == .blockOrganizationalData)
        var fleet = W.fleet(policy: p)
        #expect(Enforcer.print(as: W.alice, app: W.mine, in: fleet).isAllowed)
        fleet = fleet.lockingDown(W.alice)
        #expect(Enforcer.print(as: W.alice, app: W.mine, in: fleet).blockedBy == .printBlocked)
        #expect(fleet.isManaged(W.alice, in: W.mine), "still targeted")
        for setting in PolicySetting.allCases {
            #expect(Enforcer.policyQuery(setting, as: W.alice, app: W.mine, in: fleet).blockedBy == .featureRestricted, "\(setting)")
        }
        #expect(W.fleet(policy: p).lockingDown(W.bob).policy(for: W.bob) == nil, "an unmanaged account has nothing to lock down")
    }

    @Test func graphsWidgetSettingIsRead() throws {
        let r = try GraphPolicyImporter.importPolicies(Array(##"{"@odata.type": "#microsoft.graph.iosManagedAppProtection", "displayName": "w", "allowWidgetContentSync": true}"##.utf8), source: "w.json")
        #expect(r.policies.map(\.allowWidgetContentSync) == [true])
    }
}
