import MAMDeclarations
import MAMModel
import MAMPolicy
@testable import MAMScenario

/// The verbs' arguments written as the tables of these tests read best: one factory per verb.
extension StepArguments {
    static func launch(app: String) -> Self { Self(LaunchStep(app: app)) }
    static func kill(app: String) -> Self { Self(KillStep(app: app)) }
    static func signIn(app: String, account: Account) -> Self { Self(SignInStep(app: app, account: account)) }
    static func signOut(app: String, account: Account) -> Self { Self(SignOutStep(app: app, account: account)) }
    static func switchIdentity(app: String, account: Account, window: String?, pin: String?) -> Self {
        Self(SwitchIdentityStep(app: app, account: account, window: window, pin: pin))
    }
    static func share(from: String, to: String, item: ScenarioItem, as receiver: Account?, pin: String? = nil, window: String? = nil) -> Self {
        Self(ShareStep(from: from, to: to, item: item, as: receiver, pin: pin, window: window))
    }
    static func shareTargets(from: String, item: ScenarioItem) -> Self { Self(ShareTargetsStep(from: from, item: item)) }
    static func copy(app: String, text: String, as thread: Account? = nil, window: String? = nil) -> Self {
        Self(CopyStep(app: app, text: text, as: thread, window: window))
    }
    static func paste(app: String, as receiver: Account?, window: String? = nil) -> Self { Self(PasteStep(app: app, as: receiver, window: window)) }
    static func save(app: String, location: SaveLocation, account: Account?) -> Self { Self(SaveStep(app: app, location: location, account: account)) }
    static func open(app: String, location: OpenLocation, account: Account?, as receiver: Account?) -> Self {
        Self(OpenStep(app: app, location: location, account: account, as: receiver))
    }
    static func keychainSet(app: String, group: String, key: String, value: String) -> Self {
        Self(KeychainSetStep(app: app, group: group, key: key, value: value))
    }
    static func keychainGet(app: String, group: String, key: String, value: String?) -> Self {
        Self(KeychainGetStep(app: app, group: group, key: key, value: value))
    }
    static func print(app: String, window: String? = nil) -> Self { Self(PrintStep(app: app, window: window)) }
    static func notify(app: String, account: Account, text: String) -> Self { Self(NotifyStep(app: app, account: account, text: text)) }
    static func wipe(app: String, account: Account) -> Self { Self(WipeStep(app: app, account: account)) }
    static func setPolicy(account: Account, policy: String?) -> Self { Self(SetPolicyStep(account: account, policy: policy)) }
    static func advanceClock(by: ISODuration) -> Self { Self(AdvanceClockStep(by: by)) }
    static func expectState(app: String, _ state: StateExpectation) -> Self { Self(ExpectStateStep(app: app, state: state)) }
    static func pause(app: String) -> Self { Self(PauseStep(app: app)) }
    static func resume(app: String) -> Self { Self(ResumeStep(app: app)) }
    static func setNetwork(online: Bool) -> Self { Self(SetNetworkStep(online: online)) }
    static func setAllowedAccounts(accounts: [String]?) -> Self { Self(SetAllowedAccountsStep(accounts: accounts)) }
    static func writeFile(app: String, path: String, data: [UInt8], as thread: Account?) -> Self {
        Self(WriteFileStep(app: app, path: path, data: data, as: thread))
    }
    static func readFile(app: String, path: String) -> Self { Self(ReadFileStep(app: app, path: path)) }
    static func protect(app: String, path: String, account: Account?) -> Self { Self(ProtectStep(app: app, path: path, account: account)) }
    static func unprotect(app: String, path: String) -> Self { Self(UnprotectStep(app: app, path: path)) }
    static func protectionInfo(app: String, path: String) -> Self { Self(ProtectionInfoStep(app: app, path: path)) }
    static func openURL(from: String, url: String) -> Self { Self(OpenURLStep(from: from, url: url)) }
    static func appConfig(app: String, account: Account?, key: String, type: AppConfigValueType, query: AppConfigLookup) -> Self {
        Self(AppConfigStep(app: app, account: account, key: key, type: type, query: query))
    }
    static func setAppConfig(name: String, settings: [KeyValuePair]?) -> Self { Self(SetAppConfigStep(name: name, settings: settings)) }
    static func screenCapture(app: String, window: String?) -> Self { Self(ScreenCaptureStep(app: app, window: window)) }
    static func managedConfig(app: String, key: String?) -> Self { Self(ManagedConfigStep(app: app, key: key)) }
    static func managedSecret(app: String, kind: ManagedSecretKind, id: String) -> Self { Self(ManagedSecretStep(app: app, kind: kind, id: id)) }
    static func managedSecretIds(app: String, kind: ManagedSecretKind) -> Self { Self(ManagedSecretIdsStep(app: app, kind: kind)) }
    static func removeDeclaration(identifier: String) -> Self { Self(RemoveDeclarationStep(identifier: identifier)) }
    static func signWithIdentity(app: String, id: String, data: [UInt8]) -> Self { Self(SignWithIdentityStep(app: app, id: id, data: data)) }
    static func acquireToken(app: String, account: Account, resource: String) -> Self {
        Self(AcquireTokenStep(app: app, account: account, resource: resource))
    }
    static func remediate(app: String, account: Account, silent: Bool, userCancels: Bool) -> Self {
        Self(RemediateStep(app: app, account: account, silent: silent, userCancels: userCancels))
    }
    static func setConditionalAccess(policy: String, state: ConditionalAccessPolicy.State) -> Self {
        Self(SetConditionalAccessStep(policy: policy, state: state))
    }
}

extension Verb {
    static let signIn = Verb(rawValue: "signIn")!
    static let switchIdentity = Verb(rawValue: "switchIdentity")!
    static let share = Verb(rawValue: "share")!
}
