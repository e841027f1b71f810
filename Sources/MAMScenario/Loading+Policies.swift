import Foundation
import MAMActivation
import MAMDocument
import MAMModel
import MAMPolicy
import Yams

/// `policies:` — inline Graph `iosManagedAppProtection` properties or `file:` documents,
/// both through `GraphPolicyImporter` so they are checked the same way.
extension Loading {
    func readPolicies(_ v: Located) {
        guard case .mapping(let mapping) = v.node else {
            reader.error(v, "policies must be a mapping of policy names to policies, but it is \(v.shape)")
            return
        }
        for (keyNode, valueNode) in mapping {
            let name = keyNode.scalar?.string ?? ""
            let loc = Located(node: valueNode, path: v.child(name))
            if let policy = readPolicy(name: name, loc) {
                policies[name] = policy
                policyLocations[name] = loc
                // Declared where its name is written (a block mapping's own mark is its first key).
                if let line = keyNode.mark?.line { policySources[name]?.scenarioLine = line }
            } else {
                // Declared, with its error already said: naming it elsewhere is no second error.
                brokenPolicies.insert(name)
            }
        }
    }

    private func readPolicy(name: String, _ v: Located) -> IosManagedAppProtection? {
        guard case .mapping(let mapping) = v.node else {
            reader.error(v, "policy \"\(name)\" must be a mapping of Graph iosManagedAppProtection properties, or {file: ..., apps: [...]}, but it is \(v.shape)")
            return nil
        }
        let isFile = mapping.keys.contains { $0.scalar?.string == "file" }
        var policy: IosManagedAppProtection
        var f: Fields
        var place = SourcePlace(scenarioLine: v.line, file: file)
        if isFile {
            guard let fields = reader.fields(v, allowed: ["file", "apps"], what: "a policy read from a file") else { return nil }
            f = fields
            guard let fileLoc = f["file"], let url = existingPath(fileLoc, what: "file") else { return nil }
            inputs.append(url)
            guard let imported = importFile(url, at: fileLoc) else { return nil }
            policy = imported
            place.file = url
            place.lines = (try? InputFile.contents(of: url)).map { SourcePlace.memberLines(Array($0)) } ?? [:]
        } else {
            let known = GraphPolicyImporter.knownProperties
            guard let fields = reader.fields(v, allowed: known, what: "policy \"\(name)\"",
                                             extraAllowed: { $0.contains("@") }) else { return nil }
            f = fields
            guard let imported = importInline(f, source: v.path) else { return nil }
            policy = imported
            place.lines = f.keyNodes.mapValues(\.line)
        }
        if let appsLoc = f["apps"] {
            guard let ids = reader.strings(appsLoc, what: "apps") else { return nil }
            policy.apps = ids.map { BundleID($0) }
        } else if isFile, !policy.appsListed, policy.appGroupType == .selectedPublicApps, let fileLoc = f["file"] {
            // A Graph collection read without $expand=apps does not say which apps it selects.
            reader.warn(fileLoc, "policy \"\(name)\": the Graph document has no apps (read without $expand=apps?), so it targets every SDK app of this scenario; list them under apps: beside file:, or export it with $expand=apps")
        }
        if policy.displayName.isEmpty { policy.displayName = name }
        policySources[name] = place
        return policy
    }

    /// A policy that targets none of the scenario's SDK apps leaves its accounts unmanaged in
    /// every app (RULES.md §1) — most often a Graph export for Microsoft's apps
    /// (`allCoreMicrosoftApps`, exported without `$expand=apps`) on a line-of-business fleet.
    func warnUntargeted(in fleet: Fleet) {
        guard apps.contains(where: \.descriptor.sdkIntegrated) else { return }
        for name in policies.keys.sorted() {
            guard let policy = policies[name], let loc = policyLocations[name], fleet.apps(targetedBy: policy).isEmpty else { continue }
            let listed = policy.apps.isEmpty ? (policy.appsListed ? "apps: [], none selected" : "no apps listed") : "apps [\(policy.apps.map(\.rawValue).joined(separator: ", "))]"
            reader.warn(loc, "policy \"\(name)\" targets none of this scenario's SDK apps (appGroupType = \(policy.appGroupType.rawValue), \(listed)): its accounts are unmanaged in every app; list the apps it should manage under apps:, or give an app publisher: microsoft")
        }
    }

