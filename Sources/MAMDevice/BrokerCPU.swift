import MAMLoop
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the apps leave a CPU to the broker's loop.
///
/// Every brokered item goes through the host's one loop thread, so when the apps outnumber
/// the CPUs, each app the scheduler puts on the loop's CPU stalls every pair at once: the loop
/// sat runnable but waiting for a CPU (`/proc/PID/task/TID/schedstat` says how long), and
/// many pairs moved markedly fewer items than one. Confined apps cannot move themselves back
/// (their system call filter).
/// The loop itself is not pinned: it runs where no app may, as fast as when pinned, and a
/// thread it starts does not inherit a single CPU. The split is made once the fleet is ready,
/// not before: apps starting on every CPU start faster.
public enum BrokerCPU: Sendable, Hashable, CustomStringConvertible {
    /// A CPU kept from the apps once the fleet is ready, when the fleet has at least twice as many
    /// apps as the host may use CPUs: below that the apps rarely wait for each other's CPU
    /// (one pair ran as fast either way) and the apps keep every CPU.
    case automatic
    /// A CPU kept from the apps once the fleet is ready whatever its size (two CPUs or more), even
    /// while another host of the process has one.
    case dedicated
    /// Never: the apps may use every CPU.
    case shared

    /// `MAMSIM_BROKER_CPU`'s value: `shared`, `dedicated` or `automatic` (also when unset);
    /// anything else is `automatic` too, and `unknownSetting` says so at start.
    public init(environment value: String?) {
        switch value {
        case "shared": self = .shared
        case "dedicated": self = .dedicated
        default: self = .automatic
        }
    }

    /// The start-up note for a `MAMSIM_BROKER_CPU` this does not know; `nil` when it is known or unset.
    public static func unknownSetting(_ value: String?) -> String? {
        guard let value, !["shared", "dedicated", "automatic", ""].contains(value) else { return nil }
        return "MAMSIM_BROKER_CPU=\(value) is not shared, dedicated or automatic: automatic is used"
    }

    public var description: String {
        switch self {
        case .automatic: "automatic"
        case .dedicated: "dedicated"
        case .shared: "shared"
        }
    }

    /// The split to make for a ready fleet of `apps` apps with `allowed` CPUs, the loop on
    /// `current` now; `nil` for none.
    static func split(_ policy: BrokerCPU, apps: Int, allowed: [Int], current: Int?) -> BrokerCPUSplit? {
        guard allowed.count >= 2 else { return nil }
        switch policy {
        case .shared: return nil
        case .automatic where apps < 2 * allowed.count: return nil
        case .automatic, .dedicated: break
        }
        // The CPU the loop is on already (its cache is warm there); the last one allowed if
        // it runs elsewhere: CPU 0 takes most of the machine's interrupts.
        let broker = current.flatMap { allowed.contains($0) ? $0 : nil } ?? allowed[allowed.count - 1]
        return BrokerCPUSplit(broker: broker, apps: allowed.filter { $0 != broker }, all: allowed)
    }
}

/// A CPU kept for the broker's loop, and the CPUs its apps run on.
public struct BrokerCPUSplit: Sendable, Hashable, CustomStringConvertible {
    public let broker: Int
    public let apps: [Int]
    /// Every CPU the host may use: the loop's own, before and after it starts a child.
    let all: [Int]

    public var description: String {
        "apps run on CPU\(apps.count == 1 ? "" : "s") \(Self.list(apps)), CPU \(broker) is kept for the broker's loop"
    }

    /// `0-3,6`: runs of consecutive CPUs as ranges.
    static func list(_ cpus: [Int]) -> String {
        var parts: [String] = []
        var i = 0
        while i < cpus.count {
            var j = i
            while j + 1 < cpus.count, cpus[j + 1] == cpus[j] + 1 { j += 1 }
            parts.append(j == i ? "\(cpus[i])" : "\(cpus[i])-\(cpus[j])")
            i = j + 1
        }
        return parts.joined(separator: ",")
    }

    /// One host of the process at a time splits by itself (`automatic`): hosts run side by
    /// side (a suite's scenarios in parallel) would otherwise stack their loops on CPUs taken
    /// from every host's apps. A host configured `dedicated` splits all the same.
    static let taken = Atomic<Bool>(false)

    static func claim() -> Bool { taken.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged }
    static func release() { taken.store(false, ordering: .releasing) }
}
