public import MAMModel
import MAMPolicy

/// One persona's results: what each of its apps gets.
///
/// Personas of one shape share one evaluation, made for a stand-in user (`WhatIf.evaluate` of
/// many). The stand-in never leaves this module: every text read through `apps` names this
/// persona, named when it is read — a result holds thousands of texts and a report writes few of
/// them, so naming them all when judging would cost more than the judging.
public struct WhatIfPersonaResult: Sendable {
    public var persona: WhatIfPersona
    let judged: [WhatIf.JudgedApp]
    let names: WhatIf.StandIn

    init(persona: WhatIfPersona, apps: [WhatIf.JudgedApp], names: WhatIf.StandIn = WhatIf.StandIn()) {
        self.persona = persona
        self.judged = apps
        self.names = names
    }

    /// Each app's results as this persona reads them.
    public var apps: [WhatIfAppResult] { judged.map { WhatIfAppResult(judged: $0, names: names, resource: persona.resource) } }
}

/// What a persona's app gets, its texts naming the persona.
public struct WhatIfAppResult: Sendable {
    public enum Protection: Sendable, Hashable {
        case policy(String)
        case none
        /// Two or more policies apply: the cells are judged with the conflicting settings at their
        /// most restrictive (`WhatIf.conflictRule`).
        case conflict([String])
        /// The inputs do not decide which policy applies.
        case undetermined
        /// Not evaluated, and why: the persona's platform is not iOS/iPadOS (its policies named).
        case notEvaluated(String)

        /// The one wording of a conflict, wherever it is written (the table, the diff, the
        /// HTML, and the title of the policy the conflict is judged as).
        public static func conflictTitle(_ names: [String]) -> String {
            "CONFLICT between " + names.map { "\"\($0)\"" }.joined(separator: " and ")
        }
    }

    /// One policy's evaluation for this app, as Graph's What If lists them (`whatIfAnalysisResult`).
    public struct PolicyEvaluation: Sendable, Hashable {
        /// Which kind of policy it is: its `@odata.type` in Graph's JSON.
        public enum Kind: String, Sendable, Hashable {
            case appProtection = "#microsoft.graph.iosManagedAppProtection"
            case conditionalAccess = "#microsoft.graph.conditionalAccessPolicy"
        }
        public var kind: Kind
        public var id: String
        public var displayName: String
        /// `nil`: undetermined.
        public var applies: Bool?
        /// What decided it, Graph's words where it has one (`users`, `application`, `devicePlatform`…).
        public var analysisReasons: [String]
        public var reason: String
        public var reportOnly: Bool = false
        /// What an undetermined conditional access policy depends on ("sign-in risk is high").
        public var dependsOn: [String] = []
        /// A conditional access policy's conditions cover the persona, whatever its state: what a
        /// report-only policy would do, read without reading `reason`.
        public var covers: Bool = false
        public var disabled: Bool = false
    }

    /// One cell of a grid: where the data goes (or the feature), and the decision.
    public struct Cell: Sendable, Equatable {
        let judged: WhatIf.JudgedCell
        let names: WhatIf.StandIn

        public var to: String { names(judged.to) }
        public var verdict: Verdict { names(judged.verdict) }
        /// The decision without its sentence: what a count or a filter reads.
        public var isAllowed: Bool { judged.verdict.isAllowed }
        /// `nil` when allowed.
        public var blockedBy: Reason? { judged.verdict.blockedBy }

        public static func == (a: Cell, b: Cell) -> Bool { a.to == b.to && a.verdict == b.verdict }
    }

    /// A grid's cells, each named as it is read.
    public struct Cells: RandomAccessCollection, Sendable {
        let judged: [WhatIf.JudgedCell]
        let names: WhatIf.StandIn

        public var startIndex: Int { judged.startIndex }
        public var endIndex: Int { judged.endIndex }
        public subscript(position: Int) -> Cell { Cell(judged: judged[position], names: names) }

        static var empty: Cells { Cells(judged: [], names: WhatIf.StandIn()) }
    }

    let judged: WhatIf.JudgedApp
    let names: WhatIf.StandIn
    /// The resource the persona's token is asked for.
    let resource: String

    public var app: BundleID { judged.app }
    public var protection: Protection { judged.protection }
    public var evaluations: [PolicyEvaluation] { judged.evaluations.map(names.callAsFunction) }
    /// The token request for `resource`: granted, blocked with what remedies it, or what it
    /// depends on.
    public var token: WhatIfToken { names(judged.token) }
    public var conditionalAccess: [PolicyEvaluation] { judged.conditionalAccess.map(names.callAsFunction) }
    public var appConfig: [String: String] { names.isEmpty ? judged.appConfig : judged.appConfig.mapValues(names.callAsFunction) }
    /// To each other app as the same user, and as its personal (unmanaged) identity.
    public var transfers: Cells { Cells(judged: judged.transfers, names: names) }
    public var clipboard: Cells { Cells(judged: judged.clipboard, names: names) }
    /// The policy's cut and copy character limit (`allowedOutboundClipboardSharingExceptionLength`)
    /// and the clipboard cells for a paste of that many characters: what passes whatever the
    /// level. Zero and empty where the app's policy sets none.
    public var pasteLimit: Int { judged.pasteLimit }
    public var clipboardWithinLimit: Cells { Cells(judged: judged.clipboardWithinLimit, names: names) }
    public var save: Cells { Cells(judged: judged.save, names: names) }
    public var open: Cells { Cells(judged: judged.open, names: names) }
    public var features: Cells { Cells(judged: judged.features, names: names) }
}

