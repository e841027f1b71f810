// The enforcer's transfer decision alone, built from one commit's MAMModel and MAMPolicy
// (scripts/decision-probe): nanoseconds per decision (median of batches) and heap
// allocations per decision, counted by the interposed allocator of Tests/CAllocationCount.
// The fleet and the transfer are DecisionBench's (`mamsim bench --only decision`), written
// again here on purpose: the probe is compiled against an old commit's two modules alone, so
// it can import neither mamsim nor anything that commit may lack.
import Glibc
import MAMModel
import MAMPolicy

@_silgen_name("mamsim_allocations") func probeAllocations() -> UInt64

let alice = Account(upn: "alice@contoso.com", oid: "0b6f1c2e-2f4b-4c1e-9a55-3c1f0e6d7a10")
let policy = try GraphPolicyImporter.importPolicies(Array("""
    {"displayName": "bench", "allowedOutboundDataTransferDestinations": "managedApps", "allowedInboundDataTransferSources": "managedApps"}
    """.utf8), source: "bench").policies[0]
var built = Fleet()
built.add(alice, policy: policy)
for i in 0..<50 { built.install(AppDescriptor(bundleID: BundleID("com.bench.app\(i)"))) }
let fleet = built
let from = BundleID("com.bench.app3")
let to = BundleID("com.bench.app41")

@inline(never) func decide(_ fleet: Fleet, _ owner: Account, _ from: BundleID, _ to: BundleID) -> Bool {
    Enforcer.transfer(owner: owner, from: from, to: to, receivedAs: owner, in: fleet).isAllowed
}

var allowed = 0
// `probe N`: exactly N decisions and nothing else, for an instruction counter run around it
// twice (valgrind's callgrind: the difference of two counts over the difference of N).
if CommandLine.arguments.count == 2, let n = Int(CommandLine.arguments[1]) {
    for _ in 0..<n where decide(fleet, alice, from, to) { allowed += 1 }
    guard allowed == n else { fatalError("a decision was not allowed: the probe measured the wrong path") }
    exit(0)
}
for _ in 0..<10_000 where decide(fleet, alice, from, to) { allowed += 1 }
let counted = 100_000
let before = probeAllocations()
for _ in 0..<counted where decide(fleet, alice, from, to) { allowed += 1 }
let allocations = Double(probeAllocations() - before) / Double(counted)

let batches = 201, perBatch = 10_000
let clock = ContinuousClock()
var samples: [Double] = []
samples.reserveCapacity(batches)
for _ in 0..<batches {
    let start = clock.now
    for _ in 0..<perBatch where decide(fleet, alice, from, to) { allowed += 1 }
    let d = clock.now - start
    samples.append((Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9) / Double(perBatch))
}
guard allowed == 10_000 + counted + batches * perBatch else { fatalError("a decision was not allowed: the probe measured the wrong path") }
print(samples.sorted()[batches / 2], allocations)
