import Foundation

// Where things are, for the judge of a sandbox declaration: a project's root (its git
// repository, else its folder), interpreters' installations as the PATH finds them (a pyenv, an
// nvm, a venv), and whether a path lies inside one.
extension SandboxDeclarations {
    // MARK: Where things are

    static func projectRoot(of folder: String, home: String?) -> String {
        var candidate = folder
        while candidate != "/" && candidate != home {
            if FileManager.default.fileExists(atPath: candidate + "/.git") { return candidate }
            candidate = (candidate as NSString).deletingLastPathComponent
        }
        return folder
    }

    /// The installations of the interpreters this machine runs (as the PATH finds them, links
    /// resolved) and of the version managers behind them: `PREFIX` of `PREFIX/bin/python3`,
    /// `PYENV_ROOT` when the PATH goes through its shims, an active virtual environment. Never
    /// `/`, `/usr` (already readable), the home folder, or a folder `sensitive` names.
    static func interpreterRoots(environment: [String: String], home: String?) -> [(path: String, name: String)] {
        var roots: [(String, String)] = []
        func add(_ path: String, _ name: String) {
            let p = real(path)
            guard p != "/", p != "/usr", p != "/usr/local", p != home, !(home.map { isInside($0, p) } ?? false),
                  sensitive(p, home: home) == nil || interpreterFolders.contains((p as NSString).lastPathComponent) || isInsideInterpreterFolder(p, home: home),
                  FileManager.default.fileExists(atPath: p) else { return }
            if !roots.contains(where: { $0.0 == p }) { roots.append((p, name)) }
        }
        let names = ["python3", "python", "node", "ruby", "perl", "php", "lua", "deno", "bun", "java"]
        for dir in (environment["PATH"] ?? "").split(separator: ":").map(String.init) where dir.hasPrefix("/") {
            for name in names {
                let candidate = dir + "/" + name
                guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
                let binary = real(candidate)
                let bin = (binary as NSString).deletingLastPathComponent
                if (bin as NSString).lastPathComponent == "bin" { add((bin as NSString).deletingLastPathComponent, name) }
                // A version manager's shim (~/.pyenv/shims/python3) runs the manager first.
                if (dir as NSString).lastPathComponent == "shims" { add((dir as NSString).deletingLastPathComponent, "\(name)'s version manager") }
            }
        }
        for (variable, name) in [("PYENV_ROOT", "pyenv"), ("VIRTUAL_ENV", "the active virtual environment"), ("NVM_DIR", "nvm"), ("CONDA_PREFIX", "conda")] {
            guard let value = environment[variable], value.hasPrefix("/") else { continue }
            // Only when an interpreter found on the PATH lies in it: a variable alone grants nothing.
            let p = real(value)
            if roots.contains(where: { isInside($0.0, p) }) || variable == "VIRTUAL_ENV" && FileManager.default.fileExists(atPath: p + "/pyvenv.cfg") {
                add(p, name)
            }
        }
        return roots
    }

    static func isInsideInterpreterFolder(_ p: String, home: String?) -> Bool {
        guard let home, isInside(p, home), p != home else { return false }
        let first = p.dropFirst(home.count + 1).split(separator: "/").first.map(String.init) ?? ""
        return interpreterFolders.contains(first)
    }
}
