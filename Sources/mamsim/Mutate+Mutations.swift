import MAMAdmin
import MAMDeclarations
import MAMPolicy
import MAMScenario

/// One mutant of a sweep: a setting of one of the scenario's app protection policies, a key of
/// one of its Intune app configurations, or a key of an app's managed app configuration (DDM),
/// moved to another value.
struct Mutation: Sendable {
    enum Kind: String, Codable, Sendable {
        case policy
        case appConfig
        /// A key of an app's managed configuration, as declarative device management delivers it.
        case declaration
    }

    var kind: Kind
    /// The policy's or the app configuration's name in the scenario.
    var owner: String
    /// The Graph property, or the configuration's key.
    var setting: String
    /// The value it was moved to, as the report writes it.
    var value: String
    /// How many decisions of the fleet's matrix it changes (a policy's; 0 for a key).
    var cells: Int
    private var policy: IosManagedAppProtection?
    private var config: AppConfigPolicy?
    private var entry: DeclarationSet.Entry?
    /// Where a declaration's key is written (policies and configurations keep theirs in the scenario).
    var place: SourcePlace?

    init(policy name: String, _ m: PolicyMutation.Mutant) {
        (kind, owner, setting, value, cells, policy) = (.policy, name, m.setting, m.value, m.cells, m.policy)
    }

    init(appConfig m: AppConfigMutation.Mutant) {
        (kind, owner, setting, value, cells, config) = (.appConfig, m.config.name, m.key, m.written, 0, m.config)
    }

    init(declaration m: DeclarationMutation.Mutant, place: SourcePlace?) {
        (kind, owner, setting, value, cells, entry, self.place) = (.declaration, m.asset, m.key, m.written, 0, m.entry, place)
    }

    /// The scenario run with this mutant in place of what it changes.
    func applied(to scenario: Scenario) -> Scenario {
        if let policy { return scenario.replacingPolicy(named: owner, with: policy) }
        var s = scenario
        if let entry, let i = s.declarations.firstIndex(where: { $0.declaration.identifier == owner }) {
            s.declarations[i] = entry
            return s
        }
        if let config, let i = s.appConfigs.firstIndex(where: { $0.name == owner }) { s.appConfigs[i] = config }
        return s
    }

    /// Whether this mutant's run of `scenario` would be the base run, step by step: it changes
    /// no setting the base run read outside a replayable decision, and every replayable
    /// decision that read one of its settings answers the same when asked again under it
    /// (in the fleet the decision was made in, with the mutant's accounts and policies). A
    /// decision made after a step changed the fleet's policies cannot be asked again: the
    /// mutant runs. App configurations and managed configurations always run: the app's code
    /// reads them, not a decision.
    func runsAsTheBase(of scenario: Scenario, _ reads: PolicyReads) -> Bool {
        guard let policy, let base = scenario.policies[owner] else { return false }
        let changed = policy.fields(differingFrom: base)
        guard !changed.isEmpty, !changed.intersects(reads.unreplayable) else { return changed.isEmpty }
        let mutant = applied(to: scenario).fleet
        for d in reads.decisions where d.fields.intersects(changed) {
            guard d.fleet.sharesEntries(with: scenario.fleet), d.answersTheSame(d.fleet.withAccounts(of: mutant)) else { return false }
        }
        return true
    }

    /// A scenario's mutants in the sweep's order — its policies in name order, a setting at a
    /// time, then its app configurations in the scenario's order, a key at a time, then its
    /// declared managed app configurations, a key at a time — and how many settings no value
    /// changes.
    static func all(of scenario: Scenario, only chosen: Set<String>?, allValues: Bool) -> (mutants: [Mutation], unchanged: Int) {
        var all: [Mutation] = [], unchanged = 0
        for name in scenario.policies.keys.sorted() {
            guard let policy = scenario.policies[name] else { continue }
            let (mutants, same) = PolicyMutation.mutants(of: policy, only: chosen, allValues: allValues) { mutant in
                // The cells `mamsim matrix --diff` lists, counted by its own diff (each class of
                // apps decided once), at the instant a matrix is computed for.
                PolicyMatrix.Diff(from: scenario.fleet, to: scenario.replacingPolicy(named: name, with: mutant).fleet,
                                  now: Instant(secondsSince1970: 0)).changedCells
            }
            unchanged += same.count
            all += mutants.map { Mutation(policy: name, $0) }
        }
        for config in scenario.appConfigs {
            let keys = AppConfigMutation.mutants(of: config, allValues: allValues).filter { chosen?.contains($0.key) ?? true }
            all += keys.map { Mutation(appConfig: $0) }
        }
        for m in DeclarationMutation.mutants(of: scenario.declarations, allValues: allValues) where chosen?.contains(m.key) ?? true {
            all.append(Mutation(declaration: m, place: DeclarationMutation.place(of: m, in: scenario)))
        }
        return (all, unchanged)
    }
}
