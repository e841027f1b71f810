public import Foundation
import MAMActivation
package import Yams

/// One problem (or warning) found in a scenario file, located like a compiler diagnostic:
/// the file as the user named it, the line and column, the key path inside the document
/// (`steps[3].share.from`, list indices from 0) and a sentence saying what is wrong and
/// what to do.
public struct ScenarioDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The scenario file the problem is in.
    public var file: URL
    /// 1-based; 0 when the problem has no position (an unreadable file).
    public var line: Int
    /// 1-based; 0 when the problem has no position.
    public var column: Int
    /// Dotted key path of the offending value, empty for the document as a whole.
    public var keyPath: String
    public var message: String

    public init(file: URL, line: Int, column: Int, keyPath: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.message = message
    }

    /// The file as it was given to the loader (relative paths stay relative).
    public var displayPath: String { file.relativePath }

    /// `fleet.yaml:14:5: steps[3].share.from: no app or extension with id "mial"; did you mean "mail"?`
    public var description: String {
        var out = displayPath
        if line > 0 { out += ":\(line):\(column)" }
        out += ": "
        if !keyPath.isEmpty { out += keyPath + ": " }
        return out + message
    }
}

/// Why a scenario file could not be loaded: every problem validation found, in document
/// order. Nothing of a scenario runs unless it loads without one.
///
/// The first problem is exposed directly (`file`, `line`, `column`, `keyPath`, `message`);
/// `description` lists all of them, one per line.
public struct ScenarioError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Never empty.
    public var problems: [ScenarioDiagnostic]

    public init(problems: [ScenarioDiagnostic]) {
        precondition(!problems.isEmpty, "a ScenarioError carries at least one problem")
        self.problems = problems
    }

    public init(file: URL, line: Int = 0, column: Int = 0, keyPath: String = "", message: String) {
        self.init(problems: [ScenarioDiagnostic(file: file, line: line, column: column, keyPath: keyPath, message: message)])
    }

    public var first: ScenarioDiagnostic { problems[0] }
    public var file: URL { first.file }
    public var line: Int { first.line }
    public var column: Int { first.column }
    public var keyPath: String { first.keyPath }
    public var message: String { first.message }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

extension ScenarioError {
    /// What a YAML parser's words about indentation mean for a scenario, in ours.
    private static func indentationHint(_ detail: String, line: Int, file: URL) -> String {
        let text = (InputFile.text(of: file)) ?? ""
        let lines = BoundedYAML.lines(text)
        let bad = line >= 1 && line <= lines.count ? lines[line - 1] : ""
        if bad.prefix(while: { $0 == " " || $0 == "\t" }).contains("\t") || detail.contains("cannot start any token") && bad.hasPrefix("\t") {
            return " (line \(line) is indented with a tab; YAML indents with spaces only)"
        }
        if detail.contains("expected '-' indicator") || detail.contains("did not find expected key") || detail.contains("mapping values are not allowed") {
            return " (line \(line) is indented differently from the lines around it: the keys of one list item line up under the first key after its `- `, and a new item starts with `- ` at the list's indentation)"
        }
        return ""
    }

    /// A YAML parser's error as a located problem: its line and column, and the indentation
    /// mistake it most likely is, in our words.
    package static func syntax(_ error: YamlError, file: URL) -> ScenarioError {
        switch error {
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            let detail = context.map { "\(problem) \($0.text)" } ?? problem
            return ScenarioError(file: file, line: mark.line, column: mark.column,
                                 message: "not valid YAML or JSON: \(detail)" + indentationHint(detail, line: mark.line, file: file))
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ScenarioError(file: file, line: context.mark.line, column: context.mark.column,
                                 message: "key \(duplicates.map { "\"\($0)\"" }.joined(separator: ", ")) appears twice in one mapping; keep one")
        default:
            return ScenarioError(file: file, message: "not valid YAML or JSON: \(error)")
        }
    }
}
