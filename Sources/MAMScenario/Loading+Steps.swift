import Foundation
import MAMExtensions
import MAMActivation
import MAMBundle
import MAMModel
import MAMPolicy
import Yams

/// `steps:` — one verb per step with its arguments, and the optional `expect`.
extension Loading {
    /// The argument keys of each verb: required first, then optional.
    static let verbArguments: [Verb: (required: [String], optional: [String])] = [
        .launch: (["app"], []),
        .kill: (["app"], []),
        .signIn: (["app", "account"], []),
        .signOut: (["app", "account"], []),
        .switchIdentity: (["app", "account"], ["window", "pin"]),
        .share: (["from", "to", "item"], ["as", "pin", "window"]),
        .shareTargets: (["from", "item"], []),
        .copy: (["app", "text"], ["as", "window"]),
        .paste: (["app"], ["as", "window"]),
        .save: (["app", "location"], ["account"]),
        .open: (["app", "location"], ["account", "as"]),
        .keychainSet: (["app", "group", "key", "value"], []),
        .keychainGet: (["app", "group", "key"], ["value"]),
        .print: (["app"], ["window"]),
        .notify: (["app", "account", "text"], []),
        .wipe: (["app", "account"], []),
        .setPolicy: (["account", "policy"], []),
        .advanceClock: (["by"], []),
        .expectState: (["app"], ["signedIn", "uiIdentity", "processIdentity", "files", "received", "encrypted", "absent", "notifications", "window", "diagnostics", "telemetry"]),
        .pause: (["app"], []),
        .resume: (["app"], []),
        .setNetwork: (["online"], []),
        .setAllowedAccounts: (["accounts"], []),
        .writeFile: (["app", "path"], ["text", "data", "as"]),
        .readFile: (["app", "path"], []),
        .protect: (["app", "path"], ["account"]),
        .unprotect: (["app", "path"], []),
        .protectionInfo: (["app", "path"], []),
        .openURL: (["from", "url"], []),
        .appConfig: (["app", "key", "type"], ["account", "query"]),
        .setAppConfig: (["name"], ["settings", "remove"]),
        .screenCapture: (["app"], ["window"]),
        .managedConfig: (["app"], ["key"]),
        .managedSecret: (["app", "kind", "id"], []),
        .managedSecretIds: (["app", "kind"], []),
        .applyDeclarations: (["files"], []),
        .removeDeclaration: (["identifier"], []),
        .signWithIdentity: (["app", "id", "data"], []),
        .acquireToken: (["app", "account"], ["resource", "silent"]),
        .remediate: (["app", "account"], ["silent", "userCancels"]),
        .setConditionalAccess: (["policy", "state"], []),
    ]

    func readSteps(_ v: Located) -> [Step] {
        guard let items = reader.list(v, what: "steps") else { return [] }
        var steps: [Step] = []
        for (index, item) in items.enumerated() {
            if let step = readStep(index: index, item) { steps.append(step) }
        }
        return steps
    }

