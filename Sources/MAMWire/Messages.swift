public import MAMModel

/// One message between the host and a child: the Swift face of `mamsim.v2.Frame`.
///
/// `seq` numbers a sender's frames from 1; `replyTo` names the frame a reply answers (0 = none).
public struct Frame: Sendable, Hashable {
    public var seq: UInt64
    public var replyTo: UInt64
    public var body: Body

    public init(seq: UInt64, replyTo: UInt64 = 0, body: Body) {
        self.seq = seq
        self.replyTo = replyTo
        self.body = body
    }

    public enum Body: Sendable, Hashable {
        case hello(Hello)
        case welcome(Welcome)
        case bye(reason: String)
        case ping([UInt8])
        case error(code: Reason, message: String)
        case shareRequest(ShareRequest)
        case shareResult(ShareOutcome)
        case deliver(Deliver)
        case deliverAck(DeliverAck)
        case setIdentity(SetIdentity)
        case identityResult(IdentityResult)
        case getIdentity(window: String)
        case identityInfo(IdentityInfo)
        case command(Command)
        case commandResult(CommandResult)
        /// A service call and where it is made from.
        case serviceRequest(ServiceRequest, ServiceContext = .main)
        case serviceResult(ServiceResult)
        /// The launch work announced in `Hello.finishesLaunching` is done.
        case launchFinished
        /// Several shares in one frame (see `BatchedShare`).
        case shareBatch([BatchedShare])
        /// Cumulative answers to batched shares.
        case shareResults(ShareResults)
        /// Several deliveries to one destination in one frame.
        case deliverBatch([BatchedDelivery])
        /// Cumulative acknowledgements of batched deliveries.
        case deliverAcks(DeliverAcks)

        /// The wire name of the body, for logs and errors.
        public var name: String {
            switch self {
            case .hello: "hello"
            case .launchFinished: "launch_finished"
            case .shareBatch: "share_batch"
            case .shareResults: "share_results"
            case .deliverBatch: "deliver_batch"
            case .deliverAcks: "deliver_acks"
            case .welcome: "welcome"
            case .bye: "bye"
            case .ping: "ping"
            case .error: "error"
            case .shareRequest: "share_request"
            case .shareResult: "share_result"
            case .deliver: "deliver"
            case .deliverAck: "deliver_ack"
            case .setIdentity: "set_identity"
            case .identityResult: "identity_result"
            case .getIdentity: "get_identity"
            case .identityInfo: "identity_info"
            case .command: "command"
            case .commandResult: "command_result"
            case .serviceRequest: "service_request"
            case .serviceResult: "service_result"
            }
        }
    }
}

/// The kind of a child process, as the host assigned it at spawn.
public enum ChildKind: Sendable, Hashable {
    case app, shareExtension, actionExtension
}

/// The first frame a child sends.
public struct Hello: Sendable, Hashable {
    public static let currentProtocolVersion: UInt32 = 2
    public var protocolVersion: UInt32
    public var pid: Int32
    public var runtime: String
    /// The app will send `launchFinished` when its launch work is done.
    public var finishesLaunching: Bool
    /// The child takes `deliverBatch` (answering with `deliverAcks`) and may send `shareBatch`.
    public var batches: Bool
    public init(protocolVersion: UInt32 = Hello.currentProtocolVersion, pid: Int32, runtime: String, finishesLaunching: Bool = false,
                batches: Bool = false) {
        self.protocolVersion = protocolVersion
        self.pid = pid
        self.runtime = runtime
        self.finishesLaunching = finishesLaunching
        self.batches = batches
    }
}

