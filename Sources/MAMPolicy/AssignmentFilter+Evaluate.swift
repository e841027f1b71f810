/// What an app reports of itself and its device, as a managed-app filter reads it. `nil`: the
/// persona does not say; a rule that reads it is then undetermined, never guessed.
public struct ManagedAppFacts: Sendable, Hashable {
    /// `Unmanaged`, or the device's enrollment: `Managed` when only "MDM-enrolled" is known,
    /// else one of `ManagementTypeValues.enrolled`.
    public var managementType: String
    public var appVersion: String?
    public var operatingSystemVersion: String?
    public var deviceModel: String?
    public var deviceManufacturer: String?

    public init(managementType: String, appVersion: String? = nil, operatingSystemVersion: String? = nil,
                deviceModel: String? = nil, deviceManufacturer: String? = "Apple") {
        self.managementType = managementType
        self.appVersion = appVersion
        self.operatingSystemVersion = operatingSystemVersion
        self.deviceModel = deviceModel
        self.deviceManufacturer = deviceManufacturer
    }

    func value(_ p: ManagedAppProperty) -> String? {
        switch p {
        case .appVersion: appVersion
        case .deviceManagementType: managementType
        case .deviceManufacturer: deviceManufacturer
        case .deviceModel: deviceModel
        case .operatingSystemVersion, .osVersion: operatingSystemVersion
        }
    }
}

/// A rule's outcome: `nil` when the facts do not decide it, with why either way.
public struct FilterEvaluation: Sendable, Hashable {
    public var matches: Bool?
    public var reason: String
}

extension FilterRule {
    public func evaluate(_ facts: ManagedAppFacts) -> FilterEvaluation {
        switch self {
        case .compare(let property, let op, let value, _):
            return Self.compare(property, op, value, facts)
        case .chain(let terms, let connectives):
            let values = terms.map { $0.evaluate(facts) }
            let mixed = Set(connectives).count > 1
            // `and` before `or` (as most rule languages read it), and left to right: where the
            // two agree the rule is decided; where not, Microsoft's reading is not documented.
            let andFirst = Self.andFirst(values.map(\.matches), connectives)
            if mixed {
                let leftToRight = Self.leftToRight(values.map(\.matches), connectives)
                if andFirst != leftToRight {
                    return FilterEvaluation(matches: nil, reason: "the rule mixes and / or without parentheses and its two readings differ here (Microsoft Learn does not document which binds first); add parentheses")
                }
            }
            let deciding = values.filter { $0.matches == andFirst }.map(\.reason)
            let why = andFirst == nil ? values.filter { $0.matches == nil }.map(\.reason) : deciding
            return FilterEvaluation(matches: andFirst, reason: why.prefix(3).joined(separator: "; "))
        }
    }

    /// Kleene's three-valued and / or: unknown only where the known terms do not decide.
    static func and(_ a: Bool?, _ b: Bool?) -> Bool? {
        if a == false || b == false { return false }
        if a == true && b == true { return true }
        return nil
    }

    static func or(_ a: Bool?, _ b: Bool?) -> Bool? {
        if a == true || b == true { return true }
        if a == false && b == false { return false }
        return nil
    }

    static func andFirst(_ values: [Bool?], _ connectives: [Connective]) -> Bool? {
        var groups: [Bool?] = [values[0]]
        for (i, c) in connectives.enumerated() {
            if c == .and { groups[groups.count - 1] = and(groups[groups.count - 1], values[i + 1]) } else { groups.append(values[i + 1]) }
        }
        return groups.dropFirst().reduce(groups[0]) { or($0, $1) }
    }

    static func leftToRight(_ values: [Bool?], _ connectives: [Connective]) -> Bool? {
        var result = values[0]
        for (i, c) in connectives.enumerated() { result = c == .and ? and(result, values[i + 1]) : or(result, values[i + 1]) }
        return result
    }

