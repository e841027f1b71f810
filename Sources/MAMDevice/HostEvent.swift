public import MAMLoop
public import MAMModel

/// Something the host did or saw, for logs, progress displays and tests.
public enum HostEvent: Sendable, CustomStringConvertible {
    case spawned(handle: String, pid: Int32)
    case ready(handle: String, bundle: BundleID, pid: Int32)
    case exited(handle: String, pid: Int32, exit: ChildProcess.Exit, expected: Bool)
    case spawnFailed(handle: String, error: String)
    /// A share the broker decided and finished: who, what, and the one answer the sender got.
    case share(ShareRecord)
    /// An app or extension accepted an item (`HostConfiguration.reportDeliveries`).
    case received(handle: String, ReceivedItem)
    /// A child broke the protocol or lied; it was answered with an error or cut off.
    case hostile(handle: String, what: String, disconnected: Bool)
    case signedIn(handle: String, account: String)
    case signedOut(handle: String, account: String)
    /// An app's process took an SDK notification (`policyChanged`, `allowedAccountsChanged`,
    /// `wipe`, …; SCENARIOS.md v1.1 `expectState.notifications`); `account` = whom it concerns.
    case notified(handle: String, name: String, account: String)
    case note(String)
    /// What the run says in its own output, without `--verbose`: an outcome the scenario did not
    /// ask for but decided (the user it plays cancelled an app's login), with the key that
    /// changes it.
    case said(handle: String, String)
    /// A telemetry event an SDK app sent to the Intune service (`appLaunch`, `enrollment`,
    /// `remediation`, `wipe`, `signOut`); none for an app with `MAMTelemetryDisabled`.
    case telemetry(handle: String, event: String)
    /// Something the device noticed about how an app behaves, e.g. `remediation-loop`.
    case diagnostic(handle: String, name: String, detail: String)
    /// Said once as the host starts: what confines its children.
    case confinement(String)
    /// Strict Mode: an integration mistake the façade in the app saw (docs/STRICT.md).
    case strict(handle: String, StrictFindingEvent)
    /// The app's own code read these getters of `account`'s policy object ("" = the unmanaged
    /// identity's), as the façade in it said (`policy_getters_read`).
    case policyGettersRead(handle: String, getters: [PolicyGetter], account: String)
    /// The app wrote a file holding `owner`'s data (a managed account's) where the user sees
    /// its files (`Documents/`): a save the SDK's guide asks `isSaveToAllowed` before.
    case savedData(handle: String, path: String, owner: String)
    /// The app's code read these keys of `account`'s app configuration ("" = the unmanaged
    /// identity's): the app's own words, escaped where shown (`mamsim mutate`).
    case appConfigKeysRead(handle: String, keys: [String], account: String)

    public var description: String {
        switch self {
        case .spawned(let h, let pid): "spawned \(h) (pid \(pid))"
        case .ready(let h, let b, let pid): "\(h) ready as \(b) (pid \(pid))"
        case .exited(let h, let pid, let exit, let expected): "\(h) (pid \(pid)) \(exit)\(expected ? "" : " unexpectedly")"
        case .spawnFailed(let h, let e): "could not start \(h): \(e)"
        case .share(let r): r.description
        case .received(let h, let r): "\(h) accepted \(r.item.id) from \(r.from)"
        case .hostile(let h, let what, let cut): "\(h): \(what)\(cut ? " — disconnected" : "")"
        case .signedIn(let h, let a): "\(a) signed in to \(h)"
        case .signedOut(let h, let a): "\(a) signed out of \(h)"
        case .notified(let h, let n, let a): "\(h) notified: \(n)\(a.isEmpty ? "" : " (\(a))")"
        case .note(let s): s
        case .said(let h, let s): "\(h): \(s)"
        case .diagnostic(let h, let n, let d): "\(h): \(n): \(d)"
        case .telemetry(let h, let e): "\(h) telemetry: \(e)"
        case .confinement(let s): s
        case .strict(let h, let f): "\(h): strict \(f.check) at \(f.file):\(f.line) (\(f.call)): \(f.detail)"
        case .policyGettersRead(let h, let g, let a): "\(h) read \(g.map(\.rawValue).joined(separator: ", ")) of \(a.isEmpty ? "the unmanaged identity" : a)'s policy"
        case .savedData(let h, let path, let owner): "\(h) saved \(path), \(owner)'s data"
        case .appConfigKeysRead(let h, let keys, let a): "\(h) read \(keys.map { UntrustedText.escaped($0).debugDescription }.joined(separator: ", ")) of \(a.isEmpty ? "the unmanaged identity" : a)'s app configuration"
        }
    }
}