/// The host's answer to `Hello`: who the child is. A child never chooses its own identity.
public struct Welcome: Sendable, Hashable {
    public var bundleID: BundleID
    public var kind: ChildKind
    public var appHandle: String
    public var processIdentity: String
    public var maxFrameSize: UInt32
    /// The host takes `shareBatch` frames.
    public var batches: Bool
    public init(bundleID: BundleID, kind: ChildKind, appHandle: String, processIdentity: String, maxFrameSize: UInt32, batches: Bool = false) {
        self.bundleID = bundleID
        self.kind = kind
        self.appHandle = appHandle
        self.processIdentity = processIdentity
        self.maxFrameSize = maxFrameSize
        self.batches = batches
    }
}

// MARK: - Batches

/// One share of a `shareBatch`, numbered from the sender's sequence as if sent alone.
public struct BatchedShare: Sendable, Hashable {
    public var seq: UInt64
    public var request: ShareRequest
    public init(seq: UInt64, request: ShareRequest) {
        self.seq = seq
        self.request = request
    }
}

/// Answers to batched shares: every batched share with seq in `first...last` was delivered,
/// except those in `exceptions`, whose answer is given there.
public struct ShareResults: Sendable, Hashable {
    public var first: UInt64
    public var last: UInt64
    public var exceptions: [ShareException]
    public init(first: UInt64, last: UInt64, exceptions: [ShareException] = []) {
        self.first = first
        self.last = last
        self.exceptions = exceptions
    }
}

public struct ShareException: Sendable, Hashable {
    public var seq: UInt64
    public var outcome: ShareOutcome
    public init(seq: UInt64, outcome: ShareOutcome) {
        self.seq = seq
        self.outcome = outcome
    }
}

/// One delivery of a `deliverBatch`, numbered from the host's sequence as if sent alone.
public struct BatchedDelivery: Sendable, Hashable {
    public var seq: UInt64
    public var deliver: Deliver
    public init(seq: UInt64, deliver: Deliver) {
        self.seq = seq
        self.deliver = deliver
    }
}

/// Acknowledgements of batched deliveries: every batched delivery with seq in `first...last`
/// was accepted, except those in `declined`.
public struct DeliverAcks: Sendable, Hashable {
    public var first: UInt64
    public var last: UInt64
    public var declined: [UInt64]
    public init(first: UInt64, last: UInt64, declined: [UInt64] = []) {
        self.first = first
        self.last = last
        self.declined = declined
    }
}

/// Splits items into consecutive batches of at most `maximumCount` items and about
/// `maximumBytes` (an item heavier than that travels alone): a batch must stay far below the
/// peer's maximum frame size, however large the items, and small enough that the peer starts
/// on it while the next one is encoded.
@inlinable
public func batchRanges<T>(_ items: [T], maximumCount: Int = 16, maximumBytes: Int = 256 << 10, weight: (T) -> Int) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    var start = 0
    var bytes = 0
    for (i, item) in items.enumerated() {
        let w = weight(item)
        if i > start, i - start >= maximumCount || bytes + w > maximumBytes {
            ranges.append(start..<i)
            start = i
            bytes = 0
        }
        bytes += w
    }
    if start < items.count { ranges.append(start..<items.count) }
    return ranges
}

extension Item {
    /// About how many bytes the item takes in a frame (for batching, not for limits).
    public var approximateWireSize: Int {
        let payloadSize = switch payload {
        case .inline(let bytes): bytes.count
        case .file(let path): path.utf8.count
        }
        return payloadSize + id.utf8.count + fileName.utf8.count + typeIdentifiers.reduce(0) { $0 + $1.utf8.count + 2 } + 96
    }
}

/// The seqs to look up when a cumulative range `range` is answered against `outstanding`
/// (what is waiting, by seq) and `alsoWaiting` (other seqs the caller also looks for, such as
/// deliveries answered after their deadline): the range itself when it is short next to what
/// is waiting, else the waiting seqs inside it, in order — a range as long as 2^64 costs what
/// is waiting, not its length.
@inlinable
public func seqs<Value>(
    in range: ClosedRange<UInt64>, among outstanding: [UInt64: Value], alsoWaiting: RecentSet<UInt64>? = nil
) -> [UInt64] {
    let waiting = outstanding.count + (alsoWaiting?.count ?? 0)
    if range.upperBound - range.lowerBound < UInt64(waiting) * 2 + 64 { return Array(range) }
    var inside = outstanding.keys.filter { range.contains($0) }
    if let alsoWaiting { inside += alsoWaiting.elements.filter { range.contains($0) } }
    return inside.sorted()
}

