import Foundation
import MAMActivation
import MAMBundle
import MAMDocument
import Yams

/// XcodeGen specs found by their content, whatever their name, and the files they include.
extension ProjectLinter {
    /// An XcodeGen spec named as the project: `project.yml` (or `.yaml`).
    /// An XcodeGen spec, by its name (`project.yml`) or, whatever its name (`project-bwa.yml`),
    /// by its content: XcodeGen's root spec has a top-level `name:` and `targets:` (an included
    /// file of targets alone has no `name:`; a workflow has `jobs:`).
    static func isXcodeGenSpec(_ url: URL) -> Bool {
        if ["project.yml", "project.yaml"].contains(url.lastPathComponent) { return true }
        guard ["yml", "yaml"].contains(url.pathExtension.lowercased()),
              let handle = FileHandle(forReadingAtPath: url.path) else { return false }
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: 1 << 20)) ?? Data(), as: UTF8.self)
        var name = false, targets = false
        for line in TextLines.split(head) {
            if line.hasPrefix("name:") { name = true }
            if line.hasPrefix("targets:") { targets = true }
        }
        return name && targets
    }

    /// The specs `specs` include (`include:` at their top, and what those include in turn), which
    /// are parts of a spec, not specs: XcodeGen generates a project from a root spec and what it
    /// includes only. Read as XcodeGen reads YAML (a key written twice: the last counts).
    static func included(by specs: [URL]) -> Set<String> {
        var out = Set<String>()
        var pending = specs.map(\.standardizedFileURL)
        var read = Set<String>()
        while let spec = pending.popLast() {
            guard read.insert(spec.path).inserted, read.count <= 4096, let text = InputFile.text(of: spec),
                  let top = (try? BoundedYAML.composeKeepingLastOfDuplicateKeys(yaml: text))?.0?.any as? [String: Any] else { continue }
            let includes: [Any] = (top["include"] as? [Any]) ?? (top["include"].map { [$0] } ?? [])
            for include in includes {
                guard let path = (include as? String) ?? ((include as? [String: Any])?["path"] as? String) else { continue }
                let target = spec.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
                out.insert(target.path)
                pending.append(target)
            }
        }
        return out
    }
}
