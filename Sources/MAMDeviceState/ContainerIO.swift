import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File I/O inside a container that a child cannot redirect. A child may create links in its
/// own container, and swap a directory for a symbolic link between a check and a use; so
/// every path is walked one component at a time from the container's root with `openat` and
/// `O_NOFOLLOW` (a link anywhere is refused at the moment of use, not only when checked), and
/// a file that is reached is checked for what it is: a regular file with one link (a hard link
/// to another app's file would have two).
enum ContainerIO {
    enum Failure: Error, CustomStringConvertible {
        case notFound
        case link(String)
        case notRegular(String)
        case system(String, Int32)

        var description: String {
            switch self {
            case .notFound: "it does not exist"
            case .link(let part): "\"\(part)\" is a symbolic link"
            case .notRegular(let why): why
            case .system(let what, let e): "\(what) failed: \(String(cString: strerror(e)))"
            }
        }
    }

    /// The directory holding the last component, opened without following links; created on
    /// the way when `create`.
    private static func parentDirectory(root: URL, parts: [String], create: Bool) throws(Failure) -> Int32 {
        var dir = open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else { throw errno == ENOENT ? .notFound : .system("open \(root.lastPathComponent)", errno) }
        for part in parts.dropLast() {
            var next = openat(dir, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT, create {
                if mkdirat(dir, part, 0o755) != 0, errno != EEXIST {
                    let e = errno
                    close(dir)
                    throw .system("mkdir \(part)", e)
                }
                next = openat(dir, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            let e = errno
            close(dir)
            guard next >= 0 else {
                if e == ELOOP || e == ENOTDIR { throw .link(part) }
                throw e == ENOENT ? .notFound : .system("open \(part)", e)
            }
            dir = next
        }
        return dir
    }

    static func read(root: URL, parts: [String]) throws(Failure) -> [UInt8] {
        let dir = try parentDirectory(root: root, parts: parts, create: false)
        defer { close(dir) }
        let name = parts.last!
        let fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ELOOP { throw .link(name) }
            throw errno == ENOENT ? .notFound : .system("open \(name)", errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system("stat \(name)", errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notRegular("\"\(name)\" is not a regular file") }
        guard info.st_nlink == 1 else { throw .notRegular("\"\(name)\" has \(info.st_nlink) hard links; a container file has one") }
        var out: [UInt8] = []
        out.reserveCapacity(Int(info.st_size))
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; throw .system("read \(name)", errno) }
            if n == 0 { break }
            out.append(contentsOf: buffer[0..<n])
        }
        return out
    }

    /// Writes a new file and renames it over the old name: the old inode (whatever it was
    /// linked to) is never written through.
    static func write(root: URL, parts: [String], data: [UInt8]) throws(Failure) {
        let dir = try parentDirectory(root: root, parts: parts, create: true)
        defer { close(dir) }
        let name = parts.last!
        let temporary = ".\(name).mamsim-\(UInt32.random(in: 0...UInt32.max))"
        let fd = openat(dir, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .system("create \(name)", errno) }
        var written = 0
        while written < data.count {
            let n = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                let e = errno
                close(fd)
                unlinkat(dir, temporary, 0)
                throw .system("write \(name)", e)
            }
            written += n
        }
        close(fd)
        guard renameat(dir, temporary, dir, name) == 0 else {
            let e = errno
            unlinkat(dir, temporary, 0)
            throw .system("rename \(name)", e)
        }
    }

    /// Removes the file (a link is removed itself, never what it points to); gone already is fine.
    static func remove(root: URL, parts: [String]) throws(Failure) {
        let dir: Int32
        do { dir = try parentDirectory(root: root, parts: parts, create: false) } catch .notFound { return }
        defer { close(dir) }
        if unlinkat(dir, parts.last!, 0) != 0, errno != ENOENT { throw .system("remove \(parts.last!)", errno) }
    }
}
