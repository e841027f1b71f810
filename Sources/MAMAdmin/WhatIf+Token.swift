public import MAMModel
import MAMPolicy

/// The token answer of What If: a decision, or what it depends on.
public struct WhatIfToken: Sendable, Hashable {
    /// One thing not known and what the token would be if it held.
    public struct Case: Sendable, Hashable {
        /// "sign-in risk is high (\"Block risky sign-ins\")", "the device is compliant".
        public var condition: PersonaText
        public var decision: WhatIfDecision

        init(condition: String, decision: Verdict) {
            self.condition = PersonaText(condition)
            self.decision = WhatIfDecision(decision)
        }
    }

    /// The decision when none of `cases` holds (every unknown condition unmatched, the
    /// compliance not stated read as not compliant); the whole answer when `cases` is empty.
    public var decision: WhatIfDecision
    /// What the answer depends on: each condition alone, and the decision if it holds. Empty:
    /// decided.
    public var cases: [Case] = []

    init(decision: Verdict, cases: [Case] = []) {
        self.decision = WhatIfDecision(decision)
        self.cases = cases
    }

    public var depends: Bool { !cases.isEmpty }
    /// Decided and granted.
    public var isAllowed: Bool { !depends && decision.isAllowed }
    /// Decided and refused: why; `nil` when granted or when it depends.
    public var blockedBy: Reason? { depends ? nil : decision.blockedBy }

    /// The answer in a word: `allowed`, a reason code (`access-blocked`), or `depends`.
    public var word: String { depends ? "depends" : decision.word }

    /// The answer in a sentence: the decision, or "depends — if …: …; otherwise: …".
    public var explanation: PersonaText {
        guard depends else { return decision.explanation }
        func said(_ d: WhatIfDecision) -> String { d.word + " (\(d.verdict.explanation))" }
        return PersonaText("depends — " + cases.map { "if \($0.condition.judged): \(said($0.decision))" }.joined(separator: "; ") + "; otherwise: \(said(decision))")
    }
}

extension WhatIf {
    /// What one applying policy's grant controls come to for the app and device.
    enum Outcome {
        case blocks, device([String]), app, granted([String])
    }

    /// The token `app` gets for the persona's resource (Microsoft Learn, "Conditional Access:
    /// how policies are applied": every applying policy must be satisfied, a block wins). The
    /// policies that apply are each named, a block first; the session controls of those that
    /// grant are named with the token. A policy whose conditions are unknown, and a device whose
    /// compliance is not stated where a policy reads it, make the answer "depends".
    static func token(_ app: WhatIfPersona.App, _ persona: WhatIfPersona, _ judged: [(ConditionalAccessPolicy, CAJudgement)],
                      _ fleet: Fleet, compliant: Bool) -> WhatIfToken {
        guard let descriptor = fleet.app(app.bundleID) else { return WhatIfToken(decision: .allowed("not installed")) }
        let enabled = judged.filter { $0.0.state == .enabled && $0.1.misses.isEmpty }
        let applying = enabled.filter { $0.1.unknowns.isEmpty }.map(\.0)
        let unknown = enabled.filter { !$0.1.unknowns.isEmpty }
        let device = persona.device
        let readsCompliance = (applying + unknown.map(\.0)).contains { $0.builtInControls.contains { $0.lowercased() == "compliantdevice" } }
        let complianceUnknown = device.mdmEnrolled && device.compliant == nil && readsCompliance
        func caDevice(_ isCompliant: Bool?) -> ConditionalAccessDevice {
            ConditionalAccessDevice(enrolled: device.mdmEnrolled, compliant: device.mdmEnrolled ? isCompliant : false,
                                    hybridJoined: device.entra.trustType?.lowercased() == "serverad")
        }
        let base = caDevice(complianceUnknown ? false : device.compliant)
        let ok = compliant && app.sdkIntegrated
        let decision = decide(applying, app: descriptor, capabilities: app.capabilities, account: persona.user, resource: persona.resource, device: base, compliant: ok)
        var cases: [WhatIfToken.Case] = []
        for (p, j) in unknown {
            let d = decide(applying + [p], app: descriptor, capabilities: app.capabilities, account: persona.user, resource: persona.resource, device: base, compliant: ok)
            if cell(d) != cell(decision) { cases.append(.init(condition: "\(j.dependsOn) (\"\(p.name)\")", decision: d)) }
        }
        if complianceUnknown {
            let d = decide(applying, app: descriptor, capabilities: app.capabilities, account: persona.user, resource: persona.resource, device: caDevice(true), compliant: ok)
            if cell(d) != cell(decision) { cases.append(.init(condition: "the device is compliant (say device.compliant)", decision: d)) }
        }
        // Unknown, and no change to the answer: said, never silently "as if matched".
        let moot = unknown.filter { p, _ in !cases.contains { $0.condition.judged.hasSuffix("(\"\(p.name)\")") } }
        guard cases.isEmpty, !moot.isEmpty else { return WhatIfToken(decision: decision, cases: cases) }
        let note = "; not known: whether " + moot.map { "\($0.1.dependsOn) (\"\($0.0.name)\")" }.joined(separator: ", ") + " — the answer is the same either way"
        let said: Verdict = switch decision {
        case .allowed(let e): .allowed(e + note)
        case .blocked(let r, let e): .blocked(r, e + note)
        case .failed(let r, let e): .failed(r, e + note)
        }
        return WhatIfToken(decision: said, cases: [])
    }

