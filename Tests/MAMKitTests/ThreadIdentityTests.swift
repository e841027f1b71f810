import Dispatch
import MAMModel
import Testing
@testable import MAMKit

/// The thread identity layer (RULES.md §1) over Swift task-local values.
@Suite struct ThreadIdentityTests {
    @Test func nestedScopesSeeTheInnermostIdentityAndRestoreTheOuterOne() {
        #expect(ThreadIdentity.accountId == nil)
        ThreadIdentity.withAccountId("alice@contoso.com") {
            #expect(ThreadIdentity.accountId == "alice@contoso.com")
            ThreadIdentity.withAccountId("") {
                #expect(ThreadIdentity.accountId == "")
            }
            #expect(ThreadIdentity.accountId == "alice@contoso.com")
        }
        #expect(ThreadIdentity.accountId == nil)
    }

    struct Boom: Error {}

    @Test func aScopeThatThrowsStillRestoresTheOuterIdentity() {
        ThreadIdentity.withAccountId("bob@outlook.com") {
            #expect(throws: Boom.self) {
                try ThreadIdentity.withAccountId("alice@contoso.com") { throw Boom() }
            }
            #expect(ThreadIdentity.accountId == "bob@outlook.com")
        }
        #expect(ThreadIdentity.accountId == nil)
    }

    @Test func asyncScopesRestoreAcrossSuspensionPoints() async {
        await ThreadIdentity.withAccountId("alice@contoso.com") {
            await Task.yield()
            await ThreadIdentity.withAccountId("bob@outlook.com") {
                await Task.yield()
                #expect(ThreadIdentity.accountId == "bob@outlook.com")
            }
            #expect(ThreadIdentity.accountId == "alice@contoso.com")
        }
        #expect(ThreadIdentity.accountId == nil)
    }

    @Test func childTasksInheritTheIdentityOfTheScopeThatCreatedThem() async {
        let seen = await ThreadIdentity.withAccountId("alice@contoso.com") { () async -> [String?] in
            async let child = ThreadIdentity.accountId
            let grouped = await withTaskGroup(of: String?.self) { group in
                group.addTask { ThreadIdentity.accountId }
                group.addTask { ThreadIdentity.withAccountId("") { ThreadIdentity.accountId } }
                var all: [String?] = []
                for await value in group { all.append(value) }
                return all
            }
            let unstructured = await Task { ThreadIdentity.accountId }.value
            return [await child, unstructured] + grouped.sorted { ($0 ?? "~") < ($1 ?? "~") }
        }
        #expect(seen == ["alice@contoso.com", "alice@contoso.com", "", "alice@contoso.com"])
    }

    @Test func detachedTasksAndDispatchedClosuresDoNotInheritImplicitly() async {
        let (detached, dispatched) = await ThreadIdentity.withAccountId("alice@contoso.com") { () async -> (String?, String?) in
            let d = await Task.detached { ThreadIdentity.accountId }.value
            let q = await withCheckedContinuation { (c: CheckedContinuation<String?, Never>) in
                DispatchQueue.global().async { c.resume(returning: ThreadIdentity.accountId) }
            }
            return (d, q)
        }
        #expect(detached == nil)
        #expect(dispatched == nil)
    }

    @Test func aCapturedClosureRunsWithItsCreatorsIdentityWhereverItRuns() async {
        let work = ThreadIdentity.withAccountId("alice@contoso.com") {
            ThreadIdentity.capturing { ThreadIdentity.accountId }
        }
        // Run by another thread, inside another identity's scope: the creator's identity wins.
        let onQueue = await withCheckedContinuation { (c: CheckedContinuation<String?, Never>) in
            DispatchQueue.global().async {
                ThreadIdentity.withAccountId("bob@outlook.com") { c.resume(returning: work()) }
            }
        }
        #expect(onQueue == "alice@contoso.com")
        #expect(await Task.detached { work() }.value == "alice@contoso.com")
        #expect(ThreadIdentity.accountId == nil)
    }

    @Test func theThreadIdentityOverridesWindowAndProcessForBothTaskKinds() {
        ThreadIdentity.withAccountId("") {
            let layers = ThreadIdentity.layers(process: "alice@contoso.com", ui: "alice@contoso.com")
            #expect(layers.effective(for: .ui) == "")
            #expect(layers.effective(for: .file) == "")
        }
        let outside = ThreadIdentity.layers(process: "alice@contoso.com", ui: "bob@outlook.com")
        #expect(outside.effective(for: .ui) == "bob@outlook.com")
        #expect(outside.effective(for: .file) == "alice@contoso.com")
    }
}