/// Folds answers into cumulative ranges: `answered` (seq → answer, any order) become runs of
/// consecutive answered seqs with no seq of `inFlight` between them (a range must never cover
/// an item still unanswered). Seqs not in either set inside a run are other frames, which a
/// range may span; a gap wider than `maximumGap` starts a new run, so the check stays cheap
/// whatever the numbering.
@inlinable
public func cumulativeRuns<Answer>(_ answered: [(UInt64, Answer)], inFlight: Set<UInt64>, maximumGap: UInt64 = 64)
    -> [(first: UInt64, last: UInt64, answers: [(UInt64, Answer)])] {
    let sorted = answered.sorted { $0.0 < $1.0 }
    var runs: [(first: UInt64, last: UInt64, answers: [(UInt64, Answer)])] = []
    for entry in sorted {
        if let i = runs.indices.last, entry.0 > runs[i].last, entry.0 - runs[i].last <= maximumGap,
           !(runs[i].last + 1..<entry.0).contains(where: { inFlight.contains($0) }) {
            runs[i].last = entry.0
            runs[i].answers.append(entry)
        } else {
            runs.append((entry.0, entry.0, [entry]))
        }
    }
    return runs
}

/// The host's answer to a question it decides (a service): allowed, blocked by a rule, or
/// failed because it could not be done. A share's answer is a `ShareOutcome`.
public enum Verdict: Sendable, Hashable, CustomStringConvertible {
    case allowed(String)
    case blocked(Reason, String)
    case failed(Reason, String)

    public init(_ decision: Decision) {
        self = decision.blockedBy.map { .blocked($0, decision.explanation) } ?? .allowed(decision.explanation)
    }

    public var isAllowed: Bool { if case .allowed = self { true } else { false } }

    public var reason: Reason? {
        switch self {
        case .allowed: nil
        case .blocked(let r, _), .failed(let r, _): r
        }
    }

    public var explanation: String {
        switch self {
        case .allowed(let e), .blocked(_, let e), .failed(_, let e): e
        }
    }

    public var description: String {
        switch self {
        case .allowed(let e): "allowed: \(e)"
        case .blocked(let r, let e): "blocked (\(r)): \(e)"
        case .failed(let r, let e): "failed (\(r)): \(e)"
        }
    }
}

// MARK: - Sharing

/// A child asks the broker to share an item with another app or extension.
public struct ShareRequest: Sendable, Hashable {
    /// An app handle or bundle id.
    public var destination: String
    public var item: Item
    /// The sender's effective identity; `""` = unmanaged.
    public var identity: String
    /// The receiving account in a multi-identity destination; `""` = its current identity.
    public var receiveAs: String
    public init(destination: String, item: Item, identity: String, receiveAs: String = "") {
        self.destination = destination
        self.item = item
        self.identity = identity
        self.receiveAs = receiveAs
    }
}

/// The host hands an item to a destination.
public struct Deliver: Sendable, Hashable {
    public var item: Item
    public var senderBundleID: BundleID
    public var receivedAs: String
    public init(item: Item, senderBundleID: BundleID, receivedAs: String) {
        self.item = item
        self.senderBundleID = senderBundleID
        self.receivedAs = receivedAs
    }
}

public struct DeliverAck: Sendable, Hashable {
    public var itemID: String
    public var accepted: Bool
    public init(itemID: String, accepted: Bool) {
        self.itemID = itemID
        self.accepted = accepted
    }
}

