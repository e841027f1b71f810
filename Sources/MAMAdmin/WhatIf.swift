import Dispatch
import MAMModel
import Synchronization
public import MAMPolicy

public enum WhatIf {
    /// Microsoft's documented rule for two app protection policies on one user and app
    /// (Microsoft Learn, "Troubleshoot device profiles → App protection policies that conflict"):
    /// the policy deployed first stays applied and the second shows a conflict; deployed at the
    /// same time, both are in conflict and the conflicting settings take their most restrictive
    /// values (numeric entry fields the recommended values).
    public static let conflictRule = "Microsoft Learn (device-profile-troubleshoot, \"App protection policies that conflict\"): the policy deployed first stays applied and the later one shows a conflict; deployed together, both conflict and conflicting settings take their most restrictive values, numeric fields the recommended ones. The files do not say which was deployed first: the cells shown are the together case; the recommended numbers are in no document here, so PIN and conditional-launch numbers are those of the policy first by title."

    /// Every persona, each shape once: personas alike in all a decision reads (the groups and
    /// roles the policies name, the device, the apps, the tenant) share one evaluation made for a
    /// stand-in user, their texts naming each persona as they are read (`WhatIfPersonaResult`). A
    /// persona a policy names by UPN or OID is evaluated on its own.
    public static func evaluate(_ personas: [WhatIfPersona], _ policies: WhatIfPolicies, now: Instant = Instant(secondsSince1970: 0)) -> [WhatIfPersonaResult] {
        var shapes: [Shape: [WhatIfAppResult]] = [:]
        return evaluate(personas, policies, now: now, shapes: &shapes)
    }

    static func evaluate(_ personas: [WhatIfPersona], _ policies: WhatIfPolicies, now: Instant, shapes: inout [Shape: [WhatIfAppResult]]) -> [WhatIfPersonaResult] {
        var grids: [GridKey: [Grids]] = [:]
        return evaluate(personas, policies, now: now, shapes: &shapes, grids: &grids)
    }

    static func evaluate(_ personas: [WhatIfPersona], _ policies: WhatIfPolicies, now: Instant, shapes: inout [Shape: [WhatIfAppResult]],
                         grids: inout [GridKey: [Grids]]) -> [WhatIfPersonaResult] {
        let named = policies.namedGroupsAndRoles()
        return personas.map { persona in
            if policies.namesUser(persona.user) { return evaluate(persona, policies, now: now, grids: &grids) }
            let member = policies.membership(of: persona)
            let domain = ConditionalAccessPolicy.domain(of: persona.user)
            var signIn = member
            signIn.groups = []
            signIn.roles = []
            signIn.named = []
            signIn.userType = userType(persona, member)
            let key = Shape(groups: member.groups.intersection(named.groups), roles: member.roles.intersection(named.roles), device: persona.device,
                            managementType: persona.managementType, apps: persona.apps, resource: persona.resource, domain: domain,
                            tenant: persona.user.tenant.lowercased(), hasOid: !persona.user.oid.isEmpty, signIn: signIn)
            let names = StandIn.for(persona.user, domain: domain)
            if let apps = shapes[key] { return WhatIfPersonaResult(persona: persona, apps: apps, names: names) }
            var standIn = persona
            standIn.user = StandIn.account(standingFor: persona.user, domain: domain)
            // The stand-in's UPN has no #EXT#: the user type it stood for is said.
            standIn.member.userType = signIn.userType
            let apps = evaluate(standIn, policies, now: now, grids: &grids).apps
            shapes[key] = apps
            return WhatIfPersonaResult(persona: persona, apps: apps, names: names)
        }
    }

    /// `evaluate(_:_:now:)` for a tenant's worth of personas, a batch at a time, handed to
    /// `each` in the personas' order as soon as it is judged: what is written is never held.
    /// The batch's two halves are judged on two threads (the evaluation is pure), each with its
    /// own cache of shapes, emptied when it holds `shapesKept` so memory stays bounded however
    /// many personas are of their own shape.
    /// `render` turns each result into what is written, on the thread that judged it.
    public static func evaluate<Rendered: Sendable>(_ personas: [WhatIfPersona], _ policies: WhatIfPolicies, now: Instant = Instant(secondsSince1970: 0),
                                                    batch: Int = 512, shapesKept: Int = 512,
                                                    render: @Sendable (WhatIfPersonaResult) -> Rendered,
                                                    each: ([Rendered]) throws -> Void) rethrows {
        let caches = (0..<2).map { _ in ShapeCache() }
        try inHalves(personas, batch: batch) { part, w in
            caches[w].judge(part, policies, now: now, shapesKept: shapesKept).map(render)
        } each: { try each($0) }
    }

