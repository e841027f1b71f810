extension ActivationPredicate {
    /// Parses an activation rule string.
    ///
    /// - Parameters:
    ///   - text: the rule as written; XML entities (`&quot;` …) are decoded, `/* comments */`,
    ///     line breaks and indentation are ignored, keywords are case-insensitive.
    ///   - source: names the plugin and key for error messages.
    /// - Throws: `ActivationRuleSyntaxError` at the first token that does not fit.
    public init(parsing text: String, source: String = "activation rule") throws(ActivationRuleSyntaxError) {
        var parser = try PredicateParser(text: text, source: source)
        self = try parser.parseRule()
    }
}

/// Recursive descent over the grammar (lowest precedence first):
///
///     rule        := or END
///     or          := and (("OR" | "||") and)*
///     and         := not (("AND" | "&&") not)*
///     not         := ("NOT" | "!") not | primary
///     primary     := "(" or ")" | TRUEPREDICATE | FALSEPREDICATE | comparison
///     comparison  := [ANY | SOME | ALL | NONE] expression operator expression
///     expression  := atom ("." (name | "@count"))*
///     atom        := SUBQUERY "(" expression "," $var "," or ")" | $var | name | SELF | string | number
struct PredicateParser {
    private var lexer: PredicateLexer
    private var current: Token
    /// Parentheses, NOTs and SUBQUERYs open at this point. Real rules nest a handful deep; a
    /// hostile one nesting thousands deep would overflow the stack of this recursive parser
    /// (and of the evaluator after it), so the nesting is bounded with a clear error.
    private var depth = 0
    static let maximumDepth = 64

    private static let keywords: Set<String> = [
        "AND", "OR", "NOT", "SUBQUERY", "ANY", "SOME", "ALL", "NONE", "TRUEPREDICATE", "FALSEPREDICATE", "SELF",
    ]
    /// NSPredicate operators activation rules do not need; named so the error can say so.
    private static let unsupportedOperators: Set<String> = [
        "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "BETWEEN",
    ]
    private static let operatorList = "a comparison operator (==, !=, <, <=, >, >=, UTI-CONFORMS-TO, UTI-EQUALS)"

    init(text: String, source: String) throws(ActivationRuleSyntaxError) {
        lexer = PredicateLexer(text: text, source: source)
        current = try lexer.next()
    }

    private mutating func advance() throws(ActivationRuleSyntaxError) {
        current = try lexer.next()
    }

    private func fail(_ expected: String) -> ActivationRuleSyntaxError {
        var found = current.foundDescription
        if case .word(let w) = current.kind, Self.unsupportedOperators.contains(w.uppercased()) {
            found = "the operator '\(w)', which activation rules do not support"
        }
        return lexer.error(at: current.start, found: found, expected: expected)
    }

    private func isKeyword(_ keyword: String) -> Bool {
        if case .word(let w) = current.kind { return w.uppercased() == keyword }
        return false
    }

