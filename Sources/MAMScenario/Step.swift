public import Foundation
public import MAMModel
public import MAMPolicy
public import MAMDeclarations

/// One step of a scenario: a verb with its typed arguments and, optionally, what must
/// happen. Without an expectation the outcome is recorded, not checked.
public struct Step: Sendable, Hashable {
    /// Position in `steps:`, from 0 (as in the key path `steps[3]`).
    public var index: Int
    /// The line the step starts on.
    public var line: Int
    public var name: String?
    public var arguments: StepArguments
    public var expect: ExpectedOutcome?

    public init(index: Int, line: Int, name: String?, arguments: StepArguments, expect: ExpectedOutcome?) {
        self.index = index
        self.line = line
        self.name = name
        self.arguments = arguments
        self.expect = expect
    }

    public var verb: Verb { arguments.verb }
    /// Same as `arguments`.
    public var args: StepArguments { arguments }
}

/// Every verb of SCENARIOS.md v1; raw values are the spelling in files.
public enum Verb: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case launch, kill, signIn, signOut, switchIdentity, share, shareTargets, copy, paste, save, open
    case keychainSet, keychainGet, print, notify, wipe, setPolicy, advanceClock, expectState
    // v1.1
    case pause, resume, setNetwork, setAllowedAccounts
    case writeFile, readFile, protect, unprotect, protectionInfo, openURL
    case appConfig, setAppConfig, screenCapture
    case managedConfig, managedSecret, managedSecretIds, applyDeclarations, removeDeclaration, signWithIdentity
    case acquireToken, remediate, setConditionalAccess

    public var description: String { rawValue }
}

/// A step's arguments, typed per verb. Apps and extensions are their scenario handles
/// (checked to exist); accounts are resolved to the scenario's `Account` values, with
/// `Account(upn: "")` for the unmanaged identity `""` where the contract allows it.
public enum StepArguments: Sendable, Hashable {
    case launch(app: String)
    case kill(app: String)
    case signIn(app: String, account: Account)
    case signOut(app: String, account: Account)
    case switchIdentity(app: String, account: Account, window: String?, pin: String?)
    /// `as`: the receiving account in a multi-identity destination (no automatic switch).
    /// `pin` (our extension key): what the user types if the destination must switch to a
    /// managed identity to import the item.
    /// `window` (v1.1): the sender's window the item is shared from (`nil` = the main one).
    case share(from: String, to: String, item: ScenarioItem, as: Account?, pin: String? = nil, window: String? = nil)
    case shareTargets(from: String, item: ScenarioItem)
    /// `as` (v1.1): the thread identity the copy runs under; `window`: the window it is made in.
    case copy(app: String, text: String, as: Account? = nil, window: String? = nil)
    case paste(app: String, as: Account?, window: String? = nil)
    case save(app: String, location: SaveLocation, account: Account?)
    case open(app: String, location: OpenLocation, account: Account?, as: Account?)
    case keychainSet(app: String, group: String, key: String, value: String)
    /// `value` is accepted because the contract lists `value?` for both keychain verbs; the
    /// value read is checked with `expect: {value: ...}`.
    case keychainGet(app: String, group: String, key: String, value: String?)
    case print(app: String, window: String? = nil)
    case notify(app: String, account: Account, text: String)
    case wipe(app: String, account: Account)
    /// `policy`: a scenario policy name, or `nil` to untarget the account.
    case setPolicy(account: Account, policy: String?)
    case advanceClock(by: ISODuration)
    case expectState(app: String, StateExpectation)
    case pause(app: String)
    case resume(app: String)
    case setNetwork(online: Bool)
    /// `accounts`: UPNs and OIDs of every account named; `nil` = the list is not targeted.
    case setAllowedAccounts(accounts: [String]?)
    /// `path` in the app's sandbox, or `group:<id>/<path>` in an app group; `as`: the thread
    /// identity the file is written under (absent: the app's file identity, thread ?? process).
    case writeFile(app: String, path: String, data: [UInt8], as: Account?)
    case readFile(app: String, path: String)
    /// `IntuneMAMFilePolicyManager.protect(path, account)`: `account` absent = the app's
    /// current file identity.
    case protect(app: String, path: String, account: Account?)
    case unprotect(app: String, path: String)
    case protectionInfo(app: String, path: String)
    /// The app opens `url` from the data it shows (a link, a custom scheme).
    case openURL(from: String, url: String)
    /// Reads an Intune app configuration value (`account` absent: the app's current identity).
    case appConfig(app: String, account: Account?, key: String, type: AppConfigValueType, query: AppConfigLookup)
    /// The admin changes (`settings`) or removes (`nil`) an app configuration policy.
    case setAppConfig(name: String, settings: [KeyValuePair]?)
    case screenCapture(app: String, window: String?)
    /// The ManagedApp configuration (`key`: one value of it).
    case managedConfig(app: String, key: String?)
    case managedSecret(app: String, kind: ManagedSecretKind, id: String)
    case managedSecretIds(app: String, kind: ManagedSecretKind)
    /// Declarations read from `files` when the scenario loaded, sent now.
    case applyDeclarations(files: [String], entries: [DeclarationSet.Entry])
    case removeDeclaration(identifier: String)
    case signWithIdentity(app: String, id: String, data: [UInt8])
    /// A token from the simulated Entra service (`resource`: an app id or URI; Microsoft Graph
    /// when absent).
    case acquireToken(app: String, account: Account, resource: String)
    case remediate(app: String, account: Account, silent: Bool, userCancels: Bool)
    case setConditionalAccess(policy: String, state: ConditionalAccessPolicy.State)