    /// `personas` a batch at a time, each batch's two halves handed to `work` on two threads
    /// (worker 0 and 1: each keeps what is its own, a cache), the halves' results joined in the
    /// personas' order and handed to `each` before the next batch is judged.
    static func inHalves<T: Sendable>(_ personas: [WhatIfPersona], batch: Int, work: @Sendable ([WhatIfPersona], Int) -> [T],
                                      each: ([T]) throws -> Void) rethrows {
        let workers = 2
        var start = 0
        while start < personas.count {
            let end = min(start + batch, personas.count)
            let slice = Array(personas[start..<end])
            let halves = Mutex<[Int: [T]]>([:])
            let size = (slice.count + workers - 1) / workers
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                let part = Array(slice[min(w * size, slice.count)..<min((w + 1) * size, slice.count)])
                let done = work(part, w)
                halves.withLock { $0[w] = done }
            }
            try each(halves.withLock { h in (0..<workers).flatMap { h[$0] ?? [] } })
            start = end
        }
    }

    /// One worker's shapes: only its thread touches them, the lock says so to the compiler.
    final class ShapeCache: Sendable {
        let shapes = Mutex<([Shape: [WhatIfAppResult]], [GridKey: [Grids]])>(([:], [:]))

        /// `personas` judged with this cache, emptied first when it holds more than `shapesKept`.
        func judge(_ personas: [WhatIfPersona], _ policies: WhatIfPolicies, now: Instant, shapesKept: Int) -> [WhatIfPersonaResult] {
            shapes.withLock { cache in
                if cache.0.count > shapesKept { cache.0.removeAll(keepingCapacity: true) }
                if cache.1.count > shapesKept { cache.1.removeAll(keepingCapacity: true) }
                return WhatIf.evaluate(personas, policies, now: now, shapes: &cache.0, grids: &cache.1)
            }
        }
    }

    struct Shape: Hashable {
        var groups: Set<String>, roles: Set<String>
        var device: DeviceFacts
        var managementType: String
        var apps: [WhatIfPersona.App]
        var resource: String, domain: String, tenant: String
        var hasOid: Bool
        /// What the persona says its sign-in carries (risk, location, client app, user type).
        var signIn: DirectoryMembership
    }

    public static func evaluate(_ persona: WhatIfPersona, _ policies: WhatIfPolicies, now: Instant = Instant(secondsSince1970: 0)) -> WhatIfPersonaResult {
        var grids: [GridKey: [Grids]] = [:]
        return evaluate(persona, policies, now: now, grids: &grids)
    }

    /// What the data grids of a persona's apps read beyond the policies: which policies apply
    /// in each app, the user (the stand-in of a shape), the device's enrollment and MDM
    /// restrictions, and the apps. Personas alike in these share their grids whatever their OS
    /// version, model, risk or app versions, which only conditional launch, the token and app
    /// configuration read — those are judged for each.
    struct GridKey: Hashable {
        var applying: [[Int]]
        var upn: String, oid: String, tenant: String
        var mdmEnrolled: Bool
        var restrictions: [String: Bool]
        var apps: [String]
    }

    /// One app's grids, conditional launch aside.
    struct Grids {
        var transfers: [WhatIfAppResult.Cell], clipboard: [WhatIfAppResult.Cell], within: [WhatIfAppResult.Cell]
        var limit: Int
        var save: [WhatIfAppResult.Cell], open: [WhatIfAppResult.Cell], features: [WhatIfAppResult.Cell]

        /// No cell: the app is not evaluated (another platform), never "allowed" by default.
        static let none = Grids(transfers: [], clipboard: [], within: [], limit: 0, save: [], open: [], features: [])
    }

    /// Why a persona of another platform's apps are not evaluated, naming the policies of its
    /// platform the input holds.
    static func notEvaluated(_ persona: WhatIfPersona, _ policies: WhatIfPolicies) -> String {
        let platform = persona.device.platform
        let own = policies.otherPlatformProtections[platform.lowercased()] ?? []
        return "mamsim evaluates iOS/iPadOS app protection only; a \(platform) device's data transfer, paste, save and features are not evaluated"
            + (own.isEmpty ? " (the input holds no \(platform) app protection policy)" : "; the \(platform) app protection policies the input holds: " + own.map { "\"\($0)\"" }.joined(separator: ", "))
            + (policies.protections.isEmpty ? "" : "; the iOS/iPadOS policies do not apply on a \(platform) device")
    }

    static let launchColumn = PolicyMatrix.Feature.allCases.firstIndex(of: .launch)!

    static func evaluate(_ persona: WhatIfPersona, _ policies: WhatIfPolicies, now: Instant, grids cache: inout [GridKey: [Grids]]) -> WhatIfPersonaResult {
        let member = policies.membership(of: persona)
        var base = Fleet(device: persona.device)
        base.install(contentsOf: persona.apps.map {
            var d = AppDescriptor(bundleID: $0.bundleID, sdkIntegrated: $0.sdkIntegrated, multiIdentity: true, mdmManaged: $0.mdmManaged)
            d.shortVersion = $0.version
            return d
        })
        base.add(persona.user)
        // Which policy applies in each app, and why every other does not.
        var chosen: [BundleID: IosManagedAppProtection] = [:]
        var partial: [(WhatIfPersona.App, WhatIfAppResult.Protection, [WhatIfAppResult.PolicyEvaluation])] = []
        var applyingIndices: [[Int]] = []
        for app in persona.apps {
            let (outcome, evaluations, indices, inForce) = protection(for: app, persona, member, policies, base)
            applyingIndices.append(indices)
            chosen[app.bundleID] = inForce
            partial.append((app, outcome, evaluations))
        }
        var fleet = base
        fleet.add(persona.user, policies: restricted(chosen))
        var results: [WhatIfAppResult] = []
        let key = GridKey(applying: applyingIndices, upn: persona.user.upn, oid: persona.user.oid, tenant: persona.user.tenant,
                          mdmEnrolled: persona.device.mdmEnrolled, restrictions: persona.device.restrictions,
                          apps: persona.apps.map { "\($0.bundleID) \($0.sdkIntegrated) \($0.mdmManaged)" })
        let appGrids = cache[key] ?? persona.apps.map { persona.isIOS ? grids($0, persona, fleet, now: now) : Grids.none }
        if cache[key] == nil { cache[key] = appGrids }
        for ((app, outcome, evaluations), g) in zip(partial, appGrids) {
            let me = PolicyMatrix.Party(app: app.bundleID, account: persona.user)
            var features = g.features
            if !features.isEmpty {
                features[launchColumn] = .init(to: PolicyMatrix.Feature.launch.rawValue,
                                               verdict: PolicyMatrix.decide(.features, for: me, column: launchColumn, in: fleet, now: now))
            }
            let judged = policies.conditionalAccess.map { ($0, judge($0, app, persona, member, policies)) }
            let ca = conditionalAccess(judged, persona)
            let token = token(app, persona, judged, fleet, compliant: chosen[app.bundleID] != nil)
            let config = appConfig(app, persona, member, policies, fleet)
            var result = WhatIfAppResult(app: app.bundleID, protection: outcome, evaluations: evaluations, token: token, conditionalAccess: ca,
                                   appConfig: config.mapValues { PersonaText($0) }, transfers: g.transfers, clipboard: g.clipboard,
                                   save: g.save, open: g.open, features: features)
            result.pasteLimit = g.limit
            result.clipboardWithinLimit = g.within
            results.append(result)
        }
        return WhatIfPersonaResult(persona: persona, apps: results)
    }

    /// `app`'s grids in `fleet`: where its data may go, be pasted, saved, opened from, and the
    /// switches in it (conditional launch too, which the caller judges again for each persona).
    static func grids(_ app: WhatIfPersona.App, _ persona: WhatIfPersona, _ fleet: Fleet, now: Instant) -> Grids {
        let me = PolicyMatrix.Party(app: app.bundleID, account: persona.user)
        let personal = Account(upn: "")
        var transfers: [WhatIfAppResult.Cell] = [], clipboard: [WhatIfAppResult.Cell] = [], within: [WhatIfAppResult.Cell] = []
        let limit = fleet.policy(for: persona.user, in: app.bundleID)?.allowedOutboundClipboardSharingExceptionLength ?? 0
        for other in persona.apps where other.bundleID != app.bundleID {
            for (label, account) in [(persona.user.upn, Optional(persona.user)), ("personal", Optional(personal))] {
                let to = PolicyMatrix.Party(app: other.bundleID, account: account?.isEmpty == true ? nil : account)
                let name = "\(other.bundleID) as \(label)"
                transfers.append(.init(to: name, verdict: PolicyMatrix.decide(.transfers, from: me, to: to, in: fleet)))
                clipboard.append(.init(to: name, verdict: PolicyMatrix.decide(.clipboard, from: me, to: to, in: fleet)))
                if limit > 0 {
                    within.append(.init(to: name, verdict: Enforcer.pasteDecision(length: limit, owner: me.account, copiedIn: me.app, into: to.app, as: to.account, in: fleet)))
                }
            }
        }
        func row(_ grid: PolicyMatrix.Grid) -> [WhatIfAppResult.Cell] {
            grid.columns.indices.map { .init(to: grid.columns[$0], verdict: PolicyMatrix.decide(grid, for: me, column: $0, in: fleet, now: now)) }
        }
        return Grids(transfers: transfers, clipboard: clipboard, within: within, limit: limit, save: row(.save), open: row(.open), features: row(.features))
    }

    /// Whether `p` applies to `app` for the persona: assigned to the user (groups, exclusions,
    /// filters) and targeting the app (its list or group type, the device type it is for).
    /// Which policy applies in `app`, and why every other does not: the outcome, each policy's
    /// evaluation, the indices of those that apply (`[-1]`: undetermined), and the policy in
    /// force (of several, their most restrictive values).
    static func protection(for app: WhatIfPersona.App, _ persona: WhatIfPersona, _ member: DirectoryMembership, _ policies: WhatIfPolicies,
                           _ base: Fleet) -> (WhatIfAppResult.Protection, [WhatIfAppResult.PolicyEvaluation], [Int], IosManagedAppProtection?) {
        var evaluations: [WhatIfAppResult.PolicyEvaluation] = []
        var applying: [IosManagedAppProtection] = []
        var indices: [Int] = []
        var undecided = false
        guard persona.isIOS else { return (.notEvaluated(notEvaluated(persona, policies)), [], [], nil) }
        for (index, p) in policies.protections.enumerated() {
            let (applies, reasons, why) = protection(p, app, persona, member, policies, base)
            evaluations.append(.init(kind: .appProtection, id: p.id ?? "", displayName: p.title,
                                     applies: applies, analysisReasons: reasons, reason: PersonaText(why)))
            if applies == true { applying.append(p); indices.append(index) }
            if applies == nil { undecided = true }
        }
        if undecided { return (.undetermined, evaluations, [-1], nil) }
        if applying.count == 1 { return (.policy(applying[0].title), evaluations, indices, applying[0]) }
        if applying.count > 1 { return (.conflict(applying.map(\.title).sorted()), evaluations, indices, mostRestrictive(applying)) }
        return (.none, evaluations, indices, nil)
    }

    static func protection(_ p: IosManagedAppProtection, _ app: WhatIfPersona.App, _ persona: WhatIfPersona, _ member: DirectoryMembership,
                           _ policies: WhatIfPolicies, _ fleet: Fleet) -> (Bool?, [String], String) {
        let assignment = PolicyAssignment.resolve(p.assignments, for: member, filters: policies.filters, facts: persona.facts(app),
                                                  groupName: policies.groupName)
        let (targets, targeting) = fleet.targeting(p, app.bundleID)
        switch assignment {
        case .assigned(let why):
            return targets ? (true, ["users", "application"], "assigned: \(why); \(targeting)") : (false, ["application"], "assigned (\(why)), but \(targeting)")
        case .undetermined(let why):
            return targets ? (nil, ["notEnoughInformation"], why) : (false, ["application"], targeting)
        case .excluded(let why), .notAssigned(let why):
            return (false, ["users"], why)
        }
    }

    /// The policies of `chosen`, each narrowed to the apps it was chosen for: which policy
    /// applies where is settled here, so a fleet's lookups find exactly that one.
    static func restricted(_ chosen: [BundleID: IosManagedAppProtection]) -> [IosManagedAppProtection] {
        var byPolicy: [IosManagedAppProtection: [BundleID]] = [:]
        for (app, p) in chosen { byPolicy[p, default: []].append(app) }
        return byPolicy.map { p, apps in
            var narrowed = p
            narrowed.apps = apps.sorted()
            narrowed.appGroupType = .selectedPublicApps
            narrowed.targetedAppManagementLevels = "unspecified"
            return narrowed
        }.sorted { $0.apps.first! < $1.apps.first! }
    }

    /// Each conditional access policy's evaluation for the persona's app, as Graph's
    /// `whatIfAnalysisResult` says it: `policyApplies` with `analysisReasons` `notSet`, or why not
    /// (`users`, `clientApps`, `location`…), `notEnoughInformation` with what it depends on, and
    /// `policyNotEnabled` for a disabled one. A report-only policy is judged like an enabled one:
    /// its `state` says it is not enforced.
    static func conditionalAccess(_ judged: [(ConditionalAccessPolicy, CAJudgement)], _ persona: WhatIfPersona) -> [WhatIfAppResult.PolicyEvaluation] {
        judged.map { p, j in
            let controls = p.builtInControls.joined(separator: p.requiresAll ? " and " : " or ")
            let session = p.sessionControls.isEmpty ? "" : "; session: " + p.sessionControls.joined(separator: ", ")
            let notes = j.notes.isEmpty ? "" : " (\(j.notes.joined(separator: "; ")))"
            var e = WhatIfAppResult.PolicyEvaluation(kind: .conditionalAccess, id: p.id, displayName: p.name, applies: false,
                                                     analysisReasons: [], reason: "", reportOnly: p.state == .enabledForReportingButNotEnforced,
                                                     covers: j.matches, disabled: p.state == .disabled)
            if p.state == .disabled {
                e.analysisReasons = ["policyNotEnabled"]
                e.reason = "disabled"
            } else if !j.misses.isEmpty {
                e.analysisReasons = j.misses.map(\.reason)
                e.reason = PersonaText((e.reportOnly ? "report-only; " : "") + j.misses.map(\.why).joined(separator: "; ") + notes)
            } else if !j.unknowns.isEmpty {
                e.applies = nil
                e.analysisReasons = ["notEnoughInformation"] + j.unknowns.map(\.reason)
                e.dependsOn = j.unknowns.map { PersonaText($0.what) }
                e.reason = PersonaText((e.reportOnly ? "report-only; " : "") + "depends on whether \(j.dependsOn): then it \(e.reportOnly ? "would require" : "requires") \(controls.isEmpty ? "no grant control" : controls)\(session)" + notes)
            } else {
                e.applies = true
                e.analysisReasons = ["notSet"]
                e.reason = PersonaText((e.reportOnly ? "report-only: would require " : "requires ") + (controls.isEmpty ? "no grant control" : controls) + session + notes)
            }
            return e
        }
    }

    static func appConfig(_ app: WhatIfPersona.App, _ persona: WhatIfPersona, _ member: DirectoryMembership, _ policies: WhatIfPolicies, _ fleet: Fleet) -> [String: String] {
        guard let descriptor = fleet.app(app.bundleID) else { return [:] }
        let reaching = policies.appConfigs.filter { c in
            c.assignments.isEmpty || PolicyAssignment.resolve(c.assignments, for: member, filters: policies.filters, facts: persona.facts(app)).applies
        }
        let config = Enforcer.appConfig(for: persona.user, in: descriptor, policies: reaching, fleet: fleet)
        var merged: [String: String] = [:]
        for d in config.fullData.reversed() { merged.merge(d) { _, new in new } }
        return merged
    }
}
