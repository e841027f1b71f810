/// The lines of a text file as its own reader splits them: a line ends at CR LF, CR or LF (the
/// compiler's and Xcode's readers), and with `unicodeBreaks` also at NEL, LS and PS (YAML's,
/// as libyaml reads it). Swift's `split(separator: "\n")` splits none of a file saved with
/// Windows line ends (CR LF is one character): an xcconfig whose first line is a comment lost
/// every setting after it, and a check reading a scenario's lines read only its first.
public enum TextLines {
    public static func split(_ text: String, unicodeBreaks: Bool = false) -> [Substring] {
        var lines: [Substring] = []
        let scalars = text.unicodeScalars
        var start = scalars.startIndex, i = start
        while i < scalars.endIndex {
            let scalar = scalars[i]
            let ends = scalar == "\n" || scalar == "\r" || unicodeBreaks && (scalar.value == 0x85 || scalar.value == 0x2028 || scalar.value == 0x2029)
            guard ends else {
                i = scalars.index(after: i)
                continue
            }
            lines.append(text[start..<i])
            i = scalars.index(after: i)
            if scalar == "\r", i < scalars.endIndex, scalars[i] == "\n" { i = scalars.index(after: i) }
            start = i
        }
        lines.append(text[start..<scalars.endIndex])
        return lines
    }
}
