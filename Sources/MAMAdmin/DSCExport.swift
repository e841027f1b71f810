public import MAMPolicy
/// The resource blocks of a Microsoft365DSC export (`M365TenantConfig.ps1`), as far as
/// `whatif` reads them: `IntuneAppProtectionPolicyiOS`,
/// `IntuneDeviceAndAppManagementAssignmentFilter` and `AADConditionalAccessPolicy`, made into
/// the Graph objects they stand for.
///
/// A block is `ResourceType "Name" { Key = value; … }` with PowerShell values: `"…"` (backtick
/// escapes), `'…'`, `$True`/`$False`/`$null`, numbers, `@(…)` lists and `MSFT_Type{ … }` objects.
/// Both export generations are read: assignments as lists of group ids with `ExcludedGroups`
/// (before 2025), or as `MSFT_DeviceManagementConfigurationPolicyAssignments` objects.
enum DSCExport {
    indirect enum Value {
        case string(String), bool(Bool), number(Double), null
        case list([Value])
        case object(type: String, [(String, Value)])
        /// `$ConfigurationData.…`, `$Credential`: the connection, not the policy.
        case variable(String)
    }

    struct Block {
        var resource: String
        var name: String
        var properties: [(String, Value)]
        var line: Int
    }

    struct Parser {
        let chars: [Character]
        var i = 0
        let source: String
        /// Where each line starts (an index into `chars`), so a line and column are found by a
        /// binary search: counting newlines from the start at every block made reading quadratic.
        let lineStarts: [Int]
        /// How deep the values being read are nested (`@(`, `@{`, `Type{`).
        var depth = 0
        /// Deeper than any export (an object in a list in an object is three) and far from the
        /// stack's end: past it, an error at its line and column instead of a crash.
        static let maximumDepth = 64

        init(_ text: String, source: String) {
            chars = Array(text)
            self.source = source
            var starts = [0]
            for (index, c) in chars.enumerated() where c.isNewline { starts.append(index + 1) }
            lineStarts = starts
        }

        /// The 1-based line and column of `i`.
        var position: (line: Int, column: Int) {
            let at = min(i, chars.count)
            var low = 0, high = lineStarts.count - 1
            while low < high {
                let mid = (low + high + 1) / 2
                if lineStarts[mid] <= at { low = mid } else { high = mid - 1 }
            }
            return (low + 1, at - lineStarts[low] + 1)
        }

        var line: Int { position.line }

        func fail(_ message: String) -> PolicyImportError {
            let (line, column) = position
            return PolicyImportError(source: source, property: nil, value: nil, message: "\(source):\(line):\(column): \(message)")
        }

        /// Enters one more level of nesting, or throws at the value (starting at `start`) that
        /// goes too deep.
        mutating func nest(at start: Int) throws(PolicyImportError) {
            depth += 1
            if depth > Self.maximumDepth {
                i = start
                throw fail("values nested more than \(Self.maximumDepth) deep (@( and @{ lists and Type{ objects); no export nests so deep — the file is damaged or hostile")
            }
        }

        mutating func skipSpace(newlines: Bool = true) {
            while i < chars.count {
                let c = chars[i]
                if c == "#" { while i < chars.count, !chars[i].isNewline { i += 1 }; continue }
                // "\r\n" is one Character: newlines are told by `isNewline`.
                if c == " " || c == "\t" || (newlines && (c.isNewline || c == ";")) || c == "`" && i + 1 < chars.count && chars[i + 1].isNewline { i += 1; continue }
                break
            }
        }

        mutating func word() -> String {
            let start = i
            while i < chars.count, Self.isWordCharacter(chars[i]) { i += 1 }
            return String(chars[start..<i])
        }

        /// A letter, digit, `_`, `.` or `-`: ASCII answered without Unicode's tables, which a
        /// 10 MB export otherwise consults for every character.
        static func isWordCharacter(_ c: Character) -> Bool {
            if let a = c.asciiValue {
                return (a >= 0x61 && a <= 0x7A) || (a >= 0x41 && a <= 0x5A) || (a >= 0x30 && a <= 0x39) || a == 0x5F || a == 0x2E || a == 0x2D
            }
            return c.isLetter || c.isNumber
        }

