import Foundation

/// Where each `<key>` of a plist's text is, and where each line starts: built once per file in
/// one pass, so locating the line of many findings stays linear in the file's size.
struct KeyLineIndex {
    let text: String
    /// Byte offsets (UTF-8) of each `<key>NAME</key>`, by NAME.
    private var keys: [Substring: [Int]] = [:]
    private var lineStarts: [Int] = [0]

    init(_ text: String) {
        self.text = text
        let utf8 = Array(text.utf8)
        let open = Array("<key>".utf8), close = Array("</key>".utf8)
        var i = 0
        while i < utf8.count {
            let b = utf8[i]
            if b == UInt8(ascii: "\n") {
                lineStarts.append(i + 1)
            } else if b == UInt8(ascii: "<"), utf8[i...].starts(with: open) {
                let nameStart = i + open.count
                var j = nameStart
                while j < utf8.count, utf8[j] != UInt8(ascii: "<") { j += 1 }
                if utf8[j...].starts(with: close) {
                    let name = Substring(String(decoding: utf8[nameStart..<j], as: UTF8.self))
                    keys[name, default: []].append(i)
                    i = j + close.count
                    continue
                }
            }
            i += 1
        }
    }

    private func lineNumber(ofOffset offset: Int) -> Int {
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        return lo + 1
    }

    /// The line of the last key of `keyPath` that appears exactly once in the file (for an
    /// array element, the line of that `<string>`), walking up the path when a key repeats.
    func line(ofKeyPath keyPath: String) -> Int? {
        let path = keyPath.split(separator: ".").map { component -> Substring in
            component.firstIndex(of: "[").map { component[..<$0] } ?? component
        }
        for key in path.reversed() {
            guard let offsets = keys[key], offsets.count == 1 else { continue }
            let start = offsets[0]
            if key == path.last {
                let keyEnd = text.utf8.index(text.utf8.startIndex, offsetBy: start + "<key>\(key)</key>".utf8.count)
                if let element = BundleFolder.stringElement(of: keyPath, after: keyEnd, in: text) {
                    return lineNumber(ofOffset: text.utf8.distance(from: text.utf8.startIndex, to: element))
                }
            }
            return lineNumber(ofOffset: start)
        }
        return nil
    }
}