// MARK: - Identities

public struct SetIdentity: Sendable, Hashable {
    public enum Scope: Sendable, Hashable { case process, ui }
    public var scope: Scope
    public var window: String
    /// `""` = unmanaged.
    public var account: String
    public init(scope: Scope, window: String = "", account: String) {
        self.scope = scope
        self.window = window
        self.account = account
    }
}

/// Result of an identity switch (RULES.md §8): `IntuneMAMSwitchIdentityResult`.
public struct IdentityResult: Sendable, Hashable {
    public enum Status: Sendable, Hashable { case success, canceled, notAllowed, failed }
    public var status: Status
    public var reason: Reason?
    public var explanation: String
    public var account: String
    public init(status: Status, reason: Reason? = nil, explanation: String = "", account: String = "") {
        self.status = status
        self.reason = reason
        self.explanation = explanation
        self.account = account
    }
}

public struct IdentityInfo: Sendable, Hashable {
    public var processIdentity: String
    public var uiIdentity: String
    public var signedIn: [String]
    public init(processIdentity: String, uiIdentity: String, signedIn: [String]) {
        self.processIdentity = processIdentity
        self.uiIdentity = uiIdentity
        self.signedIn = signedIn
    }
}

// MARK: - Commands (host → child)

/// What the host asks of an app's own process: an action the app performs itself (share,
/// identity switch) or an SDK delegate callback it answers. Each has one `CommandResult` case.
public enum Command: Sendable, Hashable {
    /// Share as the app would; answered with `.share(outcome)`.
    case share(ShareRequest)
    /// Switch identity as the app would; answered with `.setIdentity(result)`.
    case setIdentity(SetIdentity)
    /// `addIdentity`: may the SDK add this account? Answered with `.addIdentity(added:)`.
    case addIdentity(account: String)
    /// `wipeDataForAccountId`; answered with `.wipeAccountData(wiped:)` (false: the device
    /// deletes what the account owns).
    case wipeAccountData(account: String)
    /// `allowedAccountsDidChange` (`nil` = no list targeted); answered with `.acknowledged`.
    case allowedAccountsChanged(allowed: [String]?)
    /// `identitySwitchRequired`: show `account` (`""` = unmanaged) to receive an item.
    case identitySwitchRequired(account: String, reason: String)
    /// Benchmark load; answered with `.flood`.
    case flood(Flood)
    /// What the app's process remembers receiving; answered with `.received`.
    case listReceived
    /// Exit at once with this status (a scripted crash); never answered.
    case exit(status: Int32)
    /// An SDK notification the app observes; answered with `.notified`.
    case notification(SDKNotification)

    public var name: String {
        switch self {
        case .share: "share"
        case .setIdentity: "set_identity"
        case .addIdentity: "add_identity"
        case .wipeAccountData: "wipe_account_data"
        case .allowedAccountsChanged: "allowed_accounts_changed"
        case .identitySwitchRequired: "identity_switch_required"
        case .flood: "flood"
        case .listReceived: "list_received"
        case .exit: "exit"
        case .notification: "notification"
        }
    }
}

/// An Intune SDK or ManagedApp notification (SCENARIOS.md v1.1 `expectState.notifications`
/// names them by `rawValue`).
public struct SDKNotification: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case policyChanged, appConfigChanged, managedConfigChanged, restartApplication, complianceStatus
    }

    public var kind: Kind
    /// The account it concerns; `""` = the app as a whole.
    public var account: String
    public var detail: String

    public init(kind: Kind, account: String = "", detail: String = "") {
        self.kind = kind
        self.account = account
        self.detail = detail
    }
}

public struct Flood: Sendable, Hashable {
    public var destination: String
    public var count: UInt64
    public var size: UInt32
    public var window: UInt32
    public var identity: String
    public init(destination: String, count: UInt64, size: UInt32 = 1024, window: UInt32 = 256, identity: String = "") {
        self.destination = destination
        self.count = count
        self.size = size
        self.window = window
        self.identity = identity
    }
}

