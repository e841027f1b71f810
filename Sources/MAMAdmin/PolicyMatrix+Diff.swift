public import MAMModel
public import MAMPolicy
import Synchronization

extension PolicyMatrix {
    /// Counts the decisions a `Diff` asks the enforcer for, so a test can hold their number
    /// to a bound in apps (a wall clock would not be a test).
    public final class DecisionCounter: Sendable {
        private let decided = Atomic<Int>(0)
        public var count: Int { decided.load(ordering: .relaxed) }
        public init() {}
        func add() { decided.add(1, ordering: .relaxed) }
    }

    /// The cells whose decision changes between two fleets that differ only in policies (the
    /// same apps and accounts, as `mamsim matrix --diff` builds them), without deciding
    /// every cell of either.
    ///
    /// A matrix cell reads of its apps only a few facts (`AppKey`: kind, SDK, Microsoft,
    /// MDM-managed, versions, and which policies' app lists name it) and whether row and
    /// column are the same app. Apps alike in those facts decide alike, their bundle ids
    /// aside (which only explanations name). So the diff decides one representative cell for
    /// each *unit* — a grid, a row of alike apps as one identity, and a column of alike apps
    /// as one identity (the same app, or another one) or a location or feature — and a unit
    /// stands for all its cells. Grids of party × party group apps by the facts without the
    /// versions (only conditional launch and screen capture, a party's own cells, read
    /// those), so a fleet whose apps each have their own version still has few units.
    ///
    /// The number of units, and of decisions, depends on how many kinds of apps the fleet
    /// has, not on how many apps: 1,000 apps targeted alike are one group. Attributing a
    /// change to a setting decides each changed unit once more in a fleet with that setting
    /// changed alone (`attribute`).
    public struct Diff: Sendable {
        /// Apps that decide alike in every grid of party × party: the row or column of a group of
        /// cells.
        public struct AppGroup: Sendable {
            /// In the matrix's order (by bundle id).
            public let apps: [BundleID]
            /// Whether the old and the new fleet's policies manage these apps (for an app
            /// without the SDK, neither).
            public let sdk: Bool
            public let kind: AppDescriptor.Kind
            public let managedBefore: Bool
            public let managedAfter: Bool
        }

        /// The column side of a group of cells.
        public enum Column: Sendable, Hashable {
            /// Apps of an `AppGroup` as an identity. When the rows are apps of that group too:
            /// `sameApp` true for each row's own app only, false for the others only; `nil`
            /// for every app of the group.
            case apps(group: Int, account: Account?, sameApp: Bool?)
            /// A save or open location, or a feature (`Grid.columns`).
            case named(String)
        }

        /// Cells that change alike: one grid, the rows of some apps of one `AppGroup` as one
        /// identity, one column side, the same decisions before and after and the same
        /// settings making the difference.
        public struct Group: Sendable {
            public let grid: Grid
            public let fromGroup: Int
            public let fromAccount: Account?
            /// The row apps when they are only some of `fromGroup`'s (in a party's own grids,
            /// where their versions may decide apart), else `nil`: all of them.
            public let fromApps: [BundleID]?
            public let to: Column
            public let cells: Int
            /// The settings (or pairs) whose change alone makes the difference.
            public let settings: [String]
            /// One of the cells, with its decisions (and their explanations) before and after.
            public let example: Change
        }

        /// What decides a cell about an app, besides its bundle id.
        struct AppKey: Hashable {
            var kind: AppDescriptor.Kind
            var sdk: Bool
            /// The containing app's `sdkIntegrated`; `nil` without one installed.
            var containerSDK: Bool?
            var managementSDK: Bool
            var microsoftCore: Bool
            var microsoft: Bool
            var mdmManaged: Bool
            /// Whether each app list of the fleets' policies names the app (its container).
            var listed: [Bool]
            /// `shortVersion` and `sdkVersion` in the fine key, nothing in the coarse one.
            var versions: [String?]
        }

        /// Apps alike in a key, and the identities each is a party as.
        struct Class {
            var members: [Int] = []
            var slots: Int
        }

