/// Entra's "filter for devices" condition of a conditional access policy
/// (`conditions.devices.deviceFilter`, Graph conditionalAccessFilter): a rule over the device's
/// Microsoft Entra object, in the syntax of dynamic membership rules, that includes or excludes
/// the devices it matches.
///
/// Microsoft Learn, concept-condition-filters-for-devices.md: "For a device that is unregistered
/// with Microsoft Entra ID, all device properties are considered as null values"; a positive
/// operator (Equals, StartsWith, EndsWith, Contains, In) never matches a null, a negative one
/// (NotEquals, NotStartsWith, NotEndsWith, NotContains, NotIn) always does — the "Policy behavior
/// with filter for devices" table. extensionAttributes1–15 have a value at evaluation only on a
/// device that is Intune managed, compliant or hybrid joined. Values are compared without
/// regard to letter case (dynamic membership rules), `-and` binds before `-or`.
public struct ConditionalAccessDeviceFilter: Sendable, Hashable {
    public enum Mode: String, Sendable, Hashable { case include, exclude }

    public var mode: Mode
    public var rule: DeviceRule
    /// The rule as written, for reports.
    public var ruleText: String

    /// Learn: "The maximum length for the filter rule is 3072 characters", counted as Entra (a .NET
    /// service) counts a string's length: in UTF-16 code units. Counted as Swift's characters, a
    /// letter with a million combining marks is one character and megabytes of rule.
    public static let maximumLength = 3072

    public init(mode: Mode, rule text: String, source: String) throws(FilterRuleError) {
        let length = text.utf16.count
        guard length <= Self.maximumLength else {
            throw FilterRuleError(source: source, column: Self.maximumLength + 1,
                                  message: "the rule is \(length) characters (UTF-16 code units, as Entra counts them); Entra takes at most \(Self.maximumLength) (Microsoft Learn, filter for devices)")
        }
        self.mode = mode
        self.ruleText = text
        self.rule = try DeviceRule.parse(text, source: source)
    }

    /// Whether the policy takes in `device` as far as the filter decides: include mode takes the
    /// devices the rule matches, exclude mode the others. `notes` name what the device did not
    /// say (judged as Entra judges a property with no value).
    public func admits(_ device: DeviceFacts) -> (admits: Bool, why: String) {
        let e = rule.evaluate(EntraDevice(device))
        let matched = e.matches ? "the device matches" : "the device does not match"
        let assumed = e.unstated.isEmpty ? "" : " (\(e.unstated.sorted().joined(separator: ", ")) not stated, so no value, as on a device Entra does not know)"
        let admits = mode == .include ? e.matches : !e.matches
        return (admits, "filter for devices (\(mode.rawValue) mode, \(ruleText)): \(matched)\(assumed)")
    }
}

/// A device property a filter for devices reads (Microsoft Learn, "Supported operators and
/// device properties for filters").
public enum DeviceProperty: Sendable, Hashable {
    case deviceId, displayName, deviceOwnership, enrollmentProfileName, isCompliant, manufacturer, mdmAppId, model,
         operatingSystem, operatingSystemVersion, physicalIds, profileType, systemLabels, trustType
    case extensionAttribute(Int)

    static let named: [DeviceProperty] = [.deviceId, .displayName, .deviceOwnership, .enrollmentProfileName, .isCompliant, .manufacturer,
                                          .mdmAppId, .model, .operatingSystem, .operatingSystemVersion, .physicalIds, .profileType,
                                          .systemLabels, .trustType]

    public var name: String {
        switch self {
        case .deviceId: "deviceId"
        case .displayName: "displayName"
        case .deviceOwnership: "deviceOwnership"
        case .enrollmentProfileName: "enrollmentProfileName"
        case .isCompliant: "isCompliant"
        case .manufacturer: "manufacturer"
        case .mdmAppId: "mdmAppId"
        case .model: "model"
        case .operatingSystem: "operatingSystem"
        case .operatingSystemVersion: "operatingSystemVersion"
        case .physicalIds: "physicalIds"
        case .profileType: "profileType"
        case .systemLabels: "systemLabels"
        case .trustType: "trustType"
        case .extensionAttribute(let n): "extensionAttribute\(n)"
        }
    }

