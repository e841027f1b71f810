import MAMModel
import MAMPolicy
import Testing

/// `PolicyMatrix` (what `mamsim matrix` draws): each cell is the enforcer's own decision for
/// its pair, and the seeds' strict policy reads as expected across the grid.
struct PolicyMatrixTests {
    static let fleet = World.fleet()
    static let matrix = PolicyMatrix.compute(for: fleet)

    static func index(_ app: BundleID, _ account: Account?) throws -> Int {
        try #require(matrix.parties.firstIndex(of: PolicyMatrix.Party(app: app, account: account)))
    }

    @Test func partiesAreEveryAppUnmanagedAndEverySDKAppAsEachAccount() {
        let notes = Self.matrix.parties.filter { $0.app == World.notes }
        #expect(notes.map(\.account) == [nil], "an app without the SDK never acts as a managed account")
        let mine = Self.matrix.parties.filter { $0.app == World.mine }
        #expect(mine.map(\.account) == [nil, World.alice, World.bob, World.carol])
        // The "Open in" extension acts as its containing app's accounts.
        #expect(Self.matrix.parties.filter { $0.app == World.wordOpenIn }.count == 4)
        #expect(Self.matrix.transfers.count == Self.matrix.parties.count && Self.matrix.transfers.allSatisfy { $0.count == Self.matrix.parties.count })
    }

    @Test func everyCellIsTheEnforcersDecision() {
        let m = Self.matrix
        for (i, s) in m.parties.enumerated() {
            for (j, d) in m.parties.enumerated() {
                #expect(m.transfers[i][j] == Enforcer.transfer(owner: s.account, from: s.app, to: d.app, receivedAs: d.account, in: Self.fleet).decision)
                #expect(m.files[i][j] == Enforcer.transfer(owner: s.account, from: s.app, to: d.app, receivedAs: d.account, isFile: true, in: Self.fleet).decision)
            }
            for (k, location) in m.saveLocations.enumerated() {
                #expect(m.save[i][k] == Enforcer.save(owner: s.account, to: location, locationAccount: s.account, app: s.app, in: Self.fleet))
            }
        }
    }

    @Test(arguments: [
        // owner's app, owner, receiving app, receiver, allowed, reason
        (World.mine, World.alice as Account?, World.outlook, World.alice as Account?, true, nil as Reason?),
        (World.mine, World.alice, World.notes, nil, false, .outboundPolicy),
        (World.mine, World.alice, World.mine, World.bob, false, .outboundPolicy),
        (World.notes, nil, World.outlook, World.alice, false, .inboundPolicy),
        (World.notes, nil, World.mine, World.bob, true, nil),
        (World.mine, World.bob, World.notes, nil, true, nil),
    ])
    func strictPolicyReadsAsTheSeedsSay(_ from: BundleID, _ owner: Account?, _ to: BundleID, _ receiver: Account?, _ allowed: Bool, _ reason: Reason?) throws {
        let d = Self.matrix.transfers[try Self.index(from, owner)][try Self.index(to, receiver)]
        #expect(d.isAllowed == allowed, "\(d)")
        #expect(d.blockedBy == reason, "\(d)")
    }

    /// Microsoft's level 3 template blocks printing and backup and requires iOS 14.8–15.0: in
    /// the core Microsoft app it targets, the matrix shows all three (today's device runs iOS
    /// 18.4); in a line-of-business app it does not target, none.
    @Test func featureColumnsShowWhatTheTemplateDecidesInTheApp() throws {
        let level3 = try Fixtures.policy("icf-level-3-enterprise-high-data-protection-iOS.json")
        let fleet = World.fleet(policy: level3)
        let m = PolicyMatrix.compute(for: fleet, now: Instant(iso8601: "2026-11-23T09:00:00Z")!)
        // Every switch the enforcer decides has its column, drawn from its own lists (issue 85,
        // item 4): each SDK switch, each OS surface, web links, conditional launch.
        for setting in PolicySetting.allCases { #expect(m.features.contains(.setting(setting)), "\(setting)") }
        for surface in OSSurface.allCases { #expect(m.features.contains(.surface(surface)), "\(surface)") }
        #expect(m.features.contains(.webLinks) && m.features.last == .launch)
        func row(_ app: BundleID) throws -> [Verdict] { m.feature[try #require(m.parties.firstIndex(of: PolicyMatrix.Party(app: app, account: World.alice)))] }
        let outlook = try row(World.outlook)
        func cell(_ f: PolicyMatrix.Feature) -> Verdict { outlook[m.features.firstIndex(of: f)!] }
        #expect(cell(.print).blockedBy == .printBlocked, "\(cell(.print))")
        #expect(cell(.notifications).isAllowed && cell(.notifications).explanation.contains("blockOrganizationalData"), "\(cell(.notifications))")
        #expect(cell(.screenCapture).blockedBy == .screenCaptureBlocked, "\(cell(.screenCapture))")
        #expect(cell(.setting(.backup)).blockedBy == .featureRestricted && cell(.setting(.backup)).explanation.contains("dataBackupBlocked = true"), "\(cell(.setting(.backup)))")
        #expect(cell(.launch).blockedBy == .conditionalLaunch && cell(.launch).explanation.contains("15.0"), "\(cell(.launch))")
        // Level 3 leaves contact sync on (contactSyncBlocked false) and sends links to Edge.
        #expect(cell(.setting(.contactSync)).isAllowed, "\(cell(.setting(.contactSync)))")
        #expect(cell(.webLinks).blockedBy == .featureRestricted && cell(.webLinks).explanation.contains("Edge"), "\(cell(.webLinks))")
        let mine = try row(World.mine)
        let untargeted = mine.allSatisfy { $0.isAllowed }
        #expect(untargeted, "level 3 does not target com.contoso.Mail: \(mine)")
    }
}
