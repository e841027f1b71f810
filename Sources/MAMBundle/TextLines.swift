/// The lines of a project's text file as the compiler's and Xcode's readers split them: a line
/// ends at CR LF, CR or LF. Swift's `split(separator: "\n")` splits none of a file saved with
/// Windows line ends (CR LF is one character): an xcconfig whose first line is a comment
/// would lose every setting after it.
public enum TextLines {
    public static func split(_ text: String) -> [Substring] {
        var lines: [Substring] = []
        let scalars = text.unicodeScalars
        var start = scalars.startIndex, i = start
        while i < scalars.endIndex {
            let scalar = scalars[i]
            guard scalar == "\n" || scalar == "\r" else {
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
