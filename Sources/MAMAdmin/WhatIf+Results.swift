public import MAMModel
import MAMPolicy

/// One persona's results: what each of its apps gets.
///
/// Personas of one shape share one evaluation, made for a stand-in user (`WhatIf.evaluate` of
/// many): `apps` are those results as judged, each text that may name the persona a
/// `PersonaText` whose account is a hole. Whoever writes a text fills it with this persona's
/// account (`text(_:)`, `parts(_:)`; the JSON report encodes the persona result whole). A
/// result holds thousands of texts and a report writes few of them: they are filled as they
/// are written, never when judged.
public struct WhatIfPersonaResult: Sendable {
    public var persona: WhatIfPersona
    /// Each app's results, shared with every persona of this one's shape.
    public let apps: [WhatIfAppResult]
    let names: WhatIf.StandIn

    init(persona: WhatIfPersona, apps: [WhatIfAppResult], names: WhatIf.StandIn = WhatIf.StandIn()) {
        self.persona = persona
        self.apps = apps
        self.names = names
    }

    /// `t` with its holes filled with this persona's account.
    public func text(_ t: PersonaText) -> String { names(t.judged) }

    /// `t` as its parts: the text around its holes, and each hole with the part of this
    /// persona's account that fills it.
    public func parts(_ t: PersonaText) -> [PersonaText.Part] { names.parts(t.judged) }
}

/// A text of What If's results that may name the persona (a reason, a cell's name, a value of
/// app configuration): judged once for a shape of personas, the account a typed hole. It has
/// no `String` of its own to read: `WhatIfPersonaResult.text(_:)` fills it for that persona.
public struct PersonaText: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The text as judged, each hole the shape's stand-in (`WhatIf.StandIn`).
    let judged: String

    init(_ judged: String) { self.judged = judged }

    /// A text that names no persona.
    public init(stringLiteral value: String) { judged = value }

    /// What fills a hole: the persona's UPN, the part before its `@` (an app configuration's
    /// `{{partialupn}}`), its object id.
    public enum Hole: Sendable, Hashable { case userPrincipalName, userName, objectID }

    public enum Part: Sendable, Hashable {
        case text(String)
        /// A hole, and what the persona's account fills it with.
        case hole(Hole, String)
    }

    /// Whether the text holds a hole: a text that names no persona reads the same for all.
    public var hasHoles: Bool { WhatIf.StandIn.marked(judged) }

    /// For messages: each hole written as what fills it (`{userPrincipalName}`).
    public var description: String {
        WhatIf.StandIn.placeholders.parts(judged).map { part in
            switch part {
            case .text(let s): s
            case .hole(let hole, _): "{\(hole)}"
            }
        }.joined()
    }
}

/// A decision of What If's results: what a count or a filter reads, and its sentence, which
/// may name the persona.
public struct WhatIfDecision: Sendable, Hashable {
    let verdict: Verdict

    init(_ verdict: Verdict) { self.verdict = verdict }

    public var isAllowed: Bool { verdict.isAllowed }
    /// `nil` when allowed.
    public var blockedBy: Reason? { verdict.blockedBy }
    /// The decision in a word: `allowed`, or the reason code.
    public var word: String { verdict.isAllowed ? "allowed" : verdict.blockedBy?.rawValue ?? "blocked" }
    public var explanation: PersonaText { PersonaText(verdict.explanation) }
}

