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

        public var identity: String { account.map(\.upn) ?? PolicyMatrix.noAccount }
        public var description: String { "\(app) (\(identity))" }
    }

    /// What a party acting with no identity is called in every output: "unmanaged" would
    /// read as the app's state, and a personal account (unmanaged too) is named by its UPN.
    public static let noAccount = "no account"

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

    /// What a policy decides in the app beside transfers (RULES.md §7, §8), one column each:
    /// printing, notifications, screen capture, every switch an app asks the SDK about
    /// (`PolicySetting`), every OS surface its data can meet (`OSSurface`), links outside the
    /// managed browser and conditional launch. Drawn from the enforcer's own lists, so a
    /// setting the enforcer learns gets its column here (and in `mamsim whatif`) with no edit.
    public enum Feature: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case print
        case notifications
        case screenCapture
        /// `PolicySetting.backup` is iTunes/iCloud backup of the app's org data (`dataBackupBlocked`).
        case setting(PolicySetting)
        case surface(OSSurface)
        /// A web link opened from the app's data: restricted when it must open in the managed
        /// browser (`managedBrowserToOpenLinksRequired`).
        case webLinks
        /// Conditional launch on this device (OS version and model, jailbreak) at `now`, with
        /// the app's own version and SDK version where the fleet knows them; the PIN aside.
        case launch

        public static let allCases: [Feature] = [.print, .notifications, .screenCapture] + PolicySetting.allCases.map { .setting($0) }
            + OSSurface.allCases.map { .surface($0) } + [.webLinks, .launch]
        /// The columns' names, made once: each cell of a grid names its column.
        static let names = allCases.map(\.rawValue)

        /// The column's name in reports.
        public var rawValue: String {
            switch self {
            case .print: "print"
            case .notifications: "notifications"
            case .screenCapture: "screen capture"
            case .setting(let s): s.rawValue
            case .surface(let s): s.rawValue
            case .webLinks: "links outside the managed browser"
            case .launch: "conditional launch"
            }
        }

        public var description: String { rawValue }
    }

    /// The grids of a matrix, in the order `cells` lists them: three of party × party, then
    /// three of party × location or feature.
    public enum Grid: String, Sendable, Hashable, CaseIterable, Comparable {
        case transfers, files, clipboard, save, open, features

        /// Rows and columns are both parties (an app as an identity).
        public var isPairGrid: Bool { self == .transfers || self == .files || self == .clipboard }

        /// The columns of a grid of party × location or feature.
        public var columns: [String] {
            switch self {
            case .transfers, .files, .clipboard: []
            case .save: SaveLocation.allCases.map(\.rawValue)
            case .open: OpenLocation.allCases.map(\.rawValue)
            case .features: Feature.names
            }
        }

        public static func < (a: Grid, b: Grid) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }

    /// The parties of `fleet`'s matrices, in order: every app and extension (by bundle id) as
    /// unmanaged, and every SDK app (or extension of one) as each of the fleet's accounts too.
    public static func parties(of fleet: Fleet) -> [Party] {
        var parties: [Party] = []
        for app in fleet.apps.values.sorted(by: { $0.bundleID < $1.bundleID }) {
            parties.append(Party(app: app.bundleID, account: nil))
            guard hasAccounts(app, in: fleet) else { continue }
            for account in fleet.accounts { parties.append(Party(app: app.bundleID, account: account)) }
        }
        return parties
    }

    /// Whether `app` is a party as each account too: it, or the app containing it, has the SDK.
    package static func hasAccounts(_ app: AppDescriptor, in fleet: Fleet) -> Bool {
        app.sdkIntegrated || app.containingApp.flatMap({ fleet.app($0)?.sdkIntegrated }) == true
    }

    /// One cell of a grid of party × party (`grid.isPairGrid`): `s`'s data to `d`.
    public static func decide(_ grid: Grid, from s: Party, to d: Party, in fleet: Fleet) -> Verdict {
        switch grid {
        case .transfers:
            return Enforcer.transfer(owner: s.account, from: s.app, to: d.app, receivedAs: d.account, in: fleet).decision
        case .files:
            return Enforcer.transfer(owner: s.account, from: s.app, to: d.app, receivedAs: d.account, isFile: true, in: fleet).decision
        case .clipboard:
            // Longer than any exception length: the level alone decides.
            return Enforcer.pasteDecision(length: 1_000_000, owner: s.account, copiedIn: s.app, into: d.app, as: d.account, in: fleet)
        case .save, .open, .features:
            preconditionFailure("\(grid) is a grid of party × \(grid == .features ? "feature" : "location")")
        }
    }

    /// One cell of a grid of party × location or feature: `p` and the grid's `column`th column.
    public static func decide(_ grid: Grid, for p: Party, column: Int, in fleet: Fleet, now: Instant) -> Verdict {
        switch grid {
        case .save:
            return Enforcer.save(owner: p.account, to: SaveLocation.allCases[column], locationAccount: p.account, app: p.app, in: fleet)
        case .open:
            return Enforcer.open(from: OpenLocation.allCases[column], locationAccount: p.account, as: p.account, app: p.app, in: fleet)
        case .features:
            switch Feature.allCases[column] {
            case .print: return Enforcer.print(as: p.account, app: p.app, in: fleet)
            case .notifications: return Enforcer.notification("…", of: p.account, app: p.app, in: fleet).decision
            case .screenCapture:
                guard let app = fleet.app(p.app) else { return .allowed("\(p.app) is not installed") }
                return Enforcer.screenCapture(as: p.account, in: app, policies: [], fleet: fleet)
            case .setting(let setting): return Enforcer.policyQuery(setting, as: p.account, app: p.app, in: fleet)
            case .surface(let surface): return Enforcer.useSurface(surface, as: p.account, app: p.app, in: fleet)
            case .webLinks:
                // A host no app claims (`.invalid` is reserved): where the policy sends a link.
                let (verdict, opensIn) = Enforcer.webLink("https://link.mamsim.invalid/", owner: p.account, from: p.app, browserInstalled: true, in: fleet)
                return opensIn == .managedBrowser ? .blocked(.featureRestricted, because: verdict.explanation) : verdict
            case .launch:
                guard let account = p.account else { return .allowed("no account: no conditional launch") }
                let app = fleet.app(p.app)
                let facts = LaunchFacts(now: now, appVersion: app?.shortVersion.flatMap(Version.init), sdkVersion: app?.sdkVersion.flatMap(Version.init))
                return Enforcer.launchChecks(for: account, facts: facts, app: p.app, in: fleet)?.decision
                    ?? .allowed("\(fleet.isManaged(account) ? "the policy does not target \(p.app)" : "\(account) is unmanaged"): no conditional launch")
            }
        case .transfers, .files, .clipboard:
            preconditionFailure("\(grid) is a grid of party × party")
        }
    }

    /// The matrices of `fleet`: every app and extension as unmanaged, and every SDK app as
    /// each of the fleet's accounts too.
    ///
    /// A decision may read of an app only what `PolicyMatrix.Diff` groups apps by (its
    /// `AppKey`: kind, SDK, Microsoft, MDM-managed, versions, which app lists name it) and
    /// whether two parties are the same app; reading more of it means adding that there.
    public static func compute(for fleet: Fleet, now: Instant = Instant(secondsSince1970: 0)) -> PolicyMatrix {
        let parties = parties(of: fleet)
        func pairs(_ grid: Grid) -> [[Verdict]] {
            parties.map { s in parties.map { d in decide(grid, from: s, to: d, in: fleet) } }
        }
        func rows(_ grid: Grid) -> [[Verdict]] {
            parties.map { p in grid.columns.indices.map { decide(grid, for: p, column: $0, in: fleet, now: now) } }
        }
        return PolicyMatrix(parties: parties, transfers: pairs(.transfers), files: pairs(.files), clipboard: pairs(.clipboard),
                            saveLocations: SaveLocation.allCases, save: rows(.save), openLocations: OpenLocation.allCases, open: rows(.open),
                            feature: rows(.features))
    }
}
