public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing a file mamsim was told to write — a report, a scenario, a policy template, an
/// extension's Info.plist — often inside a repository a pull request changed: never through a
/// link the repository commits (a victim file overwritten, a plist landing outside the
/// checkout), never over a folder, never removing what mamsim did not write.
///
/// The text goes to a new file beside its place (created exclusively, links not followed) and
/// is renamed over it when whole, so a reader never sees half a file under its name and a
/// failed write leaves what was there.
public final class OutputFile {
    public struct Refused: Error, Sendable, CustomStringConvertible {
        public let path: String
        public let why: String
        public var description: String { "cannot write \(path): \(why)" }
    }

    public let url: URL
    private let temporary: String
    private var descriptor: Int32
    private var committed = false

    /// Opens a new file for `url`, creating its missing folders. Each folder from `root` down
    /// (the current directory when `url` is under it, else `url`'s own folder) must be a real
    /// folder, not a link; `url`, if it exists, must be a regular file.
    public init(_ url: URL, within root: URL? = nil) throws(Refused) {
        let target = url.standardizedFileURL
        self.url = target
        let folder = target.deletingLastPathComponent()
        let base = (root ?? Self.defaultRoot(for: folder)).standardizedFileURL
        try Self.makeFolders(folder, from: base, for: target.path)
        try Self.checkTarget(target.path)
        var made: (String, Int32)?
        for _ in 0..<8 {
            let name = folder.appendingPathComponent(".\(target.lastPathComponent).\(UInt32.random(in: .min ... .max)).partial").path
            let fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd >= 0 { made = (name, fd); break }
            guard errno == EEXIST else { throw Refused(path: target.path, why: "its folder cannot be written (\(String(cString: strerror(errno))))") }
        }
        guard let (name, fd) = made else { throw Refused(path: target.path, why: "no new file could be made beside it") }
        temporary = name
        descriptor = fd
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !committed { unlink(temporary) }
    }

    public func write(_ data: Data) throws(Refused) {
        let failed: Int32? = data.withUnsafeBytes { raw -> Int32? in
            var offset = 0
            while offset < raw.count {
                let n = systemWrite(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 { if errno == EINTR { continue }; return errno }
                offset += n
            }
            return nil
        }
        if let failed { throw Refused(path: url.path, why: String(cString: strerror(failed))) }
    }

    /// Puts the file in its place: renamed over `url`, which is checked again first.
    public func commit() throws(Refused) {
        close(descriptor)
        descriptor = -1
        try Self.checkTarget(url.path)
        guard rename(temporary, url.path) == 0 else { throw Refused(path: url.path, why: String(cString: strerror(errno))) }
        committed = true
    }

    /// `data` written to `url` as `init`, `write` and `commit` do.
    public static func write(_ data: Data, to url: URL, within root: URL? = nil) throws(Refused) {
        let file = try OutputFile(url, within: root)
        try file.write(data)
        try file.commit()
    }

    private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, bytes, count)
        #else
        Darwin.write(fd, bytes, count)
        #endif
    }

    /// Where the folders of a file in `folder` are checked from: the current directory when
    /// `folder` is under it (a repository's checkout), else `folder` itself (a place the user
    /// named whole).
    public static func defaultRoot(for folder: URL) -> URL {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL
        let h = here.path.hasSuffix("/") ? here.path : here.path + "/"
        return folder.path == here.path || folder.path.hasPrefix(h) ? here : folder
    }

    /// Every folder from `base` to `folder` exists as a folder (made where missing) and none is
    /// a link; `base` itself, which the user named, is made as it is named when missing.
    static func makeFolders(_ folder: URL, from base: URL, for path: String) throws(Refused) {
        let b = base.path.hasSuffix("/") ? base.path : base.path + "/"
        let inside = folder.path == base.path || folder.path.hasPrefix(b)
        if inside, !FileManager.default.fileExists(atPath: base.path) {
            do { try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true) } catch {
                throw Refused(path: path, why: "its folder \(base.path) cannot be made (\(error.localizedDescription))")
            }
        }
        var current = inside ? base.path : "/"
        let rest = inside ? String(folder.path.dropFirst(min(folder.path.count, b.count))) : folder.path
        let parts = rest.split(separator: "/").map(String.init)
        for part in parts {
            current = current.hasSuffix("/") ? current + part : current + "/" + part
            var st = stat()
            if lstat(current, &st) != 0 {
                guard errno == ENOENT else { throw Refused(path: path, why: "\(current) cannot be read (\(String(cString: strerror(errno))))") }
                guard mkdir(current, 0o755) == 0 || errno == EEXIST else {
                    throw Refused(path: path, why: "its folder \(current) cannot be made (\(String(cString: strerror(errno))))")
                }
                continue
            }
            let kind = st.st_mode & S_IFMT
            // Outside `base` the user named the whole path: only what lies under it is checked.
            if kind == S_IFLNK, inside {
                throw Refused(path: path, why: "\(current) is a link; mamsim writes only into real folders — remove the link or name another place")
            }
            if kind != S_IFDIR, kind != S_IFLNK { throw Refused(path: path, why: "\(current) is not a folder") }
        }
    }

    static func checkTarget(_ path: String) throws(Refused) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFLNK: throw Refused(path: path, why: "it is a link; mamsim writes no file through a link — remove the link or name another file")
        case S_IFDIR: throw Refused(path: path, why: "it is a folder; name a file (mamsim removes nothing it did not write)")
        default: throw Refused(path: path, why: "it is not a regular file")
        }
    }
}
