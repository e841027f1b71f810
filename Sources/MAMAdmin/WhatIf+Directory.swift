import Foundation
import MAMModel
import MAMPolicy

/// A Microsoft Entra named location (Graph `ipNamedLocation`, `countryNamedLocation`;
/// Microsoft365DSC's `AADNamedLocationPolicy`), for conditional access's location condition.
public struct NamedLocation: Sendable, Hashable {
    public var id: String
    public var displayName: String
    public var isTrusted: Bool
    /// `ipRanges[].cidrAddress` (IPv4 and IPv6).
    public var ipRanges: [String]
    /// `countriesAndRegions`, uppercased ISO 3166 alpha-2 codes.
    public var countries: Set<String>
    public var includeUnknownCountries: Bool

    public init(id: String, displayName: String, isTrusted: Bool = false, ipRanges: [String] = [], countries: some Sequence<String> = [String](),
                includeUnknownCountries: Bool = false) {
        self.id = id
        self.displayName = displayName
        self.isTrusted = isTrusted
        self.ipRanges = ipRanges
        self.countries = Set(countries.map { $0.uppercased() })
        self.includeUnknownCountries = includeUnknownCountries
    }

    var isCountryLocation: Bool { ipRanges.isEmpty && (!countries.isEmpty || includeUnknownCountries) }

    /// Whether a sign-in from `ip` (`nil`: not said) in `country` (`nil`: not said) is in this
    /// location; `nil` when what the location reads is not said.
    func contains(ip: String?, country: String?) -> Bool? {
        if isCountryLocation {
            guard let country else { return nil }
            return countries.contains(country.uppercased())
        }
        guard let ip else { return nil }
        return ipRanges.contains { Self.range($0, contains: ip) }
    }

    /// Whether the CIDR range `cidr` (`10.0.0.0/8`, `2001:db8::/32`) holds the address `ip`.
    static func range(_ cidr: String, contains ip: String) -> Bool {
        let parts = cidr.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let first = parts.first, let base = bytes(String(first)), let address = bytes(ip), base.count == address.count else { return false }
        // A prefix length that is not a number (an export's typo) matches nothing.
        guard let bits = parts.count > 1 ? Int(parts[1]) : base.count * 8, (0...base.count * 8).contains(bits) else { return false }
        for i in 0..<base.count {
            let keep = max(0, min(8, bits - i * 8))
            let mask: UInt8 = keep == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
            if base[i] & mask != address[i] & mask { return false }
        }
        return true
    }

    /// An IPv4 or IPv6 address's bytes (`inet_pton`), `nil` when it is neither.
    public static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}

/// What a tenant's groups export says of memberships: the groups each group and user is a
/// direct member of (Graph `members`, `memberOf`; Microsoft365DSC's `AADGroup` `MemberOf`), and
/// the groups whose members it lists. Entra applies a policy on a group to the members of the
/// groups nested in it (Microsoft Learn, "Conditional Access: users and groups").
public struct GroupDirectory: Sendable {
    /// Lowercased child group id (or display name) → the groups it is a direct member of.
    var parents: [String: Set<String>] = [:]
    /// Lowercased UPN → the groups the user is a direct member of.
    var userGroups: [String: Set<String>] = [:]
    /// The groups whose members the export lists (lowercased ids and names).
    var listed: Set<String> = []

    var isEmpty: Bool { parents.isEmpty && userGroups.isEmpty && listed.isEmpty }

    /// `groups` and every group they are nested in, at any depth (a cycle ends the walk).
    func closure(of groups: Set<String>) -> Set<String> {
        var out = groups, queue = Array(groups)
        while let g = queue.popLast() {
            for p in parents[g] ?? [] where out.insert(p).inserted { queue.append(p) }
        }
        return out
    }
}

extension WhatIfPolicies {
    /// A persona's membership: the groups it names (and their ids), those the groups export
    /// lists its user in, and every group those are nested in.
    func membership(of persona: WhatIfPersona) -> DirectoryMembership {
        var out = membership(persona.member)
        guard !directory.isEmpty else { return out }
        var direct = out.groups
        direct.formUnion(directory.userGroups[persona.user.upnKey] ?? [])
        var all = directory.closure(of: direct)
        // A group is known by id and by name: each found by one is found by the other.
        for (id, name) in groupNames where all.contains(name.lowercased()) || all.contains(id) {
            all.insert(id)
            all.insert(name.lowercased())
        }
        out.groups = directory.closure(of: all)
        return out
    }

    /// Whether the export lists the members of `group` (by id or name): where it does not, a
    /// persona nested in it through groups the export does not show cannot be known.
    func listsMembers(of group: String) -> Bool {
        let g = group.lowercased()
        return directory.listed.contains(g) || groupNames[g].map { directory.listed.contains($0.lowercased()) } ?? false
    }

    /// A Graph group: its name, and what it says of nesting (`members`, `memberOf`,
    /// `transitiveMemberOf`) and of users' memberships (`members` that are users).
    mutating func addGroup(_ dict: [String: GraphValue], name: String) {
        guard case .string(let id)? = dict["id"] else { return }
        let key = id.lowercased()
        groupNames[key] = name
        if case .array(let members)? = dict["members"] {
            directory.listed.insert(key)
            if !name.isEmpty { directory.listed.insert(name.lowercased()) }
            for case .object(let m) in members {
                let type = GraphPolicyImporter.odataType(m).map(GraphPolicyImporter.bareTypeName) ?? ""
                if type == "user", case .string(let upn)? = m["userPrincipalName"] {
                    directory.userGroups[upn.lowercased(), default: []].insert(key)
                } else if type == "group" || m["securityEnabled"] != nil, case .string(let child)? = m["id"] {
                    directory.parents[child.lowercased(), default: []].insert(key)
                }
            }
        }
        for list in ["memberOf", "transitiveMemberOf"] {
            guard case .array(let parents)? = dict[list] else { continue }
            for case .object(let p) in parents {
                if case .string(let parent)? = p["id"] { directory.parents[key, default: []].insert(parent.lowercased()) }
            }
        }
    }

    /// A Graph named location (`ipNamedLocation`, `countryNamedLocation`).
    mutating func addNamedLocation(_ dict: [String: GraphValue], name: String) {
        var id = name
        if case .string(let s)? = dict["id"], !s.isEmpty { id = s }
        var location = NamedLocation(id: id, displayName: name)
        if case .bool(let b)? = dict["isTrusted"] { location.isTrusted = b }
        if case .array(let ranges)? = dict["ipRanges"] {
            location.ipRanges = ranges.compactMap { r in
                if case .object(let o) = r, case .string(let cidr)? = o["cidrAddress"] { return cidr }
                if case .string(let cidr) = r { return cidr }
                return nil
            }
        }
        if case .array(let countries)? = dict["countriesAndRegions"] {
            location.countries = Set(countries.compactMap { if case .string(let c) = $0 { c.uppercased() } else { nil } })
        }
        if case .bool(let b)? = dict["includeUnknownCountriesAndRegions"] { location.includeUnknownCountries = b }
        namedLocations[id.lowercased()] = location
        if !name.isEmpty { namedLocations[name.lowercased()] = location }
    }
}
