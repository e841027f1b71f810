import MAMDevice
import MAMDeviceState
import MAMDocument
import MAMModel
import MAMPolicy
import MAMWire
import Yams

/// `expectState`: checks what the device holds for one app (identities, files, received items,
/// notifications, telemetry); a check by nature, so it expects `ok` without `expect:`.
struct ExpectStateStep: StepVerb {
    static let name = "expectState"
    static let since = "v1"
    static let summary = "checks the app's identities, files, received items, notifications, telemetry and diagnostics"
    static let example = "expectState: {app: notes, uiIdentity: alice@contoso.com, received: [Q3 figures]}"
    static let arguments: [VerbArgument] = [
        .app(),
        .optional("signedIn", .list, "the accounts signed in (any order)"),
        .optional("uiIdentity", .account(unmanaged: true), "the identity the window shows (\"\" or null: unmanaged)"),
        .optional("processIdentity", .account(unmanaged: true), "the process identity"),
        .optional("files", .mapping, "path: owner (\"\" or null: personal)"),
        .optional("received", .list, "the items accepted, in order: text, or {text, type, owner, from}"),
        .optional("encrypted", .list, "files encrypted on disk"),
        .optional("plaintext", .list, "files that exist stored in plain text (unmanaged data, which must not be encrypted)"),
        .optional("absent", .list, "files that must not exist"),
        .optional("notifications", .list, "SDK notifications received, in order, others allowed between"),
        .window,
        .optional("diagnostics", .list, "diagnostics the device reported"),
        .optional("telemetry", .list, "telemetry events sent, in order ([]: none)"),
        .optional("enrollment", .mapping, "ACCOUNT: STATUS, the last enrollment, policy or unenrollment status the app's delegate got for the account (v1.3)"),
        .optional("enrollmentStatuses", .list, "statuses the app's enrollment delegate got, in order, others allowed between (v1.3)"),
    ]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]
    static var implicitExpectation: ExpectedOutcome? { .ok }

    var app: String
    var state: StateExpectation

    init(app: String, state: StateExpectation) { (self.app, self.state) = (app, state) }

    init(_ a: VerbArgumentReader) {
        // `window` says where to look, not what to check.
        let checks = Self.arguments.map(\.key).filter { $0 != "app" && $0 != "window" }
        if checks.allSatisfy({ !a.has($0) }) {
            a.error("expectState needs at least one of \(checks.joined(separator: ", ")) to check")
        }
        self.init(app: a.app(), state: Self.readState(a))
    }

    func run(_ run: StepRun) async -> StepOutcome {
        let differences = await Self.stateDifferences(app, state, host: run.host, received: run.received)
        return (differences.isEmpty ? .ok : .failed(nil), differences.isEmpty ? "state as expected" : differences.joined(separator: "; "), app)
    }

    private static func readState(_ a: VerbArgumentReader) -> StateExpectation {
        let reader = a.reader, loading = a.loading, f = a.fields
        func account(_ v: Located, what: String, allowUnmanaged: Bool = false) -> Account? {
            loading.account(v, what: what, allowUnmanaged: allowUnmanaged)
        }
        func readReceived(_ v: Located) -> ReceivedExpectation? { Self.readReceived(v, a) }
        var state = StateExpectation()
        if let x = f["signedIn"], let items = reader.list(x, what: "signedIn") {
            state.signedIn = items.compactMap { account($0, what: "each entry of signedIn") }
        }
        if let x = f["uiIdentity"] {
            state.uiIdentity = x.isNull ? Account(upn: "") : account(x, what: "uiIdentity", allowUnmanaged: true)
        }
        if let x = f["processIdentity"] {
            state.processIdentity = x.isNull ? Account(upn: "") : account(x, what: "processIdentity", allowUnmanaged: true)
        }
        if let x = f["files"] {
            if case .mapping(let m) = x.node {
                var files: [String: Account] = [:]
                for (k, value) in m {
                    let path = k.scalar?.string ?? ""
                    let loc = Located(node: value, path: x.child(path))
                    if let owner = loc.isNull ? Account(upn: "") : account(loc, what: "the owner of \"\(path)\"", allowUnmanaged: true) {
                        files[path] = owner
                    }
                }
                state.files = files
            } else {
                reader.error(x, "files must be a mapping of paths to owners (an account, or \"\" for personal), but it is \(x.shape)")
            }
        }
        if let x = f["window"] { state.window = reader.string(x, what: "window") }
        if let x = f["encrypted"] { state.encrypted = reader.strings(x, what: "encrypted") }
        if let x = f["plaintext"] { state.plaintext = reader.strings(x, what: "plaintext") }
        if let x = f["absent"] { state.absent = reader.strings(x, what: "absent") }
        if let x = f["diagnostics"] { state.diagnostics = reader.strings(x, what: "diagnostics") }
        if let x = f["telemetry"] { state.telemetry = reader.strings(x, what: "telemetry") }
        if let x = f["enrollment"] {
            if case .mapping(let m) = x.node {
                var expected: [AccountStatus] = []
                for (k, value) in m {
                    let key = Located(node: k, path: x.path)
                    let loc = Located(node: value, path: x.child(k.scalar?.string ?? ""))
                    if let who = account(key, what: "each account of enrollment"), let s = loading.enrollmentStatus(loc, what: "enrollment") { expected.append(AccountStatus(account: who, status: s)) }
                }
                state.enrollment = expected
            } else {
                reader.error(x, "enrollment must map accounts to statuses, e.g. {alice@contoso.com: newPoliciesReceived}, but it is \(x.shape)")
            }
        }
        if let x = f["enrollmentStatuses"], let items = reader.list(x, what: "enrollmentStatuses") {
            state.enrollmentStatuses = items.compactMap { loading.enrollmentStatus($0, what: "each entry of enrollmentStatuses") }
        }
        if let x = f["notifications"], let items = reader.list(x, what: "notifications") {
            var names: [String] = []
            for item in items {
                guard let written = reader.string(item, what: "each entry of notifications") else { continue }
                let name = ContractAliases.notifications[written] ?? written
                guard StateExpectation.notificationNames.contains(name) else {
                    let hint = Suggestion.closest(to: name, among: StateExpectation.notificationNames).map { "did you mean \"\($0)\"?" }
                        ?? "the notifications are: \(StateExpectation.notificationNames.joined(separator: ", "))"
                    reader.error(item, "unknown notification \"\(name)\"; \(hint)")
                    continue
                }
                names.append(name)
            }
            state.notifications = names
        }
        if let x = f["received"], let items = reader.list(x, what: "received") {
            state.received = items.compactMap(readReceived)
        }
        return state
    }

    /// One entry of `received`: the item's text, or a mapping of `text`, `type`, `owner`, `from`.
    private static func readReceived(_ v: Located, _ a: VerbArgumentReader) -> ReceivedExpectation? {
        let reader = a.reader
        func account(_ v: Located, what: String, allowUnmanaged: Bool = false) -> Account? {
            a.loading.account(v, what: what, allowUnmanaged: allowUnmanaged)
        }
        if v.node.scalar != nil {
            return reader.string(v, what: "each entry of received").map { ReceivedExpectation(text: $0) }
        }
        guard case .mapping(let m) = v.node else {
            reader.error(v, "each entry of received is the item's text or a mapping of text, type, owner, from; it is \(v.shape)")
            return nil
        }
        var entry = ReceivedExpectation()
        for (k, value) in m {
            let key = k.scalar?.string ?? ""
            let loc = Located(node: value, path: v.child(key))
            switch key {
            case "text": entry.text = reader.string(loc, what: "text")
            case "type": entry.type = reader.string(loc, what: "type")
            case "from": entry.from = reader.string(loc, what: "from")
            case "owner": entry.owner = loc.isNull ? Account(upn: "") : account(loc, what: "owner", allowUnmanaged: true)
            default:
                let hint = Suggestion.closest(to: key, among: ["text", "type", "owner", "from"]).map { "; did you mean \"\($0)\"?" } ?? ""
                // Unknown keys point at the key, as everywhere in the loader.
                reader.error(Located(node: k, path: v.child(key)), "unknown key \"\(key)\" in a received entry\(hint)")
            }
        }
        return entry
    }

    /// `expectState`: every difference between what the device holds and what was expected.
    static func stateDifferences(_ app: String, _ e: StateExpectation, host: HostController, received: ReceivedLog) async -> [String] {
        let ids: (String?, String?, [Account])
        switch await host.result({ [app, window = e.window ?? ""] in try $0.accounts.identities($0.app(app), window: window) }) {
        case .success(let i): ids = (i.process, i.ui, i.signedIn)
        case .failure(let error): return ["the device cannot say: \(error.message)"]
        }
        var out: [String] = []
        if let expected = e.signedIn {
            let want = Set(expected.map { $0.upnKey.isEmpty ? $0.oidKey : $0.upnKey })
            let have = Set(ids.2.map { $0.upnKey.isEmpty ? $0.oidKey : $0.upnKey })
            if want != have { out.append("signedIn is [\(ids.2.map(\.upn).sorted().joined(separator: ", "))], expected [\(expected.map(\.upn).sorted().joined(separator: ", "))]") }
        }
        func same(_ actual: String?, _ expected: Account) -> Bool {
            guard let actual, !actual.isEmpty else { return expected.isEmpty }
            return expected.matches(actual)
        }
        if let ui = e.uiIdentity, !same(ids.1 ?? ids.0, ui) {
            out.append("uiIdentity is \(describe(ids.1 ?? ids.0)), expected \(ui.isEmpty ? "unmanaged (\"\")" : ui.upn)")
        }
        if let process = e.processIdentity, !same(ids.0, process) {
            out.append("processIdentity is \(describe(ids.0)), expected \(process.isEmpty ? "unmanaged (\"\")" : process.upn)")
        }
        for (path, owner) in (e.files ?? [:]).sorted(by: { $0.key < $1.key }) {
            switch await host.result({ [app, path] in try $0.services.fileStatus($0.app(app), path: path) }) {
            case .success(let s) where !s.exists: out.append("\(path) does not exist, expected it owned by \(owner.isEmpty ? "unmanaged" : owner.upn)")
            case .success(let s) where same(s.owner, owner): break
            case .success(let s): out.append("\(path) is owned by \(describe(s.owner)), expected \(owner.isEmpty ? "unmanaged" : owner.upn)")
            case .failure(let error): out.append("\(path): \(error.message)")
            }
        }
        for path in e.encrypted ?? [] {
            switch await host.result({ [app, path] in try $0.services.fileStatus($0.app(app), path: path) }) {
            case .success(let s) where !s.exists: out.append("\(path) does not exist, expected it encrypted")
            case .success(let s) where !s.encryptedOnDisk: out.append("\(path) is stored in plain text, expected it encrypted")
            case .success: break
            case .failure(let error): out.append("\(path): \(error.message)")
            }
        }
        for path in e.plaintext ?? [] {
            switch await host.result({ [app, path] in try $0.services.fileStatus($0.app(app), path: path) }) {
            case .success(let s) where !s.exists: out.append("\(path) does not exist, expected it in plain text")
            case .success(let s) where s.encryptedOnDisk: out.append("\(path) is encrypted on disk, expected it in plain text")
            case .success: break
            case .failure(let error): out.append("\(path): \(error.message)")
            }
        }
        for path in e.absent ?? [] {
            switch await host.result({ [app, path] in try $0.services.fileStatus($0.app(app), path: path) }) {
            case .success(let s) where s.exists: out.append("\(path) exists (owned by \(describe(s.owner))), expected it absent")
            case .success: break
            case .failure(let error): out.append("\(path): \(error.message)")
            }
        }
        if let expected = e.diagnostics {
            let got = received.diagnostics(of: app)
            for name in expected where !got.contains(name) {
                out.append("diagnostics were [\(got.joined(separator: ", "))]; expected \(name)")
            }
        }
        if let expected = e.telemetry {
            let got = received.telemetry(of: app)
            if expected.isEmpty, !got.isEmpty {
                out.append("telemetry was [\(got.joined(separator: ", "))]; expected none")
            } else if let missing = Self.missingInOrder(expected, got) {
                out.append("telemetry was [\(got.joined(separator: ", "))]; expected [\(expected.joined(separator: ", "))] in that order (\(missing) missing)")
            }
        }
        if e.enrollment != nil || e.enrollmentStatuses != nil {
            switch await host.result({ [app] in try $0.enrollment.events($0.app(app)) }) {
            case .success(let events):
                for (account, status) in (e.enrollment ?? []).map({ ($0.account, $0.status) }) {
                    let last = events.last { account.matches($0.account) }
                    if last?.status != status {
                        out.append("\(account)'s last enrollment status in \(app) is \(last.map { "\($0.status.described) (\($0.kind.rawValue), \($0.via))" } ?? "none"), expected \(status.described)")
                    }
                }
                if let expected = e.enrollmentStatuses {
                    let got = events.map(\.status.name)
                    if let missing = Self.missingInOrder(expected.map(\.name), got) {
                        out.append("enrollment statuses were [\(got.joined(separator: ", "))]; expected [\(expected.map(\.name).joined(separator: ", "))] in that order (\(missing) missing)")
                    }
                }
            case .failure(let error): out.append("enrollment: \(error.message)")
            }
        }
        if let expected = e.notifications {
            // In order, others allowed between: a subsequence of what arrived.
            let got = received.notifications(of: app)
            if let missing = Self.missingInOrder(expected, got) {
                out.append("notifications were [\(got.joined(separator: ", "))]; expected [\(expected.joined(separator: ", "))] in that order (\(missing) missing)")
            }
        }
        if let expected = e.received {
            let got = received.items(of: app)
            if got.count != expected.count {
                out.append("received \(got.count) items (\(got.map(line).joined(separator: "; "))), expected \(expected.count)")
            }
            for (i, (want, have)) in zip(expected, got).enumerated() {
                let owner = have.owner
                var wrong: [String] = []
                if let t = want.text, !have.hasText(t), t != have.fileName { wrong.append("text \"\(have.textPrefix)\", expected \"\(t)\"") }
                if let t = want.type, !have.typeIdentifiers.contains(where: { $0.lowercased() == t.lowercased() }) {
                    wrong.append("types \(have.typeIdentifiers), expected \(t)")
                }
                if let o = want.owner, !same(owner, o) { wrong.append("owner \(describe(owner)), expected \(o.isEmpty ? "unmanaged" : o.upn)") }
                if let f = want.from, f.lowercased() != have.from.lowercased() { wrong.append("from \(have.from), expected \(f)") }
                if !wrong.isEmpty { out.append("received item \(i + 1): " + wrong.joined(separator: ", ")) }
            }
        }
        return out
    }

    /// The first of `expected` that is not in `got` in that order (others may come between).
    static func missingInOrder(_ expected: [String], _ got: [String]) -> String? {
        var rest = got[...]
        for name in expected {
            guard let i = rest.firstIndex(of: name) else { return name }
            rest = rest[(i + 1)...]
        }
        return nil
    }

    private static func line(_ r: ReceivedSummary) -> String {
        "\(r.isText ? "\"\(r.textPrefix.prefix(40))\"" : r.fileName) from \(r.from)"
    }

    private static func describe(_ identity: String?) -> String {
        guard let identity, !identity.isEmpty else { return "unmanaged" }
        return identity
    }
}

