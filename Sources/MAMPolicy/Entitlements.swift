public import MAMModel

/// A keychain decision: the decision and the status code the app's call returns.
public struct KeychainDecision: Sendable, Hashable {
    public let decision: Verdict
    public let status: KeychainStatus
    /// The access group the call was resolved to (the default group when none was named).
    public let group: String?
}

extension Enforcer {
    /// The group Intune's shared keychain needs in an app and its extensions.
    public static let intuneKeychainGroup = "com.microsoft.intune.mam"

    /// An entitlement value without its team prefix (`$(AppIdentifierPrefix)` or
    /// `ABCDE12345.`), which is how the group is named in code.
    public static func normalizedGroup(_ group: String) -> String {
        if group.hasPrefix("$(AppIdentifierPrefix)") { return String(group.dropFirst("$(AppIdentifierPrefix)".count)) }
        let parts = group.split(separator: ".", maxSplits: 1)
        if parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) {
            return String(parts[1])
        }
        return group
    }

    /// The keychain access groups `app` may use, in its entitlement's order (RULES.md §6: only
    /// its `keychain-access-groups`).
    public static func keychainGroups(_ app: AppDescriptor) -> [String] {
        var groups: [String] = []
        for g in app.keychainAccessGroups.map(normalizedGroup) where !groups.contains(g) { groups.append(g) }
        return groups
    }

    /// The group an item goes to when the app names none: the first of its
    /// `keychain-access-groups`.
    public static func defaultKeychainGroup(_ app: AppDescriptor) -> String? {
        keychainGroups(app).first
    }

    /// Decides a keychain read or write by `app` in `group` (`nil` = the default group)
    /// (RULES.md §6). `itemExists` says whether the item is there, for reads; pass `true` for
    /// writes.
    public static func keychainAccess(group: String?, by app: AppDescriptor, itemExists: Bool) -> KeychainDecision {
        let groups = keychainGroups(app)
        guard let resolved = group.map(normalizedGroup) ?? groups.first else {
            return KeychainDecision(decision: .blocked(.keychainEntitlement, because: "\(app.bundleID) has no keychain-access-groups entitlement"),
                                    status: .missingEntitlement, group: nil)
        }
        guard groups.contains(resolved) else {
            return KeychainDecision(decision: .blocked(.keychainEntitlement, because: "\(app.bundleID) is not entitled to keychain group \(resolved); its keychain-access-groups are [\(groups.joined(separator: ", "))]"),
                                    status: .missingEntitlement, group: resolved)
        }
        guard itemExists else {
            return KeychainDecision(decision: .allowed("\(app.bundleID) may use keychain group \(resolved), but the item is not there"),
                                    status: .itemNotFound, group: resolved)
        }
        return KeychainDecision(decision: .allowed("\(app.bundleID) is entitled to keychain group \(resolved)"), status: .success, group: resolved)
    }

    /// Decides access by `app` to the app group container `group` (RULES.md §6).
    public static func appGroupAccess(_ group: String, by app: AppDescriptor) -> Verdict {
        if app.appGroups.contains(group) {
            return .allowed("\(app.bundleID) is entitled to app group \(group)")
        }
        return .blocked(.appGroupEntitlement, because: "\(app.bundleID) is not entitled to app group \(group); its application groups are [\(app.appGroups.joined(separator: ", "))]")
    }

    /// Checks `app`'s keychain groups the way Intune needs them (RULES.md §6): the app's own
    /// bundle id first, then `com.microsoft.intune.mam`, and no near-miss spelling of it.
    /// Returns one sentence per problem; empty when fine. Apps without the SDK are not checked.
    public static func lintKeychainGroups(_ app: AppDescriptor) -> [String] {
        guard app.sdkIntegrated else { return [] }
        let subject = app.isExtension ? (app.containingApp ?? app.bundleID) : app.bundleID
        let groups = app.keychainAccessGroups.map(normalizedGroup)
        var problems: [String] = []
        for g in groups where g != intuneKeychainGroup && editDistance(g.lowercased(), intuneKeychainGroup, limit: 3) <= 3 {
            problems.append("\(app.bundleID): keychain group \"\(g)\" looks like a misspelling of \"\(intuneKeychainGroup)\"; fix it in keychain-access-groups")
        }
        if !groups.contains(intuneKeychainGroup) {
            problems.append("\(app.bundleID): keychain-access-groups lacks \"\(intuneKeychainGroup)\", which the Intune SDK shares between an app and its extensions; add it after the bundle id")
        }
        if let first = groups.first, BundleID(first) != subject {
            problems.append("\(app.bundleID): the first keychain group is \"\(first)\", but it must be the bundle id \"\(subject)\" (the first group is the default one); move \"\(subject)\" to the front")
        }
        return problems
    }

    /// Levenshtein distance, stopping early above `limit`.
    static func editDistance(_ a: String, _ b: String, limit: Int) -> Int {
        let x = Array(a.utf8), y = Array(b.utf8)
        if abs(x.count - y.count) > limit { return limit + 1 }
        var previous = Array(0...y.count)
        for i in 1...max(x.count, 1) where !x.isEmpty {
            var current = [i] + Array(repeating: 0, count: y.count)
            for j in 1...max(y.count, 1) where !y.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[y.count]
    }
}
