public import Foundation
import MAMActivation
public import MAMDocument
import MAMModel
import MAMPolicy
import Yams

/// Reads a personas file for `mamsim whatif` (YAML or JSON, docs/WHATIF.md):
///
///     apps: [com.microsoft.Office.Outlook, {bundle: com.contoso.crm, version: "2.1", sdk: true}]
///     personas:
///       - name: BYOD sales
///         user: adele@contoso.com
///         groups: [Sales]
///         device: {mdmEnrolled: false, osVersion: "17.4", model: "iPhone15,2"}
///
/// A persona without `apps` has the file's. Every mistake is reported at once, at its line.
public enum PersonaLoader {
    static let topKeys = ["apps", "personas", "resource"]
    static let personaKeys = ["name", "user", "oid", "tenant", "groups", "roles", "device", "apps", "resource", "signInRisk", "userRisk",
                              "insiderRisk", "location", "trustedLocation", "country", "ipAddress", "clientApp", "userType", "authenticationFlow"]
    static let deviceKeys = ["mdmEnrolled", "enrollment", "osVersion", "model", "jailbroken", "authenticator", "compliant", "platform",
                             "registered", "trustType", "ownership", "attributes"]
    static let appKeys = ["bundle", "version", "sdk", "mdmManaged", "capabilities", "clientApp"]
    /// Graph `signInConditions`' values, as a persona may state them.
    static let clientApps = ["browser", "mobileAppsAndDesktopClients", "exchangeActiveSync", "other"]
    static let userTypes = ["member", "guest", "internalGuest", "b2bCollaborationGuest", "b2bCollaborationMember", "b2bDirectConnectUser",
                            "otherExternalUser", "serviceProvider"]

    /// The largest personas file read: composed YAML takes about a hundred times its size in
    /// memory (measured: 3 MiB, 350 MB), so a file without a single alias could still take
    /// gigabytes under the node bound alone. Ten thousand personas are about 3 MiB.
    public static let maximumBytes = 8 << 20

    public static func load(file: URL) throws(ScenarioError) -> [WhatIfPersona] {
        let data: Data
        do { data = try InputFile.contents(of: file, limit: maximumBytes) } catch let tooLarge as InputFile.TooLarge {
            throw ScenarioError(file: file, message: "the personas file is larger than \(tooLarge.limit >> 20) MiB, the most mamsim reads of one (about thirty thousand personas); split it into files of at most that size and name each with --personas: they are read one after the other, as one list")
        } catch {
            throw ScenarioError(file: file, message: "cannot read the personas file (\(error)); check the path")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw ScenarioError(file: file, message: "the personas file is not UTF-8 text") }
        return try load(text: text, file: file)
    }

    public static func load(text: String, file: URL) throws(ScenarioError) -> [WhatIfPersona] {
        let root: Node
        do {
            guard let node = try BoundedYAML.compose(yaml: text.replacingOccurrences(of: "\t", with: " "), resolver: BoundedYAML.plainValues) else {
                throw ScenarioError(file: file, message: "the personas file is empty; it needs `personas:`")
            }
            root = node
        } catch let e as ScenarioError { throw e } catch let e as YamlError {
            throw ScenarioError.syntax(e, file: file)
        } catch {
            throw ScenarioError(file: file, message: "is not valid YAML or JSON (\(error))")
        }
        let reader = DocumentReader(file: file)
        let top = Located(node: root, path: "")
        var personas: [WhatIfPersona] = []
        if let fields = reader.fields(top, allowed: topKeys, required: ["personas"], what: "a personas file") {
            let shared = fields["apps"].flatMap { readApps($0, reader) } ?? []
            let resource = fields["resource"].flatMap { reader.name($0, what: "resource") } ?? WhatIfPersona.office365
            var names = Set<String>()
            for p in fields["personas"].flatMap({ reader.list($0, what: "personas") }) ?? [] {
                guard let persona = readPersona(p, reader, apps: shared, resource: resource) else { continue }
                if !names.insert(persona.name).inserted { reader.error(p, "two personas are named \"\(persona.name)\"; give each its own name") }
                personas.append(persona)
            }
            if personas.isEmpty, reader.errors.isEmpty { reader.error(top, "`personas:` lists no persona") }
        }
        if !reader.errors.isEmpty { throw ScenarioError(problems: reader.errors) }
        return personas
    }