    private func readStep(index: Int, _ v: Located) -> Step? {
        guard case .mapping(let mapping) = v.node else {
            reader.error(v, "a step must be a mapping such as `share: {from: mail, to: notes, item: ...}`, but it is \(v.shape)")
            return nil
        }
        let verbNames = Verb.allCases.map(\.rawValue)
        var verbs: [(Verb, Located)] = []
        var name: String?
        var expectLoc: Located?
        for (keyNode, valueNode) in mapping {
            let key = keyNode.scalar?.string ?? ""
            let value = Located(node: valueNode, path: v.child(key))
            switch key {
            case "name": name = reader.string(value, what: "name")
            case "expect": expectLoc = value
            default:
                if let verb = Verb(rawValue: key) {
                    verbs.append((verb, value))
                } else {
                    let keyLoc = Located(node: keyNode, path: v.child(key))
                    let hint = Suggestion.closest(to: key, among: verbNames + ["expect", "name"]).map { "did you mean \"\($0)\"?" }
                        ?? "the verbs are: \(verbNames.joined(separator: ", "))"
                    reader.error(keyLoc, "unknown verb \"\(key)\"; \(hint)")
                    return nil
                }
            }
        }
        guard verbs.count == 1, let (verb, argsLoc) = verbs.first else {
            if verbs.isEmpty {
                reader.error(v, "a step needs a verb (\(verbNames.joined(separator: ", ")))")
            } else {
                reader.error(v, "a step has one verb, but this one has \(verbs.map { "\"\($0.0)\"" }.joined(separator: " and ")); split it into steps")
            }
            return nil
        }
        let arguments = readArguments(verb, argsLoc)
        let expect = expectLoc.flatMap { readExpectation($0, verb: verb) }
        guard let arguments else { return nil }
        if expectLoc != nil, expect == nil { return nil }
        return Step(index: index, line: v.line, name: name, arguments: arguments, expect: expect)
    }

    // MARK: Arguments

    private func readArguments(_ verb: Verb, _ v: Located) -> StepArguments? {
        let spec = Self.verbArguments[verb]!
        guard let f = reader.fields(v, allowed: spec.required + spec.optional, required: spec.required,
                                    what: "\(verb)'s arguments") else { return nil }
        guard spec.required.allSatisfy({ f.has($0) }) else { return nil }
        let before = reader.errors.count
        func app(_ key: String = "app", extensions: Bool = false) -> String {
            handle(f[key]!, what: key, allowExtensions: extensions) ?? ""
        }
        func text(_ key: String) -> String { reader.string(f[key]!, what: key) ?? "" }
        func optionalText(_ key: String) -> String? { f[key].flatMap { reader.string($0, what: key) } }
        func acct(_ key: String, unmanaged: Bool = false) -> Account {
            account(f[key]!, what: key, allowUnmanaged: unmanaged) ?? Account(upn: "")
        }
        /// A save/open location's account (RULES.md §4): any account, declared or not — one
        /// the device does not know is unmanaged, said as a warning in case it is a typo.
        func locationAccount(_ key: String) -> Account? {
            guard let x = f[key], !x.isNull, let name = reader.string(x, what: key) else { return nil }
            if name.isEmpty { return Account(upn: "") }
            if let known = accounts.first(where: { $0.account.matches(name) }) { return known.account }
            let upns = accounts.map(\.account.upn)
            let hint = Suggestion.closest(to: name, among: upns).map { " (did you mean \"\($0)\"?)" } ?? ""
            reader.warn(x, "\(name) is not an account of this scenario\(hint): the location belongs to an account the device does not know, which is unmanaged")
            return Account(upn: name)
        }
        /// Optional account arguments: absent or null is nil; `""` is the unmanaged identity.
        func optionalAccount(_ key: String) -> Account? {
            guard let x = f[key], !x.isNull else { return nil }
            return account(x, what: key, allowUnmanaged: true)
        }

        let result: StepArguments
        switch verb {
        case .launch: result = .launch(app: app())
        case .kill: result = .kill(app: app())
        case .signIn: result = .signIn(app: app(), account: acct("account"))
        case .signOut: result = .signOut(app: app(), account: acct("account"))
        case .switchIdentity:
            result = .switchIdentity(app: app(), account: acct("account", unmanaged: true),
                                     window: optionalText("window"), pin: optionalText("pin"))
        case .share:
            let item = readItem(f["item"]!)
            result = .share(from: app("from", extensions: true), to: app("to", extensions: true),
                            item: item ?? ScenarioItem(type: "", content: .text("")), as: optionalAccount("as"), pin: optionalText("pin"),
                            window: optionalText("window"))
        case .shareTargets:
            let item = readItem(f["item"]!)
            result = .shareTargets(from: app("from", extensions: true), item: item ?? ScenarioItem(type: "", content: .text("")))
        case .copy: result = .copy(app: app(), text: text("text"), as: optionalAccount("as"), window: optionalText("window"))
        case .paste: result = .paste(app: app(), as: optionalAccount("as"), window: optionalText("window"))
        case .save:
            let location = enumValue(f["location"]!, SaveLocation.self, what: "location")
            result = .save(app: app(), location: location ?? .other, account: locationAccount("account"))
        case .open:
            let location = enumValue(f["location"]!, OpenLocation.self, what: "location")
            result = .open(app: app(), location: location ?? .other, account: locationAccount("account"), as: optionalAccount("as"))
        case .keychainSet:
            result = .keychainSet(app: app(extensions: true), group: text("group"), key: text("key"), value: text("value"))
        case .keychainGet:
            result = .keychainGet(app: app(extensions: true), group: text("group"), key: text("key"), value: optionalText("value"))
        case .print: result = .print(app: app(), window: optionalText("window"))
        case .notify: result = .notify(app: app(), account: acct("account"), text: text("text"))
        case .wipe: result = .wipe(app: app(), account: acct("account"))
        case .setPolicy:
            let p = f["policy"]!
            var policy: String?
            if !p.isNull, let s = reader.name(p, what: "policy") {
                if policies[s] == nil { reader.error(p, unknownPolicy(s)) } else { policy = s }
            }
            result = .setPolicy(account: acct("account"), policy: policy)
        case .advanceClock:
            let x = f["by"]!
            var duration = ISODuration(seconds: 0)
            if let s = reader.string(x, what: "by") {
                if let d = ISODuration(s), d.seconds >= 0 { duration = d } else {
                    reader.error(x, "by must be a non-negative ISO-8601 duration such as \"PT13H\" or \"P2D\", but it is \(x.shape)")
                }
            }
            result = .advanceClock(by: duration)
        case .pause: result = .pause(app: app())
        case .resume: result = .resume(app: app())
        case .setNetwork: result = .setNetwork(online: reader.bool(f["online"]!, what: "online") ?? true)
        case .setAllowedAccounts:
            let x = f["accounts"]!
            result = .setAllowedAccounts(accounts: x.isNull ? nil : (readAllowedAccounts(x) ?? []))
        case .writeFile:
            let contents = ["text", "data"].filter { f.has($0) }
            var bytes: [UInt8] = []
            if contents.count != 1 {
                reader.error(v, contents.isEmpty ? "writeFile needs text: or data: (base64)" : "writeFile has one of text: or data:, not both")
            } else if contents[0] == "text" {
                bytes = Array(text("text").utf8)
            } else if let s = reader.string(f["data"]!, what: "data") {
                if let d = Data(base64Encoded: s.filter { !$0.isWhitespace }) { bytes = Array(d) } else {
                    reader.error(f["data"]!, "data must be base64, but \(f["data"]!.shape) is not")
                }
            }
            result = .writeFile(app: app(extensions: true), path: text("path"), data: bytes, as: optionalAccount("as"))
        case .readFile: result = .readFile(app: app(extensions: true), path: text("path"))
        case .protect: result = .protect(app: app(extensions: true), path: text("path"), account: optionalAccount("account"))
        case .unprotect: result = .unprotect(app: app(extensions: true), path: text("path"))
        case .protectionInfo: result = .protectionInfo(app: app(extensions: true), path: text("path"))
        case .openURL: result = .openURL(from: app("from", extensions: true), url: text("url"))
        case .appConfig:
            let type = enumValue(f["type"]!, AppConfigValueType.self, what: "type") ?? .string
            var query = AppConfigLookup.value
            if let x = f["query"], let q = enumValue(x, AppConfigLookup.self, what: "query") {
                let fits: Set<AppConfigLookup> = type == .bool ? [.value, .all, .any, .or, .and] : [.value, .all, .any, .min, .max]
                if fits.contains(q) { query = q } else {
                    reader.error(x, "query \(q) does not apply to \(type) values; use one of \(AppConfigLookup.allCases.filter(fits.contains).map(\.rawValue).joined(separator: ", "))")
                }
            }
            result = .appConfig(app: app(extensions: true), account: optionalAccount("account"), key: text("key"), type: type, query: query)
        case .setAppConfig:
            let name = text("name")
            if !appConfigs.contains(where: { $0.name == name }) {
                let names = appConfigs.map(\.name)
                reader.error(f["name"]!, "no app configuration named \"\(name)\"" + (Suggestion.closest(to: name, among: names).map { "; did you mean \"\($0)\"?" }
                    ?? (names.isEmpty ? "; declare it under appConfigs:" : "; the app configurations are: \(names.joined(separator: ", "))")))
            }
            let remove = f["remove"].flatMap { reader.bool($0, what: "remove") } ?? false
            var settings: [KeyValuePair]?
            if let x = f["settings"] {
                if remove { reader.error(x, "setAppConfig takes settings: or remove: true, not both") }
                if case .mapping(let m) = x.node {
                    settings = m.compactMap { k, value in
                        guard case .scalar(let s) = value else {
                            reader.error(Located(node: value, path: x.child(k.scalar?.string ?? "")), "a setting's value must be text, a number or a boolean")
                            return nil
                        }
                        return KeyValuePair(name: k.scalar?.string ?? "", value: s.string)
                    }
                } else {
                    reader.error(x, "settings must be a mapping of keys to values, but it is \(x.shape)")
                }
            } else if !remove {
                reader.error(v, "setAppConfig needs settings: (the new key/value pairs) or remove: true")
            }
            result = .setAppConfig(name: name, settings: remove ? nil : (settings ?? []))
        case .screenCapture: result = .screenCapture(app: app(extensions: true), window: optionalText("window"))
        case .managedConfig: result = .managedConfig(app: app(extensions: true), key: optionalText("key"))
        case .managedSecret:
            let kind = enumValue(f["kind"]!, ManagedSecretKind.self, what: "kind") ?? .password
            result = .managedSecret(app: app(extensions: true), kind: kind, id: text("id"))
        case .managedSecretIds:
            result = .managedSecretIds(app: app(extensions: true), kind: enumValue(f["kind"]!, ManagedSecretKind.self, what: "kind") ?? .password)
        case .applyDeclarations:
            let x = f["files"]!
            let (files, entries) = readDeclarationFiles(x, checkReferences: false)
            result = .applyDeclarations(files: files, entries: entries)
        case .removeDeclaration: result = .removeDeclaration(identifier: text("identifier"))
        case .signWithIdentity: result = .signWithIdentity(app: app(extensions: true), id: text("id"), data: Array(text("data").utf8))
        case .acquireToken:
            // `silent` is accepted: a token request never shows UI here (remediation does).
            if let x = f["silent"] { _ = reader.bool(x, what: "silent") }
            result = .acquireToken(app: app(extensions: true), account: acct("account"),
                                   resource: optionalText("resource") ?? "00000003-0000-0000-c000-000000000000")
        case .remediate:
            result = .remediate(app: app(extensions: true), account: acct("account"),
                                silent: f["silent"].flatMap { reader.bool($0, what: "silent") } ?? false,
                                userCancels: f["userCancels"].flatMap { reader.bool($0, what: "userCancels") } ?? false)
        case .setConditionalAccess:
            let name = text("policy")
            if !conditionalAccess.contains(where: { $0.name == name }) {
                let names = conditionalAccess.map(\.name)
                reader.error(f["policy"]!, "no conditional access policy named \"\(name)\"" + (Suggestion.closest(to: name, among: names).map { "; did you mean \"\($0)\"?" }
                    ?? (names.isEmpty ? "; declare it under conditionalAccess:" : "; the policies are: \(names.joined(separator: ", "))")))
            }
            let state: ConditionalAccessPolicy.State = switch text("state") {
            case "enabled": .enabled
            case "disabled": .disabled
            case "reportOnly", "enabledForReportingButNotEnforced": .enabledForReportingButNotEnforced
            default: { reader.error(f["state"]!, "state must be enabled, disabled or reportOnly"); return .disabled }()
            }
            result = .setConditionalAccess(policy: name, state: state)
        case .expectState:
            // `window` says where to look, not what to check.
            let checks = spec.optional.filter { $0 != "window" }
            if checks.allSatisfy({ !f.has($0) }) {
                reader.error(v, "expectState needs at least one of \(checks.joined(separator: ", ")) to check")
            }
            result = .expectState(app: app(extensions: true), readState(f))
        }
        return reader.errors.count == before ? result : nil
    }

    private func enumValue<E: RawRepresentable & CaseIterable>(_ v: Located, _: E.Type, what: String) -> E? where E.RawValue == String {
        guard let s = reader.string(v, what: what) else { return nil }
        if let e = E(rawValue: s) { return e }
        let names = E.allCases.map(\.rawValue)
        if let e = E.allCases.first(where: { $0.rawValue.lowercased() == s.lowercased() }) { return e }
        let hint = Suggestion.closest(to: s, among: names).map { "did you mean \"\($0)\"?" } ?? "expected one of: \(names.joined(separator: ", "))"
        reader.error(v, "unknown \(what) \"\(s)\"; \(hint)")
        return nil
    }

    private func readState(_ f: Fields) -> StateExpectation {
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
        if let x = f["absent"] { state.absent = reader.strings(x, what: "absent") }
        if let x = f["diagnostics"] { state.diagnostics = reader.strings(x, what: "diagnostics") }
        if let x = f["telemetry"] { state.telemetry = reader.strings(x, what: "telemetry") }
        if let x = f["notifications"], let items = reader.list(x, what: "notifications") {
            var names: [String] = []
            for item in items {
                guard let name = reader.string(item, what: "each entry of notifications") else { continue }
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
    private func readReceived(_ v: Located) -> ReceivedExpectation? {
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

    // MARK: Items

    func readItem(_ v: Located) -> ScenarioItem? {
        guard let f = reader.fields(v, allowed: ["type", "text", "data", "file"], what: "an item") else { return nil }
        let contents = ["text", "data", "file"].filter { f.has($0) }
        guard contents.count == 1 else {
            reader.error(v, contents.isEmpty
                ? "an item needs one of text:, data: (base64) or file:"
                : "an item has one of text:, data: or file:, but this one has \(contents.joined(separator: " and "))")
            return nil
        }
        var type: String?
        if let x = f["type"] { type = reader.name(x, what: "type") }
        switch contents[0] {
        case "text":
            guard let s = reader.string(f["text"]!, what: "text") else { return nil }
            guard let type else { reader.error(v, "an item with text: needs type: (e.g. public.plain-text)"); return nil }
            return ScenarioItem(type: type, content: .text(s))
        case "data":
            let x = f["data"]!
            guard let s = reader.string(x, what: "data") else { return nil }
            guard let bytes = Data(base64Encoded: s.filter { !$0.isWhitespace }) else {
                reader.error(x, "data must be base64, but \(x.shape) is not")
                return nil
            }
            guard let type else { reader.error(v, "an item with data: needs type: (e.g. public.jpeg)"); return nil }
            return ScenarioItem(type: type, content: .data(Array(bytes)))
        default:
            let x = f["file"]!
            guard let url = existingPath(x, what: "file") else { return nil }
            inputs.append(url)
            if let type { return ScenarioItem(type: type, content: .file(url)) }
            let ext = url.pathExtension
            guard let inferred = UTIRegistry.system.preferredType(forFilenameExtension: ext) else {
                reader.error(x, "cannot tell the type of \(x.shape) from its extension \"\(ext)\"; add type: (a UTI such as com.adobe.pdf)")
                return nil
            }
            return ScenarioItem(type: inferred, content: .file(url))
        }
    }

    // MARK: Expectations

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
    }

    static func outcomes(of verb: Verb) -> [OutcomeForm] {
        switch verb {
        case .launch, .kill, .signIn, .signOut, .copy, .wipe, .setPolicy, .advanceClock, .expectState,
             .pause, .resume, .setNetwork, .setAllowedAccounts, .writeFile, .protect, .unprotect, .setAppConfig,
             .applyDeclarations, .removeDeclaration, .setConditionalAccess:
            [.ok, .blocked, .failedBecause]
        case .acquireToken: [.token, .blocked, .failedBecause]
        case .remediate: [.compliance, .failedBecause]
        case .managedConfig: [.config, .configValue, .none]
        case .managedSecret: [.password, .certificate, .identity, .errorCode, .none]
        case .managedSecretIds: [.ids]
        case .signWithIdentity: [.signature, .errorCode, .failed, .failedBecause]
        case .readFile: [.text, .blocked, .failedBecause]
        case .protectionInfo: [.owner, .none]
        case .appConfig: [.configValue, .configValues, .none]
        case .screenCapture: [.allowed, .blocked]
        case .switchIdentity: [.success, .canceled, .notAllowed, .failed, .failedBecause]
        case .share, .openURL: [.delivered, .blocked, .failedBecause]
        case .shareTargets: [.targets]
        case .paste: [.pasted, .blocked]
        case .save, .open, .print: [.allowed, .blocked]
        case .keychainSet: [.ok, .blocked, .error]
        case .keychainGet: [.value, .blocked, .error]
        case .notify: [.shown, .blocked]
        }
    }

    func readExpectation(_ v: Located, verb: Verb) -> ExpectedOutcome? {
        let allowed = Self.outcomes(of: verb)
        let expected = allowed.map(\.rawValue).joined(separator: ", ")
        let result: ExpectedOutcome
        let form: OutcomeForm
        switch v.node {
        case .scalar(let s) where !v.isNull:
            let bare: [String: ExpectedOutcome] = ["ok": .ok, "success": .success, "delivered": .delivered, "allowed": .allowed,
                                               "canceled": .canceled, "notAllowed": .notAllowed, "failed": .failed, "none": .none]
            guard let e = bare[s.string], let f = OutcomeForm(rawValue: s.string) else {
                let hint = Suggestion.closest(to: s.string, among: allowed.map(\.rawValue)).map { "did you mean \"\($0)\"?" }
                    ?? "\(verb) expects one of: \(expected)"
                reader.error(v, "unknown outcome \"\(s.string)\"; \(hint)")
                return nil
            }
            result = e
            form = f
        case .mapping where verb == .appConfig:
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
            case "value" where verb == .managedConfig:
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
            case "token":
                guard reader.string(x, what: "token") == "ok" else {
                    reader.error(x, "token takes the value ok (the token itself is in the explanation)")
                    return nil
                }
                (result, form) = (.token, .token)
            case "compliance":
                guard let s = reader.string(x, what: "compliance"), let status = ComplianceStatus(rawValue: s) else {
                    reader.error(x, "compliance must be one of \(ComplianceStatus.allCases.map(\.rawValue).joined(separator: ", "))")
                    return nil
                }
                (result, form) = (.compliance(status), .compliance)
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
                            "certificate", "identity", "ids", "signature", "token", "compliance"]
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