        static func isLetter(_ c: Character) -> Bool {
            if let a = c.asciiValue { return (a >= 0x61 && a <= 0x7A) || (a >= 0x41 && a <= 0x5A) }
            return c.isLetter
        }

        /// Every resource block whose type `wanted` accepts; other blocks are skipped whole.
        mutating func blocks() throws(PolicyImportError) -> [Block] {
            var out: [Block] = []
            while i < chars.count {
                // A block header: Type "Name" {
                guard Self.isLetter(chars[i]), i == 0 || chars[i - 1].isWhitespace else { i += 1; continue }
                let start = i, startLine = line
                let type = word()
                skipSpace(newlines: false)
                let name: String
                var quotedName = false
                if i < chars.count, chars[i] == "\"" || chars[i] == "'" {
                    guard case .string(let quoted) = try value() else { continue }
                    name = quoted
                    quotedName = true
                } else if type.hasPrefix("Intune") || type == "AADConditionalAccessPolicy", i < chars.count, chars[i].isLetter {
                    // Older exports and examples name the resource bare: `IntuneAppProtectionPolicyiOS MyPolicy`.
                    // (Only a resource's: `node localhost {` holds the resources.)
                    name = word()
                } else {
                    i = max(i, start + 1)
                    continue
                }
                skipSpace()
                guard i < chars.count, chars[i] == "{" else { continue }
                i += 1
                guard type.hasPrefix("Intune") || type == "AADConditionalAccessPolicy" else {
                    skipBlock()
                    // A resource of another kind (a quoted name: `Node localhost` is not one) is
                    // listed as skipped, never dropped without a word.
                    if quotedName { out.append(Block(resource: type, name: name, properties: [], line: startLine)) }
                    continue
                }
                out.append(Block(resource: type, name: name, properties: try properties(until: "}"), line: startLine))
            }
            return out
        }

        /// Past the `}` closing a block whose `{` was just read, whatever it holds (strings kept whole).
        mutating func skipBlock() {
            var depth = 1
            while i < chars.count, depth > 0 {
                let c = chars[i]
                if c == "\"" || c == "'" {
                    i += 1
                    while i < chars.count, chars[i] != c { i += c == "\"" && chars[i] == "`" ? 2 : 1 }
                } else if c == "{" { depth += 1 } else if c == "}" { depth -= 1 }
                i += 1
            }
        }

        mutating func properties(until end: Character) throws(PolicyImportError) -> [(String, Value)] {
            var props: [(String, Value)] = []
            while true {
                skipSpace()
                guard i < chars.count else { throw fail("a block is not closed with \(end)") }
                if chars[i] == end { i += 1; return props }
                let key = word()
                guard !key.isEmpty else { throw fail("\"\(chars[i])\" where a property name should be") }
                skipSpace(newlines: false)
                guard i < chars.count, chars[i] == "=" else { throw fail("\(key) is not followed by =") }
                i += 1
                skipSpace(newlines: false)
                props.append((key, try value()))
            }
        }

        mutating func value() throws(PolicyImportError) -> Value {
            guard i < chars.count else { throw fail("the file ends where a value should be") }
            let c = chars[i], start = i
            if c == "\"" || c == "'" {
                i += 1
                var s = ""
                while true {
                    guard i < chars.count else { throw fail("a string is not closed with \(c)") }
                    let d = chars[i]
                    if c == "\"", d == "`", i + 1 < chars.count {
                        let e = chars[i + 1]
                        s.append(e == "n" ? "\n" : e == "t" ? "\t" : e)
                        i += 2
                        continue
                    }
                    if d == c {
                        if i + 1 < chars.count, chars[i + 1] == c { s.append(c); i += 2; continue }
                        i += 1
                        return .string(s)
                    }
                    s.append(d)
                    i += 1
                }
            }
            if c == "@", i + 1 < chars.count, chars[i + 1] == "(" {
                try nest(at: start)
                defer { depth -= 1 }
                i += 2
                var items: [Value] = []
                while true {
                    skipSpace()
                    guard i < chars.count else { throw fail("a list @( is not closed with )") }
                    if chars[i] == ")" { i += 1; return .list(items) }
                    if chars[i] == "," { i += 1; continue }
                    items.append(try value())
                }
            }
            if c == "@", i + 1 < chars.count, chars[i + 1] == "{" {
                try nest(at: start)
                defer { depth -= 1 }
                i += 2
                return .object(type: "hashtable", try properties(until: "}"))
            }
            if c == "$" {
                i += 1
                let w = word()
                switch w.lowercased() {
                case "true": return .bool(true)
                case "false": return .bool(false)
                case "null": return .null
                default: return .variable(w)
                }
            }
            if c.isNumber || c == "-" {
                let w = word()
                if let n = Double(w) { return .number(n) }
                return .string(w)
            }
            if c.isLetter {
                let type = word()
                skipSpace()
                if i < chars.count, chars[i] == "{" {
                    try nest(at: start)
                    defer { depth -= 1 }
                    i += 1
                    return .object(type: type, try properties(until: "}"))
                }
                return .string(type)
            }
            throw fail("\"\(c)\" where a value should be")
        }
    }