    static func readPersona(_ v: Located, _ r: DocumentReader, apps shared: [WhatIfPersona.App], resource: String) -> WhatIfPersona? {
        guard let f = r.fields(v, allowed: personaKeys, required: ["name", "user"], what: "a persona") else { return nil }
        guard let name = f["name"].flatMap({ r.name($0, what: "name") }), let upn = f["user"].flatMap({ r.name($0, what: "user") }) else { return nil }
        let user = Account(upn: upn, oid: f["oid"].flatMap { r.string($0, what: "oid") } ?? "", tenant: f["tenant"].flatMap { r.string($0, what: "tenant") } ?? "")
        let groups = f["groups"].flatMap { r.strings($0, what: "groups") } ?? []
        let roles = f["roles"].flatMap { r.strings($0, what: "roles") } ?? []
        var device = DeviceFacts()
        var enrollment: String?
        var modelSaid = false
        if let d = f["device"], let df = r.fields(d, allowed: deviceKeys, what: "device") {
            if let v = df["mdmEnrolled"], let b = r.bool(v, what: "mdmEnrolled") { device.mdmEnrolled = b }
            if let v = df["jailbroken"], let b = r.bool(v, what: "jailbroken") { device.jailbroken = b }
            if let v = df["compliant"], let b = r.bool(v, what: "compliant") { device.compliant = b }
            if let v = df["platform"], let name = r.string(v, what: "platform") {
                let platforms = ["iOS", "android", "windows", "windowsPhone", "macOS", "linux", "unknown"]
                if let known = platforms.first(where: { $0.lowercased() == name.lowercased() }) { device.platform = known } else {
                    r.error(v, "platform \"\(name)\" is not one conditional access names; use one of \(platforms.joined(separator: ", "))")
                }
            }
            if let v = df["authenticator"], let b = r.bool(v, what: "authenticator") { device.brokerInstalled = b }
            if let v = df["model"], let s = r.name(v, what: "model") { device.model = s; modelSaid = true }
            if let v = df["osVersion"], let s = r.name(v, what: "osVersion") {
                if let version = Version(s) { device.osVersion = version } else { r.error(v, "osVersion \"\(s)\" is not a version such as 17.4") }
            }
            readEntra(df, into: &device, r)
            if let v = df["enrollment"], let s = r.name(v, what: "enrollment") {
                if let known = ManagementTypeValues.enrolled.first(where: { $0.lowercased() == s.lowercased() }) {
                    enrollment = known
                    device.mdmEnrolled = true
                } else {
                    r.error(v, "enrollment \"\(s)\" is not an iOS enrollment type; use one of \(ManagementTypeValues.enrolled.map { "\"\($0)\"" }.joined(separator: ", "))")
                }
            }
        }
        var apps = shared
        if let a = f["apps"] { apps = readApps(a, r) ?? [] }
        if apps.isEmpty { r.error(v, "persona \"\(name)\" has no apps: give `apps:` to it or at the top of the file") }
        let own = f["resource"].flatMap { r.name($0, what: "resource") } ?? resource
        var member = DirectoryMembership(groups: groups, roles: roles)
        for (key, path) in [("signInRisk", \DirectoryMembership.signInRisk), ("userRisk", \DirectoryMembership.userRisk)] {
            guard let x = f[key], let level = r.name(x, what: key) else { continue }
            guard ["none", "low", "medium", "high"].contains(level.lowercased()) else { r.error(x, "\(key) must be none, low, medium or high, but it is \"\(level)\""); continue }
            member[keyPath: path] = level.lowercased()
        }
        readSignIn(f, into: &member, r)
        // A model is said only where the persona says it: another platform's device has none invented.
        if !["ios", "ipados"].contains(device.platform.lowercased()), !modelSaid { device.model = "" }
        var persona = WhatIfPersona(name: name, user: user, member: member, device: device,
                                    managementType: enrollment, apps: apps, resource: own)
        if let g = f["groups"] { persona.groupsAt = "\(r.file.path):\(g.line)" }
        return persona
    }

    /// What the persona's sign-in carries, for conditional access's conditions (Graph
    /// `signInConditions`): insider risk, where it comes from, its client app type, the user's
    /// type and the authentication flow. Unsaid, each is unknown, and a policy reading it depends on it.
    static func readSignIn(_ f: Fields, into member: inout DirectoryMembership, _ r: DocumentReader) {
        func one(_ key: String, of allowed: [String]) -> String? {
            guard let x = f[key], let v = r.name(x, what: key) else { return nil }
            guard let known = allowed.first(where: { $0.lowercased() == v.lowercased() }) else {
                r.error(x, "\(key) must be one of \(allowed.joined(separator: ", ")), but it is \"\(v)\"")
                return nil
            }
            return known
        }
        member.insiderRisk = one("insiderRisk", of: ["minor", "moderate", "elevated"])
        member.clientApp = one("clientApp", of: clientApps)
        member.userType = one("userType", of: userTypes)
        member.authenticationFlow = one("authenticationFlow", of: ["none", "deviceCodeFlow", "authenticationTransfer"])
        member.location = f["location"].flatMap { r.name($0, what: "location") }
        if let x = f["trustedLocation"], let b = r.bool(x, what: "trustedLocation") { member.trustedLocation = b }
        if let x = f["country"], let c = r.name(x, what: "country") {
            if c.count == 2, c.allSatisfy(\.isLetter) { member.country = c.uppercased() } else {
                r.error(x, "country must be a two-letter ISO 3166 code such as FR, but it is \"\(c)\"")
            }
        }
        if let x = f["ipAddress"], let ip = r.name(x, what: "ipAddress") {
            if NamedLocation.bytes(ip) != nil { member.ipAddress = ip } else { r.error(x, "ipAddress \"\(ip)\" is not an IPv4 or IPv6 address") }
        }
    }

    /// The device's Entra object, for conditional access's filter for devices: `registered`,
    /// `trustType`, `ownership` and `attributes` (any other property a filter reads, by name).
    static func readEntra(_ df: Fields, into device: inout DeviceFacts, _ r: DocumentReader) {
        if let v = df["registered"], let b = r.bool(v, what: "registered") { device.entra.registered = b }
        for (key, allowed) in [("trustType", ["AzureAD", "ServerAD", "Workplace"]), ("ownership", ["Personal", "Company"])] {
            guard let v = df[key], let s = r.name(v, what: key) else { continue }
            guard let known = allowed.first(where: { $0.lowercased() == s.lowercased() }) else {
                r.error(v, "\(key) \"\(s)\" is not one Entra records; use one of \(allowed.joined(separator: ", "))")
                continue
            }
            if key == "trustType" { device.entra.trustType = known } else { device.entra.ownership = known }
        }
        let names = "extensionAttribute1…15, displayName, deviceId, enrollmentProfileName, manufacturer, operatingSystem, physicalIds, systemLabels…"
        guard let a = df["attributes"], let fields = r.fields(a, allowed: [names], what: "attributes",
                                                              extraAllowed: { DeviceProperty(name: $0) != nil }) else { return }
        for key in fields.order {
            guard let v = fields.values[key], let property = DeviceProperty(name: key) else { continue }
            if case .sequence = v.node, let items = r.strings(v, what: key) {
                device.entra.attributes[property.name.lowercased()] = items.joined(separator: "\n")
            } else if let s = r.string(v, what: key) {
                device.entra.attributes[property.name.lowercased()] = s
            }
        }
    }

    static func readApps(_ v: Located, _ r: DocumentReader) -> [WhatIfPersona.App]? {
        guard let items = r.list(v, what: "apps") else { return nil }
        var apps: [WhatIfPersona.App] = []
        for item in items {
            if case .scalar = item.node {
                if let b = r.name(item, what: "an app") { apps.append(WhatIfPersona.App(BundleID(b))) }
                continue
            }
            guard let f = r.fields(item, allowed: appKeys, required: ["bundle"], what: "an app"),
                  let bundle = f["bundle"].flatMap({ r.name($0, what: "bundle") }) else { continue }
            let sdk = f["sdk"].flatMap { r.bool($0, what: "sdk") } ?? true
            var app = WhatIfPersona.App(BundleID(bundle), version: f["version"].flatMap { r.string($0, what: "version") }, sdkIntegrated: sdk,
                                        mdmManaged: f["mdmManaged"].flatMap { r.bool($0, what: "mdmManaged") } ?? false,
                                        capabilities: f["capabilities"].flatMap { r.strings($0, what: "capabilities") })
            if let x = f["clientApp"], let v = r.name(x, what: "clientApp") {
                if let known = clientApps.first(where: { $0.lowercased() == v.lowercased() }) { app.clientApp = known } else {
                    r.error(x, "clientApp must be one of \(clientApps.joined(separator: ", ")), but it is \"\(v)\"")
                }
            }
            apps.append(app)
        }
        var seen = Set<BundleID>()
        for (i, a) in apps.enumerated() where !seen.insert(a.bundleID).inserted {
            r.error(items[min(i, items.count - 1)], "\(a.bundleID) is listed twice")
        }
        return apps
    }
}
