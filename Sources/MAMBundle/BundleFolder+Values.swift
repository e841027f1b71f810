import Foundation
import MAMActivation

// The values a bundle folder's checks read: its Info.plist's and entitlements' keys, resolved
// against its build settings.
extension BundleFolder {
    // MARK: Values the checks read

    package var bundleIdentifier: String? { manifest?.bundleIdentifier }
    package var intuneSettings: IntuneMAMSettings { manifest?.intuneSettings ?? IntuneMAMSettings() }
    package var displayName: String? { (info?["CFBundleDisplayName"] as? String) ?? (info?["CFBundleName"] as? String) }

    /// Every `CFBundleURLTypes[*].CFBundleURLSchemes[*]`.
    package var urlSchemes: [String] {
        (info?["CFBundleURLTypes"] as? [Any] ?? []).flatMap { entry -> [String] in
            PlistValue((entry as? [String: Any])?["CFBundleURLSchemes"] ?? [Any]()).stringArray ?? []
        }
    }

    /// Every `CFBundleDocumentTypes[*].LSItemContentTypes[*]`.
    package var documentTypes: [String] {
        (info?["CFBundleDocumentTypes"] as? [Any] ?? []).flatMap { entry -> [String] in
            PlistValue((entry as? [String: Any])?["LSItemContentTypes"] ?? [Any]()).stringArray ?? []
        }
    }

    /// Keychain groups with what the rules judge: the part after the team prefix. A group
    /// written `$(AppIdentifierPrefix)com.contoso.mail` is judged by `com.contoso.mail` even
    /// when the prefix is not set (never outside Xcode): the prefix is the team's, the rest is
    /// what can be wrong. Groups with another unset variable are left out.
    package var keychainGroupsToJudge: [(index: Int, group: String, bare: String)] {
        guard let entitlements else { return [] }
        let unresolved = Set(entitlements.unresolvedVariables.map(\.keyPath))
        var out: [(Int, String, String)] = []
        for (index, group) in entitlements.keychainAccessGroups.enumerated() {
            if let rest = Self.afterUnsetTeamPrefix(group) {
                if !rest.contains("$(") && !rest.contains("${") { out.append((index, group, rest)) }
            } else if !unresolved.contains("keychain-access-groups[\(index)]") {
                out.append((index, group, bareKeychainGroup(group)))
            }
        }
        return out
    }

    /// `group` without its team prefix, set or not.
    package func bareKeychainGroup(_ group: String) -> String {
        Self.afterUnsetTeamPrefix(group) ?? strippingTeamPrefix(group)
    }

    /// What follows a team prefix variable left unexpanded at the start of `group`: the
    /// signing prefixes, or the team id written as `$(DEVELOPMENT_TEAM).`.
    static func afterUnsetTeamPrefix(_ group: String) -> String? {
        for variable in ["AppIdentifierPrefix", "TeamIdentifierPrefix"] {
            for written in ["$(\(variable))", "${\(variable)}"] where group.hasPrefix(written) {
                return String(group.dropFirst(written.count))
            }
        }
        for written in ["$(DEVELOPMENT_TEAM).", "${DEVELOPMENT_TEAM}."] where group.hasPrefix(written) {
            return String(group.dropFirst(written.count))
        }
        return nil
    }

    /// A keychain group without the team prefix it was written with.
    package func strippingTeamPrefix(_ group: String) -> String {
        if let prefix = settings.variables["AppIdentifierPrefix"], !prefix.isEmpty, group.hasPrefix(prefix) {
            return String(group.dropFirst(prefix.count))
        }
        // A literal team id: ten upper-case letters or digits and a dot.
        let head = group.prefix(11)
        if head.count == 11, head.last == ".", head.dropLast().allSatisfy({ ($0.isUppercase || $0.isNumber) && $0.isASCII }) {
            return String(group.dropFirst(11))
        }
        return group
    }

    /// Line of the deepest key of `keyPath` found exactly once in the file.
    package func line(of keyPath: String, inEntitlements: Bool = false) -> Int? {
        (inEntitlements ? entitlementsLines : infoLines)?.line(ofKeyPath: keyPath)
    }
}
