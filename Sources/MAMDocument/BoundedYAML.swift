import MAMActivation
public import Yams

/// YAML as every file mamsim reads is composed: a document whose aliases would expand it past
/// a bound (nodes or nesting) is refused at the alias, before anything walks it. Composing
/// shares an anchored node among its aliases, but every reader after it (keys, lint, the
/// constructor of plain values) walks the expansion: a kilobyte of nested aliases is billions
/// of nodes.
public enum BoundedYAML {
    /// Far above any real scenario, XcodeGen spec or lint configuration (thousands of nodes).
    public static let maximumNodes = 200_000
    public static let maximumDepth = 256
    /// Booleans and nulls resolved; numbers, timestamps and the rest stay strings.
    public static let plainValues = Resolver.basic.appending(.bool).appending(.null)

    /// Why a document was refused, at the alias (or node) where it went past the bound.
    /// Its words name the file's line and column only, never its text.
    public struct TooLarge: Error, Sendable, CustomStringConvertible {
        public let line: Int
        public let column: Int
        public let problem: String
        public var description: String { "line \(line), column \(column): \(problem)" }
    }

    /// `Yams.compose(yaml:)`, then the bounds: throws `YamlError` for bad YAML and `TooLarge`
    /// for a document that expands past them.
    ///
    /// A long document may hold more nodes than `maximumNodes` without an alias (a tenant's
    /// ten thousand personas): the bound is never below one node per two bytes written, which
    /// no alias-free document exceeds and every alias bomb does, by orders of magnitude.
    ///
    /// `resolver`: the implicit tags resolved (each plain scalar is matched against every rule's
    /// expression); a reader that asks only booleans and nulls of its scalars passes
    /// `plainValues`, a tenant's personas file reads in a fraction of the time.
    public static func compose(yaml text: String, resolver: Resolver = .default) throws -> Node? {
        // Keys that are aliases are hashed whole while composing (duplicate keys are checked
        // then), so their expansion is refused before Yams sees them.
        try checkAliasKeys(text)
        guard let node = try Yams.compose(yaml: text, resolver) else { return nil }
        try check(node, text: text, maximumNodes: max(maximumNodes, text.utf8.count / 2))
        return node
    }

    /// The plain values of `text` (`[String: Any]`, `[Any]`, scalars), bounded as `compose`.
    public static func load(yaml text: String) throws -> Any? {
        try compose(yaml: text)?.any
    }

    /// A key written twice in one mapping, where the first was (line and column, 1-based).
    public struct DuplicateKey: Sendable, Hashable {
        public let key: String
        public let line: Int
        public let column: Int
    }

    /// `compose`, a key written twice in one mapping read as XcodeGen reads it — the last one
    /// counts — instead of refused; each earlier one is returned, so a reader can say so.
    /// The earlier key is renamed in the text where Yams marks it (by a name drawn for this
    /// call, so no document can hold it) and its pair dropped from the composed mapping.
    public static func composeKeepingLastOfDuplicateKeys(yaml text: String, resolver: Resolver = .default) throws -> (Node?, [DuplicateKey]) {
        let mark = "mamsim-earlier-" + String(UInt64.random(in: .min ... .max), radix: 36) + "-"
        var lines = Self.lines(text).map { Array($0.unicodeScalars) }
        var found: [DuplicateKey] = []
        // Each round renames one key; a document has at most one duplicate per key per mapping.
        for _ in 0...4096 {
            do {
                let node = try compose(yaml: lines.map { String(String.UnicodeScalarView($0)) }.joined(separator: "\n"), resolver: resolver)
                return (node.map { dropping(prefix: mark, from: $0) }, found)
            } catch YamlError.duplicatedKeysInMapping(let duplicates, let context) {
                let (line, column) = (context.mark.line, context.mark.column)
                guard line >= 1, line <= lines.count, column >= 1, column <= lines[line - 1].count else { throw YamlError.duplicatedKeysInMapping(duplicates: duplicates, context: context) }
                // Inside a quoted key the name starts after its quote.
                let quoted = lines[line - 1][column - 1] == "\"" || lines[line - 1][column - 1] == "'"
                lines[line - 1].insert(contentsOf: mark.unicodeScalars, at: column - 1 + (quoted ? 1 : 0))
                found.append(DuplicateKey(key: duplicates.first ?? "", line: line, column: column))
            }
        }
        throw TooLarge(line: 1, column: 1, problem: "more than 4,096 keys are written twice; write each once")
    }