    /// The Graph objects of `text`'s iOS app protection policies and assignment filters, and
    /// the blocks left out (other resources, `Ensure = "Absent"`), with why.
    static func graphObjects(_ text: String, source: String) throws(PolicyImportError) -> ([GraphValue], [String]) {
        var parser = Parser(text, source: source)
        var objects: [GraphValue] = [], skipped: [String] = []
        for block in try parser.blocks() {
            let props = Dictionary(block.properties.map { ($0.0.lowercased(), $0.1) }, uniquingKeysWith: { a, _ in a })
            if case .string(let e)? = props["ensure"], e.lowercased() == "absent" {
                skipped.append("\(source), line \(block.line): \(block.resource) \"\(block.name)\" has Ensure = \"Absent\" (it is being removed)")
                continue
            }
            switch block.resource {
            case "IntuneAppProtectionPolicyiOS": objects.append(protection(block, props))
            case "IntuneDeviceAndAppManagementAssignmentFilter": objects.append(filter(props))
            case "AADConditionalAccessPolicy": objects.append(conditionalAccess(block, props))
            default: skipped.append("\(source), line \(block.line): \(block.resource) \"\(block.name)\" is not read by whatif")
            }
        }
        return (objects, skipped)
    }

    /// Properties of a block that are not Graph properties of the policy as they stand: how to
    /// connect (credentials, `Ensure`), and what is made into Graph's shape apart below (the id,
    /// the app list, the assignments).
    static let handledApart: Set<String> = ["ensure", "credential", "applicationid", "tenantid", "certificatethumbprint", "applicationsecret",
                                          "managedidentity", "accesstokens", "psdscrunascredential", "globaladminaccount", "identity", "id", "assignments", "excludedgroups", "apps"]

