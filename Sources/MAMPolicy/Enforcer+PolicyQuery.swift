public import MAMModel

extension Enforcer {
    /// Whether `setting` lets the app use the feature with `identity`'s data: `allowed`, or
    /// `feature-restricted` naming the policy setting that decides. For the two requirements
    /// (file and file-provider encryption) `feature-restricted` means "required". Outside the
    /// policy's targeted apps, and for unmanaged data, nothing is restricted.
    ///
    /// `signedIn`: the accounts signed in to the app. Third-party keyboards, unlike every other
    /// switch, are blocked for every account of a multi-identity app that holds a managed
    /// account whose policy blocks them (memdocs: it "affects both the organization and personal
    /// accounts"; RULES.md §7).
    public static func policyQuery(_ setting: PolicySetting, as identity: Account?, app: BundleID, in fleet: Fleet,
                                   signedIn: [Account] = []) -> Verdict {
        if setting == .thirdPartyKeyboards, let sdk = fleet.app(app)?.sdkVersion,
           let unmet = SDKVersionFloors.unmet("thirdPartyKeyboardsBlocked", sdkVersion: sdk) {
            return .allowed("\(app) links Intune SDK \(sdk), older than \(unmet.floor), the first that applies thirdPartyKeyboardsBlocked (\(unmet.row.source)): third-party keyboards are not restricted")
        }
        guard let e = fleet.managedEntry(identity, in: app) else {
            if setting == .thirdPartyKeyboards, let holder = keyboardBlockingAccount(signedIn, app: app, in: fleet) {
                return .blocked(.featureRestricted, because: "\(holder.subject) blocks third-party keyboards (thirdPartyKeyboardsBlocked = true) for every account of \(app), \(identity.map { "\($0)" } ?? "personal data") too")
            }
            return .allowed("\(unmanagedReason(identity, in: app, fleet)): nothing restricts \(setting.sdkName)")
        }
        let p = e.policy!
        let word = setting == .fileEncryption || setting == .fileProviderEncryption ? "required" : "restricted"
        return restricts(setting, p)
            ? .blocked(.featureRestricted, because: "\(e.subject): \(setting.sdkName): \(word) (\(decidingValue(setting, p)))")
            : .allowed("\(e.subject): \(setting.sdkName): not \(word) (\(decidingValue(setting, p)))")
    }

    /// The SDK's standard lock-down policy for a view of several accounts with `p`'s account the
    /// managed one among them (`IntuneMAMPolicyManager.h`; the header gives no content, our
    /// reading): every data restriction at its strictest — nothing leaves or enters the view's
    /// org data, no clipboard beyond managed apps, no printing, saving, backup, contact sync,
    /// widgets, third-party keyboards or screen capture, notifications without org data, links
    /// in a managed browser — while the policy's targeting and its conditional-launch settings
    /// (the ones the account's own launch checks ran with) stay as they are.
    public static func lockDown(_ p: IosManagedAppProtection) -> IosManagedAppProtection {
        var l = p
        l.displayName = "standard lock-down policy (a view of several accounts)"
        l.allowedInboundDataTransferSources = .none
        l.allowedOutboundDataTransferDestinations = .none
        l.allowedOutboundClipboardSharingLevel = .blocked
        l.allowedOutboundClipboardSharingExceptionLength = 0
        l.exemptedAppProtocols = []
        l.exemptedUniversalLinks = []
        l.managedUniversalLinks = []
        l.dialerRestrictionLevel = .blocked
        l.protectedMessagingRedirectAppType = .blocked
        l.managedBrowserToOpenLinksRequired = true
        l.saveAsBlocked = true
        l.allowedDataStorageLocations = []
        l.blockDataIngestionIntoOrganizationDocuments = true
        l.allowedDataIngestionLocations = []
        l.printBlocked = true
        l.notificationRestriction = .blockOrganizationalData
        l.dataBackupBlocked = true
        l.contactSyncBlocked = true
        l.thirdPartyKeyboardsBlocked = true
        l.allowWidgetContentSync = false
        l.screenCaptureConfigurationState = .blocked
        l.writingToolsConfigurationState = .blocked
        l.genmojiConfigurationState = .blocked
        return l
    }