    public init?(name: String) {
        let n = name.lowercased()
        if n.hasPrefix("extensionattribute"), let i = Int(n.dropFirst("extensionattribute".count)), (1...15).contains(i) {
            self = .extensionAttribute(i)
            return
        }
        guard let p = Self.named.first(where: { $0.name.lowercased() == n }) else { return nil }
        self = p
    }

    /// The operators Learn lists for the property.
    var operators: [DeviceOperator] {
        switch self {
        case .deviceId, .mdmAppId: [.eq, .ne, .in, .notIn]
        case .deviceOwnership, .isCompliant, .profileType, .trustType: [.eq, .ne]
        case .physicalIds, .systemLabels: [.contains, .notContains]
        default: DeviceOperator.allCases
        }
    }

    /// The values Learn lists where the property takes only some.
    var values: [String]? {
        switch self {
        case .deviceOwnership: ["Personal", "Company"]
        case .isCompliant: ["True", "False"]
        case .trustType: ["AzureAD", "ServerAD", "Workplace"]
        case .profileType: ["RegisteredDevice", "SecureVM", "Printer", "Shared", "IoT"]
        default: nil
        }
    }

    var isCollection: Bool { self == .physicalIds || self == .systemLabels }
}

public enum DeviceOperator: String, Sendable, Hashable, CaseIterable {
    case eq, ne, startsWith, notStartsWith, endsWith, notEndsWith, contains, notContains, `in`, notIn

    init?(word: String) {
        var w = Substring(word.lowercased())
        guard w.hasPrefix("-") else { return nil }
        w = w.dropFirst()
        guard let op = Self.allCases.first(where: { $0.rawValue.lowercased() == w }) else { return nil }
        self = op
    }

    /// Learn's "negative operators": a property with no value satisfies them.
    var isNegative: Bool { [.ne, .notStartsWith, .notEndsWith, .notContains, .notIn].contains(self) }
    var spelled: String { "-" + rawValue }
}

/// A parsed filter-for-devices rule.
public indirect enum DeviceRule: Sendable, Hashable {
    case compare(DeviceProperty, DeviceOperator, [String], column: Int)
    case not(DeviceRule)
    case and([DeviceRule])
    case or([DeviceRule])

    public static func parse(_ text: String, source: String) throws(FilterRuleError) -> DeviceRule {
        var p = DeviceRuleParser(lexer: FilterParser(text: text, source: source))
        let rule = try p.orExpression()
        if let extra = p.lexer.peek() {
            throw p.lexer.error(at: extra.column, "\"\(extra.text)\" after a complete rule; join conditions with -and / -or")
        }
        return rule
    }

    struct Evaluation {
        var matches: Bool
        var unstated: Set<String>
    }

    func evaluate(_ device: EntraDevice) -> Evaluation {
        switch self {
        case .compare(let property, let op, let values, _):
            let (value, said) = device.value(property)
            let unstated: Set<String> = said ? [] : ["device.\(property.name)"]
            guard let value else { return Evaluation(matches: op.isNegative, unstated: unstated) }
            return Evaluation(matches: Self.holds(op, value, values, collection: property.isCollection), unstated: unstated)
        case .not(let inner):
            let e = inner.evaluate(device)
            return Evaluation(matches: !e.matches, unstated: e.unstated)
        case .and(let terms), .or(let terms):
            let all = terms.map { $0.evaluate(device) }
            let isAnd = if case .and = self { true } else { false }
            return Evaluation(matches: isAnd ? all.allSatisfy(\.matches) : all.contains(where: \.matches),
                              unstated: all.reduce(into: Set<String>()) { $0.formUnion($1.unstated) })
        }
    }

    /// `value` holds a property's value; for a collection (physicalIds, systemLabels) its items
    /// joined by newlines, `contains` then matching a whole item (Learn's note on Contains).
    static func holds(_ op: DeviceOperator, _ value: String, _ wanted: [String], collection: Bool) -> Bool {
        let v = value.lowercased(), w = wanted.map { $0.lowercased() }
        let first = w.first ?? ""
        switch op {
        case .eq: return v == first
        case .ne: return v != first
        case .startsWith: return v.hasPrefix(first)
        case .notStartsWith: return !v.hasPrefix(first)
        case .endsWith: return v.hasSuffix(first)
        case .notEndsWith: return !v.hasSuffix(first)
        case .contains: return collection ? v.split(separator: "\n").contains { $0 == first } : v.contains(first)
        case .notContains: return !(collection ? v.split(separator: "\n").contains { $0 == first } : v.contains(first))
        case .in: return w.contains(v)
        case .notIn: return !w.contains(v)
        }
    }
}

