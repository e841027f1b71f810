/// An activation rule string that cannot be parsed: where (source, line, column, offset),
/// what was found and what was expected.
public struct ActivationRuleSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Who the rule belongs to, e.g. `plugins/notes-share/Info.plist: NSExtension.NSExtensionAttributes.NSExtensionActivationRule`.
    public var source: String
    /// 0-based offset, in Unicode scalars, into the rule text as given (before entity decoding).
    public var offset: Int
    /// 1-based line and column of `offset`.
    public var line: Int
    public var column: Int
    public var found: String
    public var expected: String

    public var description: String {
        "\(source): activation rule cannot be parsed at line \(line), column \(column) (offset \(offset)): "
            + "expected \(expected), found \(found). Fix the NSExtensionActivationRule predicate string."
    }
}

/// One token of a predicate string. `start` indexes the decoded text.
struct Token: Sendable {
    enum Kind: Sendable, Equatable {
        case word(String)          // identifier or keyword (keywords are told apart by the parser)
        case variable(String)      // $name
        case aggregate(String)     // @count
        case string(String)
        case number(Int)
        case op(ActivationPredicate.Operator)
        case and, or, not
        case lparen, rparen, comma, dot
        case end
    }
    var kind: Kind
    var start: Int
    var text: String

    var foundDescription: String {
        switch kind {
        case .end: return "the end of the rule"
        case .string(let s): return "the string \"\(s)\""
        case .number: return "the number \(text)"
        case .word: return "'\(text)'"
        default: return "'\(text)'"
        }
    }
}

/// Turns rule text into tokens on demand, so the first error reported is the first in the text.
///
/// The text is XML-entity-decoded first (`&quot; &amp; &lt; &gt; &apos;`: a rule copied out of
/// an Info.plist by hand still has them); `origin` maps each decoded scalar back to its offset in
/// the original so errors point at what the author wrote.
struct PredicateLexer {
    let original: [Unicode.Scalar]
    private(set) var scalars: [Unicode.Scalar] = []
    private(set) var origin: [Int] = []
    private var index = 0
    let source: String

    init(text: String, source: String) {
        self.source = source
        original = Array(text.unicodeScalars)
        let entities: [(String, Unicode.Scalar)] = [("&quot;", "\""), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&apos;", "'")]
        var i = 0
        outer: while i < original.count {
            if original[i] == "&" {
                for (name, value) in entities {
                    let n = Array(name.unicodeScalars)
                    if i + n.count <= original.count, Array(original[i..<(i + n.count)]) == n {
                        scalars.append(value)
                        origin.append(i)
                        i += n.count
                        continue outer
                    }
                }
            }
            scalars.append(original[i])
            origin.append(i)
            i += 1
        }
    }

    /// Builds the error for a decoded-text position.
    func error(at decodedIndex: Int, found: String, expected: String) -> ActivationRuleSyntaxError {
        let offset = decodedIndex < origin.count ? origin[decodedIndex] : original.count
        let (line, column) = lineAndColumn(ofOriginal: offset)
        return ActivationRuleSyntaxError(source: source, offset: offset, line: line, column: column, found: found, expected: expected)
    }

    func lineAndColumn(ofOriginal offset: Int) -> (Int, Int) {
        var line = 1, column = 1
        for scalar in original[..<min(offset, original.count)] {
            if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
        }
        return (line, column)
    }

    func position(ofDecoded index: Int) -> String {
        let (line, column) = lineAndColumn(ofOriginal: index < origin.count ? origin[index] : original.count)
        return "\(line):\(column)"
    }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        index + ahead < scalars.count ? scalars[index + ahead] : nil
    }