/// The answer to a `Command`, one case per command, or `error` when the app cannot do it.
public enum CommandResult: Sendable, Hashable {
    case share(ShareOutcome)
    case setIdentity(IdentityResult)
    case addIdentity(added: Bool)
    case wipeAccountData(wiped: Bool)
    case acknowledged
    case identitySwitchRequired(accepted: Bool)
    case flood(delivered: UInt64, firstProblem: ShareOutcome?)
    case received([ReceivedEntry])
    /// The app saw an SDK notification.
    case notified
    case error(Reason, String)

    /// Does this result answer `command`? A mismatched answer is a protocol error.
    public func answers(_ command: Command) -> Bool {
        switch (self, command) {
        case (.error, _), (.share, .share), (.setIdentity, .setIdentity), (.addIdentity, .addIdentity),
             (.wipeAccountData, .wipeAccountData), (.acknowledged, .allowedAccountsChanged),
             (.identitySwitchRequired, .identitySwitchRequired), (.flood, .flood), (.received, .listReceived),
             (.notified, .notification):
            true
        default:
            false
        }
    }

    public var name: String {
        switch self {
        case .share: "share"
        case .setIdentity: "set_identity"
        case .addIdentity: "add_identity"
        case .wipeAccountData: "wipe_account_data"
        case .acknowledged: "allowed_accounts_changed"
        case .identitySwitchRequired: "identity_switch_required"
        case .flood: "flood"
        case .received: "list_received"
        case .notified: "notification"
        case .error: "error"
        }
    }
}

/// One item an app's process remembers receiving.
public struct ReceivedEntry: Sendable, Hashable {
    public var itemID: String
    /// `""` = personal data.
    public var owner: String
    public init(itemID: String, owner: String) {
        self.itemID = itemID
        self.owner = owner
    }
}

// MARK: - Services (child → host)

/// A service of the OS or the Intune SDK that a child asks of the host. Owners and receivers
/// are `nil` for "the app's own effective identity" and `""` for unmanaged.
public enum ServiceRequest: Sendable, Hashable {
    /// Writes a file in the app's containers (`Documents/x`, `group:<id>/x`); answered with `.file`.
    case writeFile(path: String, data: [UInt8], owner: String?)
    /// Answered with `.data`.
    case readFile(path: String)
    /// Answered with `.file`.
    case fileOwner(path: String)
    /// `IntuneMAMDataProtectionManager protect`; answered with `.data`.
    case protect(data: [UInt8], owner: String?)
    /// Answered with `.data` (unprotected data comes back unchanged).
    case unprotect(data: [UInt8])
    /// Answered with `.protection`.
    case protectionInfo(data: [UInt8])
    /// `""` group = the app's default access group; answered with `.keychain`.
    case keychainSet(group: String, key: String, value: [UInt8])
    case keychainGet(group: String, key: String)
    case copy(text: String)
    /// Answered with `.paste` (the placeholder when blocked).
    case paste(as: String?)
    case canSave(SaveLocation, account: String)
    case canOpen(OpenLocation, account: String, as: String?)
    case print
    /// Answered with `.notification` (the text shown).
    case notify(account: String, text: String)
    /// Answered with `.shareTargets` (handles).
    case shareTargets(types: [String])
    /// `appConfigForAccountId` (`nil` = the app's current identity); answered with `.appConfig`.
    case appConfig(account: String?)
    /// `isScreenCaptureAllowed` for the call's window; the verdict answers.
    case screenCapture
    /// `ManagedAppConfigurationProvider`: answered with `.data` (a property list) or `.none`.
    case managedConfig
    /// A password, certificate or identity by id; answered with `.managedSecret`.
    case managedSecret(kind: ManagedSecretKind, id: String)
    /// The provisioned ids of a kind; answered with `.strings`.
    case managedSecretIds(kind: ManagedSecretKind)
    /// Signs `data` with the identity `id` (its key stays in the host); answered with `.data`.
    case signWithIdentity(id: String, data: [UInt8])
    /// A token from the device's Entra service; answered with `.token` (the JWT, or the
    /// homeAccountId with a `protection-policy-required` verdict).
    case acquireToken(account: String, resource: String, silent: Bool)
    /// `remediateCompliance`: answered at once; the outcome comes as a `complianceStatus`
    /// notification.
    case remediateCompliance(account: String, silent: Bool)

