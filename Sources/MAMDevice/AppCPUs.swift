/// Where the apps run once a fleet is ready (`BrokerCPU`): the CPUs split between the loop and
/// the apps, and whether this host holds the process's claim on a split
/// (`BrokerCPUSplit.claim`, one host's at a time unless one is asked for by name).
struct AppCPUs {
    private(set) var split: BrokerCPUSplit?
    private var holdsClaim = false

    /// Claims the process's split for `split`: `true` when it is in force (claimed, or
    /// asked for by name with `dedicated`, which splits even beside another host's).
    mutating func claim(_ split: BrokerCPUSplit, dedicated: Bool) -> Bool {
        holdsClaim = BrokerCPUSplit.claim()
        guard holdsClaim || dedicated else { return false }
        self.split = split
        return true
    }

    /// The host ends: the claim goes back.
    mutating func release() {
        if holdsClaim { BrokerCPUSplit.release() }
        holdsClaim = false
        split = nil
    }
}