    /// The decision of `policies`, every one of them applying: blocks first, then device
    /// controls unmet, then app controls unmet, then what granted it — each policy named.
    static func decide(_ policies: [ConditionalAccessPolicy], app: AppDescriptor, capabilities: [String], account: Account, resource: String,
                       device: ConditionalAccessDevice, compliant: Bool) -> Verdict {
        guard !policies.isEmpty else { return .allowed("token issued to \(app.bundleID) for \(account) (\(resource)): no conditional access policy applies") }
        let protapp = capabilities.contains { $0.lowercased() == Enforcer.protectionCapability }
        var blocks: [String] = [], devices: [String] = [], apps: [String] = [], grants: [String] = [], session: [String] = []
        for p in policies {
            let (met, unmetDevice, block) = Enforcer.controls(of: p, app: app, device: device, compliant: compliant, declaresProtapp: protapp)
            let controls = p.builtInControls.joined(separator: p.requiresAll ? " and " : " or ")
            let total = p.builtInControls.count + p.notSimulated.filter { $0.hasPrefix("grantControls.") }.count
            let satisfied = p.requiresAll ? met.count == total : (total == 0 || !met.isEmpty)
            let appControlUnmet = p.builtInControls.contains { ["compliantapplication", "approvedapplication"].contains($0.lowercased()) }
                && !met.contains { $0.contains("compliantApplication") || $0.contains("approvedApplication") }
            if block {
                blocks.append("conditional access policy \"\(p.name)\" blocks access (grantControls: block)")
            } else if satisfied {
                let by = p.requiresAll ? met.joined(separator: " and ") : (met.first { !$0.hasPrefix("after ") } ?? met.first ?? "with no grant control")
                grants.append("\"\(p.name)\" granted \(by)")
                session += p.sessionControls.map { "\($0) (\"\(p.name)\")" }
            } else if !unmetDevice.isEmpty, p.requiresAll || !appControlUnmet {
                devices.append("conditional access policy \"\(p.name)\" requires \(controls): \(unmetDevice.joined(separator: "; "))")
            } else {
                apps.append("conditional access policy \"\(p.name)\" requires \(controls)")
            }
        }
        let others = devices + apps + grants
        if !blocks.isEmpty {
            return .blocked(.accessBlocked, blocks.joined(separator: "; ") + ": no control satisfies a block, only a change of the policy (Entra AADSTS53003)"
                            + (others.isEmpty ? "" : "; also applying: " + others.joined(separator: "; ")))
        }
        if !devices.isEmpty {
            return .blocked(.accessBlocked, devices.joined(separator: "; ") + " (\(account))" + ((apps + grants).isEmpty ? "" : "; also applying: " + (apps + grants).joined(separator: "; ")))
        }
        if !apps.isEmpty {
            let also = grants.isEmpty ? "" : "; also applying: " + grants.joined(separator: "; ")
            guard protapp else {
                return .blocked(.appProtectionUnsupported, apps.joined(separator: "; ") + " for \(account), and \(app.bundleID) does not declare the \(Enforcer.protectionCapability) client capability: it cannot be remediated; add \(Enforcer.protectionCapability) to the app's MSAL client capabilities" + also)
            }
            return .blocked(.protectionPolicyRequired, apps.joined(separator: "; ") + " for \(account); \(app.bundleID) is not compliant: call remediateCompliance" + also)
        }
        return .allowed("token issued to \(app.bundleID) for \(account) (\(resource)): " + grants.joined(separator: "; ")
                        + (session.isEmpty ? "" : "; session controls: " + session.joined(separator: ", ")))
    }
}
