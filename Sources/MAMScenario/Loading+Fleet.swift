import Foundation
import MAMDeclarations
import MAMExtensions
import MAMActivation
import MAMBundle
import MAMModel
import MAMDevice
import MAMDocument
import MAMPolicy
import Yams

// The scenario's device, accounts, handles, files and fleet as the loader reads them, each error
// at the file, line and key that caused it.
extension Loading {
    // MARK: Device

    func readDevice(_ v: Located) -> ScenarioDevice {
        var device = ScenarioDevice()
        guard let f = reader.fields(v, allowed: Self.deviceKeys,
                                    what: "device") else { return device }
        if let x = f["mdmEnrolled"], let b = reader.bool(x, what: "mdmEnrolled") { device.mdmEnrolled = b }
        if let x = f["jailbroken"], let b = reader.bool(x, what: "jailbroken") { device.jailbroken = b }
        if let x = f["compliant"], let b = reader.bool(x, what: "compliant") { device.compliant = b }
        if let x = f["osVersion"], let s = reader.string(x, what: "osVersion") {
            if let version = Version(s) { device.osVersion = version } else {
                reader.error(x, "osVersion must be a dotted version such as \"18.4\", but it is \(x.shape)")
            }
        }
        if let x = f["clock"], let s = reader.string(x, what: "clock") {
            if let instant = Instant(iso8601: s) { device.clock = instant } else {
                reader.error(x, "clock must be an ISO-8601 date-time such as \"2026-01-01T09:00:00Z\", but it is \(x.shape)")
            }
        }
        if let x = f["model"], let s = reader.name(x, what: "model") { device.model = s }
        if let x = f["authenticator"], let b = reader.bool(x, what: "authenticator") { device.authenticator = b }
        if let x = f["assetServer"], let s = reader.string(x, what: "assetServer") {
            switch s {
            case "available": device.assetServerAvailable = true
            case "failing": device.assetServerAvailable = false
            default: reader.error(x, "assetServer must be available or failing, but it is \"\(s)\"")
            }
        }
        if let x = f["network"], let s = reader.string(x, what: "network") {
            switch s {
            case "online": device.online = true
            case "offline": device.online = false
            default: reader.error(x, "network must be online or offline, but it is \"\(s)\"")
            }
        }
        if let x = f["limits"], let l = reader.fields(x, allowed: ["memory", "processes", "storage"], what: "limits") {
            for key in ["memory", "storage"] {
                guard let m = l[key] else { continue }
                if let bytes = ScenarioLoader.byteCount(m.node.scalar?.string ?? ""), bytes >= 1 << 20 {
                    if key == "memory" { device.limits.memoryBytes = bytes } else { device.limits.storageBytes = bytes }
                } else {
                    reader.error(m, "limits.\(key) must be a size of at least 1MiB such as 2GiB, 512MiB or a number of bytes, but it is \(m.shape)")
                }
            }
            if let p = l["processes"], let n = reader.int(p, what: "limits.processes") {
                if n > 0 { device.limits.processes = n } else { reader.error(p, "limits.processes must be at least 1, but it is \(n)") }
            }
        }
        if let x = f["mdmEnrolledAs"], let s = reader.name(x, what: "mdmEnrolledAs") {
            // The device is MDM-enrolled, by this user.
            device.mdmEnrolled = true
            device.service.mdmEnrolledAs = s
        }
        if let x = f["service"], let g = reader.fields(x, allowed: Self.serviceKeys, what: "service") {
            if let d = g["delivery"], let s = reader.string(d, what: "delivery") {
                if let delivery = IntuneServiceSettings.Delivery(rawValue: s) { device.service.delivery = delivery } else {
                    reader.error(d, "delivery must be \(IntuneServiceSettings.Delivery.allCases.map(\.rawValue).joined(separator: " or ")), but it is \"\(s)\"")
                }
            }
            func duration(_ key: String, positive: Bool) -> Double? {
                guard let d = g[key], let s = reader.string(d, what: key) else { return nil }
                guard let value = ISODuration(s), value.seconds >= 0, !positive || value.seconds > 0 else {
                    reader.error(d, "service.\(key) must be \(positive ? "a positive" : "a non-negative") ISO-8601 duration such as PT30M, but it is \(d.shape)")
                    return nil
                }
                return value.seconds
            }
            if let s = duration("checkInEvery", positive: true) { device.service.checkInEvery = s }
            if let s = duration("propagation", positive: false) { device.service.propagation = s }
            if let s = duration("tokenLifetime", positive: true) { device.service.tokenLifetime = s }
        }
        if let x = f["restrictions"] {
            if case .mapping(let m) = x.node {
                for (k, value) in m {
                    let key = k.scalar?.string ?? ""
                    let loc = Located(node: value, path: x.child(key))
                    if let b = reader.bool(loc, what: "restriction \"\(key)\"") { device.restrictions[key] = b }
                }
            } else if !x.isNull {
                reader.error(x, "restrictions must be a mapping of Apple MDM restriction keys to true or false, but it is \(x.shape)")
            }
        }
        return device
    }

