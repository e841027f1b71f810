import MAMModel
import MAMPolicy

/// The enforcer alone: the median time of one transfer decision (managed owner under a
/// managedApps policy to a policy-managed app as the same account), over batches so the clock's
/// own cost does not count.
enum DecisionBench {
    static func run(batches: Int = 201, perBatch: Int = 10_000) throws -> Double {
        let alice = Account(upn: "alice@contoso.com", oid: "0b6f1c2e-2f4b-4c1e-9a55-3c1f0e6d7a10")
        let policy = try GraphPolicyImporter.importPolicies(Array("""
            {"displayName": "bench", "allowedOutboundDataTransferDestinations": "managedApps", "allowedInboundDataTransferSources": "managedApps"}
            """.utf8), source: "bench").policies[0]
        var fleet = Fleet()
        fleet.add(alice, policy: policy)
        for i in 0..<50 { fleet.install(AppDescriptor(bundleID: BundleID("com.bench.app\(i)"))) }
        let from = BundleID("com.bench.app3")
        let to = BundleID("com.bench.app41")
        var allowed = 0
        let median = medianNanoseconds(batches: batches, perBatch: perBatch) {
            if Enforcer.transfer(owner: alice, from: from, to: to, receivedAs: alice, in: fleet).isAllowed { allowed += 1 }
        }
        // Every decision must have been allowed, or the loop measured the wrong path.
        guard allowed == batches * perBatch else { throw BenchError(message: "decision bench: \(allowed) of \(batches * perBatch) allowed") }
        return median
    }
}

/// A scenario's fleet as the loader builds it: 5,000 apps and 500 share extensions installed
/// one at a time, the best of three builds in milliseconds. Each install once rebuilt every
/// app's entry, which made this quadratic (11 s for this fleet).
enum FleetBuildBench {
    static let apps = 5_000

    static func run() throws -> Double {
        let clock = ContinuousClock()
        var best = Duration.seconds(3_600)
        for _ in 0..<3 {
            var fleet = Fleet()
            let elapsed = clock.measure {
                for i in 0..<apps { fleet.install(AppDescriptor(bundleID: BundleID("com.bench.app\(i)"))) }
                for i in 0..<(apps / 10) {
                    fleet.install(AppDescriptor(bundleID: BundleID("com.bench.app\(i).share"), kind: .share, containingApp: BundleID("com.bench.app\(i)")))
                }
            }
            guard fleet.apps.count == apps + apps / 10 else {
                throw BenchError(message: "fleet build bench: the fleet holds \(fleet.apps.count) apps, not \(apps + apps / 10)")
            }
            best = min(best, elapsed)
        }
        return Double(best.components.seconds) * 1_000 + Double(best.components.attoseconds) / 1e15
    }
}