    static func compare(_ property: ManagedAppProperty, _ op: FilterOperator, _ value: FilterValue, _ facts: ManagedAppFacts) -> FilterEvaluation {
        let name = "app.\(property.rawValue)"
        let fact = facts.value(property)
        if case .null = value {
            let isNull = fact == nil || fact == ""
            return FilterEvaluation(matches: op == .eq ? isNull : !isNull, reason: "\(name) is \(fact.map { "\"\($0)\"" } ?? "null")")
        }
        guard let fact else {
            return FilterEvaluation(matches: nil, reason: "\(name) is not known for this persona (say it to decide \(op.spelled) \(value.spelled))")
        }
        let said = "\(name) \"\(fact)\" \(op.spelled) \(value.spelled)"
        if property == .deviceManagementType, case .text(let wanted) = value {
            let equal = managementTypes(fact, wanted)
            guard let equal else {
                return FilterEvaluation(matches: nil, reason: "\(name) is \"Managed\" (MDM-enrolled, enrollment type not given), the rule names \"\(wanted)\": say the persona's enrollment type")
            }
            return FilterEvaluation(matches: op == .eq ? equal : !equal, reason: said)
        }
        if property == .operatingSystemVersion, [.gt, .ge, .lt, .le, .eq, .ne].contains(op), case .text(let wanted) = value,
           let a = FilterVersion(fact), let b = FilterVersion(wanted) {
            func holds(_ order: Int) -> Bool {
                switch op {
                case .eq: order == 0
                case .ne: order != 0
                case .gt: order > 0
                case .ge: order >= 0
                case .lt: order < 0
                default: order <= 0
                }
            }
            // 17.4 against 17.4.0: equal when missing segments count as 0, less when not;
            // Microsoft Learn does not say which, so only an answer both give is one.
            let (padded, unpadded) = versionOrders(a, b)
            guard holds(padded) == holds(unpadded) else {
                return FilterEvaluation(matches: nil, reason: "\(said): the versions differ only by trailing zero segments, which Microsoft Learn does not say how to compare")
            }
            return FilterEvaluation(matches: holds(padded), reason: said)
        }
        if property == .operatingSystemVersion, [.gt, .ge, .lt, .le].contains(op) {
            return FilterEvaluation(matches: nil, reason: "\(name) \"\(fact)\" is not a version")
        }
        let f = fact.lowercased()
        let result: Bool
        switch (op, value) {
        case (.eq, .text(let v)): result = f == v.lowercased()
        case (.ne, .text(let v)): result = f != v.lowercased()
        case (.startsWith, .text(let v)): result = f.hasPrefix(v.lowercased())
        case (.contains, .text(let v)): result = f.contains(v.lowercased())
        case (.notContains, .text(let v)): result = !f.contains(v.lowercased())
        case (.in, .list(let vs)): result = vs.contains { $0.lowercased() == f }
        case (.notIn, .list(let vs)): result = !vs.contains { $0.lowercased() == f }
        default: return FilterEvaluation(matches: nil, reason: "\(said) cannot be compared")
        }
        return FilterEvaluation(matches: result, reason: said)
    }

    /// Whether the device's management type is the rule's: `Managed` (deprecated) stands for
    /// every enrollment type; `nil` when the rule names an enrollment type and the persona
    /// says only that it is enrolled.
    static func managementTypes(_ fact: String, _ wanted: String) -> Bool? {
        let f = fact.lowercased(), w = wanted.lowercased()
        if f == w { return true }
        let managed = ManagementTypeValues.managed.lowercased(), unmanaged = ManagementTypeValues.unmanaged.lowercased()
        if f == unmanaged || w == unmanaged { return false }
        if w == managed { return true }
        if f == managed { return nil }
        return false
    }

    /// -1, 0 or 1, with missing segments read as 0 and, second, with the longer version
    /// after the shorter where they are otherwise equal.
    static func versionOrders(_ a: FilterVersion, _ b: FilterVersion) -> (Int, Int) {
        for i in 0..<max(a.parts.count, b.parts.count) {
            let x = i < a.parts.count ? a.parts[i] : 0, y = i < b.parts.count ? b.parts[i] : 0
            if x != y { return x < y ? (-1, -1) : (1, 1) }
        }
        return (0, a.parts.count == b.parts.count ? 0 : a.parts.count < b.parts.count ? -1 : 1)
    }
}

extension FilterValue {
    var spelled: String {
        switch self {
        case .text(let t): "\"\(t)\""
        case .list(let l): "[" + l.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        case .null: "Null"
        }
    }
}
