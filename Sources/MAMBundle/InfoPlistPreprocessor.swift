package import Foundation
import MAMActivation

/// The C preprocessor pass Xcode runs over an Info.plist when `INFOPLIST_PREPROCESS = YES`
/// (traditional mode: no comment stripping, so `https://` survives): `#define`/`#undef`,
/// `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif` with `defined`, `!`, `&&`, `||`, `==`, `!=`
/// and integers, `#include "file"`, and whole-word macro replacement. Every input line gives
/// exactly one output line (a directive or a skipped line becomes empty), so findings keep the
/// file's line numbers.
package struct InfoPlistPreprocessor {
    struct Problem: Hashable {
        var line: Int
        var problem: String
        var fix: String
    }

    package var definitions: [String: String]
    let folder: URL
    private(set) var problems: [Problem] = []

    package init(definitions: [String: String], folder: URL) {
        self.definitions = definitions
        self.folder = folder
    }

    static let directives: Set<String> = ["if", "ifdef", "ifndef", "elif", "else", "endif", "define", "undef", "include", "import", "error", "warning", "pragma"]

    /// Whether some line is a preprocessor directive (a plist never starts a line with `#`).
    package static func hasDirectives(_ text: String) -> Bool {
        TextLines.split(text).contains { directive(in: $0) != nil }
    }

    static func directive(in line: Substring) -> (name: String, rest: Substring)? {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard trimmed.first == "#" else { return nil }
        let body = trimmed.dropFirst().drop { $0 == " " || $0 == "\t" }
        let name = body.prefix { $0.isLetter }
        guard directives.contains(String(name)) else { return nil }
        return (String(name), body.dropFirst(name.count).drop { $0 == " " || $0 == "\t" })
    }

    /// `FOO=1 BAR "NAME=two words"` as written in `INFOPLIST_PREPROCESSOR_DEFINITIONS`.
    package static func definitions(from setting: String) -> [String: String] {
        var out: [String: String] = [:]
        for word in BuildSettings.words(setting) {
            let parts = word.split(separator: "=", maxSplits: 1)
            guard let name = parts.first, !name.isEmpty else { continue }
            out[String(name)] = parts.count > 1 ? String(parts[1]) : "1"
        }
        return out
    }

    private struct Frame {
        var parentActive: Bool
        var active: Bool
        var taken: Bool
    }

    /// Whether an `#if`, `#ifdef` or `#ifndef` holds.
    mutating func condition(_ name: String, _ rest: Substring, line number: Int) -> Bool {
        let word = String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        switch name {
        case "ifdef": return definitions[word] != nil
        case "ifndef": return definitions[word] == nil
        default: return evaluate(String(rest), line: number)
        }
    }

    /// An `#include` (or `#import`) processed, on one line; `nil`, with a problem, when it
    /// cannot be read. Only a file beside the Info.plist (or below it) is read: the included
    /// text ends up in findings, so a path out of the project would print any file.
    mutating func include(_ rest: Substring, line number: Int, depth: Int) -> String? {
        let path = rest.trimmingWhitespace.trimmingCharacters(in: CharacterSet(charactersIn: "\"<>"))
        let target = folder.appendingPathComponent(path)
        guard depth < 16, ProjectRoot.contains(folder, target), let included = InputFile.text(of: target) else {
            problems.append(Problem(line: number, problem: "#include \(path) cannot be read from \(folder.lastPathComponent)/",
                                    fix: "keep the included file beside the Info.plist"))
            return nil
        }
        return process(included, depth: depth + 1).replacingOccurrences(of: "\n", with: " ")
    }

    package mutating func process(_ text: String, depth: Int = 0) -> String {
        var output: [String] = []
        var stack: [Frame] = []
        var active: Bool { stack.last?.active ?? true }
        for (index, line) in TextLines.split(text).enumerated() {
            let number = index + 1
            guard let (name, rest) = Self.directive(in: line) else {
                output.append(active ? substitute(String(line)) : "")
                continue
            }
            output.append("")
            switch name {
            case "if", "ifdef", "ifndef":
                let parent = active
                let value = parent && condition(name, rest, line: number)
                stack.append(Frame(parentActive: parent, active: parent && value, taken: parent && value))
            case "elif", "else":
                guard var frame = stack.popLast() else {
                    problems.append(Problem(line: number, problem: "#\(name) without #if", fix: "remove it or add the #if"))
                    continue
                }
                let value = name == "else" ? true : (frame.parentActive && !frame.taken && evaluate(String(rest), line: number))
                frame.active = frame.parentActive && !frame.taken && value
                frame.taken = frame.taken || frame.active
                stack.append(frame)
            case "endif":
                if stack.popLast() == nil {
                    problems.append(Problem(line: number, problem: "#endif without #if", fix: "remove it or add the #if"))
                }
            case "define" where active:
                let word = String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
                guard !word.isEmpty else { continue }
                definitions[word] = rest.dropFirst(word.count).trimmingWhitespace
            case "undef" where active:
                definitions.removeValue(forKey: String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
            case "include" where active, "import" where active:
                // The included text lands on this one line so the lines after keep their numbers.
                if let included = include(rest, line: number, depth: depth) { output[output.count - 1] = included }
            default:
                continue
            }
        }
        if !stack.isEmpty {
            problems.append(Problem(line: output.count, problem: "\(stack.count) #if block(s) are not closed", fix: "add #endif"))
        }
        return output.joined(separator: "\n")
    }

    /// Replaces each whole-word macro name by its value (once; values are not rescanned).
    private func substitute(_ line: String) -> String {
        guard !definitions.isEmpty, line.contains(where: { $0.isLetter || $0 == "_" }) else { return line }
        var out = ""
        var word = ""
        func flush() {
            out += definitions[word] ?? word
            word = ""
        }
        for c in line {
            if c.isLetter || c.isNumber || c == "_" {
                if word.isEmpty, c.isNumber { out.append(c); continue }
                word.append(c)
            } else {
                flush()
                out.append(c)
            }
        }
        flush()
        return out
    }

    // MARK: #if expressions

    private mutating func evaluate(_ expression: String, line: Int) -> Bool {
        var parser = ExpressionParser(tokens: ExpressionParser.tokens(expression), definitions: definitions)
        guard let value = parser.parseOr(), parser.atEnd else {
            problems.append(Problem(line: line, problem: "#if \(expression) cannot be evaluated", fix: "use defined(NAME), !, &&, ||, == or != with integers"))
            return false
        }
        return value != 0
    }
}

/// `||` over `&&` over `==`/`!=` over `!` and primaries (integers, names, `defined`, parentheses).
private struct ExpressionParser {
    var tokens: [String]
    let definitions: [String: String]
    var position = 0
    var depth = 0

    var atEnd: Bool { position == tokens.count }

    static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var chars = Substring(text)
        while let c = chars.first {
            if c == " " || c == "\t" { chars = chars.dropFirst(); continue }
            if c.isLetter || c.isNumber || c == "_" {
                let word = chars.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                tokens.append(String(word)); chars = chars.dropFirst(word.count); continue
            }
            let two = String(chars.prefix(2))
            if ["&&", "||", "==", "!="].contains(two) { tokens.append(two); chars = chars.dropFirst(2); continue }
            tokens.append(String(c)); chars = chars.dropFirst()
        }
        return tokens
    }

    mutating func next() -> String? {
        guard position < tokens.count else { return nil }
        defer { position += 1 }
        return tokens[position]
    }

    func peek() -> String? { position < tokens.count ? tokens[position] : nil }

    mutating func parseOr() -> Int? {
        guard var value = parseAnd() else { return nil }
        while peek() == "||" { _ = next(); guard let rhs = parseAnd() else { return nil }; value = (value != 0 || rhs != 0) ? 1 : 0 }
        return value
    }

    mutating func parseAnd() -> Int? {
        guard var value = parseEquality() else { return nil }
        while peek() == "&&" { _ = next(); guard let rhs = parseEquality() else { return nil }; value = (value != 0 && rhs != 0) ? 1 : 0 }
        return value
    }

    mutating func parseEquality() -> Int? {
        guard var value = parseUnary() else { return nil }
        while let op = peek(), op == "==" || op == "!=" {
            _ = next()
            guard let rhs = parseUnary() else { return nil }
            value = ((value == rhs) == (op == "==")) ? 1 : 0
        }
        return value
    }

    mutating func parseUnary() -> Int? {
        depth += 1
        defer { depth -= 1 }
        guard depth < 64 else { return nil }
        if peek() == "!" { _ = next(); return parseUnary().map { $0 == 0 ? 1 : 0 } }
        return parsePrimary()
    }

    mutating func parsePrimary() -> Int? {
        guard let token = next() else { return nil }
        if token == "(" {
            guard let value = parseOr(), next() == ")" else { return nil }
            return value
        }
        if token == "defined" {
            let parenthesised = peek() == "("
            if parenthesised { _ = next() }
            guard let name = next() else { return nil }
            if parenthesised, next() != ")" { return nil }
            return definitions[name] != nil ? 1 : 0
        }
        if let number = Int(token) { return number }
        guard token.first.map({ $0.isLetter || $0 == "_" }) == true else { return nil }
        // An undefined name is 0; a defined one is its value when that is an integer.
        return definitions[token].map { Int($0.trimmingCharacters(in: .whitespaces)) ?? 1 } ?? 0
    }
}
