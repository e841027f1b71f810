import MAMPolicy

/// PowerShell values of a Microsoft365DSC export, read without running PowerShell.
extension DSCExport {
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
                } else if DSCExport.reads(type), i < chars.count, chars[i].isLetter {
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
                guard DSCExport.reads(type) else {
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

        /// An `@( … )` list, its items separated by commas or new lines.
        mutating func list(at start: Int) throws(PolicyImportError) -> [Value] {
            try nest(at: start)
            defer { depth -= 1 }
            i += 2
            var items: [Value] = []
            while true {
                skipSpace()
                guard i < chars.count else { throw fail("a list @( is not closed with )") }
                if chars[i] == ")" { i += 1; return items }
                if chars[i] == "," { i += 1; continue }
                items.append(try value())
            }
        }

        /// A string from its opening `quote`: `"…"` with backtick escapes, `'…'` taken as
        /// written, a doubled quote inside either one quote.
        mutating func quoted(_ c: Character) throws(PolicyImportError) -> String {
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
                    return s
                }
                s.append(d)
                i += 1
            }
        }

        mutating func value() throws(PolicyImportError) -> Value {
            guard i < chars.count else { throw fail("the file ends where a value should be") }
            let c = chars[i], start = i
            if c == "\"" || c == "'" { return .string(try quoted(c)) }
            if c == "@", i + 1 < chars.count, chars[i + 1] == "(" { return .list(try list(at: start)) }
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
}
