import Foundation
import MAMDeclarations
import MAMDocument
import Yams

/// `declarations:` and `applyDeclarations` (SCENARIOS.md v1.1): Apple DDM declaration files, or
/// folders of them, read and checked when the scenario loads, so a bad declaration is a load
/// error naming the file, the key path and the fix.
extension Loading {
    /// `checkReferences`: the batch must stand on its own (the declarations a device starts
    /// with); a later batch may reference what the device already holds, checked when sent.
    func readDeclarationFiles(_ v: Located, checkReferences: Bool) -> (files: [String], entries: [DeclarationSet.Entry]) {
        guard let names = reader.strings(v, what: "declarations") else { return ([], []) }
        var urls: [URL] = []
        for name in names {
            let url = URL(fileURLWithPath: name, relativeTo: folder).standardizedFileURL
            guard FileManager.default.fileExists(atPath: url.path) else {
                reader.error(v, "\(name) does not exist (relative to \(folder.path)); name a declaration file or a folder of them")
                continue
            }
            urls.append(url)
            inputs.append(url)
        }
        do {
            let (entries, notes) = try DeclarationSet.read(urls, displayBase: folder)
            for n in notes { reader.warn(v, n.description) }
            if checkReferences { _ = try DeclarationSet().applying(entries) }
            return (names, entries)
        } catch {
            reader.error(v, error.description)
            return (names, [])
        }
    }

    /// A YAML value as property-list-like Swift values (for `{config: {...}}`).
    func plainValue(_ node: Node) -> Any {
        switch node {
        case .scalar(let s):
            guard s.style == .plain else { return s.string }
            if let b = node.bool { return b }
            if let i = node.int { return i }
            if let d = node.float { return d }
            return s.string
        case .sequence(let seq): return seq.map(plainValue)
        case .mapping(let m):
            var out: [String: Any] = [:]
            for (k, v) in m { out[k.scalar?.string ?? ""] = plainValue(v) }
            return out
        case .alias: return ""
        }
    }
}
