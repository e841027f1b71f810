import Foundation

/// A bounded walk of a folder that follows no link, for the sandbox's judges: each entry in
/// the order Foundation's enumerator gives it (each folder's entries as the file system lists
/// them, a folder's contents right after it), its kind read from the listing itself.
/// Foundation's enumerator and its resource values cost two stats and an extended-attribute
/// listing for every entry, and a scenario's load walks its whole project.
struct FolderWalk {
    enum Kind: Equatable { case folder, file, link }

    struct Entry {
        let path: String
        let name: String
        let kind: Kind
    }

    /// What the walk does after an entry.
    enum Next { case goOn, skipContents, stop }

    /// Walks what lies inside `root` (not `root` itself); `false` when it stopped at `budget`
    /// entries, `true` when it walked everything or `visit` said stop.
    @discardableResult
    static func walk(_ root: String, budget: Int, _ visit: (Entry) -> Next) -> Bool {
        var seen = 0
        var stopped = false
        func walk(_ folder: String) -> Bool {
            for (name, kind) in entries(of: folder) {
                seen += 1
                if seen > budget { return false }
                let entry = Entry(path: folder == "/" ? "/" + name : folder + "/" + name, name: name, kind: kind)
                switch visit(entry) {
                case .stop:
                    stopped = true
                    return true
                case .skipContents: continue
                case .goOn:
                    guard kind == .folder else { continue }
                    if !walk(entry.path) { return false }
                    if stopped { return true }
                }
            }
            return true
        }
        return walk(root)
    }

    /// The entries of `folder`, read whole before any is visited so that a deep walk holds
    /// one directory open at a time; none when it cannot be read.
    static func entries(of folder: String) -> [(String, Kind)] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var found: [(String, Kind)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            let kind: Kind
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_DIR): kind = .folder
            case Int32(DT_LNK): kind = .link
            case Int32(DT_UNKNOWN): kind = Self.kind(ofEntry: folder + "/" + name)
            default: kind = .file
            }
            found.append((name, kind))
        }
        return found
    }

    /// A file system that does not say an entry's type in its listing: asked of the entry itself.
    private static func kind(ofEntry path: String) -> Kind {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .file }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .folder
        case S_IFLNK: return .link
        default: return .file
        }
    }
}