    private static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c.properties.isAlphabetic
    }

    private static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool {
        isIdentifierStart(c) || ("0"..."9").contains(c)
    }

    private mutating func identifier() -> String {
        var s = String.UnicodeScalarView()
        while let c = peek(), Self.isIdentifierPart(c) { s.append(c); index += 1 }
        return String(s)
    }

    private func text(from start: Int) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[start..<index])
        return String(view)
    }

    mutating func next() throws(ActivationRuleSyntaxError) -> Token {
        // Whitespace, line breaks and /* comments */.
        while let c = peek() {
            if c.properties.isWhitespace { index += 1; continue }
            if c == "/", peek(1) == "*" {
                let opened = index
                index += 2
                while index < scalars.count, !(peek() == "*" && peek(1) == "/") { index += 1 }
                if index >= scalars.count {
                    throw error(at: index, found: "the end of the rule",
                                expected: "'*/' to close the comment opened at \(position(ofDecoded: opened))")
                }
                index += 2
                continue
            }
            break
        }
        let start = index
        guard let c = peek() else { return Token(kind: .end, start: start, text: "") }
        func token(_ kind: Token.Kind, length: Int) -> Token {
            index += length
            return Token(kind: kind, start: start, text: text(from: start))
        }
        switch c {
        case "(": return token(.lparen, length: 1)
        case ")": return token(.rparen, length: 1)
        case ",": return token(.comma, length: 1)
        case ".": return token(.dot, length: 1)
        case "&":
            if peek(1) == "&" { return token(.and, length: 2) }
            throw error(at: start, found: "a single '&'", expected: "'&&' (or AND)")
        case "|":
            if peek(1) == "|" { return token(.or, length: 2) }
            throw error(at: start, found: "a single '|'", expected: "'||' (or OR)")
        case "=":
            if peek(1) == "=" { return token(.op(.equal), length: 2) }
            if peek(1) == "<" { return token(.op(.lessOrEqual), length: 2) }
            if peek(1) == ">" { return token(.op(.greaterOrEqual), length: 2) }
            return token(.op(.equal), length: 1)
        case "!":
            if peek(1) == "=" { return token(.op(.notEqual), length: 2) }
            return token(.not, length: 1)
        case "<":
            if peek(1) == "=" { return token(.op(.lessOrEqual), length: 2) }
            if peek(1) == ">" { return token(.op(.notEqual), length: 2) }
            return token(.op(.less), length: 1)
        case ">":
            if peek(1) == "=" { return token(.op(.greaterOrEqual), length: 2) }
            return token(.op(.greater), length: 1)
        case "\"", "'":
            return try stringLiteral(quote: c)
        case "$":
            index += 1
            guard let first = peek(), Self.isIdentifierStart(first) else {
                throw error(at: index, found: peek().map { "'\($0)'" } ?? "the end of the rule", expected: "a variable name after '$'")
            }
            let name = identifier()
            return Token(kind: .variable(name), start: start, text: "$" + name)
        case "@":
            index += 1
            let name = identifier()
            return Token(kind: .aggregate(name), start: start, text: "@" + name)
        default:
            break
        }
        if ("0"..."9").contains(c) || (c == "-" && peek(1).map { ("0"..."9").contains($0) } == true) {
            index += 1
            while let d = peek(), ("0"..."9").contains(d) { index += 1 }
            if peek() == ".", let d = peek(1), ("0"..."9").contains(d) {
                throw error(at: start, found: "a decimal number", expected: "a whole number (counts are integers)")
            }
            let text = text(from: start)
            guard let value = Int(text) else { throw error(at: start, found: "the number \(text)", expected: "a number that fits in 64 bits") }
            return Token(kind: .number(value), start: start, text: text)
        }
        if Self.isIdentifierStart(c) {
            let word = identifier()
            if word.uppercased() == "UTI" {
                for (suffix, op) in [("-CONFORMS-TO", ActivationPredicate.Operator.conformsTo), ("-EQUALS", .utiEquals)] {
                    let s = Array(suffix.unicodeScalars)
                    if index + s.count <= scalars.count,
                       String(String.UnicodeScalarView(scalars[index..<(index + s.count)])).uppercased() == suffix {
                        index += s.count
                        return Token(kind: .op(op), start: start, text: text(from: start))
                    }
                }
            }
            return Token(kind: .word(word), start: start, text: word)
        }
        throw error(at: start, found: "the character '\(c)'", expected: "a key path, variable, string, number, operator or parenthesis")
    }

    private mutating func stringLiteral(quote: Unicode.Scalar) throws(ActivationRuleSyntaxError) -> Token {
        let start = index
        index += 1
        var value = String.UnicodeScalarView()
        while let c = peek() {
            index += 1
            if c == quote { return Token(kind: .string(String(value)), start: start, text: text(from: start)) }
            if c == "\\", let escaped = peek() {
                index += 1
                switch escaped {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                default: value.append(escaped)
                }
                continue
            }
            value.append(c)
        }
        throw error(at: index, found: "the end of the rule",
                    expected: "the closing \(quote) of the string opened at \(position(ofDecoded: start))")
    }
}
