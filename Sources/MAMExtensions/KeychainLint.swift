import MAMActivation
import MAMBundle
/// Keychain access groups (RULES.md §6): a process's default group is its first one, so the
/// bundle id must come first; `com.microsoft.intune.mam` first, or misspelled so that the SDK's
/// shared items are never found, are the common mistakes lint catches.
extension LintContext {
    mutating func checkKeychain(_ bundle: BundleFolder) {
        let mam = Linter.intuneKeychainGroup
        let groups = bundle.keychainGroupsToJudge
        for (index, group, bare) in groups {
            guard bare != mam, Self.isMisspelledIntuneGroup(bare) else { continue }
            let why = bare.lowercased() == mam ? "differs from com.microsoft.intune.mam only in case, and keychain groups are case-sensitive"
                                              : "is not com.microsoft.intune.mam (misspelled), so the Intune SDK's shared keychain items are not reachable"
            report(.error, "keychain-intune-group-misspelled", bundle, .entitlements, "keychain-access-groups[\(index)]", "\"\(group)\" \(why)",
                   fix: "write <string>\(Self.teamPrefixVariable)com.microsoft.intune.mam</string>")
        }

        guard let first = groups.first, first.index == 0,
              let bundleId = bundle.bundleIdentifier, Self.isResolved(bundleId) else { return }
        var accepted = [bundleId]
        // An extension may put its containing app's group first to share the app's default
        // group: the app named by ContainingAppBundleId, or the app target that embeds it.
        if bundle.prefix.isEmpty, plugin.manifest != nil {
            if let app = plugin.intuneSettings.containingAppBundleId { accepted.append(app) }
            if let app = container?.bundleIdentifier, Self.isResolved(app) { accepted.append(app) }
        }
        let firstBare = first.bare
        guard !accepted.contains(firstBare) else { return }
        let own = groups.first { $0.bare == bundleId }
        let fix = own.map { "move <string>\(Self.teamPrefixVariable)\(bundleId)</string> (keychain-access-groups[\($0.index)]) to the top of the array" }
            ?? "add <string>\(Self.teamPrefixVariable)\(bundleId)</string> as the first entry"
        if firstBare == mam || Self.isMisspelledIntuneGroup(firstBare) {
            report(.warning, "keychain-bundle-id-first", bundle, .entitlements, "keychain-access-groups[0]",
                   "com.microsoft.intune.mam is the first keychain group, but the bundle id \(bundleId) must come first (the first group is the default one, where the app's own items go)",
                   fix: fix)
        } else {
            report(.warning, "keychain-bundle-id-first", bundle, .entitlements, "keychain-access-groups[0]",
                   "is \"\(first.group)\", but the first keychain group must be the bundle id \(bundleId) (it is the default group)",
                   fix: fix)
        }
    }

    /// Within two edits of `com.microsoft.intune.mam`, any case (`com.microsot.intune.mam`,
    /// `com.microsoft.intune.man`, `com.Microsoft.Intune.MAM`); the exact spelling is not.
    static func isMisspelledIntuneGroup(_ bare: String) -> Bool {
        bare != Linter.intuneKeychainGroup && editDistance(bare.lowercased(), Linter.intuneKeychainGroup, limit: 2) <= 2
    }

    /// Levenshtein distance, stopping early once every path exceeds `limit`.
    static func editDistance(_ a: String, _ b: String, limit: Int) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if abs(a.count - b.count) > limit { return limit + 1 }
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            if current.min()! > limit { return limit + 1 }
            previous = current
        }
        return previous[b.count]
    }
}