    private mutating func enter() throws(ActivationRuleSyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw lexer.error(at: current.start, found: "more than \(Self.maximumDepth) nested parentheses, NOTs or SUBQUERYs",
                              expected: "a rule nested at most \(Self.maximumDepth) deep; simplify it")
        }
    }

    private mutating func expect(_ kind: Token.Kind, _ expected: String) throws(ActivationRuleSyntaxError) {
        guard current.kind == kind else { throw fail(expected) }
        try advance()
    }

    mutating func parseRule() throws(ActivationRuleSyntaxError) -> ActivationPredicate {
        if current.kind == .end { throw fail("a predicate (the rule is empty)") }
        let rule = try parseOr()
        guard current.kind == .end else { throw fail("AND, OR or the end of the rule") }
        return rule
    }

    private mutating func parseOr() throws(ActivationRuleSyntaxError) -> ActivationPredicate {
        var parts = [try parseAnd()]
        while current.kind == .or || isKeyword("OR") {
            try advance()
            parts.append(try parseAnd())
        }
        return .anyOf(parts)
    }

    private mutating func parseAnd() throws(ActivationRuleSyntaxError) -> ActivationPredicate {
        var parts = [try parseNot()]
        while current.kind == .and || isKeyword("AND") {
            try advance()
            parts.append(try parseNot())
        }
        return .allOf(parts)
    }

    private mutating func parseNot() throws(ActivationRuleSyntaxError) -> ActivationPredicate {
        if current.kind == .not || isKeyword("NOT") {
            try enter()
            defer { depth -= 1 }
            try advance()
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws(ActivationRuleSyntaxError) -> ActivationPredicate {
        if current.kind == .lparen {
            try enter()
            defer { depth -= 1 }
            let opened = lexer.position(ofDecoded: current.start)
            try advance()
            let inner = try parseOr()
            try expect(.rparen, "')' to close the '(' opened at \(opened), or AND/OR")
            return inner
        }
        if isKeyword("TRUEPREDICATE") { try advance(); return .constant(true) }
        if isKeyword("FALSEPREDICATE") { try advance(); return .constant(false) }
        return .comparison(try parseComparison())
    }

    private mutating func parseComparison() throws(ActivationRuleSyntaxError) -> ActivationPredicate.Comparison {
        var modifier = ActivationPredicate.Modifier.direct
        if isKeyword("ANY") || isKeyword("SOME") { modifier = .any } else if isKeyword("ALL") { modifier = .all } else if isKeyword("NONE") { modifier = .none }
        if modifier != .direct { try advance() }
        let lhs = try parseExpression(what: modifier == .direct ? "a predicate" : "a collection after \(modifier.rawValue)")
        guard case .op(let op) = current.kind else { throw fail(Self.operatorList) }
        try advance()
        let rhs = try parseExpression(what: "a value after \(op.rawValue)")
        return ActivationPredicate.Comparison(modifier, lhs, op, rhs)
    }

    private mutating func parseExpression(what: String) throws(ActivationRuleSyntaxError) -> ActivationPredicate.Expression {
        var expression: ActivationPredicate.Expression
        switch current.kind {
        case .string(let s):
            try advance()
            return .string(s)
        case .number(let n):
            try advance()
            return .number(n)
        case .variable(let name):
            try advance()
            expression = .variable(name)
        case .word(let w) where w.uppercased() == "SUBQUERY":
            expression = try parseSubquery()
        case .word(let w) where w.uppercased() == "SELF":
            try advance()
            expression = .evaluatedObject
        case .word(let w) where !Self.keywords.contains(w.uppercased()) && !Self.unsupportedOperators.contains(w.uppercased()):
            try advance()
            expression = .key(.evaluatedObject, w)
        default:
            throw fail("\(what): a key path, $variable, SUBQUERY(…), string or number")
        }
        while current.kind == .dot {
            try advance()
            switch current.kind {
            case .word(let w):
                expression = .key(expression, w)
            case .aggregate(let a) where a.lowercased() == "count":
                expression = .key(expression, "@count")
            case .aggregate(let a):
                throw lexer.error(at: current.start, found: "the aggregate '@\(a)'", expected: "@count (the only aggregate activation rules use)")
            default:
                throw fail("a key name or @count after '.'")
            }
            try advance()
        }
        return expression
    }

    private mutating func parseSubquery() throws(ActivationRuleSyntaxError) -> ActivationPredicate.Expression {
        try enter()
        defer { depth -= 1 }
        let opened = lexer.position(ofDecoded: current.start)
        try advance()
        try expect(.lparen, "'(' after SUBQUERY")
        let collection = try parseExpression(what: "the collection SUBQUERY iterates")
        try expect(.comma, "',' after the SUBQUERY collection")
        guard case .variable(let variable) = current.kind else {
            throw fail("a $variable naming each element, as the second SUBQUERY argument")
        }
        try advance()
        try expect(.comma, "',' after the SUBQUERY variable $\(variable)")
        let predicate = try parseOr()
        try expect(.rparen, "')' to close the SUBQUERY opened at \(opened), or AND/OR")
        return .subquery(collection: collection, variable: variable, predicate: predicate)
    }
}
