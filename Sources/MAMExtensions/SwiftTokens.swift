import MAMBundle

/// Swift source as tokens, enough to read literals and calls: identifiers, string literals
/// (an interpolation marks the string computed), numbers, punctuation; comments skipped.
struct SwiftTokens {
    enum Kind: Equatable { case identifier, string(String, interpolated: Bool), number(String), punctuation }
    struct Token {
        var kind: Kind
        var text: String
        var line: Int
        var isIdentifier: Bool { kind == .identifier }
    }

    var tokens: [Token] = []

    /// A string literal from its opening quote (`"…"` or `"""…"""`), escapes read and each
    /// interpolation kept as written (`\(name)`: a constant of the manifest may fill it);
    /// `i` and `line` end after it. An interpolated literal is a template: its own backslashes
    /// doubled (`\\`), so an escaped backslash before a parenthesis is never an interpolation.
    static func stringLiteral(_ c: [Unicode.Scalar], at i: inout Int, line: inout Int) -> (String, interpolated: Bool) {
        func peek(_ k: Int) -> Unicode.Scalar? { i + k < c.count ? c[i + k] : nil }
        let triple = peek(1) == "\"" && peek(2) == "\""
        i += triple ? 3 : 1
        var s = "", template = "", interpolated = false
        while i < c.count {
            if triple ? (c[i] == "\"" && peek(1) == "\"" && peek(2) == "\"") : c[i] == "\"" { i += triple ? 3 : 1; break }
            if c[i] == "\n" { line += 1; if !triple { break } }
            if c[i] == "\\", let next = peek(1) {
                if next == "(" {
                    // Kept as written (`\(name)`): a constant of the manifest may fill it.
                    interpolated = true
                    var depth = 0
                    s += "\\"
                    template += "\\"
                    i += 1
                    while i < c.count {
                        s.unicodeScalars.append(c[i])
                        template.unicodeScalars.append(c[i])
                        if c[i] == "(" { depth += 1 } else if c[i] == ")" { depth -= 1; if depth == 0 { break } }
                        i += 1
                    }
                    i += 1
                    continue
                }
                let escaped: Unicode.Scalar = next == "n" ? "\n" : next == "t" ? "\t" : next
                s.unicodeScalars.append(escaped)
                template += escaped == "\\" ? "\\\\" : String(escaped)
                i += 2
                continue
            }
            s.unicodeScalars.append(c[i])
            template += c[i] == "\\" ? "\\\\" : String(c[i])
            i += 1
        }
        return (interpolated ? template : s, interpolated)
    }

    init(_ source: String) {
        let c = Array(source.unicodeScalars)
        var i = 0, line = 1
        func peek(_ k: Int) -> Unicode.Scalar? { i + k < c.count ? c[i + k] : nil }
        while i < c.count {
            let ch = c[i]
            if ch == "\n" { line += 1; i += 1; continue }
            if ch == " " || ch == "\t" || ch == "\r" { i += 1; continue }
            if ch == "/", peek(1) == "/" { while i < c.count, c[i] != "\n" { i += 1 }; continue }
            if ch == "/", peek(1) == "*" {
                i += 2
                while i < c.count, !(c[i] == "*" && peek(1) == "/") { if c[i] == "\n" { line += 1 }; i += 1 }
                i += 2
                continue
            }
            if ch == "\"" {
                let start = line
                let (s, interpolated) = Self.stringLiteral(c, at: &i, line: &line)
                tokens.append(Token(kind: .string(s, interpolated: interpolated), text: "\"\(s)\"", line: start))
                continue
            }
            if ch.properties.isAlphabetic || ch == "_" {
                var s = ""
                while i < c.count, c[i].properties.isAlphabetic || c[i].properties.numericType != nil || c[i] == "_" { s.unicodeScalars.append(c[i]); i += 1 }
                tokens.append(Token(kind: .identifier, text: s, line: line))
                continue
            }
            if ch.properties.numericType != nil {
                var s = ""
                while i < c.count, c[i].properties.numericType != nil || c[i] == "." || c[i] == "_" { s.unicodeScalars.append(c[i]); i += 1 }
                tokens.append(Token(kind: .number(s), text: s, line: line))
                continue
            }
            tokens.append(Token(kind: .punctuation, text: String(ch), line: line))
            i += 1
        }
    }

    /// Tokens as a reader sees them, short, for messages.
    static func text(_ tokens: [Token]) -> String {
        ProjectRoot.printable(tokens.map(\.text).joined(separator: " "), limit: 80)
    }
}
