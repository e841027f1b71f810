import Foundation
import MAMLoop
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
        case system(String, UVError)

        var description: String {
            switch self {
            case .notFound: "it does not exist"
            case .link(let part): "\"\(part)\" is a symbolic link"
            case .notRegular(let why): why
            case .system(let what, let e): "\(what) failed: \(e)"
            }
        }
    }

    /// The directory holding the last component, opened without following links; created on
    /// the way when `create`.
    private static func parentDirectory(root: URL, parts: [String], create: Bool) throws(Failure) -> Int32 {
        var dir: Int32
        do { dir = try System.openDirectory(root.path) } catch {
            throw error.code == -ENOENT ? .notFound : .system("open \(root.lastPathComponent)", error)
        }
        for part in parts.dropLast() {
            let parent = dir
            defer { System.close(parent) }
            do throws(UVError) {
                do {
                    dir = try System.openFile(at: parent, part, flags: O_RDONLY | O_DIRECTORY)
                } catch where error.code == -ENOENT && create {
                    try System.makeDirectory(at: parent, part)
                    dir = try System.openFile(at: parent, part, flags: O_RDONLY | O_DIRECTORY)
                }
            } catch {
                if error.code == -ELOOP || error.code == -ENOTDIR { throw .link(part) }
                throw error.code == -ENOENT ? .notFound : .system("open \(part)", error)
            }
        }
        return dir
    }

    static func read(root: URL, parts: [String]) throws(Failure) -> [UInt8] {
        let (fd, size) = try openChecked(root: root, parts: parts)
        defer { System.close(fd) }
        do { return try System.readAll(fd, sizeHint: size) } catch { throw .system("read \(parts.last!)", error) }
    }

    /// Whether the file could be read as `read` reads it (reached without a link, a regular
    /// file with one link), without reading its bytes: `notFound` where it is not there.
    static func check(root: URL, parts: [String]) throws(Failure) {
        let (fd, _) = try openChecked(root: root, parts: parts)
        System.close(fd)
    }

    /// The file opened for reading and checked for what it is, with its size.
    private static func openChecked(root: URL, parts: [String]) throws(Failure) -> (fd: Int32, size: Int) {
        let dir = try parentDirectory(root: root, parts: parts, create: false)
        defer { System.close(dir) }
        let name = parts.last!
        let fd: Int32
        do { fd = try System.openFile(at: dir, name, flags: O_RDONLY | O_NONBLOCK) } catch {
            if error.code == -ELOOP { throw .link(name) }
            throw error.code == -ENOENT ? .notFound : .system("open \(name)", error)
        }
        let info: (isRegular: Bool, links: UInt64, size: Int)
        do { info = try System.fileStatus(fd) } catch {
            System.close(fd)
            throw .system("stat \(name)", error)
        }
        guard info.isRegular, info.links == 1 else {
            System.close(fd)
            throw .notRegular(info.isRegular ? "\"\(name)\" has \(info.links) hard links; a container file has one" : "\"\(name)\" is not a regular file")
        }
        return (fd, info.size)
    }

    /// Writes a new file and renames it over the old name: the old inode (whatever it was
    /// linked to) is never written through.
    static func write(root: URL, parts: [String], data: [UInt8]) throws(Failure) {
        let dir = try parentDirectory(root: root, parts: parts, create: true)
        defer { System.close(dir) }
        let name = parts.last!
        let temporary = ".\(name).mamsim-\(UInt32.random(in: 0...UInt32.max))"
        let fd: Int32
        do { fd = try System.openFile(at: dir, temporary, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600) } catch {
            throw .system("create \(name)", error)
        }
        do throws(UVError) {
            defer { System.close(fd) }
            try System.writeAll(fd, data)
        } catch {
            try? System.unlink(at: dir, temporary)
            throw .system("write \(name)", error)
        }
        do { try System.rename(at: dir, temporary, to: name) } catch {
            try? System.unlink(at: dir, temporary)
            throw .system("rename \(name)", error)
        }
    }

    /// Removes the file (a link is removed itself, never what it points to); gone already is fine.
    static func remove(root: URL, parts: [String]) throws(Failure) {
        let dir: Int32
        do { dir = try parentDirectory(root: root, parts: parts, create: false) } catch .notFound { return }
        defer { System.close(dir) }
        do { try System.unlink(at: dir, parts.last!) } catch {
            if error.code != -ENOENT { throw .system("remove \(parts.last!)", error) }
        }
    }
}