/// orExpression := andExpression (-or andExpression)*; andExpression := unary (-and unary)*;
/// unary := -not unary | ( orExpression ) | device.property -operator value.
struct DeviceRuleParser {
    var lexer: FilterParser
    private var depth = 0

    init(lexer: FilterParser) { self.lexer = lexer }

    func isWord(_ t: FilterToken?, _ word: String) -> Bool {
        guard let t, t.kind == .word else { return false }
        let w = t.text.lowercased()
        return w == "-" + word || w == word
    }

    mutating func orExpression() throws(FilterRuleError) -> DeviceRule {
        if let e = lexer.lexError { throw e }
        var terms = [try andExpression()]
        while isWord(lexer.peek(), "or") {
            lexer.position += 1
            terms.append(try andExpression())
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    mutating func andExpression() throws(FilterRuleError) -> DeviceRule {
        var terms = [try unary()]
        while isWord(lexer.peek(), "and") {
            lexer.position += 1
            terms.append(try unary())
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    mutating func unary() throws(FilterRuleError) -> DeviceRule {
        guard let t = lexer.peek() else {
            throw lexer.error(at: lexer.endColumn, "the rule ends where a condition should start, e.g. device.trustType -eq \"ServerAD\"")
        }
        if t.kind == .open || isWord(t, "not") {
            guard depth < FilterParser.maximumDepth else {
                throw lexer.error(at: t.column, "nested more than \(FilterParser.maximumDepth) deep; no rule needs so many — the rule is damaged or hostile")
            }
            depth += 1
            defer { depth -= 1 }
            lexer.position += 1
            if t.kind != .open { return .not(try unary()) }
            let inner = try orExpression()
            guard let close = lexer.next() else { throw lexer.error(at: lexer.endColumn, "a parenthesis opened at column \(t.column) is not closed") }
            guard close.kind == .close else { throw lexer.error(at: close.column, "\"\(close.text)\" where ) or -and / -or should be") }
            return inner
        }
        return try comparison()
    }

    mutating func comparison() throws(FilterRuleError) -> DeviceRule {
        let p = lexer.next()!
        let known = DeviceProperty.named.map { "device." + $0.name }.joined(separator: ", ") + ", device.extensionAttribute1…15"
        guard p.kind == .word else { throw lexer.error(at: p.column, "\"\(p.text)\" where a property such as device.trustType should be") }
        let parts = p.text.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "device" else {
            throw lexer.error(at: p.column, "\"\(p.text)\" is not a device property; a filter for devices reads \(known)")
        }
        guard let property = DeviceProperty(name: String(parts[1])) else {
            throw lexer.error(at: p.column, "\"\(p.text)\" is not a property a filter for devices reads; use one of \(known)")
        }
        let ops = property.operators.map(\.spelled).joined(separator: " ")
        guard let o = lexer.next() else { throw lexer.error(at: lexer.endColumn, "\(p.text) needs an operator, one of \(ops)") }
        guard o.kind == .word, let op = DeviceOperator(word: o.text) else {
            throw lexer.error(at: o.column, "\"\(o.text)\" is not an operator of a filter for devices; \(p.text) takes \(ops)")
        }
        guard property.operators.contains(op) else {
            throw lexer.error(at: o.column, "device.\(property.name) takes \(ops), not \(op.spelled) (Microsoft Learn, filter for devices)")
        }
        guard let v = lexer.next() else { throw lexer.error(at: lexer.endColumn, "\(p.text) \(o.text) needs a value") }
        var values: [String] = []
        switch v.kind {
        case .openList:
            guard op == .in || op == .notIn else { throw lexer.error(at: v.column, "a list of values goes with -in or -notIn, not \(op.spelled)") }
            values = try lexer.listValues(openedAt: v)
        case .string, .word:
            guard op != .in, op != .notIn else { throw lexer.error(at: v.column, "\(op.spelled) takes a list, e.g. [\"\(v.text)\"]") }
            values = [v.text]
        default:
            throw lexer.error(at: v.column, "\"\(v.text)\" where the value of \(p.text) should be")
        }
        if let allowed = property.values {
            for value in values where !allowed.contains(where: { $0.lowercased() == value.lowercased() }) {
                throw lexer.error(at: v.column, "device.\(property.name) is one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", ")), not \"\(value)\"")
            }
        }
        return .compare(property, op, values, column: p.column)
    }
}

/// A device as Entra's directory holds it: what a filter for devices reads.
struct EntraDevice {
    let facts: DeviceFacts
    let registered: Bool

    init(_ facts: DeviceFacts) {
        self.facts = facts
        // An Intune-enrolled device is registered in Entra (enrollment registers it); an
        // unenrolled one only when the persona says so (Microsoft Authenticator's registration).
        registered = facts.entra.registered ?? facts.mdmEnrolled
    }

    /// The property's value (`nil`: none), and whether the device facts said it.
    func value(_ p: DeviceProperty) -> (String?, said: Bool) {
        guard registered else { return (nil, true) }
        let e = facts.entra
        if let given = e.attributes[p.name.lowercased()] { return (available(p) ? given : nil, true) }
        switch p {
        // Only a device an MDM manages has a compliance state.
        case .isCompliant:
            return facts.mdmEnrolled ? (facts.compliant.map { $0 ? "True" : "False" }, facts.compliant != nil) : (nil, true)
        case .trustType: return (e.trustType ?? "Workplace", true)
        case .deviceOwnership: return (e.ownership, e.ownership != nil)
        case .operatingSystem: return (facts.platform, true)
        case .operatingSystemVersion: return (facts.osVersion.description, true)
        case .model: return (facts.model, true)
        case .manufacturer: return (["ios", "ipados", "macos"].contains(facts.platform.lowercased()) ? "Apple" : nil, true)
        // Microsoft Intune's application id, the MDM an enrolled device reports.
        case .mdmAppId: return (facts.mdmEnrolled ? "0000000a-0000-0000-c000-000000000000" : nil, true)
        case .profileType: return ("RegisteredDevice", true)
        case .extensionAttribute:
            return (nil, !available(p))
        default: return (nil, false)
        }
    }

    /// Learn: extensionAttributes1–15 have a value at evaluation only on a device Intune
    /// manages, a compliant one, or a hybrid joined one.
    func available(_ p: DeviceProperty) -> Bool {
        guard case .extensionAttribute = p else { return true }
        return facts.mdmEnrolled || facts.compliant == true || facts.entra.trustType?.lowercased() == "serverad"
    }
}

/// What a persona says of its device's Entra object, for filters for devices.
public struct EntraDeviceFacts: Sendable, Hashable {
    /// Registered in Microsoft Entra ID; `nil`: registered exactly when enrolled in Intune.
    public var registered: Bool?
    /// `AzureAD`, `ServerAD` or `Workplace` (registered); `nil`: `Workplace` on a registered device.
    public var trustType: String?
    /// `Personal` or `Company`.
    public var ownership: String?
    /// Other properties by lowercased name (`extensionattribute1`, `displayname`, `deviceid`,
    /// `enrollmentprofilename`…); a collection's items joined by newlines.
    public var attributes: [String: String] = [:]

    public init(registered: Bool? = nil, trustType: String? = nil, ownership: String? = nil, attributes: [String: String] = [:]) {
        self.registered = registered
        self.trustType = trustType
        self.ownership = ownership
        self.attributes = attributes
    }
}