    public var verb: Verb {
        switch self {
        case .launch: .launch
        case .kill: .kill
        case .signIn: .signIn
        case .signOut: .signOut
        case .switchIdentity: .switchIdentity
        case .share: .share
        case .shareTargets: .shareTargets
        case .copy: .copy
        case .paste: .paste
        case .save: .save
        case .open: .open
        case .keychainSet: .keychainSet
        case .keychainGet: .keychainGet
        case .print: .print
        case .notify: .notify
        case .wipe: .wipe
        case .setPolicy: .setPolicy
        case .advanceClock: .advanceClock
        case .expectState: .expectState
        case .pause: .pause
        case .resume: .resume
        case .setNetwork: .setNetwork
        case .setAllowedAccounts: .setAllowedAccounts
        case .writeFile: .writeFile
        case .readFile: .readFile
        case .protect: .protect
        case .unprotect: .unprotect
        case .protectionInfo: .protectionInfo
        case .openURL: .openURL
        case .appConfig: .appConfig
        case .setAppConfig: .setAppConfig
        case .screenCapture: .screenCapture
        case .managedConfig: .managedConfig
        case .managedSecret: .managedSecret
        case .managedSecretIds: .managedSecretIds
        case .applyDeclarations: .applyDeclarations
        case .removeDeclaration: .removeDeclaration
        case .signWithIdentity: .signWithIdentity
        case .acquireToken: .acquireToken
        case .remediate: .remediate
        case .setConditionalAccess: .setConditionalAccess
        }
    }
}

/// The type an `appConfig` step reads a value as (`IntuneMAMAppConfig`'s typed getters).
public enum AppConfigValueType: String, Sendable, Hashable, CaseIterable {
    case bool, number, string
}

/// How an `appConfig` step resolves several values: `value`/`any` the first, `all` every one,
/// `or`/`and` for booleans, `min`/`max` for numbers and strings.
public enum AppConfigLookup: String, Sendable, Hashable, CaseIterable {
    case value, all, any, or, and, min, max
}

/// What `expectState` checks in one app; `nil` fields are not checked.
public struct StateExpectation: Sendable, Hashable {
    /// The accounts signed in to the app (order-insensitive).
    public var signedIn: [Account]?
    /// `Account(upn: "")` expects the unmanaged identity.
    public var uiIdentity: Account?
    public var processIdentity: Account?
    /// Owner of each file by path inside the app's container (`Account(upn: "")` = personal).
    public var files: [String: Account]?
    /// The items the app (or extension) accepted, in order (an extension of v1).
    public var received: [ReceivedExpectation]?
    /// The window whose `uiIdentity` is checked (v1.1; `nil` = the main window).
    public var window: String?
    /// Files whose bytes on disk are encrypted (v1.1).
    public var encrypted: [String]?
    /// Files that must not exist (v1.1): a deleted file is absent, not owned by "".
    public var absent: [String]?
    /// Telemetry events the app sent, in this order, others allowed between (v1.1):
    /// `appLaunch`, `enrollment`, `remediation`, `wipe`, `signOut`.
    public var telemetry: [String]?
    /// Diagnostics the device reported about the app (v1.1), e.g. `remediation-loop`.
    public var diagnostics: [String]?
    /// SDK notifications the app must have received, in this order, others allowed between
    /// (v1.1): `policyChanged`, `appConfigChanged`, `managedConfigChanged`,
    /// `allowedAccountsChanged`, `wipe`, `restartApplication`, `complianceStatus`.
    public var notifications: [String]?

    /// The notification names `notifications` accepts.
    public static let notificationNames = ["policyChanged", "appConfigChanged", "managedConfigChanged", "allowedAccountsChanged",
                                           "wipe", "restartApplication", "complianceStatus"]

    public init(signedIn: [Account]? = nil, uiIdentity: Account? = nil, processIdentity: Account? = nil,
                files: [String: Account]? = nil, received: [ReceivedExpectation]? = nil,
                encrypted: [String]? = nil, absent: [String]? = nil, notifications: [String]? = nil) {
        self.signedIn = signedIn
        self.uiIdentity = uiIdentity
        self.processIdentity = processIdentity
        self.files = files
        self.received = received
        self.encrypted = encrypted
        self.absent = absent
        self.notifications = notifications
    }
}