    /// Microsoft365DSC's `AADConditionalAccessPolicy` (its flat properties: `IncludeUsers`,
    /// `IncludeGroups`… by name as the export writes them, `BuiltInControls`,
    /// `GrantControlOperator`, `DeviceFilterMode`/`DeviceFilterRule`…) as Graph's
    /// `conditionalAccessPolicy`, which the conditional access importer reads.
    static func conditionalAccess(_ block: Block, _ props: [String: Value]) -> GraphValue {
        func list(_ key: String) -> GraphValue { .array(Self.list(props[key.lowercased()]).compactMap(graph)) }
        func string(_ key: String) -> GraphValue? { props[key.lowercased()].flatMap(graph) }
        func present(_ keys: [String]) -> Bool { keys.contains { !Self.list(props[$0.lowercased()]).isEmpty } }
        var conditions: [String: GraphValue] = [
            "users": .object(["includeUsers": list("IncludeUsers"), "excludeUsers": list("ExcludeUsers"), "includeGroups": list("IncludeGroups"),
                              "excludeGroups": list("ExcludeGroups"), "includeRoles": list("IncludeRoles"), "excludeRoles": list("ExcludeRoles")]),
            "applications": .object(["includeApplications": list("IncludeApplications"), "excludeApplications": list("ExcludeApplications"),
                                     "includeUserActions": list("IncludeUserActions")]),
            "clientAppTypes": list("ClientAppTypes"),
            "signInRiskLevels": list("SignInRiskLevels"),
            "userRiskLevels": list("UserRiskLevels"),
        ]
        if present(["IncludePlatforms", "ExcludePlatforms"]) {
            conditions["platforms"] = .object(["includePlatforms": list("IncludePlatforms"), "excludePlatforms": list("ExcludePlatforms")])
        }
        if present(["IncludeLocations", "ExcludeLocations"]) {
            conditions["locations"] = .object(["includeLocations": list("IncludeLocations"), "excludeLocations": list("ExcludeLocations")])
        }
        if let rule = string("DeviceFilterRule"), rule != .string("") {
            conditions["devices"] = .object(["deviceFilter": .object(["mode": string("DeviceFilterMode") ?? .string("include"), "rule": rule])])
        }
        var grant: [String: GraphValue] = ["builtInControls": list("BuiltInControls"), "customAuthenticationFactors": list("CustomAuthenticationFactors"),
                                           "termsOfUse": list("TermsOfUse")]
        if let op = string("GrantControlOperator") { grant["operator"] = op }
        if let strength = string("AuthenticationStrength"), strength != .string("") { grant["authenticationStrength"] = .object(["displayName": strength]) }
        // Guest types and session controls: kept in Graph's shape so the importer names them.
        var users: [String: GraphValue] = [:]
        if case .object(let o)? = conditions["users"] { users = o }
        for (dsc, graphKey) in [("IncludeGuestOrExternalUserTypes", "includeGuestsOrExternalUsers"), ("ExcludeGuestOrExternalUserTypes", "excludeGuestsOrExternalUsers")]
        where present([dsc]) {
            let types: [String] = Self.list(props[dsc.lowercased()]).compactMap { if case .string(let t) = $0 { t } else { nil } }
            users[graphKey] = GraphValue.object(["guestOrExternalUserTypes": GraphValue.string(types.joined(separator: ","))])
        }
        conditions["users"] = GraphValue.object(users)
        let sessionKeys = ["SignInFrequencyIsEnabled", "PersistentBrowserIsEnabled", "CloudAppSecurityIsEnabled", "ApplicationEnforcedRestrictionsIsEnabled"]
        let session = sessionKeys.filter { if case .bool(true)? = props[$0.lowercased()] { true } else { false } }
        var dict: [String: GraphValue] = ["@odata.type": .string("#microsoft.graph.conditionalAccessPolicy"),
                                          "displayName": string("DisplayName") ?? .string(block.name),
                                          "state": string("State") ?? .string("enabled"), "conditions": .object(conditions), "grantControls": .object(grant)]
        if !session.isEmpty { dict["sessionControls"] = .object(Dictionary(uniqueKeysWithValues: session.map { ($0, GraphValue.bool(true)) })) }
        if let id = props["id"], case .string(let s) = id { dict["id"] = .string(s) }
        return .object(dict)
    }