    /// `node` without the mapping pairs whose key starts with `prefix`.
    static func dropping(prefix: String, from node: Node) -> Node {
        switch node {
        case .mapping(var mapping):
            let kept = mapping.compactMap { k, v -> (Node, Node)? in
                (k.string?.hasPrefix(prefix) ?? false) ? nil : (dropping(prefix: prefix, from: k), dropping(prefix: prefix, from: v))
            }
            mapping = Node.Mapping(kept, mapping.tag, mapping.style, mapping.mark, mapping.anchor)
            return .mapping(mapping)
        case .sequence(var sequence):
            sequence = Node.Sequence(sequence.map { dropping(prefix: prefix, from: $0) }, sequence.tag, sequence.style, sequence.mark, sequence.anchor)
            return .sequence(sequence)
        default:
            return node
        }
    }

    /// Throws `TooLarge` when `node`, aliases expanded, has more than `maximumNodes` nodes or
    /// nests deeper than `maximumDepth`.
    public static func check(_ node: Node, text: String, maximumNodes: Int = BoundedYAML.maximumNodes) throws {
        var walk = Walk(maximumNodes: maximumNodes)
        let (size, depth) = walk.measure(node)
        guard size > maximumNodes || depth > maximumDepth else { return }
        throw walk.culprit(node, text: text, tooDeep: depth > maximumDepth)
    }

    /// The lines of `text` as the YAML parser counts them: a line ends at CR LF, CR, LF, NEL,
    /// LS or PS (libyaml's breaks).
    public static func lines(_ text: String) -> [Substring] { TextLines.split(text, unicodeBreaks: true) }

    /// An alias used as a mapping key (`? *a` or `*a :`): refused where it is written.
    static func checkAliasKeys(_ text: String) throws {
        var lineNumber = 0
        for line in Self.lines(text) {
            lineNumber += 1
            let trimmed = line.drop { $0 == " " || $0 == "-" || $0 == "\t" }
            guard trimmed.hasPrefix("*") || trimmed.hasPrefix("? *") || trimmed.hasPrefix("{*") || trimmed.hasPrefix("{ *") else { continue }
            let afterStar = trimmed.drop { $0 != "*" }.dropFirst()
            let name = afterStar.prefix { !" \t,:]}".contains($0) }
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else { continue }
            let rest = afterStar.dropFirst(name.count).drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("? *") || rest.hasPrefix(":") {
                let column = line.distance(from: line.startIndex, to: line.firstIndex(of: "*") ?? line.startIndex) + 1
                throw TooLarge(line: lineNumber, column: column, problem: "the alias *\(name) is a mapping key; write the key out (mamsim reads no alias as a key)")
            }
        }
    }

    /// Composed aliases are the anchored node itself, at the anchor's position: a collection
    /// met again at the same position is an alias, so its expansion is measured once.
    struct Walk {
        struct Key: Hashable {
            let isMapping: Bool
            let line: Int
            let column: Int
        }
        var measured: [Key: (size: Int, depth: Int)] = [:]
        let maximumNodes: Int

        static func key(_ node: Node) -> Key? {
            guard let mark = node.mark else { return nil }
            switch node {
            case .mapping: return Key(isMapping: true, line: mark.line, column: mark.column)
            case .sequence: return Key(isMapping: false, line: mark.line, column: mark.column)
            default: return nil
            }
        }

        /// Nodes and depth of `node` expanded, each distinct collection counted once (capped,
        /// so a bomb's sums cannot overflow).
        mutating func measure(_ node: Node, level: Int = 0) -> (size: Int, depth: Int) {
            let key = Self.key(node)
            if let key, let known = measured[key] { return known }
            var size = 1, depth = 0
            // Deeper than the bound is refused; nothing deeper is walked.
            if level <= BoundedYAML.maximumDepth {
                func add(_ child: Node) {
                    let m = measure(child, level: level + 1)
                    size = min(size + m.size, Int.max / 4)
                    depth = max(depth, m.depth + 1)
                }
                switch node {
                case .mapping(let mapping): for (k, v) in mapping { add(k); add(v) }
                case .sequence(let sequence): for element in sequence { add(element) }
                default: break
                }
            } else {
                depth = BoundedYAML.maximumDepth + 1
            }
            if let key { measured[key] = (size, depth) }
            return (size, depth)
        }

