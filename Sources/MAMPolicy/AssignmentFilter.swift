/// A Graph `deviceAndAppManagementAssignmentFilter` for managed apps
/// (`assignmentFilterManagementType: apps`, platform `iOSMobileApplicationManagement`): a rule
/// over the properties an app reports of itself and its device, which narrows an assignment
/// (include: only where it matches; exclude: only where it does not).
///
/// The rule language is Microsoft Learn's "Device, app, and filter properties → Managed app
/// properties" and "Advanced rule editing" (filters-device-properties.md): `(app.property
/// -operator value)`, `and`/`or` with or without a dash, parentheses nested, properties,
/// operators and values case-insensitive, arrays as `["a","b"]`, `Null`/`$Null` with -eq/-ne.
public struct AssignmentFilter: Sendable, Hashable {
    public var id: String
    public var displayName: String
    public var platform: String
    public var rule: FilterRule
    /// The rule as written (for reports).
    public var ruleText: String

    public init(id: String, displayName: String, platform: String = "iOSMobileApplicationManagement", rule: String, source: String = "filter") throws(FilterRuleError) {
        self.id = id
        self.displayName = displayName
        self.platform = platform
        self.ruleText = rule
        self.rule = try FilterRule.parse(rule, source: source)
    }

    public var title: String { displayName.isEmpty ? id : displayName }
}

/// A managed-app property a filter rule may read (the `app.` entity).
public enum ManagedAppProperty: String, Sendable, Hashable, CaseIterable {
    case appVersion, deviceManagementType, deviceManufacturer, deviceModel, operatingSystemVersion
    /// Deprecated by Microsoft for `operatingSystemVersion`; still read, compared as a string.
    case osVersion

    /// The operators Microsoft Learn documents for the property.
    var operators: Set<FilterOperator> {
        switch self {
        case .deviceManagementType: [.eq, .ne]
        case .operatingSystemVersion: [.eq, .ne, .gt, .ge, .lt, .le]
        case .appVersion, .deviceManufacturer, .deviceModel, .osVersion: [.eq, .ne, .in, .notIn, .startsWith, .contains, .notContains]
        }
    }
}

public enum FilterOperator: String, Sendable, Hashable, CaseIterable {
    case eq, ne, `in`, notIn, startsWith, contains, notContains, gt, ge, lt, le

    /// The operator a word of a rule names: `-eq`, `eq`, `-Equals`… in any letter case.
    init?(word: String) {
        var w = Substring(word.lowercased())
        if w.hasPrefix("-") { w = w.dropFirst() }
        switch w {
        case "eq", "equals": self = .eq
        case "ne", "notequals": self = .ne
        case "in": self = .in
        case "notin": self = .notIn
        case "startswith": self = .startsWith
        case "contains": self = .contains
        case "notcontains": self = .notContains
        case "gt": self = .gt
        case "ge": self = .ge
        case "lt": self = .lt
        case "le": self = .le
        default: return nil
        }
    }

    public var spelled: String { "-" + rawValue }
}

/// The iOS values of `app.deviceManagementType` (Microsoft Learn): `Managed` is deprecated and
/// mapped to every enrollment type below it.
public enum ManagementTypeValues {
    public static let unmanaged = "Unmanaged"
    public static let managed = "Managed"
    public static let enrolled = [
        "Automated Device Enrollment user-associated devices",
        "Automated Device Enrollment userless devices",
        "Account Driven User Enrollment",
        "Device Enrollment with Company Portal and Web Enrollment",
    ]
    public static var iOS: [String] { [unmanaged, managed] + enrolled }
    static let android = [
        "Android device administrator", "AOSP userless devices", "AOSP user-associated devices",
        "Corporate-owned dedicated devices with Microsoft Entra ID Shared mode",
        "Corporate-owned dedicated devices without Microsoft Entra ID Shared mode",
        "Corporate-owned with work profile", "Corporate-owned fully managed", "Personally-owned work profile", "Android Enterprise",
    ]
}

/// A parsed filter rule.
public indirect enum FilterRule: Sendable, Hashable {
    case compare(ManagedAppProperty, FilterOperator, FilterValue, column: Int)
    /// Terms joined by `and` or `or`; `connectives[i]` joins `terms[i]` and `terms[i + 1]`. A
    /// chain that mixes both without parentheses is kept as written: Microsoft does not
    /// document which binds first, and the evaluation says so where the two readings differ.
    case chain([FilterRule], connectives: [Connective])

    public enum Connective: String, Sendable, Hashable { case and, or }
}

public enum FilterValue: Sendable, Hashable {
    case text(String)
    case list([String])
    case null
}

/// A rule that does not parse, or reads what a managed-app filter cannot: where (column, from
/// 1) and what to write instead.
public struct FilterRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    public var source: String
    public var column: Int
    public var message: String
    public var description: String { "\(source), column \(column): \(message)" }
}