/// What one received item must look like; absent fields are not checked.
public struct ReceivedExpectation: Sendable, Hashable {
    public var text: String?
    public var type: String?
    /// The owner the host stamped (`Account(upn: "")` = personal data).
    public var owner: Account?
    /// The sender's app id.
    public var from: String?

    public init(text: String? = nil, type: String? = nil, owner: Account? = nil, from: String? = nil) {
        self.text = text
        self.type = type
        self.owner = owner
        self.from = from
    }
}

/// The item of a `share` or `shareTargets` step.
public struct ScenarioItem: Sendable, Hashable {
    public enum Content: Sendable, Hashable {
        case text(String)
        case data([UInt8])
        /// Resolved against the scenario's folder; checked to exist.
        case file(URL)
    }

    /// The type identifier (UTI), given or inferred from the file extension.
    public var type: String
    public var content: Content

    public init(type: String, content: Content) {
        self.type = type
        self.content = content
    }

    /// The payload bytes (reading the file for `.file`).
    public func bytes() throws -> [UInt8] {
        switch content {
        case .text(let s): return Array(s.utf8)
        case .data(let d): return d
        case .file(let url): return Array(try Data(contentsOf: url))
        }
    }
}

/// What a step must produce (SCENARIOS.md, column "outcomes"). Reason codes are RULES.md §11's.
public enum ExpectedOutcome: Sendable, Hashable, CustomStringConvertible {
    case ok
    case success
    case delivered
    case allowed
    case canceled
    case notAllowed
    /// Bare `failed`: any failure.
    case failed
    case blocked(Reason)
    /// `{failed: REASON}`.
    case failedBecause(Reason)
    /// `{targets: [ids]}`: order-insensitive.
    case targets([String])
    case pasted(String)
    case value(String)
    /// `{error: -25300}`: an OSStatus.
    case error(Int)
    case shown(String)
    /// `{text: "..."}`: what `readFile` read.
    case text(String)
    /// `{owner: X}`: the owner `protectionInfo` reports (`Account(upn: "")` = unowned).
    case owner(Account)
    /// `none`: nothing to report (an unprotected file, a configuration key with no value).
    case none
    /// `{value: X}` of `appConfig`, with `conflict:` when given.
    case configValue(String, conflict: Bool?)
    /// `{values: [..]}` of `appConfig` (order-insensitive), with `conflict:` when given.
    case configValues([String], conflict: Bool?)
    /// `{config: {...}}` of `managedConfig`: the property list as canonical JSON.
    case config(String)
    /// `{password: "..."}` of `managedSecret`.
    case password(String)
    /// `{certificate: {...}}` / `{identity: {...}}`: the subject and SHA-256 fields given.
    case certificate(subject: String?, sha256: String?, identity: Bool)
    /// `{ids: [..]}`, order-insensitive.
    case ids([String])
    /// `{signature: verified}`: a signature that verifies with the identity's certificate.
    case signatureVerified
    /// `{error: invalid-identifier}`: a reason code as an error.
    case errorCode(Reason)
    /// `{token: ok}`: a token was issued.
    case token
    /// `{compliance: STATUS}` of `remediate`.
    case compliance(ComplianceStatus)

    public var description: String {
        switch self {
        case .ok: "ok"
        case .success: "success"
        case .delivered: "delivered"
        case .allowed: "allowed"
        case .canceled: "canceled"
        case .notAllowed: "notAllowed"
        case .failed: "failed"
        case .blocked(let r): "{blocked: \(r)}"
        case .failedBecause(let r): "{failed: \(r)}"
        case .targets(let ids): "{targets: [\(ids.joined(separator: ", "))]}"
        case .pasted(let t): "{pasted: \"\(t)\"}"
        case .value(let v): "{value: \"\(v)\"}"
        case .error(let n): "{error: \(n)}"
        case .shown(let t): "{shown: \"\(t)\"}"
        case .text(let t): "{text: \"\(t)\"}"
        case .owner(let a): "{owner: \"\(a.description)\"}"
        case .none: "none"
        case .configValue(let v, let c): "{value: \"\(v)\"\(c.map { ", conflict: \($0)" } ?? "")}"
        case .configValues(let v, let c): "{values: [\(v.joined(separator: ", "))]\(c.map { ", conflict: \($0)" } ?? "")}"
        case .config(let json): "{config: \(json)}"
        case .password(let p): "{password: \"\(p)\"}"
        case .certificate(let subject, let sha, let identity):
            "{\(identity ? "identity" : "certificate"): {\([subject.map { "subject: \"\($0)\"" }, sha.map { "sha256: \($0)" }].compactMap { $0 }.joined(separator: ", "))}}"
        case .ids(let ids): "{ids: [\(ids.joined(separator: ", "))]}"
        case .signatureVerified: "{signature: verified}"
        case .errorCode(let r): "{error: \(r)}"
        case .token: "{token: ok}"
        case .compliance(let s): "{compliance: \(s.rawValue)}"
        }
    }
}