        /// Where the document goes past the bound: the alias written in the text whose
        /// expansion crosses it (its anchor found at the anchored node's position), else the
        /// node where nesting or counting crossed it.
        func culprit(_ root: Node, text: String, tooDeep: Bool) -> TooLarge {
            let lines = BoundedYAML.lines(text)
            var seen = Set<Key>()
            var written: [String: Int] = [:]
            var total = 0
            var found: TooLarge?
            let bound = tooDeep ? "nests deeper than \(BoundedYAML.maximumDepth) levels" : "expands past \(maximumNodes) nodes"
            func visit(_ node: Node, level: Int) {
                guard found == nil else { return }
                if let key = Self.key(node), !seen.insert(key).inserted {
                    let m = measured[key] ?? (1, 0)
                    total += m.size
                    guard let anchor = BoundedYAML.anchorName(before: key.line, key.column, in: lines) else { return }
                    written[anchor, default: 0] += 1
                    if tooDeep ? level + m.depth > BoundedYAML.maximumDepth : total > maximumNodes,
                       let (line, column) = BoundedYAML.position(ofAlias: anchor, occurrence: written[anchor]!, in: text) {
                        found = TooLarge(line: line, column: column, problem: "the document \(bound) once its aliases are expanded (here *\(anchor)); write the repeated part out or drop the alias")
                    }
                    return
                }
                total += 1
                if level > BoundedYAML.maximumDepth || !tooDeep && total > maximumNodes {
                    found = TooLarge(line: node.mark?.line ?? 1, column: node.mark?.column ?? 1, problem: "the document \(bound); split it or simplify it")
                    return
                }
                switch node {
                case .mapping(let mapping): for (k, v) in mapping { visit(k, level: level + 1); visit(v, level: level + 1) }
                case .sequence(let sequence): for element in sequence { visit(element, level: level + 1) }
                default: break
                }
            }
            visit(root, level: 0)
            return found ?? TooLarge(line: 1, column: 1, problem: "the document \(bound) once its aliases are expanded; write the repeated parts out")
        }
    }

    /// The name of the anchor (`&name`) at position `line`:`column` (1-based, where Yams marks
    /// the anchored node), or written just before it, on its line or the line above.
    static func anchorName(before line: Int, _ column: Int, in lines: [Substring]) -> String? {
        func last(in text: Substring) -> String? {
            guard let amp = text.lastIndex(of: "&") else { return nil }
            let name = text[text.index(after: amp)...].prefix { !" \t,[]{}".contains($0) }
            return name.isEmpty ? nil : String(name)
        }
        guard line >= 1, line <= lines.count else { return nil }
        let here = lines[line - 1]
        // Yams marks an anchored collection at its `&`.
        let at = here.dropFirst(max(0, column - 1))
        if at.hasPrefix("&") {
            let name = at.dropFirst().prefix { !" \t,[]{}".contains($0) }
            if !name.isEmpty { return String(name) }
        }
        let upTo = here.prefix(max(0, column))
        if let name = last(in: upTo) { return name }
        return line >= 2 ? last(in: lines[line - 2]) : nil
    }

    /// Line and column (1-based) of the `occurrence`-th `*anchor` written in `text`.
    static func position(ofAlias anchor: String, occurrence: Int, in text: String) -> (Int, Int)? {
        var seen = 0
        var lineNumber = 0
        let name = Array(anchor.utf8)
        for line in Self.lines(text) {
            lineNumber += 1
            let bytes = Array(line.utf8)
            var i = 0
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "*"), i + 1 + name.count <= bytes.count, Array(bytes[(i + 1)..<(i + 1 + name.count)]) == name {
                    let end = i + 1 + name.count
                    let boundary = end == bytes.count || " \t,]}:\r".utf8.contains(bytes[end])
                    if boundary {
                        seen += 1
                        if seen == occurrence { return (lineNumber, i + 1) }
                    }
                }
                i += 1
            }
        }
        return nil
    }
}