    static func protection(_ block: Block, _ props: [String: Value]) -> GraphValue {
        var dict: [String: GraphValue] = ["@odata.type": .string("#microsoft.graph.iosManagedAppProtection")]
        let known = Dictionary(GraphPolicyImporter.properties.keys.map { ($0.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        for (key, value) in block.properties where !handledApart.contains(key.lowercased()) {
            guard let v = graph(value) else { continue }
            let name = known[key.lowercased()] ?? (key.prefix(1).lowercased() + key.dropFirst())
            dict[name] = duration(v)
        }
        if let id = props["id"] ?? props["identity"], case .string(let s) = id { dict["id"] = .string(s) }
        if case .list(let apps)? = props["apps"] {
            dict["apps"] = .array(apps.compactMap { a -> GraphValue? in
                guard case .string(let bundle) = a else { return nil }
                return .object(["mobileAppIdentifier": .object(["@odata.type": .string("#microsoft.graph.iosMobileAppIdentifier"), "bundleId": .string(bundle)])])
            })
        }
        var assignments: [GraphValue] = []
        func target(_ type: String, _ group: String) -> GraphValue {
            .object(["target": .object(["@odata.type": .string(type), "groupId": .string(group)])])
        }
        for a in list(props["assignments"]) {
            switch a {
            case .string(let group): assignments.append(target("#microsoft.graph.groupAssignmentTarget", group))
            case .object(_, let fields):
                var t: [String: GraphValue] = [:]
                for (k, v) in fields {
                    guard let g = graph(v) else { continue }
                    switch k.lowercased() {
                    case "datatype": t["@odata.type"] = g
                    case "groupid": t["groupId"] = g
                    case "groupdisplayname": t["groupName"] = g
                    case "deviceandappmanagementassignmentfiltertype": t["deviceAndAppManagementAssignmentFilterType"] = g
                    case "deviceandappmanagementassignmentfilterid": t["deviceAndAppManagementAssignmentFilterId"] = g
                    default: continue
                    }
                }
                if case .string(let id)? = t["groupId"], id.isEmpty { t["groupId"] = nil }
                assignments.append(.object(["target": .object(t)]))
            default: continue
            }
        }
        for group in list(props["excludedgroups"]) {
            if case .string(let g) = group { assignments.append(target("#microsoft.graph.exclusionGroupAssignmentTarget", g)) }
        }
        if !assignments.isEmpty { dict["assignments"] = .array(assignments) }
        return .object(dict)
    }

    static func filter(_ props: [String: Value]) -> GraphValue {
        var dict: [String: GraphValue] = ["@odata.type": .string("#microsoft.graph.deviceAndAppManagementAssignmentFilter")]
        for (key, name) in [("id", "id"), ("identity", "id"), ("displayname", "displayName"), ("description", "description"), ("platform", "platform"),
                            ("rule", "rule"), ("assignmentfiltermanagementtype", "assignmentFilterManagementType")] {
            if let v = props[key].flatMap(graph), dict[name] == nil { dict[name] = v }
        }
        return .object(dict)
    }

    static func list(_ v: Value?) -> [Value] {
        switch v {
        case .list(let items)?: items
        case .string?: [v!]
        case .object?: [v!]
        default: []
        }
    }

    static func graph(_ v: Value) -> GraphValue? {
        switch v {
        case .string(let s): .string(s)
        case .bool(let b): .bool(b)
        case .number(let n): .number(n)
        case .null: .null
        case .list(let items): .array(items.compactMap(graph))
        case .object(_, let fields): .object(Dictionary(fields.compactMap { k, v in graph(v).map { (k.prefix(1).lowercased() + k.dropFirst(), $0) } }, uniquingKeysWith: { a, _ in a }))
        case .variable: nil
        }
    }

    /// A .NET TimeSpan (`12:00:00`, `90.00:00:00`), as older exports write durations, in ISO 8601.
    static func duration(_ v: GraphValue) -> GraphValue {
        guard case .string(let s) = v else { return v }
        let parts = s.split(separator: ":")
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isNumber || $0 == "." } }) else { return v }
        let dayHour = parts[0].split(separator: ".")
        guard let hours = Int(dayHour.last!), let minutes = Int(parts[1]), let seconds = Int(parts[2]) else { return v }
        let days = dayHour.count == 2 ? Int(dayHour[0]) ?? 0 : 0
        var out = "P" + (days > 0 ? "\(days)D" : "")
        if hours > 0 || minutes > 0 || seconds > 0 || days == 0 {
            out += "T" + (hours > 0 ? "\(hours)H" : "") + (minutes > 0 ? "\(minutes)M" : "") + (seconds > 0 || (hours == 0 && minutes == 0) ? "\(seconds)S" : "")
        }
        return .string(out)
    }
}

extension WhatIfPolicies {
    /// Adds the iOS app protection policies and assignment filters of a Microsoft365DSC export.
    public mutating func add(dscExport text: String, source: String) throws(PolicyImportError) -> (warnings: [String], skipped: [String]) {
        let (objects, skipped) = try DSCExport.graphObjects(text, source: source)
        var warnings: [String] = [], more: [String] = []
        for object in objects {
            guard case .object(let dict) = object else { continue }
            switch Self.kind(of: dict) {
            case "iosmanagedappprotection":
                let r = try GraphPolicyImporter.importPolicies(object, source: source)
                protections += r.policies
                warnings += r.warnings.map(\.message)
            case "conditionalaccesspolicy":
                let (ca, w) = try GraphConditionalAccessImporter.importPolicies(object, source: source)
                conditionalAccess += ca
                warnings += w.map(\.message).filter { !$0.contains("and by `mamsim whatif`") }
            default:
                switch try AssignmentFilter.importFilter(dict, source: source) {
                case .success(let f): filters[f.id.lowercased()] = f
                case .failure(let why): more.append("\(source): \(why)")
                }
            }
        }
        return (warnings, skipped + more)
    }
}