    public var name: String {
        switch self {
        case .writeFile: "write_file"
        case .readFile: "read_file"
        case .fileOwner: "file_owner"
        case .protect: "protect"
        case .unprotect: "unprotect"
        case .protectionInfo: "protection_info"
        case .keychainSet: "keychain_set"
        case .keychainGet: "keychain_get"
        case .copy: "copy"
        case .paste: "paste"
        case .canSave: "can_save"
        case .canOpen: "can_open"
        case .print: "print"
        case .notify: "notify"
        case .shareTargets: "share_targets"
        case .appConfig: "app_config"
        case .screenCapture: "screen_capture"
        case .managedConfig: "managed_config"
        case .managedSecret: "managed_secret"
        case .managedSecretIds: "managed_secret_ids"
        case .signWithIdentity: "sign_with_identity"
        case .acquireToken: "acquire_token"
        case .remediateCompliance: "remediate_compliance"
        }
    }
}

/// The host's answer to a `ServiceRequest`: its verdict and the typed value it returns.
public struct ServiceResult: Sendable, Hashable {
    public var verdict: Verdict
    public var value: ServiceValue

    public init(_ verdict: Verdict, _ value: ServiceValue = .none) {
        self.verdict = verdict
        self.value = value
    }

    public var isAllowed: Bool { verdict.isAllowed }

    /// The bytes of `.data` (and a keychain value), else empty.
    public var data: [UInt8] {
        switch value {
        case .data(let d): d
        case .keychain(_, _, let v): v
        default: []
        }
    }
}

/// What the data protection header says of some data.
public struct ProtectionSummary: Sendable, Hashable {
    public var owner: String
    public var encrypted: Bool
    public init(owner: String, encrypted: Bool) {
        self.owner = owner
        self.encrypted = encrypted
    }
}

public enum ServiceValue: Sendable, Hashable {
    case none
    /// A file's owner (`""` = personal) and whether it is encrypted at rest.
    case file(owner: String, encrypted: Bool)
    case data([UInt8])
    /// `nil`: the data carries no protection header.
    case protection(ProtectionSummary?)
    case keychain(status: KeychainStatus, group: String, value: [UInt8])
    case paste(text: String)
    case notification(shown: String)
    case shareTargets([String])
    /// The configuration's dictionaries (`AppConfig.fullData`).
    case appConfig([[String: String]])
    case managedSecret(ManagedSecretValue)
    case strings([String])
    case token(jwt: String, homeAccountID: String)
}

/// A ManagedApp secret as an app receives it: an identity comes as its certificate only.
public enum ManagedSecretValue: Sendable, Hashable {
    case password(userName: String, password: String)
    /// DER.
    case certificate([UInt8])
    /// The identity's certificate (DER); the key stays in the host.
    case identity(certificate: [UInt8])
}

/// Where an app makes a service call from (RULES.md §1): the window (scene) a UI call is for
/// and the thread identity in effect.
public struct ServiceContext: Sendable, Hashable {
    /// `""` = the main window.
    public var window: String
    /// `nil` = no thread identity set; `""` = the unmanaged identity.
    public var thread: String?

    public init(window: String = "", thread: String? = nil) {
        self.window = window
        self.thread = thread
    }

    /// The main window, no thread identity.
    public static let main = ServiceContext()
}
