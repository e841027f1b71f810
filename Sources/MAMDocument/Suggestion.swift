/// "Did you mean …?" for a misspelt key, id or account: the closest candidate by edit
/// distance, if it is close enough to be a plausible typo.
public enum Suggestion {
    /// The candidate nearest to `word` (case-insensitive Levenshtein distance), when that
    /// distance is at most a third of the word's length (and at least 2 edits are tolerated).
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let folded = Array(word.lowercased())
        var best: (String, Int)?
        for candidate in candidates {
            let d = distance(folded, Array(candidate.lowercased()))
            if best == nil || d < best!.1 { best = (candidate, d) }
        }
        guard let (candidate, d) = best else { return nil }
        let limit = max(2, folded.count / 3)
        if d <= limit && d < max(folded.count, 1) { return candidate }
        // A truncated name (`oneDrive` for `oneDriveForBusiness`) is far by edit distance.
        guard folded.count >= 3 else { return nil }
        let word = String(folded)
        return candidates.first { $0.lowercased().hasPrefix(word) }
    }

    /// `; did you mean "x"?` or the empty string.
    package static func clause(for word: String, among candidates: [String]) -> String {
        closest(to: word, among: candidates).map { "; did you mean \"\($0)\"?" } ?? ""
    }

    package static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
