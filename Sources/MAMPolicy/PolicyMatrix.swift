public import MAMModel

/// What a fleet's policies imply, without a step written: for every app and identity, where
/// its data may go (share, file, clipboard) and where it may be saved or opened from. Each
/// cell is the enforcer's own decision for that pair — the same pure functions the host calls
/// — so the matrix and a run never disagree. This answers an admin's "what can flow where,
/// and why?" before a policy is rolled out (`mamsim matrix`).
public struct PolicyMatrix: Sendable {
    /// An app (or extension) with the identity it acts as: the data's owner on the sending
    /// side, the receiving identity on the other.
    public struct Party: Sendable, Hashable, CustomStringConvertible {
        public var app: BundleID
        /// `nil`: no managed account (personal data, or an app without the SDK).
        public var account: Account?

        public init(app: BundleID, account: Account?) {
            self.app = app
            self.account = account
        }

        public var identity: String { account.map(\.upn) ?? "unmanaged" }
        public var description: String { "\(app) (\(identity))" }
    }

    public var parties: [Party]
    /// `transfers[i][j]`: an item owned by `parties[i]`'s identity shared from its app to
    /// `parties[j]`'s app, received as that identity.
    public var transfers: [[Verdict]]
    /// As `transfers`, for a file (Open in, "with OS sharing" differs).
    public var files: [[Verdict]]
    /// `clipboard[i][j]`: text copied in `parties[i]` pasted in `parties[j]`, longer than any
    /// exception length.
    public var clipboard: [[Verdict]]
    public var saveLocations: [SaveLocation]
    /// `save[i][k]`: `parties[i]`'s data saved to `saveLocations[k]` of the same account.
    public var save: [[Verdict]]
    public var openLocations: [OpenLocation]
    /// `open[i][k]`: `parties[i]` opening from `openLocations[k]` of the same account.
    public var open: [[Verdict]]
    /// What else a policy decides in the app, one column each (`Feature`).
    public var features: [Feature] = Feature.allCases
    /// `feature[i][k]`: `features[k]` for `parties[i]` (in its app, as its identity).
    public var feature: [[Verdict]] = []

    /// The app-wide switches a policy sets beside transfers (RULES.md §7, §8).
    public enum Feature: String, Sendable, CaseIterable {
        case print
        case notifications
        case screenCapture = "screen capture"
        /// iTunes/iCloud backup of the app's org data (`dataBackupBlocked`).
        case backup
        /// Conditional launch on this device (OS version and model, jailbreak) at `now`, with
        /// the app's own version and SDK version where the fleet knows them; the PIN aside.
        case launch = "conditional launch"
    }

    /// The matrices of `fleet`: every app and extension as unmanaged, and every SDK app as
    /// each of the fleet's accounts too.
    public static func compute(for fleet: Fleet, now: Instant = Instant(secondsSince1970: 0)) -> PolicyMatrix {
        var parties: [Party] = []
        for app in fleet.apps.values.sorted(by: { $0.bundleID < $1.bundleID }) {
            parties.append(Party(app: app.bundleID, account: nil))
            guard app.sdkIntegrated || app.containingApp.flatMap({ fleet.app($0)?.sdkIntegrated }) == true else { continue }
            for account in fleet.accounts { parties.append(Party(app: app.bundleID, account: account)) }
        }
        // Longer than any exception length: the level alone decides.
        let pasted = 1_000_000
        var transfers: [[Verdict]] = [], files: [[Verdict]] = [], clipboard: [[Verdict]] = []
        for s in parties {
            transfers.append(parties.map { d in
                Enforcer.transfer(owner: s.account, from: s.app, to: d.app, receivedAs: d.account, in: fleet).decision
            })
            files.append(parties.map { d in
                Enforcer.transfer(owner: s.account, from: s.app, to: d.app, receivedAs: d.account, isFile: true, in: fleet).decision
            })
            clipboard.append(parties.map { d in
                Enforcer.pasteDecision(length: pasted, owner: s.account, copiedIn: s.app, into: d.app, as: d.account, in: fleet)
            })
        }
        let saveLocations = SaveLocation.allCases
        let openLocations = OpenLocation.allCases
        let save = parties.map { p in saveLocations.map { Enforcer.save(owner: p.account, to: $0, locationAccount: p.account, app: p.app, in: fleet) } }
        let open = parties.map { p in openLocations.map { Enforcer.open(from: $0, locationAccount: p.account, as: p.account, app: p.app, in: fleet) } }
        let feature = parties.map { p in
            Feature.allCases.map { f -> Verdict in
                switch f {
                case .print: return Enforcer.print(as: p.account, app: p.app, in: fleet)
                case .notifications: return Enforcer.notification("…", of: p.account, app: p.app, in: fleet).decision
                case .screenCapture:
                    guard let app = fleet.app(p.app) else { return .allowed("\(p.app) is not installed") }
                    return Enforcer.screenCapture(as: p.account, in: app, policies: [], fleet: fleet)
                case .backup: return Enforcer.policyQuery(.backup, as: p.account, app: p.app, in: fleet)
                case .launch:
                    guard let account = p.account else { return .allowed("no account: no conditional launch") }
                    let app = fleet.app(p.app)
                    let facts = LaunchFacts(now: now, appVersion: app?.shortVersion.flatMap(Version.init), sdkVersion: app?.sdkVersion.flatMap(Version.init))
                    return Enforcer.launchChecks(for: account, facts: facts, app: p.app, in: fleet)?.decision
                        ?? .allowed("\(fleet.isManaged(account) ? "the policy does not target \(p.app)" : "\(account) is unmanaged"): no conditional launch")
                }
            }
        }
        return PolicyMatrix(parties: parties, transfers: transfers, files: files, clipboard: clipboard,
                            saveLocations: saveLocations, save: save, openLocations: openLocations, open: open, feature: feature)
    }
}