/// What `expectState` checks in one app; `nil` fields are not checked.
struct StateExpectation: Sendable, Hashable {
    /// The accounts signed in to the app (order-insensitive).
    var signedIn: [Account]?
    /// `Account(upn: "")` expects the unmanaged identity.
    var uiIdentity: Account?
    var processIdentity: Account?
    /// Owner of each file by path inside the app's container (`Account(upn: "")` = personal).
    var files: [String: Account]?
    /// The items the app (or extension) accepted, in order (an extension of v1).
    var received: [ReceivedExpectation]?
    /// The window whose `uiIdentity` is checked (v1.1; `nil` = the main window).
    var window: String?
    /// Files whose bytes on disk are encrypted (v1.1).
    var encrypted: [String]?
    /// Files that exist stored in plain text (v1.2): unmanaged data the SDK must not encrypt.
    var plaintext: [String]?
    /// Files that must not exist (v1.1): a deleted file is absent, not owned by "".
    var absent: [String]?
    /// Telemetry events the app sent, in this order, others allowed between (v1.1):
    /// `appLaunch`, `enrollment`, `remediation`, `wipe`, `signOut`.
    var telemetry: [String]?
    /// Diagnostics the device reported about the app (v1.1), e.g. `remediation-loop`.
    var diagnostics: [String]?
    /// SDK notifications the app must have received, in this order, others allowed between
    /// (v1.1): `policyChanged`, `appConfigChanged`, `managedConfigChanged`,
    /// `allowedAccountsChanged`, `wipe`, `restartApplication`, `complianceStatus`, and (v1.2)
    /// `blockAccount` (the contract's `blockAccountId`) and `addIdentity`.
    var notifications: [String]?
    /// The last enrollment status the app's delegate got for each account (v1.3).
    var enrollment: [AccountStatus]?
    /// Statuses the delegate got, in order, others allowed between (v1.3).
    var enrollmentStatuses: [EnrollmentStatus]?