    // MARK: Accounts

    func readAccounts(_ v: Located) {
        guard let items = reader.list(v, what: "accounts") else { return }
        for item in items {
            guard let f = reader.fields(item, allowed: Self.accountKeys, required: ["upn"],
                                        what: "an account") else { continue }
            guard let upnLoc = f["upn"], let upn = reader.name(upnLoc, what: "upn") else { continue }
            var oid = ScenarioAccount.derivedOID(forUPN: upn)
            var derived = true
            if let x = f["oid"], let s = reader.name(x, what: "oid") { oid = s; derived = false }
            var tenant = ""
            if let x = f["tenant"], let s = reader.string(x, what: "tenant") { tenant = s }
            var policyName: String?
            if let x = f["policy"], !x.isNull, let s = reader.name(x, what: "policy") {
                if policies[s] == nil {
                    if !brokenPolicies.contains(s) { reader.error(x, unknownPolicy(s)) }
                } else {
                    policyName = s
                }
            }
            let account = Account(upn: upn, oid: oid, tenant: tenant)
            if let other = accounts.first(where: { $0.account.isSame(as: account) }) {
                reader.error(upnLoc, "account \"\(upn)\" is declared twice (same UPN or OID as \"\(other.account)\"); keep one")
                continue
            }
            var more: [String] = []
            if let x = f["policies"], let names = reader.strings(x, what: "policies") {
                for name in names where name != policyName && !more.contains(name) {
                    if policies[name] == nil { if !brokenPolicies.contains(name) { reader.error(x, unknownPolicy(name)) } } else { more.append(name) }
                }
            }
            if policyName == nil, !more.isEmpty { policyName = more.removeFirst() }
            var entry = ScenarioAccount(account: account, oidWasDerived: derived, policyName: policyName)
            entry.morePolicyNames = more
            if let x = f["licensed"], let b = reader.bool(x, what: "licensed") { entry.licensed = b }
            if let x = f["groups"], let g = reader.strings(x, what: "groups") { entry.groups = g }
            if let x = f["roles"], let r = reader.strings(x, what: "roles") { entry.roles = r }
            accounts.append(entry)
        }
    }

    func unknownPolicy(_ name: String) -> String {
        let known = policies.keys.sorted()
        if known.isEmpty { return "no policy named \"\(name)\"; declare it under policies:" }
        return "no policy named \"\(name)\"" + (Suggestion.closest(to: name, among: known).map { "; did you mean \"\($0)\"?" }
            ?? "; the policies are: \(known.joined(separator: ", "))")
    }