extension FilterRule {
    /// Parses `text`, naming `source` (the file and filter) in errors.
    public static func parse(_ text: String, source: String) throws(FilterRuleError) -> FilterRule {
        var parser = FilterParser(text: text, source: source)
        let rule = try parser.expression()
        if let extra = parser.peek() {
            throw parser.error(at: extra.column, "\"\(extra.text)\" after a complete rule; join conditions with and / or")
        }
        return rule
    }
}

/// A filter rule's words: parentheses, brackets, commas, quoted strings and bare words.
struct FilterToken {
    enum Kind { case open, close, openList, closeList, comma, string, word }
    var kind: Kind
    var text: String
    /// From 1, in characters.
    var column: Int
}

struct FilterParser {
    let source: String
    private(set) var tokens: [FilterToken] = []
    var position = 0
    private(set) var lexError: FilterRuleError?
    let length: Int
    /// How many parentheses are open where the parser is.
    private var depth = 0
    /// Deeper than any rule an admin writes (the portal's rule builder nests two or three), far
    /// from the stack's end: past it, an error at the parenthesis instead of a crash.
    static let maximumDepth = 64

    init(text: String, source: String) {
        self.source = source
        let chars = Array(text)
        length = chars.count
        var i = 0
        while i < chars.count {
            let c = chars[i]
            let column = i + 1
            switch c {
            case " ", "\t", "\n", "\r": i += 1
            case "(": tokens.append(FilterToken(kind: .open, text: "(", column: column)); i += 1
            case ")": tokens.append(FilterToken(kind: .close, text: ")", column: column)); i += 1
            case "[": tokens.append(FilterToken(kind: .openList, text: "[", column: column)); i += 1
            case "]": tokens.append(FilterToken(kind: .closeList, text: "]", column: column)); i += 1
            case ",": tokens.append(FilterToken(kind: .comma, text: ",", column: column)); i += 1
            case "\"", "\u{201C}", "\u{201D}", "'", "\u{2018}", "\u{2019}":
                // Double or single quotes, straight or typographic (Learn's own examples are
                // pasted with ‘SAW’): a value ends at a quote of its own kind.
                let closers: Set<Character> = "\"\u{201C}\u{201D}".contains(c) ? ["\"", "\u{201C}", "\u{201D}"] : ["'", "\u{2018}", "\u{2019}"]
                var j = i + 1
                while j < chars.count, !closers.contains(chars[j]) { j += 1 }
                guard j < chars.count else {
                    lexError = FilterRuleError(source: source, column: column, message: "a quoted value is not closed; end it with \(c == "'" || c == "\u{2018}" || c == "\u{2019}" ? "'" : "\"")")
                    i = chars.count
                    break
                }
                tokens.append(FilterToken(kind: .string, text: String(chars[(i + 1)..<j]), column: column))
                i = j + 1
            default:
                var j = i
                while j < chars.count, !" \t\n\r()[],\"'".contains(chars[j]) { j += 1 }
                tokens.append(FilterToken(kind: .word, text: String(chars[i..<j]), column: column))
                i = j
            }
        }
    }

    func peek() -> FilterToken? { position < tokens.count ? tokens[position] : nil }

    mutating func next() -> FilterToken? {
        defer { position += 1 }
        return peek()
    }

    func error(at column: Int, _ message: String) -> FilterRuleError {
        FilterRuleError(source: source, column: column, message: message)
    }

    var endColumn: Int { length + 1 }

    /// term ((and | or) term)*
    mutating func expression() throws(FilterRuleError) -> FilterRule {
        if let lexError { throw lexError }
        var terms = [try term()]
        var connectives: [FilterRule.Connective] = []
        while let t = peek(), t.kind == .word, let c = Self.connective(t.text) {
            position += 1
            connectives.append(c)
            terms.append(try term())
        }
        return terms.count == 1 ? terms[0] : .chain(terms, connectives: connectives)
    }

    static func connective(_ word: String) -> FilterRule.Connective? {
        switch word.lowercased() {
        case "and", "-and": .and
        case "or", "-or": .or
        default: nil
        }
    }

    /// '(' expression ')' | comparison
    mutating func term() throws(FilterRuleError) -> FilterRule {
        guard let t = peek() else { throw error(at: endColumn, "the rule ends where a condition should start, e.g. (app.deviceManagementType -eq \"Unmanaged\")") }
        if t.kind == .open {
            guard depth < Self.maximumDepth else {
                throw error(at: t.column, "parentheses nested more than \(Self.maximumDepth) deep; no rule needs so many — the rule is damaged or hostile")
            }
            depth += 1
            defer { depth -= 1 }
            position += 1
            let inner = try expression()
            guard let close = next() else { throw error(at: endColumn, "a parenthesis opened at column \(t.column) is not closed") }
            guard close.kind == .close else { throw error(at: close.column, "\"\(close.text)\" where ) or and / or should be") }
            return inner
        }
        return try comparison()
    }

