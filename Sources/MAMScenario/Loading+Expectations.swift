import Foundation
import MAMExtensions
import MAMActivation
import MAMBundle
import MAMDocument
import MAMModel
import MAMPolicy
import Yams

// A step's expect: as the loader reads it: each verb's outcome forms, checked against what the
// verb can answer, with the error at the line that caused it.
extension Loading {
    // MARK: Expectations

    /// How an outcome is written, for messages and the docs (a verb lists the ones it may answer).
    enum OutcomeForm: String {
        case ok, success, delivered, allowed, canceled, notAllowed, failed
        case blocked = "{blocked: REASON}", failedBecause = "{failed: REASON}", targets = "{targets: [ids]}"
        case pasted = "{pasted: \"text\"}", value = "{value: \"...\"}", error = "{error: CODE}", shown = "{shown: \"text\"}"
        case text = "{text: \"...\"}", owner = "{owner: ACCOUNT}", none
        case configValue = "{value: X, conflict?: BOOL}", configValues = "{values: [..], conflict?: BOOL}"
        case config = "{config: {...}}", password = "{password: \"...\"}", certificate = "{certificate: {subject?, sha256?}}"
        case identity = "{identity: {subject?, sha256?}}", ids = "{ids: [..]}", signature = "{signature: verified}"
        case errorCode = "{error: REASON}"
        case token = "{token: ok}", compliance = "{compliance: STATUS}"
        case tokenClaims = "{token: {CLAIM: VALUE, ...}}", blockedHome = "{blocked: REASON, homeAccountId: OID.TID}"
        case openedIn = "{openedIn: APP|ios}", fullData = "{fullData: [{KEY: VALUE}, ...]}", complianceTold = "{compliance: STATUS, title?: \"...\", message?: \"...\"}"
        case remediation = "{remediation: started|queued|dropped}", inProgress = "{inProgress: BOOL}"
        case statuses = "{statuses: [{account: A, compliance: STATUS}, ...]}", accounts = "{accounts: [..]}"
        case enrollment = "{enrollment: STATUS}", pending
    }

    /// An enrollment status a scenario names (its lowerCamel name or the SDK's number), or an
    /// error suggesting the closest name.
    func enrollmentStatus(_ v: Located, what: String) -> EnrollmentStatus? {
        guard let text = reader.string(v, what: what) else { return nil }
        if let status = EnrollmentStatus(named: text) { return status }
        let hint = Suggestion.closest(to: text, among: EnrollmentStatus.allCases.map(\.name)).map { "did you mean \"\($0)\"? " } ?? ""
        reader.error(v, "\"\(text)\" is not an enrollment status; \(hint)docs/LIFECYCLE.md lists them (a number such as 225 is accepted too)")
        return nil
    }

