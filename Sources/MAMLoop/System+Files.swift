#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

// The file calls of containers and cgroups (System's "Files"): opened relative to a directory
// without following links, under the same policy for interrupted calls.
extension System {
    // MARK: - Files

    /// Opens a directory (following links: the caller names a path it trusts).
    public static func openDirectory(_ path: String) throws(UVError) -> Int32 {
        try descriptor(retryingInterrupts { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) })
    }

    /// Opens `name` in the directory `dir` without following a link (`ELOOP`, or `ENOTDIR`
    /// for a link to a directory where one is wanted). `flags` add to `O_NOFOLLOW | O_CLOEXEC`.
    public static func openFile(at dir: Int32, _ name: String, flags: Int32, mode: Int = 0) throws(UVError) -> Int32 {
        try descriptor(retryingInterrupts { openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC, mode_t(mode)) })
    }

    /// Makes the directory `name` in `dir`; one that exists already is not an error.
    public static func makeDirectory(at dir: Int32, _ name: String, mode: Int = 0o755) throws(UVError) {
        if mkdirat(dir, name, mode_t(mode)) != 0, errno != EEXIST { throw UVError(-errno) }
    }

    /// Makes the directory `path` (its parent must exist); `false` when it could not be made,
    /// `true` also when it exists already, unless `new` (then it must be this call's).
    @discardableResult
    public static func makeDirectory(_ path: String, mode: Int = 0o755, new: Bool = false) -> Bool {
        mkdir(path, mode_t(mode)) == 0 || (!new && errno == EEXIST)
    }

    /// Binds the folder `source` at `target` (Linux; the device's storage): `false` where not
    /// allowed.
    public static func bindMount(_ source: String, at target: String) -> Bool {
        #if os(Linux)
        return mount(source, target, nil, UInt(MS_BIND), nil) == 0
        #else
        return false
        #endif
    }

    /// Detaches the mount at `path` (lazily: a process still using it keeps it until it lets
    /// go); `true` when it is gone.
    @discardableResult
    public static func unmount(_ path: String) -> Bool {
        #if os(Linux)
        return umount2(path, Int32(MNT_DETACH)) == 0
        #else
        return false
        #endif
    }

    /// Whether something is mounted exactly at `path`.
    public static func isMountPoint(_ path: String) -> Bool { mountPoints().contains(path) }

    /// Where something is mounted, as `/proc/self/mountinfo` lists it (its octal escapes of a
    /// space, tab, newline and backslash undone); empty where there is no such file.
    public static func mountPoints() -> [String] {
        #if os(Linux)
        guard let bytes = try? readFile("/proc/self/mountinfo") else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 5)
            guard fields.count > 4 else { return nil }
            var point = String.UnicodeScalarView()
            var rest = fields[4].unicodeScalars[...]
            while let u = rest.popFirst() {
                if u == "\\", rest.count >= 3, let code = UInt32(String(String.UnicodeScalarView(rest.prefix(3))), radix: 8), let decoded = Unicode.Scalar(code) {
                    point.append(decoded)
                    rest = rest.dropFirst(3)
                } else {
                    point.append(u)
                }
            }
            return String(point)
        }
        #else
        return []
        #endif
    }

    /// Removes the empty directory `path`; `true` when it is gone (or was).
    @discardableResult
    public static func removeDirectory(_ path: String) -> Bool {
        rmdir(path) == 0 || errno == ENOENT
    }

    /// What `fd` is: whether a regular file, its link count and size.
    public static func fileStatus(_ fd: Int32) throws(UVError) -> (isRegular: Bool, links: UInt64, size: Int) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw UVError(-errno) }
        return ((info.st_mode & S_IFMT) == S_IFREG, UInt64(info.st_nlink), Int(info.st_size))
    }

    /// Reads `fd` to its end.
    public static func readAll(_ fd: Int32, sizeHint: Int = 0) throws(UVError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(sizeHint)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { b in retryingInterrupts { read(fd, b.baseAddress, b.count) } }
            if n < 0 { throw UVError(-errno) }
            if n == 0 { return out }
            out.append(contentsOf: buffer[0..<n])
        }
    }

    /// Opens (creating) a file for appending; the descriptor is not inherited by children.
    public static func openForAppending(_ path: String, mode: Int = 0o600) throws(UVError) -> Int32 {
        try descriptor(retryingInterrupts { open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, mode_t(mode)) })
    }

    /// Opens a file for reading.
    static func openForReading(_ path: String) throws(UVError) -> Int32 {
        try descriptor(retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC) })
    }

    /// The whole content of the file `path`.
    public static func readFile(_ path: String) throws(UVError) -> [UInt8] {
        let fd = try openForReading(path)
        defer { close(fd) }
        return try readAll(fd, sizeHint: (try? fileStatus(fd).size) ?? 0)
    }

    /// Cuts the file open at `fd` to `length` bytes.
    public static func truncate(_ fd: Int32, to length: Int) throws(UVError) {
        guard retryingInterrupts({ ftruncate(fd, off_t(length)) }) == 0 else { throw UVError(-errno) }
    }

    /// Writes all of `bytes` to `fd`.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(UVError) {
        try bytes.withUnsafeBytes { b in Result { () throws(UVError) in try writeAll(fd, b) } }.get()
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(UVError) {
        var written = 0
        while written < bytes.count {
            let n = retryingInterrupts { write(fd, bytes.baseAddress! + written, bytes.count - written) }
            if n < 0 { throw UVError(-errno) }
            written += n
        }
    }

    /// Writes all of `text` to the file `path`, which must exist (a cgroup's control file).
    public static func writeFile(_ text: String, to path: String) throws(UVError) {
        let fd = try descriptor(retryingInterrupts { open(path, O_WRONLY | O_CLOEXEC) })
        defer { close(fd) }
        try writeAll(fd, Array(text.utf8))
    }

    /// Renames `from` to `to`, both in `dir` (atomic: `to` is replaced, never written through).
    public static func rename(at dir: Int32, _ from: String, to: String) throws(UVError) {
        guard renameat(dir, from, dir, to) == 0 else { throw UVError(-errno) }
    }

    /// Removes the name `name` from `dir` (a link itself, never what it points to).
    public static func unlink(at dir: Int32, _ name: String) throws(UVError) {
        guard unlinkat(dir, name, 0) == 0 else { throw UVError(-errno) }
    }

    private static func descriptor(_ fd: Int32) throws(UVError) -> Int32 {
        guard fd >= 0 else { throw UVError(-errno) }
        return fd
    }
}