    mutating func comparison() throws(FilterRuleError) -> FilterRule {
        let p = next()!
        guard p.kind == .word else { throw error(at: p.column, "\"\(p.text)\" where a property such as app.appVersion should be") }
        let parts = p.text.split(separator: ".", maxSplits: 1)
        guard parts.count == 2 else { throw error(at: p.column, "\"\(p.text)\" is not a property; write app.<property>, e.g. app.deviceManagementType") }
        guard parts[0].lowercased() == "app" else {
            throw error(at: p.column, "\"\(p.text)\": a managed-app filter reads app properties (app.\(parts[1])); \(parts[0]).… properties are for managed-device filters (assignmentFilterManagementType devices)")
        }
        guard let property = ManagedAppProperty.allCases.first(where: { $0.rawValue.lowercased() == parts[1].lowercased() }) else {
            throw error(at: p.column, "\"\(p.text)\" is not a managed app property; use one of \(ManagedAppProperty.allCases.map { "app." + $0.rawValue }.joined(separator: ", "))")
        }
        guard let o = next() else { throw error(at: endColumn, "\(p.text) needs an operator, one of \(Self.spell(property.operators))") }
        guard o.kind == .word, let op = FilterOperator(word: o.text) else {
            throw error(at: o.column, "\"\(o.text)\" is not an operator; use one of \(Self.spell(property.operators))")
        }
        guard property.operators.contains(op) else {
            throw error(at: o.column, "app.\(property.rawValue) takes \(Self.spell(property.operators)), not \(op.spelled) (Microsoft Learn, managed app properties)")
        }
        guard let v = next() else { throw error(at: endColumn, "\(p.text) \(o.text) needs a value") }
        let value: FilterValue
        switch v.kind {
        case .openList:
            guard op == .in || op == .notIn else { throw error(at: v.column, "a list of values goes with -in or -notIn, not \(op.spelled)") }
            value = .list(try listValues(openedAt: v))
        case .string, .word:
            if v.kind == .word, ["null", "$null"].contains(v.text.lowercased()) {
                guard op == .eq || op == .ne else { throw error(at: v.column, "Null goes with -eq or -ne only") }
                value = .null
            } else if op == .in || op == .notIn {
                throw error(at: v.column, "\(op.spelled) takes a list, e.g. [\"\(v.text)\"]")
            } else {
                value = .text(v.text)
            }
        default:
            throw error(at: v.column, "\"\(v.text)\" where the value of \(p.text) should be")
        }
        try check(property, op, value, at: v.column)
        return .compare(property, op, value, column: p.column)
    }

    /// The values of a list whose `[` is `open`, up to its `]` (the `-in`/`-notIn` lists of
    /// managed-app and device filters alike).
    mutating func listValues(openedAt open: FilterToken) throws(FilterRuleError) -> [String] {
        var items: [String] = []
        while true {
            guard let item = next() else { throw error(at: endColumn, "the list opened at column \(open.column) is not closed with ]") }
            if item.kind == .closeList, items.isEmpty { break }
            guard item.kind == .string || item.kind == .word else { throw error(at: item.column, "\"\(item.text)\" where a value of the list should be") }
            items.append(item.text)
            guard let sep = next() else { throw error(at: endColumn, "the list opened at column \(open.column) is not closed with ]") }
            if sep.kind == .closeList { break }
            guard sep.kind == .comma else { throw error(at: sep.column, "\"\(sep.text)\" in a list; separate values with commas") }
        }
        return items
    }

    /// Values the property can never hold are refused here, not found false later.
    func check(_ property: ManagedAppProperty, _ op: FilterOperator, _ value: FilterValue, at column: Int) throws(FilterRuleError) {
        switch property {
        case .deviceManagementType:
            guard case .text(let t) = value else { return }
            if ManagementTypeValues.iOS.contains(where: { $0.lowercased() == t.lowercased() }) { return }
            if ManagementTypeValues.android.contains(where: { $0.lowercased() == t.lowercased() }) {
                throw error(at: column, "\"\(t)\" is an Android management type; an iOS managed-app filter reads \(ManagementTypeValues.iOS.map { "\"\($0)\"" }.joined(separator: ", "))")
            }
            throw error(at: column, "\"\(t)\" is not a management type; on iOS use \(ManagementTypeValues.iOS.map { "\"\($0)\"" }.joined(separator: ", "))")
        case .operatingSystemVersion:
            guard case .text(let t) = value, [.gt, .ge, .lt, .le].contains(op) else { return }
            if FilterVersion(t) == nil { throw error(at: column, "\"\(t)\" is not a version (numbers separated by dots, e.g. 17.4)") }
        default:
            return
        }
    }

    static func spell(_ ops: Set<FilterOperator>) -> String {
        FilterOperator.allCases.filter(ops.contains).map(\.spelled).joined(separator: " ")
    }
}

/// A dotted version as a filter compares it: numbers, segment by segment.
struct FilterVersion {
    let parts: [Int]
    init?(_ text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !pieces.isEmpty else { return nil }
        var parts: [Int] = []
        for p in pieces {
            guard !p.isEmpty, p.allSatisfy(\.isASCII), let n = Int(p), n >= 0 else { return nil }
            parts.append(n)
        }
        self.parts = parts
    }
}