    /// The scenario account `v` names by UPN or OID (any case). `""` gives the unmanaged
    /// identity when `allowUnmanaged`.
    func account(_ v: Located, what: String, allowUnmanaged: Bool = false) -> Account? {
        guard let key = reader.string(v, what: what) else { return nil }
        if key.isEmpty {
            if allowUnmanaged { return Account(upn: "") }
            reader.error(v, "\(what) must name an account; \"\" (unmanaged) is not allowed here")
            return nil
        }
        if let found = accounts.first(where: { $0.account.matches(key) }) { return found.account }
        let upns = accounts.map(\.account.upn)
        let hint = Suggestion.closest(to: key, among: upns).map { "; did you mean \"\($0)\"?" }
            ?? (upns.isEmpty ? "; declare it under accounts:" : "; the accounts are: \(upns.joined(separator: ", "))")
        reader.error(v, "no account with UPN or OID \"\(key)\"\(hint)")
        return nil
    }

    func readAllowedAccounts(_ v: Located) -> [String]? {
        guard let items = reader.list(v, what: "allowedAccounts") else { return nil }
        var out: [String] = []
        for item in items {
            if let a = account(item, what: "each entry of allowedAccounts") {
                // Both names, so the check matches whichever one the SDK reports.
                out.append(contentsOf: [a.upn, a.oid].filter { !$0.isEmpty })
            }
        }
        return out
    }

    // MARK: Handles

    var allHandles: [String] { apps.map(\.id) + extensions.map(\.id) }

    /// The handle of an app (or, when `extensions` allows, an extension) named by `v`.
    func handle(_ v: Located, what: String, allowExtensions: Bool) -> String? {
        guard let id = reader.string(v, what: what) else { return nil }
        if apps.contains(where: { $0.id == id }) { return id }
        if extensions.contains(where: { $0.id == id }) {
            if allowExtensions { return id }
            reader.error(v, "\"\(id)\" is an extension; \(what) must be an app")
            return nil
        }
        let known = allHandles.prefix(20).joined(separator: ", ") + (allHandles.count > 20 ? ", … (\(allHandles.count) in all)" : "")
        reader.error(v, "no app or extension with id \"\(id)\"" + Suggestion.clause(for: id, among: allHandles) + " (the ids are: \(known))")
        return nil
    }

    // MARK: Files

    /// A path relative to the scenario's folder that must exist (a folder when `directory`).
    func existingPath(_ v: Located, what: String, directory: Bool = false) -> URL? {
        guard let path = reader.name(v, what: what) else { return nil }
        let url = URL(fileURLWithPath: path, relativeTo: folder).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            reader.error(v, "\(directory ? "folder" : "file") \"\(path)\" does not exist; paths are relative to the scenario file's folder")
            return nil
        }
        if isDirectory.boolValue != directory {
            reader.error(v, "\"\(path)\" is \(isDirectory.boolValue ? "a folder" : "a file"), but \(what) must be \(directory ? "a folder" : "a file")")
            return nil
        }
        return url
    }

    // MARK: Fleet

    func buildFleet(device: ScenarioDevice, allowed: [String]?) -> Fleet {
        var fleet = Fleet(device: device.facts, allowedAccounts: allowed)
        fleet.service = device.service
        for entry in accounts {
            if entry.morePolicyNames.isEmpty {
                fleet.add(entry.account, policy: entry.policyName.flatMap { policies[$0] })
            } else {
                fleet.add(entry.account, policies: ([entry.policyName].compactMap { $0 } + entry.morePolicyNames).compactMap { policies[$0] })
            }
            if !entry.groups.isEmpty || !entry.roles.isEmpty {
                fleet.setMembership(DirectoryMembership(groups: entry.groups, roles: entry.roles), of: entry.account)
            }
            if !entry.licensed {
                fleet.service.unlicensed.insert(entry.account.upnKey)
                if !entry.account.oidKey.isEmpty { fleet.service.unlicensed.insert(entry.account.oidKey) }
            }
        }
        for app in apps { fleet.install(app.descriptor) }
        for ext in extensions { fleet.install(ext.descriptor) }
        return fleet
    }
}