extension WhatIfAppResult.Protection: CustomStringConvertible {
    /// As every report writes it.
    public var description: String {
        switch self {
        case .policy(let name): "\"\(name)\""
        case .none: "none"
        case .conflict(let names): Self.conflictTitle(names)
        case .undetermined: "undetermined"
        case .notEvaluated(let why): "not evaluated — \(why)"
        }
    }
}

extension WhatIf {
    /// One app's results as judged: shared by the personas of a shape, its texts naming the
    /// shape's stand-in; read through `WhatIfAppResult`.
    struct JudgedApp: Sendable {
        var app: BundleID
        var protection: WhatIfAppResult.Protection
        var evaluations: [WhatIfAppResult.PolicyEvaluation]
        var token: WhatIfToken
        var conditionalAccess: [WhatIfAppResult.PolicyEvaluation]
        var appConfig: [String: String]
        var transfers: [JudgedCell]
        var clipboard: [JudgedCell]
        var pasteLimit: Int = 0
        var clipboardWithinLimit: [JudgedCell] = []
        var save: [JudgedCell]
        var open: [JudgedCell]
        var features: [JudgedCell]
    }

    struct JudgedCell: Sendable, Hashable {
        var to: String
        var verdict: Verdict
    }

    /// A shape's stand-in user and the persona it stands for: (stand-in, real) pairs, the whole
    /// UPN first, then its local part alone and the object id. Empty when the results name the
    /// persona's own account.
    struct StandIn: Sendable {
        /// The stand-in's parts start with a byte rarely in a real text (1, 2), so a text
        /// without one is returned as it is after one scan; what follows it is drawn afresh in
        /// each run, so no input can hold a stand-in: an export's app configuration value of
        /// `\u{1}` stays `\u{1}`, never the persona's UPN.
        static let user: UInt8 = 1, objectID: UInt8 = 2
        static let nonce: String = {
            var generator = SystemRandomNumberGenerator()
            return (0..<2).map { _ in String(generator.next() as UInt64, radix: 36) }.joined(separator: "-")
        }()

        var pairs: [(String, String)] = []

        /// The stand-in for `user` in a shape of `domain`, and who it stands for.
        static func `for`(_ user: Account, domain: String) -> (Account, StandIn) {
            let upn = String(decoding: [Self.user], as: UTF8.self) + nonce, oid = String(decoding: [Self.objectID], as: UTF8.self) + nonce
            let stand = Account(upn: upn + "@" + domain, oid: user.oid.isEmpty ? "" : oid, tenant: user.tenant)
            // The whole UPN first, then its local part alone (an app configuration's {{partialupn}}).
            var pairs = [(stand.upn, user.upn), (upn, user.upn.split(separator: "@").first.map(String.init) ?? "")]
            if !user.oid.isEmpty { pairs.append((oid, user.oid)) }
            return (stand, StandIn(pairs: pairs))
        }

        var isEmpty: Bool { pairs.isEmpty }

        /// `s` as the persona reads it.
        func callAsFunction(_ s: String) -> String {
            guard !pairs.isEmpty, s.utf8.contains(where: { $0 == Self.user || $0 == Self.objectID }) else { return s }
            let bytes = Array(s.utf8)
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 32)
            var i = 0
            outer: while i < bytes.count {
                if bytes[i] == Self.user || bytes[i] == Self.objectID {
                    for (stand, real) in pairs {
                        let u = stand.utf8
                        if bytes.count - i >= u.count, bytes[i..<(i + u.count)].elementsEqual(u) {
                            out += real.utf8
                            i += u.count
                            continue outer
                        }
                    }
                }
                out.append(bytes[i])
                i += 1
            }
            return String(decoding: out, as: UTF8.self)
        }

        func callAsFunction(_ v: Verdict) -> Verdict {
            guard !pairs.isEmpty else { return v }
            return switch v {
            case .allowed(let e): .allowed(self(e))
            case .blocked(let r, let e): .blocked(r, self(e))
            case .failed(let r, let e): .failed(r, self(e))
            }
        }

        func callAsFunction(_ t: WhatIfToken) -> WhatIfToken {
            guard !pairs.isEmpty else { return t }
            return WhatIfToken(decision: self(t.decision), cases: t.cases.map { .init(condition: self($0.condition), decision: self($0.decision)) })
        }

        func callAsFunction(_ e: WhatIfAppResult.PolicyEvaluation) -> WhatIfAppResult.PolicyEvaluation {
            guard !pairs.isEmpty else { return e }
            var named = e
            named.reason = self(e.reason)
            named.dependsOn = e.dependsOn.map(callAsFunction)
            return named
        }
    }
}