/// What a persona's app gets: the results of its shape, as judged.
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
        public var reason: PersonaText
        public var reportOnly: Bool = false
        /// What an undetermined conditional access policy depends on ("sign-in risk is high").
        public var dependsOn: [PersonaText] = []
        /// A conditional access policy's conditions cover the persona, whatever its state: what a
        /// report-only policy would do, read without reading `reason`.
        public var covers: Bool = false
        public var disabled: Bool = false
    }

    /// One cell of a grid: where the data goes (or the feature), and the decision.
    public struct Cell: Sendable, Hashable {
        public var to: PersonaText
        public var decision: WhatIfDecision

        init(to: String, verdict: Verdict) {
            self.to = PersonaText(to)
            decision = WhatIfDecision(verdict)
        }

        public var isAllowed: Bool { decision.isAllowed }
        /// `nil` when allowed.
        public var blockedBy: Reason? { decision.blockedBy }
    }

    public var app: BundleID
    public var protection: Protection
    public var evaluations: [PolicyEvaluation]
    /// The token request for the persona's resource: granted, blocked with what remedies it,
    /// or what it depends on.
    public var token: WhatIfToken
    public var conditionalAccess: [PolicyEvaluation]
    public var appConfig: [String: PersonaText]
    /// To each other app as the same user, and as its personal (unmanaged) identity.
    public var transfers: [Cell]
    public var clipboard: [Cell]
    /// The policy's cut and copy character limit (`allowedOutboundClipboardSharingExceptionLength`)
    /// and the clipboard cells for a paste of that many characters: what passes whatever the
    /// level. Zero and empty where the app's policy sets none.
    public var pasteLimit: Int = 0
    public var clipboardWithinLimit: [Cell] = []
    public var save: [Cell]
    public var open: [Cell]
    public var features: [Cell]
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
    /// A shape's stand-in user and the persona it stands for: what each hole of a shape's texts
    /// is written as, and what fills it — the whole UPN first, then its local part alone and
    /// the object id. Empty when the results name the persona's own account.
    struct StandIn: Sendable {
        /// A hole is written as `^`, a letter and a mark drawn afresh in each run: no input can
        /// hold one (an export's app configuration value with a `^` stays itself, never the
        /// persona's UPN), a text without a `^` is returned as it is after one scan, and the
        /// texts judged stay ASCII where they were (a placeholder outside ASCII slowed every
        /// text made with the stand-in's UPN).
        static let lead = UInt8(ascii: "^")
        static let nonce: String = {
            var generator = SystemRandomNumberGenerator()
            return (0..<2).map { _ in String(generator.next() as UInt64, radix: 36) }.joined(separator: "-")
        }()
        static let userMark = "^u" + nonce, objectIDMark = "^o" + nonce

        /// (written as, filled with, the hole) for each hole, the longest first.
        var pairs: [(String, String, PersonaText.Hole)] = []

        /// The user a shape of `domain` is judged for, standing for `user`. Made only for a shape
        /// judged, not for each persona read from it: its UPN is folded for comparison as it is
        /// made.
        static func account(standingFor user: Account, domain: String) -> Account {
            Account(upn: userMark + "@" + domain, oid: user.oid.isEmpty ? "" : objectIDMark, tenant: user.tenant)
        }

        /// What fills the holes of a shape of `domain` for `user`.
        static func `for`(_ user: Account, domain: String) -> StandIn {
            // The whole UPN first, then its local part alone (an app configuration's {{partialupn}}).
            var pairs = [(userMark + "@" + domain, user.upn, PersonaText.Hole.userPrincipalName),
                         (userMark, user.upn.split(separator: "@").first.map(String.init) ?? "", .userName)]
            if !user.oid.isEmpty { pairs.append((objectIDMark, user.oid, .objectID)) }
            return StandIn(pairs: pairs)
        }

        /// Holes read alone, each filled with nothing: for a text's description.
        static let placeholders = StandIn(pairs: [(userMark, "", .userName), (objectIDMark, "", .objectID)])

        /// Whether `s` holds a hole of this run.
        static func marked(_ s: String) -> Bool {
            s.utf8.contains(lead) && placeholders.parts(s).contains { if case .hole = $0 { true } else { false } }
        }

        var isEmpty: Bool { pairs.isEmpty }

        /// `s` as the persona reads it.
        func callAsFunction(_ s: String) -> String {
            guard !pairs.isEmpty, s.utf8.contains(Self.lead) else { return s }
            let bytes = Array(s.utf8)
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 32)
            scan(bytes, text: { out += bytes[$0] }, hole: { _, real in out += real.utf8 })
            return String(decoding: out, as: UTF8.self)
        }

        /// `s` split at its holes, each with what fills it.
        func parts(_ s: String) -> [PersonaText.Part] {
            guard !pairs.isEmpty, s.utf8.contains(Self.lead) else { return [.text(s)] }
            let bytes = Array(s.utf8)
            var parts: [PersonaText.Part] = []
            scan(bytes, text: { parts.append(.text(String(decoding: bytes[$0], as: UTF8.self))) }, hole: { parts.append(.hole($0, $1)) })
            return parts
        }

        /// `bytes` walked once: each run of text between holes (never empty) and each hole
        /// with what fills it, in order. Inlined into both callers: filling is what a report
        /// does for each text it writes.
        @inline(__always)
        private func scan(_ bytes: [UInt8], text: (Range<Int>) -> Void, hole: (PersonaText.Hole, String) -> Void) {
            var run = 0, i = 0
            outer: while i < bytes.count {
                if bytes[i] == Self.lead {
                    for (stand, real, kind) in pairs {
                        let u = stand.utf8
                        if bytes.count - i >= u.count, bytes[i..<(i + u.count)].elementsEqual(u) {
                            if i > run { text(run..<i) }
                            hole(kind, real)
                            i += u.count
                            run = i
                            continue outer
                        }
                    }
                }
                i += 1
            }
            if bytes.count > run { text(run..<bytes.count) }
        }
    }
}