    func readExpectation(_ v: Located, verb: Verb) -> ExpectedOutcome? {
        let allowed = verb.type.outcomes
        let expected = allowed.map(\.rawValue).joined(separator: ", ")
        let result: ExpectedOutcome
        let form: OutcomeForm
        switch v.node {
        case .scalar(let s) where !v.isNull:
            let bare: [String: ExpectedOutcome] = ["ok": .ok, "success": .success, "delivered": .delivered, "allowed": .allowed,
                                               "canceled": .canceled, "notAllowed": .notAllowed, "failed": .failed, "none": .none,
                                               "pending": .pending]
            guard let e = bare[s.string], let f = OutcomeForm(rawValue: s.string) else {
                let hint = Suggestion.closest(to: s.string, among: allowed.map(\.rawValue)).map { "did you mean \"\($0)\"?" }
                    ?? "\(verb) expects one of: \(expected)"
                reader.error(v, "unknown outcome \"\(s.string)\"; \(hint)")
                return nil
            }
            result = e
            form = f
        case .mapping where allowed.contains(.configValues):
            // `{value: X}` or `{values: [..]}`, with an optional `conflict: true|false`.
            guard let f = reader.fields(v, allowed: ["value", "values", "conflict"], what: "an appConfig outcome") else { return nil }
            let conflict = f["conflict"].flatMap { reader.bool($0, what: "conflict") }
            if let x = f["value"], !f.has("values") {
                guard let text = reader.string(x, what: "value") else { return nil }
                (result, form) = (.configValue(text, conflict: conflict), .configValue)
            } else if let x = f["values"], !f.has("value") {
                guard let texts = reader.strings(x, what: "values") else { return nil }
                (result, form) = (.configValues(texts, conflict: conflict), .configValues)
            } else {
                reader.error(v, "an appConfig outcome has value: or values: (and conflict: when it matters), or is none")
                return nil
            }
        case .mapping(let m) where m.count > 1 && allowed.contains(.complianceTold):
            guard let f = reader.fields(v, allowed: ["compliance", "title", "message"], required: ["compliance"],
                                        what: "a remediation outcome") else { return nil }
            guard let x = f["compliance"], let s = reader.string(x, what: "compliance"), let status = ComplianceStatus(rawValue: s) else {
                reader.error(v, "compliance must be one of \(ComplianceStatus.allCases.map(\.rawValue).joined(separator: ", "))")
                return nil
            }
            let title = f["title"].flatMap { reader.string($0, what: "title") }
            let message = f["message"].flatMap { reader.string($0, what: "message") }
            (result, form) = (.complianceTold(status, title: title, message: message), .complianceTold)
        case .mapping(let m) where m.count == 2 && allowed.contains(.blockedHome):
            guard let f = reader.fields(v, allowed: ["blocked", "homeAccountId"], required: ["blocked", "homeAccountId"],
                                        what: "a refusal with its homeAccountId") else { return nil }
            guard let code = f["blocked"].flatMap({ reader.string($0, what: "blocked") }),
                  let home = f["homeAccountId"].flatMap({ reader.string($0, what: "homeAccountId") }) else { return nil }
            guard let reason = Reason(rawValue: code) else {
                reader.error(f["blocked"]!, "unknown reason code \"\(code)\"; the codes are those of RULES.md §11")
                return nil
            }
            (result, form) = (.blockedHome(reason, homeAccountID: home), .blockedHome)
        case .mapping(let m) where m.count == 1:
            let key = m.keys.first!.scalar?.string ?? ""
            let x = Located(node: m.values.first!, path: v.child(key))
            switch key {
            case "blocked", "failed":
                guard let code = reader.string(x, what: key) else { return nil }
                guard let reason = Reason(rawValue: code) else {
                    let hint = Suggestion.closest(to: code, among: Reason.allCases.map(\.rawValue)).map { "did you mean \"\($0)\"?" }
                        ?? "the codes are those of RULES.md §11 (\(Reason.allCases.map(\.rawValue).joined(separator: ", ")))"
                    reader.error(x, "unknown reason code \"\(code)\"; \(hint)")
                    return nil
                }
                (result, form) = key == "blocked" ? (.blocked(reason), .blocked) : (.failedBecause(reason), .failedBecause)
            case "targets":
                guard let items = reader.list(x, what: "targets") else { return nil }
                let ids = items.compactMap { handle($0, what: "each entry of targets", allowExtensions: true) }
                guard ids.count == items.count else { return nil }
                (result, form) = (.targets(ids), .targets)
            case "pasted":
                guard let s = reader.string(x, what: "pasted") else { return nil }
                (result, form) = (.pasted(s), .pasted)
            case "value" where allowed.contains(.configValue):
                guard let s = reader.string(x, what: "value") else { return nil }
                (result, form) = (.configValue(s, conflict: nil), .configValue)
            case "value":
                guard let s = reader.string(x, what: "value") else { return nil }
                (result, form) = (.value(s), .value)
            case "shown":
                guard let s = reader.string(x, what: "shown") else { return nil }
                (result, form) = (.shown(s), .shown)
            case "error" where x.node.int == nil:
                guard let code = reader.string(x, what: "error"), let reason = Reason(rawValue: code) else {
                    reader.error(x, "error must be an OSStatus number (e.g. -25300) or a reason code such as invalid-identifier")
                    return nil
                }
                (result, form) = (.errorCode(reason), .errorCode)
            case "error":
                guard let n = reader.int(x, what: "error") else { return nil }
                (result, form) = (.error(n), .error)
            case "text":
                guard let s = reader.string(x, what: "text") else { return nil }
                (result, form) = (.text(s), .text)
            case "config":
                guard case .mapping = x.node else {
                    reader.error(x, "config must be a mapping (the configuration as a property list would read), but it is \(x.shape)")
                    return nil
                }
                (result, form) = (.config(CanonicalJSON.text(plainValue(x.node))), .config)
            case "password":
                guard let s = reader.string(x, what: "password") else { return nil }
                (result, form) = (.password(s), .password)
            case "certificate", "identity":
                guard let g = reader.fields(x, allowed: ["subject", "sha256"], what: "a \(key) outcome") else { return nil }
                let subject = g["subject"].flatMap { reader.string($0, what: "subject") }
                let sha = g["sha256"].flatMap { reader.string($0, what: "sha256") }
                (result, form) = (.certificate(subject: subject, sha256: sha, identity: key == "identity"), key == "identity" ? .identity : .certificate)
            case "ids":
                guard let ids = reader.strings(x, what: "ids") else { return nil }
                (result, form) = (.ids(ids), .ids)
            case "token" where x.node.scalar == nil:
                guard case .mapping(let claims) = x.node, !claims.isEmpty else {
                    reader.error(x, "token takes ok, or the claims to check as a mapping (e.g. {xms_cc: [protapp], tid: ...})")
                    return nil
                }
                var expected: [String: [String]] = [:]
                for (k, value) in claims {
                    let name = k.scalar?.string ?? ""
                    let at = Located(node: value, path: x.child(name))
                    if case .sequence = value {
                        guard let list = reader.strings(at, what: name) else { return nil }
                        expected[name] = list
                    } else {
                        guard let one = reader.string(at, what: name) else { return nil }
                        expected[name] = [one]
                    }
                }
                (result, form) = (.tokenClaims(expected), .tokenClaims)
            case "token":
                guard reader.string(x, what: "token") == "ok" else {
                    reader.error(x, "token takes the value ok, or the claims to check as a mapping (the token itself is in the explanation)")
                    return nil
                }
                (result, form) = (.token, .token)
            case "fullData" where allowed.contains(.fullData):
                guard let items = reader.list(x, what: "fullData") else { return nil }
                var dictionaries: [[String: String]] = []
                for item in items {
                    guard case .mapping(let m) = item.node else {
                        reader.error(item, "each entry of fullData is a dictionary of one configuration policy, but it is \(item.shape)")
                        return nil
                    }
                    var d: [String: String] = [:]
                    for (k, value) in m {
                        let name = k.scalar?.string ?? ""
                        guard let text = reader.string(Located(node: value, path: item.child(name)), what: name) else { return nil }
                        d[name] = text
                    }
                    dictionaries.append(d)
                }
                (result, form) = (.fullData(dictionaries), .fullData)
            case "openedIn" where allowed.contains(.openedIn):
                guard let name = reader.string(x, what: "openedIn") else { return nil }
                if name == "ios" {
                    (result, form) = (.openedIn(nil), .openedIn)
                } else {
                    guard let app = handle(x, what: "openedIn", allowExtensions: false) else { return nil }
                    (result, form) = (.openedIn(app), .openedIn)
                }
            case "compliance":
                guard let s = reader.string(x, what: "compliance"), let status = ComplianceStatus(rawValue: s) else {
                    reader.error(x, "compliance must be one of \(ComplianceStatus.allCases.map(\.rawValue).joined(separator: ", "))")
                    return nil
                }
                (result, form) = (.compliance(status), .compliance)
            case "remediation" where allowed.contains(.remediation):
                let words = ["started", "queued", "dropped"]
                guard let w = reader.string(x, what: "remediation"), words.contains(w) else {
                    reader.error(x, "remediation must be one of \(words.joined(separator: ", ")) (how the SDK took the call)")
                    return nil
                }
                (result, form) = (.remediation(w), .remediation)
            case "enrollment" where allowed.contains(.enrollment):
                guard let status = enrollmentStatus(x, what: "enrollment") else { return nil }
                (result, form) = (.enrollment(status), .enrollment)
            case "inProgress" where allowed.contains(.inProgress):
                guard let b = reader.bool(x, what: "inProgress") else { return nil }
                (result, form) = (.inProgress(b), .inProgress)
            case "accounts" where allowed.contains(.accounts):
                guard let items = reader.list(x, what: "accounts") else { return nil }
                let list = items.compactMap { account($0, what: "each entry of accounts", allowUnmanaged: true) }
                guard list.count == items.count else { return nil }
                (result, form) = (.accounts(list), .accounts)
            case "statuses" where allowed.contains(.statuses):
                guard let items = reader.list(x, what: "statuses") else { return nil }
                var told: [ToldStatus] = []
                for item in items {
                    guard let g = reader.fields(item, allowed: ["account", "compliance"], required: ["account", "compliance"],
                                                what: "each entry of statuses") else { return nil }
                    guard let who = account(g["account"]!, what: "account", allowUnmanaged: false) else { return nil }
                    guard let s = reader.string(g["compliance"]!, what: "compliance"), let status = ComplianceStatus(rawValue: s) else {
                        reader.error(g["compliance"]!, "compliance must be one of \(ComplianceStatus.allCases.map(\.rawValue).joined(separator: ", "))")
                        return nil
                    }
                    told.append(ToldStatus(account: who, status: status))
                }
                (result, form) = (.statuses(told), .statuses)
            case "signature":
                guard reader.string(x, what: "signature") == "verified" else {
                    reader.error(x, "signature takes the value verified: the runner checks the signature with the identity's certificate")
                    return nil
                }
                (result, form) = (.signatureVerified, .signature)
            case "owner":
                guard let a = x.isNull ? Account(upn: "") : account(x, what: "owner", allowUnmanaged: true) else { return nil }
                (result, form) = (.owner(a), .owner)
            default:
                let keys = ["blocked", "failed", "targets", "pasted", "value", "error", "shown", "text", "owner", "config", "password",
                            "certificate", "identity", "ids", "signature", "token", "compliance", "openedIn", "fullData",
                            "remediation", "inProgress", "statuses", "accounts", "enrollment"]
                let hint = Suggestion.closest(to: key, among: keys).map { "did you mean \"\($0)\"?" } ?? "\(verb) expects one of: \(expected)"
                reader.error(Located(node: m.keys.first!, path: v.child(key)), "unknown outcome \"\(key)\"; \(hint)")
                return nil
            }
        default:
            reader.error(v, "expect must be an outcome such as \(expected), but it is \(v.shape)")
            return nil
        }
        guard allowed.contains(form) else {
            let shown = v.node.scalar != nil ? "\"\(result)\"" : "\(result)"
            reader.error(v, "\(shown) is not an outcome of \(verb); expect one of: \(expected)")
            return nil
        }
        return result
    }
}