    private func importFile(_ url: URL, at v: Located) -> IosManagedAppProtection? {
        let written = v.node.scalar?.string ?? url.lastPathComponent
        let bytes: [UInt8]
        do { bytes = Array(try InputFile.contents(of: url)) } catch {
            reader.error(v, "cannot read \(written) (\(error.localizedDescription))")
            return nil
        }
        let result: PolicyImportResult
        do {
            result = try GraphPolicyImporter.importPolicies(bytes, source: written)
        } catch {
            reader.error(v, error.message)
            return nil
        }
        for w in result.warnings { reader.warn(v, w.message) }
        guard result.policies.count == 1 else {
            let skipped = result.skipped.map(\.description).joined(separator: "; ")
            if result.policies.isEmpty {
                reader.error(v, "\(written) holds no iOS app protection policy\(skipped.isEmpty ? "" : " (\(skipped))")")
            } else {
                reader.error(v, "\(written) holds \(result.policies.count) iOS app protection policies; a scenario policy is one, so split the document")
            }
            return nil
        }
        return result.policies[0]
    }

    private func importInline(_ f: Fields, source: String) -> IosManagedAppProtection? {
        var object: [String: GraphValue] = [:]
        for key in f.order { object[key] = graphValue(f.values[key]!.node) }
        do {
            let result = try GraphPolicyImporter.importPolicies(.object(object), source: source)
            for w in result.warnings {
                let at = f.values[w.property] ?? f.owner
                reader.warn(at, strip(w.message, source: source))
            }
            guard let policy = result.policies.first else {
                reader.error(f.owner, "is not an iOS app protection policy (its @odata.type names another kind)")
                return nil
            }
            return policy
        } catch {
            let at = error.property.flatMap { f.values[$0] } ?? f.owner
            reader.error(at, strip(error.message, source: source))
            return nil
        }
    }

    /// The importer prefixes messages with the source name; our key path already says it.
    private func strip(_ message: String, source: String) -> String {
        message.hasPrefix(source + ": ") ? String(message.dropFirst(source.count + 2)) : message
    }

    /// A YAML value as the JSON value Graph would hold: plain scalars by their resolved
    /// type, quoted scalars as strings.
    func graphValue(_ node: Node) -> GraphValue {
        switch node {
        case .scalar(let s):
            guard s.style == .plain else { return .string(s.string) }
            if node.null != nil { return .null }
            if let b = node.bool { return .bool(b) }
            if let i = node.int { return .number(Double(i)) }
            if let d = node.float { return .number(d) }
            return .string(s.string)
        case .sequence(let seq):
            return .array(seq.map(graphValue))
        case .mapping(let m):
            var out: [String: GraphValue] = [:]
            for (k, value) in m { out[k.scalar?.string ?? ""] = graphValue(value) }
            return .object(out)
        case .alias:
            return .null
        }
    }
}

extension Loading {
    /// An app's `sdkVersion` judged against Microsoft's dated requirements and each train's
    /// lowest iOS (SDKVersionFloors): said, with the source; the run still launches the app as
    /// the scenario says (the service's launch block is not simulated).
    func warnSDKVersions(device: ScenarioDevice) {
        for app in apps where app.descriptor.intuneMAMUPNConfigured == true {
            guard let at = appLocations[app.id] else { continue }
            reader.warn(at, "app \(app.id) is MDM-managed and given IntuneMAMUPN: until an account is enrolled in it, no app protection applies there (memdocs manage-data-transfer-ios: « The data is not protected by Intune app protection policies when: The user is not signed-in to their work account »); what the SDK does with IntuneMAMUPN before an enrollment is not documented, and mamsim treats the app as holding no managed account")
        }
        for app in apps {
            guard let sdk = app.descriptor.sdkVersion, let at = appLocations[app.id] else { continue }
            for notice in SDKVersionFloors.notices(for: sdk) {
                reader.warn(at, "app \(app.id) links Intune SDK \(sdk): \(notice.says) (\(notice.since); \(notice.source)); the run does not simulate that")
            }
            if let floor = SDKVersionFloors.minimumOS(for: sdk), device.osVersion < floor.os {
                reader.warn(at, "app \(app.id) links Intune SDK \(sdk), which runs on iOS \(floor.os) or later (\(floor.source)); the device runs iOS \(device.osVersion): such a build does not install there")
            }
        }
    }
}