    /// The notification names `notifications` accepts.
    static let notificationNames = ["policyChanged", "appConfigChanged", "managedConfigChanged", "allowedAccountsChanged",
                                           "wipe", "restartApplication", "complianceStatus", "blockAccount", "addIdentity",
                                           "enrollmentStatus", "unenrollmentStatus", "policyStatus"]

    init(signedIn: [Account]? = nil, uiIdentity: Account? = nil, processIdentity: Account? = nil,
                files: [String: Account]? = nil, received: [ReceivedExpectation]? = nil,
                encrypted: [String]? = nil, absent: [String]? = nil, notifications: [String]? = nil) {
        self.signedIn = signedIn
        self.uiIdentity = uiIdentity
        self.processIdentity = processIdentity
        self.files = files
        self.received = received
        self.encrypted = encrypted
        self.absent = absent
        self.notifications = notifications
    }
}

/// An account and the enrollment status expected for it.
struct AccountStatus: Sendable, Hashable {
    var account: Account
    var status: EnrollmentStatus
}

/// What one received item must look like; absent fields are not checked.
struct ReceivedExpectation: Sendable, Hashable {
    var text: String?
    var type: String?
    /// The owner the host stamped (`Account(upn: "")` = personal data).
    var owner: Account?
    /// The sender's app id.
    var from: String?

    init(text: String? = nil, type: String? = nil, owner: Account? = nil, from: String? = nil) {
        self.text = text
        self.type = type
        self.owner = owner
        self.from = from
    }
}