    /// `policyForAccountIds`: the feature switch for a view showing several accounts' data. More
    /// than one account, one of them managed in `app`, gives the SDK's standard lock-down
    /// policy, which reflects no account's own (`IntuneMAMPolicyManager.h`): every switch
    /// restricted, encryption required. Our reading of "lock-down": the most restrictive value
    /// of each switch. One account is `policyForAccountId`; none, or none managed, restricts
    /// nothing.
    public static func policyQuery(_ setting: PolicySetting, accounts: [Account], app: BundleID, in fleet: Fleet) -> Verdict {
        guard accounts.count > 1 else { return policyQuery(setting, as: accounts.first, app: app, in: fleet) }
        guard let first = accounts.first(where: { fleet.isManaged($0, in: app) }) else {
            return .allowed("none of \(accounts.map(\.description).joined(separator: ", ")) is managed in \(app): nothing restricts \(setting.sdkName)")
        }
        let p = lockDown(fleet.policy(for: first, in: app)!)
        let word = setting == .fileEncryption || setting == .fileProviderEncryption ? "required" : "restricted"
        let restricted = restricts(setting, p)
        let why = "a view of \(accounts.count) accounts, \(first) managed among them, has the SDK's standard lock-down policy: \(setting.sdkName): \(restricted ? word : "not \(word)") (\(decidingValue(setting, p)))"
        return restricted ? .blocked(.featureRestricted, because: why) : .allowed(why)
    }

    /// The managed account signed in to `app` whose policy blocks third-party keyboards there,
    /// if any: it blocks them for the app's every account.
    static func keyboardBlockingAccount(_ signedIn: [Account], app: BundleID, in fleet: Fleet) -> AccountEntry? {
        signedIn.lazy.compactMap { fleet.managedEntry($0, in: app) }.first { $0.policy?.thirdPartyKeyboardsBlocked == true }
    }

    /// `policyQuery`'s answer as a flag, without its explanation: the SDK getters ask it on
    /// every file write and identity change.
    static func restricts(_ setting: PolicySetting, for identity: Account?, app: BundleID, in fleet: Fleet) -> Bool {
        guard let p = fleet.managedEntry(identity, in: app)?.policy else { return false }
        return restricts(setting, p)
    }

    /// Whether `p` restricts `setting` (for the encryption requirements: requires it).
    static func restricts(_ setting: PolicySetting, _ p: IosManagedAppProtection) -> Bool {
        switch setting {
        case .contactSync: p.contactSyncBlocked
        case .widgets: !p.allowWidgetContentSync
        // Our reading: indexing org data for Spotlight and donating it to Siri or App Intents
        // hands it to the system outside the app, as the SDK's Siri comment says for outbound.
        case .spotlight, .siriIntents, .appIntents: p.allowedOutboundDataTransferDestinations != .allApps
        case .appSharing: p.allowedOutboundDataTransferDestinations == .none
        // Our reading: exporting through the document picker is saving a copy elsewhere.
        case .documentPicker: p.saveAsBlocked
        case .thirdPartyKeyboards: p.thirdPartyKeyboardsBlocked
        case .backup: p.dataBackupBlocked
        // Every managed identity's files are encrypted (appDataEncryptionType only says when).
        case .fileEncryption, .fileProviderEncryption: true
        }
    }

    /// The policy value that decides `setting`, for explanations.
    static func decidingValue(_ setting: PolicySetting, _ p: IosManagedAppProtection) -> String {
        switch setting {
        case .contactSync: "contactSyncBlocked = \(p.contactSyncBlocked)"
        case .widgets: "allowWidgetContentSync = \(p.allowWidgetContentSync)"
        case .spotlight, .siriIntents, .appIntents, .appSharing:
            "allowedOutboundDataTransferDestinations = \(p.allowedOutboundDataTransferDestinations.rawValue)"
        case .documentPicker: "saveAsBlocked = \(p.saveAsBlocked)"
        case .thirdPartyKeyboards: "thirdPartyKeyboardsBlocked = \(p.thirdPartyKeyboardsBlocked)"
        case .backup: "dataBackupBlocked = \(p.dataBackupBlocked)"
        case .fileEncryption, .fileProviderEncryption: "appDataEncryptionType = \(p.appDataEncryptionType.rawValue): org files are encrypted"
        }
    }
}
