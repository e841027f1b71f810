import Dispatch
import MAMModel
public import MAMPolicy
import Synchronization

/// The mutants of an app protection policy (`mamsim mutate`, docs/MUTATE.md): for each Graph
/// property the importer reads — the enforcer's own list of settings, so a setting added there
/// is mutated without a change here — the policy with that one setting moved to another value.
/// The values tried are those Microsoft's level 1–3 templates give the property, and both
/// booleans; of those that change the policy, the mutant takes the one whose decisions differ
/// most from the policy's (`rank`: cells of the fleet's matrix that change).
public enum PolicyMutation {
    public struct Mutant: Sendable {
        /// The Graph property (`allowedOutboundDataTransferDestinations`).
        public var setting: String
        /// The value it was moved to, as Graph writes it.
        public var value: String
        public var policy: IosManagedAppProtection
        /// How many decisions of the fleet's matrix it changes (0: none the matrix shows; it may
        /// still change a PIN, a conditional launch or what the app reads).
        public var cells: Int
    }

    /// Each setting's candidate values: the templates' values of the property, and `true`/`false`.
    static let candidates: [String: [GraphValue]] = {
        var out: [String: [GraphValue]] = [:]
        for name in Baselines.names {
            guard let text = Baselines.document(name), let root = try? GraphValue.parse(Array(text.utf8), source: name),
                  case .object(let dict) = root else { continue }
            for (key, value) in dict where GraphPolicyImporter.properties[key] != nil {
                if !(out[key]?.contains(value) ?? false) { out[key, default: []].append(value) }
            }
        }
        // Values of every shape a setting takes — the setter refuses those not its own: both
        // booleans, the values of Graph's enums, numbers, durations, versions, an empty list.
        let enums: [String] = DataTransferLevel.allCases.map(\.rawValue) + ClipboardSharingLevel.allCases.map(\.rawValue)
            + PinCharacterSet.allCases.map(\.rawValue) + NotificationRestriction.allCases.map(\.rawValue) + RemediationAction.allCases.map(\.rawValue)
            + ManagedBrowserType.allCases.map(\.rawValue) + DeviceThreatLevel.allCases.map(\.rawValue) + MobileThreatDefensePartnerPriority.allCases.map(\.rawValue)
            + DialerRestrictionLevel.allCases.map(\.rawValue) + MessagingRedirectAppType.allCases.map(\.rawValue) + TargetedAppGroupType.allCases.map(\.rawValue)
            + AppDataEncryptionType.allCases.map(\.rawValue) + FeatureConfigurationState.allCases.map(\.rawValue)
        let extras: [GraphValue] = [.bool(true), .bool(false), .array([])] + [0, 1, 4, 30, 9999].map { .number($0) }
            + ["PT1M", "PT12H", "P90D", "1.0", "99.0"].map { .string($0) } + enums.map { .string($0) }
        for key in GraphPolicyImporter.properties.keys {
            for extra in extras where !(out[key]?.contains(extra) ?? false) { out[key, default: []].append(extra) }
        }
        return out
    }()

    /// What a policy's document says of itself, not a setting an app meets: never mutated.
    static let bookkeeping: Set<String> = ["id", "displayName", "description", "version", "createdDateTime", "lastModifiedDateTime",
                                           "roleScopeTagIds", "isAssigned", "deployedAppCount"]

    /// Every setting of the importer, in name order.
    public static var settings: [String] { GraphPolicyImporter.properties.keys.filter { !bookkeeping.contains($0) }.sorted() }

    /// The most values of one setting whose decisions are counted: a free-text setting takes
    /// any of them, and a few show which differs most.
    static let ranked = 8

    /// `policy`'s mutants, one per setting that some candidate changes (`only`: those settings
    /// alone), or one per value that changes it (`allValues`); `rank` counts the decisions a
    /// mutant changes. A setting no candidate changes has no mutant, and is returned apart.
    public static func mutants(of policy: IosManagedAppProtection, only: Set<String>? = nil, allValues: Bool = false,
                               rank: @Sendable (IosManagedAppProtection) -> Int) -> (mutants: [Mutant], unchanged: [String]) {
        var mutants: [Mutant] = [], unchanged: [String] = []
        let chosen = settings.filter { only?.contains($0) ?? true }
        // Each setting's candidates are ranked on their own (a matrix of the fleet's decisions
        // each): as many settings at once as there are cores, kept in the settings' order.
        let results = Mutex([[Mutant]](repeating: [], count: chosen.count))
        let limit = allValues ? Int.max : Self.ranked
        DispatchQueue.concurrentPerform(iterations: chosen.count) { i in
            let found = values(of: chosen[i], in: policy, limit: limit, rank: rank)
            results.withLock { $0[i] = found }
        }
        for (setting, found) in zip(chosen, results.withLock { $0 }) {
            if found.isEmpty {
                unchanged.append(setting)
            } else if allValues {
                mutants += found
            } else if let best = found.max(by: { $0.cells < $1.cells }) {
                // The first of those that change the most decisions: the candidates' order.
                mutants.append(found.first { $0.cells == best.cells } ?? best)
            }
        }
        return (mutants, unchanged)
    }

    /// The mutants of one setting, a candidate value each, for the first `limit` candidates
    /// that change the policy.
    static func values(of setting: String, in policy: IosManagedAppProtection, limit: Int,
                       rank: @Sendable (IosManagedAppProtection) -> Int) -> [Mutant] {
        guard let setter = GraphPolicyImporter.properties[setting] else { return [] }
        var found: [Mutant] = [], seen: [IosManagedAppProtection] = [], tried = 0
        for value in candidates[setting] ?? [] where tried < limit {
            var p = policy
            var context = GraphPolicyImporter.Context(place: "mutate", source: "mutate")
            guard (try? setter(&p, value, &context)) != nil, p != policy else { continue }
            tried += 1
            // Two values read as one policy (a number's spellings) are one mutant.
            guard !seen.contains(p) else { continue }
            seen.append(p)
            found.append(Mutant(setting: setting, value: value.description, policy: p, cells: rank(p)))
        }
        return found
    }

    /// Settings an app must take part in for them to work (its own SDK calls), with the call
    /// the SDK's guide asks for: a survivor there is code that does not consult the setting.
    public static let participation: [String: String] = [
        "allowedDataStorageLocations": "IntuneMAMPolicy.isSaveToAllowed(for:withAccountId:) before saving (Stage 4)",
        "saveAsBlocked": "IntuneMAMPolicy.isSaveToAllowed(for:withAccountId:) before saving (Stage 4)",
        "allowedDataIngestionLocations": "IntuneMAMPolicy.isOpenFromAllowed(for:withAccountId:) before importing (Stage 4)",
        "blockDataIngestionIntoOrganizationDocuments": "IntuneMAMPolicy.isOpenFromAllowed(for:withAccountId:) before importing (Stage 4)",
        "notificationRestriction": "IntuneMAMPolicy.notificationPolicy, read from the policy of the account a notification is for, before showing it (Stage 4)",
        "managedUniversalLinks": "the app's own handling of the links the SDK lets it open",
        "screenCaptureBlocked": "the UI identity (setUIPolicyAccountId) of the screen showing the account's data (Stage 5)",
    ]
}