        /// A grid, a class of row apps as one identity, a column (a class of apps as one
        /// identity, the same app or not, or a location or feature): cells deciding alike.
        struct Unit {
            var grid: Grid
            /// A coarse class in a grid of party × party, a fine one otherwise.
            var rowClass: Int
            var rowSlot: Int
            /// A coarse class in a grid of party × party, a column index otherwise.
            var column: Int
            var columnSlot: Int
            var sameApp: Bool
            var cells: Int
            /// The representative cell: a party index, and a party or column index.
            var row: Int
            var col: Int
            var before: Verdict
            var after: Verdict
        }

        public let parties: [Party]
        let old: Fleet
        let new: Fleet
        let now: Instant
        let counter: DecisionCounter?
        /// Every app (party order) and the index of its first party.
        let apps: [BundleID]
        let firstParty: [Int]
        let coarse: [Class]
        let fine: [Class]
        let coarseOfFine: [Int]
        let accounts: [Account?]
        let appSets: Set<Set<BundleID>>
        /// Changed units, in no particular order, with the settings found for each.
        var units: [Unit] = []
        var causes: [[String]] = []

        /// The changes from `old` to `new`, two fleets of the same apps and accounts.
        public init(from old: Fleet, to new: Fleet, now: Instant, counter: DecisionCounter? = nil) {
            self.old = old
            self.new = new
            self.now = now
            self.counter = counter
            parties = PolicyMatrix.parties(of: old)
            precondition(parties == PolicyMatrix.parties(of: new), "a matrix diff compares fleets of the same apps and accounts")
            accounts = [nil] + old.accounts.map(Optional.some)
            let sets = Self.appSets(old, new)
            appSets = Set(sets)
            var apps: [BundleID] = [], firstParty: [Int] = []
            for (i, p) in parties.enumerated() where p.account == nil {
                apps.append(p.app)
                firstParty.append(i)
            }
            self.apps = apps
            self.firstParty = firstParty
            var coarseIndex: [AppKey: Int] = [:], fineIndex: [AppKey: Int] = [:]
            var coarse: [Class] = [], fine: [Class] = [], coarseOfFine: [Int] = []
            for (a, bundle) in apps.enumerated() {
                let app = old.app(bundle)!
                let entry = old.appEntry(bundle)!
                var key = AppKey(kind: app.kind, sdk: app.sdkIntegrated, containerSDK: app.containingApp.flatMap { old.app($0)?.sdkIntegrated },
                                 managementSDK: entry.managementSDK, microsoftCore: entry.microsoftCore, microsoft: entry.microsoft,
                                 mdmManaged: app.mdmManaged, listed: sets.map { $0.contains(entry.managementBundle) }, versions: [])
                let slots = PolicyMatrix.hasAccounts(app, in: old) ? accounts.count : 1
                let c = coarseIndex[key] ?? {
                    coarse.append(Class(slots: slots))
                    coarseIndex[key] = coarse.count - 1
                    return coarse.count - 1
                }()
                coarse[c].members.append(a)
                key.versions = [app.shortVersion, app.sdkVersion]
                let f = fineIndex[key] ?? {
                    fine.append(Class(slots: slots))
                    coarseOfFine.append(c)
                    fineIndex[key] = fine.count - 1
                    return fine.count - 1
                }()
                fine[f].members.append(a)
            }
            self.coarse = coarse
            self.fine = fine
            self.coarseOfFine = coarseOfFine
            units = allUnits().filter { PolicyMatrix.decides($0.before, differently: $0.after) }
            causes = Array(repeating: [], count: units.count)
        }

        /// The sets of apps the managed accounts' policies target, in either fleet, each once
        /// in the order first met: an app's key says which of them list it.
        static func appSets(_ old: Fleet, _ new: Fleet) -> [Set<BundleID>] {
            var sets: [Set<BundleID>] = []
            for fleet in [old, new] {
                for account in fleet.accounts {
                    guard let e = fleet.entry(for: account), e.isManaged, !sets.contains(e.appSet) else { continue }
                    sets.append(e.appSet)
                }
            }
            return sets
        }

