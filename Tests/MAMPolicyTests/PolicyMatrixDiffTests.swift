import MAMModel
import MAMPolicy
import MAMAdmin
import Testing

/// `PolicyMatrix.Diff` (`mamsim matrix --diff`): the cells whose decision changes between two
/// policies, found and attributed by deciding one cell per unit of alike cells. Its decisions
/// must not grow with the apps a policy targets (1,000 apps were 4 million changed cells, and
/// a run that decided each of them per setting took minutes and 20 GB), and what it reports
/// must be what deciding every cell reports.
struct PolicyMatrixDiffTests {
    static let work = Account(upn: "user@contoso.com", oid: "00000000-0000-4000-8000-000000000001", tenant: "contoso.onmicrosoft.com")
    static let personal = Account(upn: "user@outlook.com")
    static let now = Instant(iso8601: "2026-11-23T09:00:00Z")!

    static func apps(_ range: ClosedRange<Int>) -> [BundleID] { range.map { BundleID("com.example.app\($0)") } }

    /// Microsoft's level 2 and level 3 templates targeting `apps`, as a Graph export with
    /// `$expand=apps` has them.
    static func templates(targeting apps: [BundleID]) throws -> (IosManagedAppProtection, IosManagedAppProtection) {
        var old = try Fixtures.policy("icf-level-2-enterprise-enhanced-data-protection-iOS.json")
        var new = try Fixtures.policy("icf-level-3-enterprise-high-data-protection-iOS.json")
        for i in [0, 1] {
            var p = i == 0 ? old : new
            p.appGroupType = .selectedPublicApps
            p.apps = apps
            if i == 0 { old = p } else { new = p }
        }
        return (old, new)
    }

    /// `mamsim matrix --diff`'s default fleet: the targeted apps, an app without the SDK, a
    /// work account under the policy and a personal one.
    static func defaultFleet(_ apps: [BundleID], policy: IosManagedAppProtection) -> Fleet {
        var f = Fleet()
        f.install(contentsOf: apps.map { AppDescriptor(bundleID: $0, multiIdentity: true) } + [AppDescriptor(bundleID: "com.example.notes", sdkIntegrated: false)])
        f.add(work, policy: policy)
        f.add(personal)
        return f
    }

    /// The settings that differ between the templates and decide a cell, each as a change
    /// from the old policy to the new one's value.
    typealias Setting = (name: String, apply: @Sendable (inout IosManagedAppProtection, IosManagedAppProtection) -> Void)
    static let templateSettings: [Setting] = [
        ("allowedDataIngestionLocations", { $0.allowedDataIngestionLocations = $1.allowedDataIngestionLocations }),
        ("allowedInboundDataTransferSources", { $0.allowedInboundDataTransferSources = $1.allowedInboundDataTransferSources }),
        ("blockDataIngestionIntoOrganizationDocuments", { $0.blockDataIngestionIntoOrganizationDocuments = $1.blockDataIngestionIntoOrganizationDocuments }),
        ("maximumRequiredOsVersion", { $0.maximumRequiredOsVersion = $1.maximumRequiredOsVersion }),
        ("printBlocked", { $0.printBlocked = $1.printBlocked }),
        ("thirdPartyKeyboardsBlocked", { $0.thirdPartyKeyboardsBlocked = $1.thirdPartyKeyboardsBlocked }),
    ]

    /// As `mamsim matrix --diff` attributes: each setting alone, then each pair for the cells
    /// no single one explains.
    static func attribute(_ diff: inout PolicyMatrix.Diff, _ settings: [Setting], old: IosManagedAppProtection, new: IosManagedAppProtection,
                          fleet: (IosManagedAppProtection) -> Fleet) {
        for s in settings {
            var p = old
            s.apply(&p, new)
            diff.attribute(s.name, in: fleet(p))
        }
        let unexplained = diff.unexplained
        guard !unexplained.isEmpty else { return }
        for (a, first) in settings.enumerated() {
            for second in settings[(a + 1)...] {
                var p = old
                first.apply(&p, new)
                second.apply(&p, new)
                diff.attribute("\(first.name) + \(second.name)", in: fleet(p), among: unexplained)
            }
        }
    }