/// One routed share, as the audit log records it.
public struct ShareRecord: Sendable, CustomStringConvertible {
    /// Who shared to whom, as whom, and whose the item is: the same for every share of a
    /// stream, so the broker's route keeps one and each of its records refers to it (a
    /// reference to retain, where the strings were a dozen per share, and as many releases).
    /// Never changed (a record's change makes its own): its fields are read where they lie.
    final class Parties: Sendable {
        let from: String
        let fromBundle: BundleID
        let identity: String
        let to: String
        let receivedAs: String
        let owner: Ownership?

        init(from: String, fromBundle: BundleID, identity: String, to: String, receivedAs: String, owner: Ownership?) {
            self.from = from
            self.fromBundle = fromBundle
            self.identity = identity
            self.to = to
            self.receivedAs = receivedAs
            self.owner = owner
        }

        /// These parties with some changed.
        func with(from: String? = nil, fromBundle: BundleID? = nil, identity: String? = nil, to: String? = nil, receivedAs: String? = nil,
                  owner: Ownership?? = nil) -> Parties {
            Parties(from: from ?? self.from, fromBundle: fromBundle ?? self.fromBundle, identity: identity ?? self.identity, to: to ?? self.to,
                    receivedAs: receivedAs ?? self.receivedAs, owner: owner ?? self.owner)
        }

        /// What an emptied record refers to.
        static let none = Parties(from: "", fromBundle: .none, identity: "", to: "", receivedAs: "", owner: nil)
    }

    private var parties: Parties
    public var itemID: String
    public var outcome: Verdict

    init(from: String, fromBundle: BundleID, identity: String, to: String, receivedAs: String, itemID: String, owner: Ownership?, outcome: Verdict) {
        parties = Parties(from: from, fromBundle: fromBundle, identity: identity, to: to, receivedAs: receivedAs, owner: owner)
        self.itemID = itemID
        self.outcome = outcome
    }

    /// A record of `parties`, which other records may refer to as well.
    init(parties: Parties, itemID: String, outcome: Verdict) {
        self.parties = parties
        self.itemID = itemID
        self.outcome = outcome
    }

    public var from: String {
        _read { yield parties.from }
        set { parties = parties.with(from: newValue) }
    }

    public var fromBundle: BundleID {
        _read { yield parties.fromBundle }
        set { parties = parties.with(fromBundle: newValue) }
    }

    public var identity: String {
        _read { yield parties.identity }
        set { parties = parties.with(identity: newValue) }
    }

    public var to: String {
        _read { yield parties.to }
        set { parties = parties.with(to: newValue) }
    }

    public var receivedAs: String {
        _read { yield parties.receivedAs }
        set { parties = parties.with(receivedAs: newValue) }
    }

    public var owner: Ownership? {
        _read { yield parties.owner }
        set { parties = parties.with(owner: .some(newValue)) }
    }

    /// The record, leaving an empty one in its place: a record moves where a copy would
    /// retain its parties.
    mutating func taken() -> ShareRecord {
        var moved = ShareRecord(parties: .none, itemID: "", outcome: .delivered)
        swap(&moved, &self)
        return moved
    }

    public var description: String {
        let who = identity.isEmpty ? "unmanaged" : identity
        let receiver = receivedAs.isEmpty ? "" : " as \(receivedAs)"
        return "share \(itemID) \(from) (\(who)) → \(to)\(receiver): \(outcome)"
    }
}

/// An item an app or extension accepted, as the host delivered it.
public struct ReceivedItem: Sendable, Hashable {
    public var item: Item
    /// The sender's handle.
    public var from: String
    public var receivedAs: String
}

extension AppSpec {
    /// An SDK app sends telemetry unless its Info.plist sets `MAMTelemetryDisabled` (seed 000).
    var sendsTelemetry: Bool { descriptor.sdkIntegrated && !descriptor.telemetryDisabled }
}

extension HostEvent {
    /// A write that saves an account's data where the user sees the app's files
    /// (`Documents/`, what the Files app shows of an app that shares its documents): the save
    /// the SDK's integration guide (Stage 4) asks `isSaveToAllowed(for: .localDrive, …)` before,
    /// told as `savedData` with its path escaped and cut. Personal data, caches and app groups
    /// are not such a save: `nil`.
    public static func saved(by handle: String, path: String, owner: String) -> HostEvent? {
        guard !owner.isEmpty, path.hasPrefix("Documents/") else { return nil }
        return .savedData(handle: handle, path: UntrustedText.escaped(UntrustedText.prefix(path, utf8Bytes: 200)), owner: owner)
    }
}
