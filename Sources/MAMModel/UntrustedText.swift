/// Text that a child, a plugin, a project or an export wrote, made safe to print: nothing in it
/// may drive a terminal (escape sequences: OSC 52 sets the clipboard, others the title or the
/// screen), end or rewrite the line it is put on (CR, LF, U+2028/U+2029, NEL — GitHub's runner
/// ends a line at a lone CR, so a line-oriented CI log would read a forged workflow command), or
/// reorder what the reader sees (bidirectional overrides and isolates, U+202E "Trojan Source").
public enum UntrustedText {
    /// Whether `u` must not reach an output as itself: a control character (C0, DEL, C1), a
    /// line or paragraph separator, a bidirectional mark, embedding, override or isolate, or a
    /// byte-order mark.
    @inlinable
    public static func isUnsafe(_ u: Unicode.Scalar) -> Bool {
        let v = u.value
        if v < 0x20 || (0x7F...0x9F).contains(v) { return true }
        if v < 0x200E { return v == 0x061C }
        return v == 0x200E || v == 0x200F || (0x2028...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0xFEFF
    }

    /// Whether `s` holds nothing `escaped` would change.
    public static func isSafe(_ s: String, keepingLineBreaks: Bool = false) -> Bool {
        !s.unicodeScalars.contains { isUnsafe($0) && !(keepingLineBreaks && ($0 == "\n" || $0 == "\t")) }
    }

    /// `s` with every unsafe scalar written as a Swift escape (`\u{1B}`), so a reader sees what
    /// was there; `keepingLineBreaks` keeps LF and tab (a multi-line message of our own that
    /// quotes untrusted text inside it).
    public static func escaped(_ s: String, keepingLineBreaks: Bool = false) -> String {
        guard !isSafe(s, keepingLineBreaks: keepingLineBreaks) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            if isUnsafe(u) && !(keepingLineBreaks && (u == "\n" || u == "\t")) {
                out.append(contentsOf: "\\u{\(String(u.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(u)
            }
        }
        return String(out)
    }

    /// `s` as one line of a line-oriented output (a table on standard output, a warning, a CI
    /// log): every unsafe scalar escaped, line breaks and tabs too, so nothing an input holds
    /// can end the line it is put on and start one of its own (`::error::`, `##vso[`).
    @inlinable
    public static func line(_ s: String) -> String { escaped(s, keepingLineBreaks: false) }

    /// Lines a renderer built, one text per line, joined with line feeds: each line escaped as
    /// `line(_:)`, so the output has exactly as many lines as the renderer made — the one way a
    /// line-oriented output of mamsim is put together from what an input named.
    public static func lines(_ lines: [String]) -> String {
        lines.map(line).joined(separator: "\n")
    }

    /// The longest prefix of `s` whose UTF-8 is at most `bytes` long, cut between Unicode
    /// scalars (never inside one), with `…` when something was cut. Bounds count bytes: a
    /// letter with a million combining marks is one `Character` but megabytes of text.
    public static func prefix(_ s: String, utf8Bytes bytes: Int) -> String {
        guard s.utf8.count > bytes else { return s }
        let room = max(0, bytes - 3)  // "…" is three bytes
        var used = 0
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            let width = UTF8.width(u)
            guard used + width <= room else { break }
            used += width
            out.append(u)
        }
        return String(out) + "…"
    }

    /// `s` as the text of an XML or HTML document (an element's text or an attribute's
    /// value): markup characters as entities, line breaks and tabs as character references,
    /// and what XML 1.0 cannot carry at all (other controls, lone surrogates) as U+FFFD.
    public static func xml(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            case "\t": out += "&#9;"
            // Characters XML 1.0 cannot carry at all.
            default:
                if scalar.value < 0x20 || (0xD800...0xDFFF).contains(scalar.value) || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
