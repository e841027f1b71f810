import MAMModel
import MAMPolicy
import Testing

/// What a run's decisions read of the policies (`PolicyReads`, `mamsim mutate`'s replay): the
/// settings a mutant changes, a read recorded where it happens, a replayable decision asked
/// again under another policy. Other suites may read policies on other threads meanwhile, so
/// these check what must be recorded, never that nothing else was.
@Suite("Policy reads", .serialized)
struct PolicyReadsTests {
    @Test func theFieldsAreThePolicysStoredPropertiesInOrder() {
        let labels = Mirror(reflecting: IosManagedAppProtection()).children.compactMap { $0.label.map { String($0.dropFirst()) } }
        #expect(labels == PolicyField.allCases.map { "\($0)" })
    }

    @Test func aMutantChangesTheFieldsItWritesAndWhatIsDerivedFromThem() {
        let base = World.strictPolicy()
        var printing = base
        printing.printBlocked = true
        #expect(printing.fields(differingFrom: base).members == [.printBlocked])
        var listed = base
        listed.apps = [World.word]
        // The app list also sets its folded set and that it was given.
        #expect(listed.fields(differingFrom: base).members == [.apps, .appsListed, .appSet])
        #expect(base.fields(differingFrom: base).isEmpty)
        var exempt = base
        exempt.exemptedAppProtocols = []
        #expect(exempt.fields(differingFrom: base).members == [.exemptedAppProtocols, .exemptSchemeKeys])
    }

    @Test func aReadOutsideADecisionIsRecordedAndADecisionIsAskedAgain() async {
        let reads = PolicyReads()
        let fleet = World.fleet()
        let answer = await reads.recording { () async -> Verdict in
            _ = fleet.policy(for: World.alice)?.minimumPinLength
            return PolicyReads.decision(in: fleet) { Enforcer.print(as: World.alice, app: World.mine, in: $0) }
        }
        #expect(answer.isAllowed)
        #expect(reads.unreplayable.contains(.minimumPinLength))
        let made = reads.decisions.filter { $0.fleet.sharesEntries(with: fleet) }
        #expect(made.count == 1 && made[0].fields.contains(.printBlocked), "\(made.map(\.fields.members))")
        var blocked = World.strictPolicy()
        blocked.printBlocked = true
        var other = World.strictPolicy()
        other.minimumPinLength = 8
        #expect(made.first?.answersTheSame(fleet) == true)
        #expect(made.first?.answersTheSame(World.fleet(policy: other)) == true)
        #expect(made.first?.answersTheSame(World.fleet(policy: blocked)) == false)
        // Outside a recording, a decision is just asked, and nothing is recorded.
        let before = reads.decisions.count
        _ = PolicyReads.decision(in: fleet) { Enforcer.print(as: World.alice, app: World.mine, in: $0) }
        #expect(reads.decisions.count == before)
    }

    @Test func aDecisionInsideAnotherIsPartOfIt() async {
        let reads = PolicyReads()
        let fleet = World.fleet()
        await reads.recording {
            _ = PolicyReads.decision(in: fleet) { outer in
                let printing = PolicyReads.decision(in: outer) { Enforcer.print(as: World.alice, app: World.mine, in: $0) }
                return Pair(printing.isAllowed, outer.policy(for: World.alice)?.saveAsBlocked ?? false)
            }
        }
        let made = reads.decisions.filter { $0.fleet.sharesEntries(with: fleet) }
        #expect(made.count == 1 && made[0].fields.contains(.printBlocked) && made[0].fields.contains(.saveAsBlocked), "\(made.map(\.fields.members))")
    }

    /// The share decision asked again: with the device's answers it was given, it answers as it
    /// did under a policy that changes nothing it reads, otherwise under one that does; and a
    /// question it was not asked the first time (a file it did not name) makes it one that
    /// cannot be asked again, never one that answers the same.
    @Test func aShareDecisionIsAskedAgainWithTheDevicesAnswersItWasGiven() async throws {
        let reads = PolicyReads()
        let fleet = World.fleet()
        let device = ShareDeciderTests.Device(targetReceivesAs: World.alice)
        let q = ShareDeciderTests.question(to: World.outlook, owner: World.alice)
        let live = try await reads.recording { try ShareDecider.decideReplayably(q, in: fleet, device) }
        #expect(ShareDeciderTests.word(live) == "deliver")
        let made = reads.decisions.filter { $0.fleet.sharesEntries(with: fleet) && $0.fields.contains(.allowedOutboundDataTransferDestinations) }
        #expect(made.count == 1, "\(reads.decisions.map(\.fields.members))")
        var printing = World.strictPolicy()
        printing.printBlocked = true
        var nowhere = World.strictPolicy()
        nowhere.allowedOutboundDataTransferDestinations = .none
        #expect(made.first?.answersTheSame(World.fleet(policy: printing)) == true)
        #expect(made.first?.answersTheSame(World.fleet(policy: nowhere)) == false)
        // Personal data into a multi-identity app showing alice: her policy taking data from
        // any app, it goes without the decision asking who else is signed in there; asked
        // again under one taking it from managed apps only, it would have to ask (to switch the
        // app to a personal account), which it was not: it cannot answer the same.
        var open = World.strictPolicy()
        open.allowedInboundDataTransferSources = .allApps
        let welcoming = World.fleet(policy: open)
        let personal = ShareDeciderTests.question(from: World.notes, to: World.mine, owner: nil, senderMulti: false, targetMulti: true)
        let into = ShareDeciderTests.Device(targetReceivesAs: World.alice, targetSignedIn: [World.alice, World.bob])
        let inbound = PolicyReads()
        let went = try await inbound.recording { try ShareDecider.decideReplayably(personal, in: welcoming, into) }
        #expect(ShareDeciderTests.word(went) == "deliver")
        let asked = inbound.decisions.filter { $0.fleet.sharesEntries(with: welcoming) && $0.fields.contains(.allowedInboundDataTransferSources) }
        #expect(asked.count == 1 && asked.first?.answersTheSame(welcoming) == true)
        #expect(asked.first?.answersTheSame(World.fleet()) == false)
        #expect(ShareDeciderTests.word(try ShareDecider.decide(personal, in: World.fleet(), into)) == "ask unmanaged", "the row this replay stands for")
    }

    @Test func anotherFleetsAccountsReplaceOnlyTheAccounts() {
        var later = World.fleet()
        later.device.osVersion = Version("17.0")!
        var printing = World.strictPolicy()
        printing.printBlocked = true
        let mutant = later.withAccounts(of: World.fleet(policy: printing))
        #expect(mutant.device.osVersion == Version("17.0")! && mutant.policy(for: World.alice)?.printBlocked == true)
        #expect(!mutant.sharesEntries(with: later) && later.withAccounts(of: later).sharesEntries(with: later))
    }

    struct Pair: Hashable, Sendable {
        let a: Bool, b: Bool
        init(_ a: Bool, _ b: Bool) { (self.a, self.b) = (a, b) }
    }
}
