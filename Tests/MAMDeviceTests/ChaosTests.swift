import Foundation
import MAMDevice
import MAMModel
import MAMWire
import Synchronization
import Testing

/// Chaos with a fixed seed: senders flood shares while destinations are killed at random and
/// relaunched. Whatever dies, every share gets exactly one answer, nothing is delivered twice
/// or to the wrong app, and no process outlives the host.
@Suite(.serialized) struct ChaosTests {
    /// A small deterministic generator (SplitMix64), so a failure replays.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E3779B97F4A7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
            z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
            return z ^ (z >> 31)
        }
    }

    /// What the host reported: each share's answers, and each delivery, by (sender, item).
    final class Ledger: Sendable {
        struct Key: Hashable { let from: String, to: String, id: String }
        private let state = Mutex<(answers: [Key: [Verdict]], received: [(to: String, from: String, id: String)], pids: [Int32])>(([:], [], []))
        func record(_ e: HostEvent) {
            state.withLock { s in
                switch e {
                case .share(let r): s.answers[Key(from: r.from, to: r.to, id: r.itemID), default: []].append(r.outcome)
                case .received(let h, let item): s.received.append((h, item.from, item.item.id))
                case .spawned(_, let pid): s.pids.append(pid)
                default: break
                }
            }
        }
        var answers: [Key: [Verdict]] { state.withLock { $0.answers } }
        var received: [(to: String, from: String, id: String)] { state.withLock { $0.received } }
        var pids: [Int32] { state.withLock { $0.pids } }
    }

    @Test func randomKillsDuringFloodsLoseNoAnswerAndDuplicateNothing() async throws {
        var rng = Seeded(state: 20_261_122)
        var config = try makeConfiguration(apps: 6)
        config.reportDeliveries = true
        config.deliveryTimeout = .seconds(5)
        let ledger = Ledger()
        let host = try HostController(configuration: config) { ledger.record($0) }
        #expect(await host.startFleet().isEmpty)
        let senders = ["app0", "app1", "app2"], targets = ["app3", "app4", "app5"]
        let perSender: UInt64 = 600
        var kills = 0
        await withTaskGroup(of: Void.self) { group in
            for (i, sender) in senders.enumerated() {
                let target = targets[i]
                group.addTask {
                    // Each sender floods its target; the flood answers once every share has.
                    _ = await host.command(sender, .flood(Flood(destination: target, count: perSender, size: 256, window: 64)))
                }
            }
            // Meanwhile: kill a random target, let it be relaunched, again and again.
            for _ in 0..<12 {
                try? await Task.sleep(for: .milliseconds(Int.random(in: 5...40, using: &rng)))
                let victim = targets.randomElement(using: &rng)!
                if await host.kill(victim) { kills += 1 }
                _ = await host.launch(victim)
            }
            await group.waitForAll()
        }
        let answers = ledger.answers
        let shares = answers.keys.filter { senders.contains($0.from) }
        // Ids repeat across floods of different senders, never within one (sender, target).
        #expect(shares.count == senders.count * Int(perSender), "every share was answered: \(shares.count)")
        let duplicated = answers.filter { $0.value.count != 1 }
        #expect(duplicated.isEmpty, "shares answered more than once: \(duplicated.prefix(3))")
        let delivered = Set(answers.filter { $0.value == [.delivered] }.map(\.key))
        var seen: Set<Ledger.Key> = []
        var misdelivered = 0, twice = 0
        for r in ledger.received {
            let key = Ledger.Key(from: r.from, to: r.to, id: r.id)
            if !delivered.contains(key) { misdelivered += 1 }
            if !seen.insert(key).inserted { twice += 1 }
        }
        #expect(misdelivered == 0)
        #expect(twice == 0)
        let failed = answers.values.filter { $0.first != .delivered }.count
        print("chaos: \(kills) kills, \(shares.count) shares, \(answers.values.map(\.count).reduce(0, +)) answers, \(delivered.count) delivered, \(failed) failed, \(twice) duplicates, \(misdelivered) misdelivered")
        #expect(await host.shutdown() == 0)
        for pid in ledger.pids { #expect(!isRunning(pid), "pid \(pid) outlived the host") }
    }

    /// The other way round: senders killed mid-flood. What they shared is still at its
    /// destination; each such share is answered (recorded) once when the destination
    /// acknowledges, with nobody left to tell, and the host goes on serving the others.
    @Test func sendersKilledMidFloodLeaveEachOfTheirSharesAnsweredOnce() async throws {
        var rng = Seeded(state: 20_261_124)
        var config = try makeConfiguration(apps: 6)
        config.reportDeliveries = true
        let ledger = Ledger()
        let host = try HostController(configuration: config) { ledger.record($0) }
        #expect(await host.startFleet().isEmpty)
        let senders = ["app0", "app1", "app2"], targets = ["app3", "app4", "app5"]
        // The victims' floods are ten times the survivor's: each dies within milliseconds of
        // its first answers, so a fast or idle machine cannot finish one before its kill (the
        // second victim is killed after the first, which 4000 items did not always outlast).
        let victimCount: UInt64 = 40_000
        var outcomes: [CommandResult] = []
        await withTaskGroup(of: CommandResult.self) { group in
            for (sender, target) in zip(senders, targets) {
                let count: UInt64 = sender == "app2" ? 4000 : victimCount
                group.addTask { await host.command(sender, .flood(Flood(destination: target, count: count, size: 256, window: 128))) }
            }
            // Each of the first two senders dies once, at a random moment of its flood (and is
            // not started again: a new flood would reuse its item ids).
            for victim in senders.prefix(2) {
                // Mid-flood: once some of its shares were answered (on a loaded machine the
                // flood may not have started 5 ms after the command), at a random moment after.
                let deadline = ContinuousClock.now + .seconds(20)
                while !ledger.answers.keys.contains(where: { $0.from == victim }), ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(1))
                }
                try? await Task.sleep(for: .milliseconds(Int.random(in: 0...10, using: &rng)))
                #expect(await host.kill(victim))
            }
            for await r in group { outcomes.append(r) }
        }
        // The survivor's flood completed; the victims' commands failed with their process.
        #expect(outcomes.contains { if case .flood(4000, _) = $0 { true } else { false } })
        let answers = ledger.answers
        let duplicated = answers.filter { $0.value.count != 1 }
        #expect(duplicated.isEmpty, "shares answered more than once: \(duplicated.prefix(3))")
        let delivered = Set(answers.filter { $0.value == [.delivered] }.map(\.key))
        var seen: Set<Ledger.Key> = []
        for r in ledger.received {
            let key = Ledger.Key(from: r.from, to: r.to, id: r.id)
            #expect(delivered.contains(key), "\(key) was received but its share was not answered delivered")
            #expect(seen.insert(key).inserted, "\(key) was received twice")
        }
        for victim in senders.prefix(2) {
            let answered = answers.keys.filter { $0.from == victim }.count
            #expect(answered > 0 && answered < Int(victimCount), "\(victim) died mid-flood with \(answered) of its shares answered")
        }
        #expect(await host.shutdown() == 0)
        for pid in ledger.pids { #expect(!isRunning(pid), "pid \(pid) outlived the host") }
    }
}
