public import MAMModel
public import MAMPolicy

/// What a step actually produced, in the vocabulary of expectations (SCENARIOS.md).
public enum Observed: Sendable, Hashable, CustomStringConvertible {
    case ok, success, canceled, notAllowed, delivered, allowed
    case failed(Reason?)
    case blocked(Reason)
    case targets([String])
    case pasted(String)
    case value(String)
    case error(Int)
    case shown(String)
    case text(String)
    /// The owner's identity (`""` = unowned).
    case owner(String)
    case none
    case configValue(String, conflict: Bool)
    case configValues([String], conflict: Bool)
    case config(String)
    /// `IntuneMAMAppConfig.fullData`: one dictionary per configuration policy.
    case fullData([[String: String]])
    case password(String)
    case certificate(subject: String, sha256: String, identity: Bool)
    case ids([String])
    case signature(verified: Bool)
    case errorCode(Reason)
    /// A token was issued, with its claims (each as strings: a list claim such as `xms_cc`
    /// as its elements).
    case token(claims: [String: [String]])
    /// A link opened: in this app of the fleet, or (`nil`) where iOS sends it, outside the
    /// fleet (the default browser, a universal link's own app).
    case openedIn(String?)
    /// `protection-policy-required` and the like, with the homeAccountId MSAL reports.
    case blockedHome(Reason, homeAccountID: String)
    /// What the compliance delegate is told: the status, and the error title and message an
    /// app shows (empty when compliant).
    case compliance(ComplianceStatus, title: String = "", message: String = "")
    /// How the SDK took a remediation call: `started`, `queued` or `dropped`.
    case remediation(String)
    case inProgress(Bool)
    /// What the compliance delegate was told, in order.
    case statuses([ToldStatus])
    /// The accounts a window shows.
    case accounts([Account])
    /// The status the app's enrollment delegate received.
    case enrollment(EnrollmentStatus)
    /// Asked, its outcome to come later (`wait: false`).
    case pending

    /// The expectation this outcome satisfies most precisely.
    public var asExpectation: ExpectedOutcome {
        switch self {
        case .ok: .ok
        case .success: .success
        case .canceled: .canceled
        case .notAllowed: .notAllowed
        case .delivered: .delivered
        case .allowed: .allowed
        case .failed(let r): r.map { .failedBecause($0) } ?? .failed
        case .blocked(let r): .blocked(r)
        case .targets(let ids): .targets(ids)
        case .pasted(let t): .pasted(t)
        case .value(let v): .value(v)
        case .error(let n): .error(n)
        case .shown(let t): .shown(t)
        case .text(let t): .text(t)
        case .owner(let o): .owner(Account(upn: o))
        case .none: .none
        case .configValue(let v, let c): .configValue(v, conflict: c)
        case .configValues(let v, let c): .configValues(v, conflict: c)
        case .config(let j): .config(j)
        case .fullData(let d): .fullData(d)
        case .password(let p): .password(p)
        case .certificate(let s, let h, let i): .certificate(subject: s, sha256: h, identity: i)
        case .ids(let ids): .ids(ids)
        case .signature(let ok): ok ? .signatureVerified : .failed
        case .errorCode(let r): .errorCode(r)
        case .token: .token
        case .blockedHome(let r, _): .blocked(r)
        case .openedIn: .delivered
        // The delegate's words are shown when it had any: a failed expectation says what the
        // user would have read.
        case .compliance(let s, let t, let m): t.isEmpty && m.isEmpty ? .compliance(s) : .complianceTold(s, title: t.isEmpty ? nil : t, message: m.isEmpty ? nil : m)
        case .remediation(let w): .remediation(w)
        case .inProgress(let b): .inProgress(b)
        case .statuses(let told): .statuses(told)
        case .accounts(let list): .accounts(list)
        case .enrollment(let s): .enrollment(s)
        case .pending: .pending
        }
    }

    /// Written the way a scenario file writes that expectation.
    public var description: String { asExpectation.description }

    public var reason: Reason? {
        switch self {
        case .failed(let r): r
        case .blocked(let r), .blockedHome(let r, _): r
        default: nil
        }
    }