    /// Finding 10 of issue 46: the decisions a diff and its attribution make stay the same
    /// from 10 targeted apps to 1,000 (a matrix of 1,000 apps has 27 million cells), and the
    /// changed cells are still counted in full.
    @Test func decisionsDoNotGrowWithTheAppsAPolicyTargets() throws {
        var decisions: [Int: Int] = [:]
        for n in [10, 100, 1000] {
            let (old, new) = try Self.templates(targeting: Self.apps(1...n))
            let base = Self.defaultFleet(Self.apps(1...n), policy: old)
            func fleet(_ p: IosManagedAppProtection) -> Fleet {
                var f = base
                f.setPolicy(p, for: Self.work)
                return f
            }
            let counter = PolicyMatrix.DecisionCounter()
            var diff = PolicyMatrix.Diff(from: base, to: fleet(new), now: Self.now, counter: counter)
            Self.attribute(&diff, Self.templateSettings, old: old, new: new, fleet: fleet)
            // Transfers and files from each app's two unmanaged identities to every app as
            // the work account, from the app without the SDK too; print, maximum OS version,
            // keyboards, the CallKit surface and seven open locations of each app as the work account.
            #expect(diff.changedCells == 4 * n * n + 13 * n)
            #expect(diff.groups.reduce(0) { $0 + $1.cells } == diff.changedCells)
            decisions[n] = counter.count
            if n > 10 { #expect(diff.cells(limit: 1000) == nil && counter.count == decisions[n], "\(diff.changedCells) cells are not listed one by one") }
        }
        #expect(decisions[1000]! == decisions[10]!, "decisions by apps: \(decisions)")
        #expect(decisions[1000]! < 1_000, "decisions by apps: \(decisions)")
    }

    /// Listing the cells one by one decides each listed cell (for its explanations) and no other.
    @Test func listingDecidesOnlyTheListedCells() throws {
        let (old, new) = try Self.templates(targeting: Self.apps(1...10))
        let counter = PolicyMatrix.DecisionCounter()
        let diff = PolicyMatrix.Diff(from: Self.defaultFleet(Self.apps(1...10), policy: old), to: Self.defaultFleet(Self.apps(1...10), policy: new),
                                     now: Self.now, counter: counter)
        let before = counter.count
        #expect(diff.cells(limit: 529) == nil && counter.count == before)
        let cells = try #require(diff.cells(limit: 530))
        #expect(cells.count == 530 && counter.count == before + 2 * 530)
    }

    /// On the templates and a 10-app fleet, the diff lists exactly the cells
    /// `PolicyMatrix.changes` finds by deciding every cell of both matrices, in its order, and
    /// attributes each as deciding every cell of every variant does.
    @Test func smallFleetIsWhatDecidingEveryCellGives() throws {
        let apps = Self.apps(1...10)
        let (old, new) = try Self.templates(targeting: apps)
        func fleet(_ p: IosManagedAppProtection) -> Fleet { Self.defaultFleet(apps, policy: p) }
        var diff = PolicyMatrix.Diff(from: fleet(old), to: fleet(new), now: Self.now)
        Self.attribute(&diff, Self.templateSettings, old: old, new: new, fleet: fleet)
        let listed = try #require(diff.cells(limit: 100_000))
        let expected = PolicyMatrix.changes(from: PolicyMatrix.compute(for: fleet(old), now: Self.now), to: PolicyMatrix.compute(for: fleet(new), now: Self.now))
        #expect(listed.map(\.change) == expected)
        // The count `mamsim mutate` ranks a candidate by: the diff's, the listed cells' number.
        #expect(diff.changedCells == expected.count && expected.count > 0)
        #expect(PolicyMatrix.Diff(from: fleet(old), to: fleet(old), now: Self.now).changedCells == 0)
        let camera = listed.filter { $0.change.to == "camera" }
        #expect(camera.count == 10 && camera.allSatisfy { $0.settings == ["allowedDataIngestionLocations + blockDataIngestionIntoOrganizationDocuments"] })
        #expect(listed.filter { $0.change.grid == "transfers" }.allSatisfy { $0.settings == ["allowedInboundDataTransferSources"] })
    }

    /// A generated pair of policies on a 200-app fleet of every kind the rules tell apart: SDK
    /// apps listed by both policies, by the new one only and by neither, with three app
    /// versions; Microsoft's core apps (which the new policy's appGroupType adds); apps
    /// without the SDK; share extensions of both; an MDM-managed app on an enrolled device; a
    /// second work account under a policy of its own. Every changed cell of sampled rows (and
    /// of every row in the grids of a party's own cells) is the one deciding every cell finds,
    /// with its decisions, explanations and settings.
    @Test func twoHundredAppsDecideAsEveryCellDoes() throws {
        let carol = Account(upn: "carol@fabrikam.com", oid: "c0c0c0c0-1111-4222-8333-444455556666", tenant: "fabrikam.onmicrosoft.com")
        var descriptors: [AppDescriptor] = []
        for i in 1...176 {
            var d = AppDescriptor(bundleID: BundleID("com.example.app\(i)"), multiIdentity: true, mdmManaged: i == 2)
            d.shortVersion = "1.\(i % 3)"
            descriptors.append(d)
        }
        for i in 1...18 { descriptors.append(AppDescriptor(bundleID: BundleID("com.example.plain\(i)"), sdkIntegrated: false)) }
        descriptors.append(AppDescriptor(bundleID: "com.microsoft.Office.Outlook"))
        descriptors.append(AppDescriptor(bundleID: "com.microsoft.Office.Word"))
        descriptors.append(AppDescriptor(bundleID: "com.example.app1.share", kind: .share, containingApp: "com.example.app1"))
        descriptors.append(AppDescriptor(bundleID: "com.example.app151.share", kind: .share, containingApp: "com.example.app151"))
        descriptors.append(AppDescriptor(bundleID: "com.example.plain1.share", kind: .share, sdkIntegrated: false, containingApp: "com.example.plain1"))
        descriptors.append(AppDescriptor(bundleID: "com.example.plain2.action", kind: .action, sdkIntegrated: false, containingApp: "com.example.plain2"))
        #expect(descriptors.count == 200)

        var (old, new) = try Self.templates(targeting: Self.apps(1...150))
        new.apps = Self.apps(1...170)
        new.appGroupType = .allCoreMicrosoftApps
        new.minimumRequiredAppVersion = Version("1.1")
        new.allowedOutboundClipboardSharingLevel = .managedApps
        new.disableProtectionOfManagedOutboundOpenInData = true
        new.allowedOutboundDataTransferDestinations = .managedApps
        var fabrikam = IosManagedAppProtection(displayName: "Fabrikam strict")
        fabrikam.apps = Self.apps(1...50)
        fabrikam.allowedOutboundDataTransferDestinations = .managedApps
        fabrikam.allowedInboundDataTransferSources = .managedApps
        fabrikam.allowedOutboundClipboardSharingLevel = .blocked

        var base = Fleet(device: DeviceFacts(mdmEnrolled: true))
        base.install(contentsOf: descriptors)
        base.add(Self.work)
        base.add(Self.personal)
        base.add(carol, policy: fabrikam)
        func fleet(_ p: IosManagedAppProtection) -> Fleet {
            var f = base
            f.setPolicy(p, for: Self.work)
            return f
        }
        let more: [Setting] = [
            ("allowedOutboundClipboardSharingLevel", { @Sendable in $0.allowedOutboundClipboardSharingLevel = $1.allowedOutboundClipboardSharingLevel }),
            ("appGroupType", { @Sendable in $0.appGroupType = $1.appGroupType }),
            ("disableProtectionOfManagedOutboundOpenInData", { @Sendable in $0.disableProtectionOfManagedOutboundOpenInData = $1.disableProtectionOfManagedOutboundOpenInData }),
            ("minimumRequiredAppVersion", { @Sendable in $0.minimumRequiredAppVersion = $1.minimumRequiredAppVersion }),
        ]
        let settings = (Self.templateSettings + more).sorted { $0.name < $1.name }
        let (oldFleet, newFleet) = (fleet(old), fleet(new))
        let variants = settings.map { s -> Fleet in
            var p = old
            s.apply(&p, new)
            return fleet(p)
        }
        var pairs: [(String, Fleet)] = []
        for (a, first) in settings.enumerated() {
            for second in settings[(a + 1)...] {
                var p = old
                first.apply(&p, new)
                second.apply(&p, new)
                pairs.append(("\(first.name) + \(second.name)", fleet(p)))
            }
        }

        let counter = PolicyMatrix.DecisionCounter()
        var diff = PolicyMatrix.Diff(from: oldFleet, to: newFleet, now: Self.now, counter: counter)
        Self.attribute(&diff, settings, old: old, new: new, fleet: fleet)
        let decided = counter.count
        let listed = try #require(diff.cells(limit: 1_000_000))
        #expect(listed.count == diff.changedCells)
        #expect(diff.groups.reduce(0) { $0 + $1.cells } == diff.changedCells)

        let parties = PolicyMatrix.parties(of: oldFleet)
        let index = Dictionary(uniqueKeysWithValues: parties.enumerated().map { ($1.description, $0) })
        func position(_ c: PolicyMatrix.Change) -> (PolicyMatrix.Grid, Int, Int) {
            let grid = PolicyMatrix.Grid(rawValue: c.grid)!
            return (grid, index[c.from]!, grid.isPairGrid ? index[c.to]! : grid.columns.firstIndex(of: c.to)!)
        }
        // In the matrix's order, each cell once.
        let positions = listed.map { position($0.change) }
        #expect(zip(positions, positions.dropFirst()).allSatisfy { $0 < $1 })
        var byCell: [String: (change: PolicyMatrix.Change, settings: [String])] = [:]
        for l in listed { byCell["\(l.change.grid)|\(l.change.from)|\(l.change.to)"] = l }

        // What deciding every cell gives: the decisions, then each setting alone, then pairs.
        var checked = 0, attributed = 0
        func check(_ grid: PolicyMatrix.Grid, _ row: Int, _ col: Int) {
            func decide(_ f: Fleet) -> Verdict {
                grid.isPairGrid ? PolicyMatrix.decide(grid, from: parties[row], to: parties[col], in: f)
                    : PolicyMatrix.decide(grid, for: parties[row], column: col, in: f, now: Self.now)
            }
            let (before, after) = (decide(oldFleet), decide(newFleet))
            let to = grid.isPairGrid ? parties[col].description : grid.columns[col]
            let found = byCell["\(grid.rawValue)|\(parties[row])|\(to)"]
            guard PolicyMatrix.decides(before, differently: after) else {
                #expect(found == nil, "\(grid) \(parties[row]) → \(to) is listed but decides alike")
                return
            }
            checked += 1
            #expect(found?.change.before == before && found?.change.after == after, "\(grid) \(parties[row]) → \(to)")
            // Attribution decides the cell in every variant: every 7th changed cell.
            guard checked % 7 == 0 else { return }
            attributed += 1
            var causes: [String] = []
            for (s, f) in zip(settings, variants) where !PolicyMatrix.decides(decide(f), differently: after) { causes.append(s.name) }
            if causes.isEmpty {
                for (name, f) in pairs where !PolicyMatrix.decides(decide(f), differently: after) { causes.append(name) }
            }
            #expect(found?.settings == causes, "\(grid) \(parties[row]) → \(to)")
        }
        let special: Set<String> = ["com.example.app1", "com.example.app2", "com.example.app150", "com.example.app151", "com.example.app170",
                                    "com.example.app171", "com.example.plain1", "com.microsoft.Office.Outlook", "com.example.app1.share",
                                    "com.example.app151.share", "com.example.plain1.share", "com.example.plain2.action"]
        let sampled = parties.indices.filter { special.contains(parties[$0].app.rawValue) || $0 % 23 == 0 }
        for grid in PolicyMatrix.Grid.allCases {
            for row in grid.isPairGrid ? sampled : Array(parties.indices) {
                for col in grid.isPairGrid ? Array(parties.indices) : Array(grid.columns.indices) { check(grid, row, col) }
            }
        }
        let inSample = Set(sampled)
        #expect(checked == listed.filter { let p = position($0.change); return !p.0.isPairGrid || inSample.contains(p.1) }.count)
        #expect(attributed > 500, "\(attributed) cells attributed")
        // Kinds of apps, not apps: a few percent of the cells of one matrix (1.6 million).
        let cellsPerMatrix = 3 * parties.count * parties.count + 16 * parties.count
        #expect(decided * 20 < cellsPerMatrix, "\(decided) decisions for matrices of \(cellsPerMatrix) cells")
        // Versions split a party's own cells: the app version minimum blocks launch in some of
        // the listed apps only, and both it and the OS maximum block it alone there.
        let launch = diff.groups.filter { $0.grid == .features && $0.to == .named("conditional launch") }
        #expect(launch.contains { $0.fromApps != nil && $0.settings == ["maximumRequiredOsVersion", "minimumRequiredAppVersion"] }, "\(launch.map(\.settings))")
        // The apps only the new policy lists change with no setting: the list is not one.
        #expect(listed.contains { $0.change.from.hasPrefix("com.example.app160 (") && $0.settings.isEmpty })
    }
}
