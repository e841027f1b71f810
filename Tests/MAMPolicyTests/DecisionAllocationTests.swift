import CAllocationCount
import MAMModel
import MAMPolicy
import Testing

/// The broker decides every share; an allowed decision keeps the parties its sentence names
/// and builds the sentence only when read, so deciding allocates nothing (issue: the decision
/// must not allocate). Counted by the allocator this test binary interposes
/// (Tests/CAllocationCount); a refusal builds its sentence and is not counted here.
@Suite("Transfer decisions allocate nothing")
struct DecisionAllocationTests {
    typealias W = World

    /// (owner, from, to, received as, the policy's outbound and inbound levels), each an
    /// allowed path.
    static let allowedPaths: [(String, Account?, BundleID, BundleID, Account?, DataTransferLevel, DataTransferLevel)] = [
        ("managed to a managed app as the same account", W.alice, W.mine, W.outlook, W.alice, .managedApps, .managedApps),
        ("managed to any app", W.alice, W.mine, W.notes, nil, .allApps, .managedApps),
        ("unmanaged to an unmanaged identity", nil, W.notes, W.skypeLike, nil, .managedApps, .managedApps),
        ("unmanaged accounts only", W.bob, W.mine, W.outlook, W.carol, .managedApps, .managedApps),
        ("unmanaged data to a policy taking data from all apps", nil, W.outlook, W.word, W.alice, .managedApps, .allApps),
        ("managed in an app its policy does not target", W.alice, W.notes, W.skypeLike, nil, .managedApps, .managedApps),
    ]

    @Test(.enabled(if: mamsim_allocations_counted() == 1, "the allocator is interposed on Linux with glibc only"),
          arguments: allowedPaths.indices)
    func anAllowedDecisionAllocatesNothing(_ row: Int) {
        let (name, owner, from, to, receiver, outbound, inbound) = Self.allowedPaths[row]
        var policy = W.strictPolicy()
        policy.allowedOutboundDataTransferDestinations = outbound
        policy.allowedInboundDataTransferSources = inbound
        let fleet = W.fleet(policy: policy)
        let first = Enforcer.transfer(owner: owner, from: from, to: to, receivedAs: receiver, in: fleet)
        #expect(first.isAllowed, "\(name): \(first.decision)")
        let count = 1_000
        var allowed = 0
        let before = mamsim_allocations()
        for _ in 0..<count where Enforcer.transfer(owner: owner, from: from, to: to, receivedAs: receiver, in: fleet).isAllowed {
            allowed += 1
        }
        let allocations = mamsim_allocations() - before
        #expect(allowed == count)
        #expect(allocations == 0, "\(name): \(allocations) allocations in \(count) decisions")
        // The sentence is still there when read, built from the same parties.
        #expect(!first.decision.explanation.isEmpty)
    }

    /// The counter counts: a decision whose sentence is read allocates it.
    @Test(.enabled(if: mamsim_allocations_counted() == 1, "the allocator is interposed on Linux with glibc only"))
    func readingTheSentenceAllocates() {
        let fleet = W.fleet()
        let before = mamsim_allocations()
        let sentence = Enforcer.transfer(owner: W.alice, from: W.mine, to: W.outlook, receivedAs: W.alice, in: fleet).decision.explanation
        #expect(mamsim_allocations() > before)
        #expect(sentence.contains("receives data from policy-managed apps"))
    }
}