    /// The same dictionaries, each as often, in any order: compared as dictionaries, never as
    /// their texts joined (a key or a value may hold any separator).
    static func sameInAnyOrder(_ a: [[String: String]], _ b: [[String: String]]) -> Bool {
        var rest = b
        for d in a {
            guard let i = rest.firstIndex(of: d) else { return false }
            rest.remove(at: i)
        }
        return rest.isEmpty
    }

    /// Whether this outcome satisfies an expectation. A bare `failed` accepts any reason;
    /// share-sheet targets compare as sets, ignoring case.
    public func satisfies(_ expected: ExpectedOutcome) -> Bool {
        switch (expected, self) {
        case (.ok, .ok), (.success, .success), (.canceled, .canceled), (.notAllowed, .notAllowed),
             (.delivered, .delivered), (.allowed, .allowed), (.failed, .failed):
            return true
        case (.blocked(let a), .blocked(let b)): return a == b
        case (.failedBecause(let a), .failed(let b)): return a == b
        case (.targets(let a), .targets(let b)):
            return Set(a.map { $0.lowercased() }) == Set(b.map { $0.lowercased() })
        case (.pasted(let a), .pasted(let b)), (.value(let a), .value(let b)), (.shown(let a), .shown(let b)):
            return a == b
        case (.error(let a), .error(let b)): return a == b
        case (.text(let a), .text(let b)): return a == b
        case (.owner(let a), .owner(let b)): return a.isEmpty ? b.isEmpty : a.matches(b)
        case (.none, .none): return true
        case (.configValue(let a, let ca), .configValue(let b, let cb)): return a == b && (ca == nil || ca == cb)
        case (.configValues(let a, let ca), .configValues(let b, let cb)): return a.sorted() == b.sorted() && (ca == nil || ca == cb)
        case (.config(let a), .config(let b)), (.password(let a), .password(let b)): return a == b
        case (.fullData(let a), .fullData(let b)):
            // In any order: the SDK gives one dictionary per policy, in no promised order.
            return Self.sameInAnyOrder(a, b)
        case (.certificate(let s, let h, let i), .certificate(let subject, let sha, let identity)):
            return i == identity && (s == nil || s == subject) && (h == nil || h!.lowercased() == sha.lowercased())
        case (.ids(let a), .ids(let b)): return a.sorted() == b.sorted()
        case (.signatureVerified, .signature(let ok)): return ok
        case (.errorCode(let a), .errorCode(let b)): return a == b
        case (.token, .token): return true
        case (.tokenClaims(let expected), .token(let claims)):
            return expected.allSatisfy { name, values in Set(claims[name] ?? []) == Set(values) }
        case (.blocked(let a), .blockedHome(let b, _)): return a == b
        case (.delivered, .openedIn): return true
        case (.openedIn(let a), .openedIn(let b)): return a == b
        case (.blockedHome(let a, let h), .blockedHome(let b, let g)): return a == b && h.lowercased() == g.lowercased()
        case (.compliance(let a), .compliance(let b, _, _)): return a == b
        case (.complianceTold(let a, let title, let message), .compliance(let b, let t, let m)):
            return a == b && (title.map { t.contains($0) } ?? true) && (message.map { m.contains($0) } ?? true)
        case (.remediation(let a), .remediation(let b)): return a == b
        case (.inProgress(let a), .inProgress(let b)): return a == b
        case (.enrollment(let a), .enrollment(let b)): return a == b
        case (.pending, .pending): return true
        case (.accounts(let a), .accounts(let b)):
            func same(_ x: Account, _ y: Account) -> Bool { x.isEmpty || y.isEmpty ? x.isEmpty && y.isEmpty : x.isSame(as: y) }
            return a.count == b.count && a.allSatisfy { x in b.contains { same(x, $0) } }
        case (.statuses(let a), .statuses(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.status == $1.status && $0.account.isSame(as: $1.account) }
        default: return false
        }
    }
}

extension Observed {
    /// A verdict as an outcome: `allowed` (a share's is `delivered`) when granted,
    /// `blocked(reason)` when a rule refused it, `failed(reason)` when it could not be done.
    init(_ verdict: Verdict, allowed: Observed = .allowed) {
        switch verdict {
        case .allowed: self = allowed
        case .blocked(let r, _): self = .blocked(r)
        case .failed(let r, _): self = .failed(r)
        }
    }
}