        /// Every unit of both matrices, each decided in the old and the new fleet.
        func allUnits() -> [Unit] {
            var units: [Unit] = []
            func add(_ u: Unit) {
                var u = u
                u.before = decide(u, in: old)
                u.after = decide(u, in: new)
                units.append(u)
            }
            let none = Verdict.allowed("")
            for grid in Grid.allCases where grid.isPairGrid {
                for (r, rows) in coarse.enumerated() {
                    for rowSlot in 0..<rows.slots {
                        for (c, cols) in coarse.enumerated() {
                            for columnSlot in 0..<cols.slots {
                                let row = firstParty[rows.members[0]] + rowSlot
                                func unit(same: Bool, cells: Int, col: Int) -> Unit {
                                    Unit(grid: grid, rowClass: r, rowSlot: rowSlot, column: c, columnSlot: columnSlot, sameApp: same, cells: cells,
                                         row: row, col: firstParty[col] + columnSlot, before: none, after: none)
                                }
                                if r == c {
                                    add(unit(same: true, cells: rows.members.count, col: rows.members[0]))
                                    if rows.members.count > 1 {
                                        add(unit(same: false, cells: rows.members.count * (rows.members.count - 1), col: rows.members[1]))
                                    }
                                } else {
                                    add(unit(same: false, cells: rows.members.count * cols.members.count, col: cols.members[0]))
                                }
                            }
                        }
                    }
                }
            }
            for grid in Grid.allCases where !grid.isPairGrid {
                for (f, rows) in fine.enumerated() {
                    for rowSlot in 0..<rows.slots {
                        for k in grid.columns.indices {
                            add(Unit(grid: grid, rowClass: f, rowSlot: rowSlot, column: k, columnSlot: 0, sameApp: false, cells: rows.members.count,
                                     row: firstParty[rows.members[0]] + rowSlot, col: k, before: none, after: none))
                        }
                    }
                }
            }
            return units
        }

        func decide(_ u: Unit, in fleet: Fleet) -> Verdict {
            decide(u.grid, row: u.row, col: u.col, in: fleet)
        }

        func decide(_ grid: Grid, row: Int, col: Int, in fleet: Fleet) -> Verdict {
            counter?.add()
            return grid.isPairGrid
                ? PolicyMatrix.decide(grid, from: parties[row], to: parties[col], in: fleet)
                : PolicyMatrix.decide(grid, for: parties[row], column: col, in: fleet, now: now)
        }

        /// How many cells decide differently.
        public var changedCells: Int { units.reduce(0) { $0 + $1.cells } }

        /// The changed units no setting has been found to change yet.
        public var unexplained: [Int] { causes.indices.filter { causes[$0].isEmpty } }

        /// Records `setting` (a name, or a pair's) as making the difference for each changed
        /// unit (of `among`, else all) that decides in `variant` — the old fleet with only
        /// that setting changed — as it does in the new one.
        public mutating func attribute(_ setting: String, in variant: Fleet, among: [Int]? = nil) {
            precondition(variant.apps.count == apps.count && variant.accounts == old.accounts, "a variant has the diff's apps and accounts")
            for account in variant.accounts {
                guard let e = variant.entry(for: account), e.isManaged else { continue }
                precondition(appSets.contains(e.appSet), "a variant's policies list the apps the old or the new one lists")
            }
            for i in among ?? Array(units.indices) where !PolicyMatrix.decides(decide(units[i], in: variant), differently: units[i].after) {
                causes[i].append(setting)
            }
        }

        /// Apps grouped as the party × party grids decide them, in the matrix's order.
        public var appGroups: [AppGroup] {
            coarse.map { c in
                let bundle = apps[c.members[0]], app = old.app(bundle)!
                return AppGroup(apps: c.members.map { apps[$0] }, sdk: app.sdkIntegrated, kind: app.kind,
                                managedBefore: old.isManagedByAnyPolicy(bundle), managedAfter: new.isManagedByAnyPolicy(bundle))
            }
        }

        /// The changed cells as groups: each changed unit, with a party's own cells of one
        /// app group and identity that decide and are explained alike merged (apps whose
        /// versions differ are in different units there). In the order of the matrix's cells.
        public var groups: [Group] {
            // A row group's same app and its other apps as one column make one group when
            // they change alike.
            struct Key: Hashable {
                var grid: Grid, rowClass: Int, rowSlot: Int, column: Int, columnSlot: Int
                var before: Reason?, beforeAllowed: Bool, after: Reason?, afterAllowed: Bool, settings: [String]
            }
            var order: [Key] = [], merged: [Key: [Int]] = [:]
            for (i, u) in units.enumerated() {
                let key = Key(grid: u.grid, rowClass: u.grid.isPairGrid ? u.rowClass : coarseOfFine[u.rowClass], rowSlot: u.rowSlot,
                              column: u.column, columnSlot: u.columnSlot, before: u.before.reason, beforeAllowed: u.before.isAllowed,
                              after: u.after.reason, afterAllowed: u.after.isAllowed, settings: causes[i])
                if merged[key] == nil { order.append(key) }
                merged[key, default: []].append(i)
            }
            // A group's first cell in the matrix's order is its first unit's representative.
            let groups = order.map { key -> (group: Group, row: Int, col: Int) in
                let members = merged[key]!
                let first = units[members.min { units[$0].row < units[$1].row }!]
                var fromApps: [BundleID]?
                if !key.grid.isPairGrid {
                    let rows = members.flatMap { fine[units[$0].rowClass].members }.sorted()
                    if rows.count < coarse[key.rowClass].members.count { fromApps = rows.map { apps[$0] } }
                }
                let relation = Set(members.map { units[$0].sameApp })
                let to: Column = key.grid.isPairGrid
                    ? .apps(group: key.column, account: accounts[key.columnSlot], sameApp: key.rowClass == key.column && relation.count == 1 ? relation.first! : nil)
                    : .named(key.grid.columns[key.column])
                let example = change(first.grid, row: first.row, col: first.col, before: first.before, after: first.after)
                let group = Group(grid: key.grid, fromGroup: key.rowClass, fromAccount: accounts[key.rowSlot], fromApps: fromApps, to: to,
                                  cells: members.reduce(0) { $0 + units[$1].cells }, settings: key.settings, example: example)
                return (group, first.row, first.col)
            }
            return groups.sorted { ($0.group.grid, $0.row, $0.col) < ($1.group.grid, $1.row, $1.col) }.map(\.group)
        }

        func change(_ grid: Grid, row: Int, col: Int, before: Verdict, after: Verdict) -> Change {
            Change(grid: grid.rawValue, from: parties[row].description,
                   to: grid.isPairGrid ? parties[col].description : grid.columns[col], before: before, after: after)
        }

        /// Every changed cell, in the order of the matrix's cells, with its decisions before and
        /// after (decided for that cell, explanations and all) and the settings found for it;
        /// `nil` when more than `limit` cells change.
        public func cells(limit: Int) -> [(change: Change, settings: [String])]? {
            guard changedCells <= limit else { return nil }
            var found: [(grid: Grid, row: Int, col: Int, unit: Int)] = []
            for (i, u) in units.enumerated() {
                if u.grid.isPairGrid {
                    let rows = coarse[u.rowClass].members, cols = coarse[u.column].members
                    for a in rows {
                        if u.sameApp {
                            found.append((u.grid, firstParty[a] + u.rowSlot, firstParty[a] + u.columnSlot, i))
                            continue
                        }
                        for b in cols where b != a {
                            found.append((u.grid, firstParty[a] + u.rowSlot, firstParty[b] + u.columnSlot, i))
                        }
                    }
                } else {
                    for a in fine[u.rowClass].members { found.append((u.grid, firstParty[a] + u.rowSlot, u.column, i)) }
                }
            }
            found.sort { ($0.grid, $0.row, $0.col) < ($1.grid, $1.row, $1.col) }
            return found.map { f in
                let before = decide(f.grid, row: f.row, col: f.col, in: old), after = decide(f.grid, row: f.row, col: f.col, in: new)
                assert(PolicyMatrix.decides(before, differently: after),
                       "\(f.grid) \(parties[f.row]) → \(f.col) decides alike before and after, unlike its unit's \(parties[units[f.unit].row]) → \(units[f.unit].col): AppKey misses a fact")
                return (change(f.grid, row: f.row, col: f.col, before: before, after: after), causes[f.unit])
            }
        }
    }
}
