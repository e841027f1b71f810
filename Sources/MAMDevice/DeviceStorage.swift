import Foundation
import MAMLoop
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The device's containers and app groups on a filesystem of their own, as large as
/// `DeviceLimits.storageBytes`: an ext4 image in the device directory (`storage.img`, sparse:
/// it takes on disk what the apps wrote), mounted by loop at `.storage` and bound at
/// `containers/` and `groups/`. A child that writes past it gets `ENOSPC` from the kernel; the
/// host's own writes there (an Inbox copy, `writeFile`) answer `{failed: quota}`.
///
/// It needs root (mounting) and loop devices; elsewhere nothing is mounted and the start-up
/// report says the size is not limited. The image stays in the device directory, so a host
/// started again on it (`--device-dir`) mounts the same data; a host that was killed leaves
/// its mounts, which the next one finds and reuses. A device directory whose containers were
/// written before it had an image keeps them on the disk, unlimited (said at start).
final class DeviceStorage {
    let limitBytes: UInt64
    /// What is in force, or why not, for the start-up report.
    let inForce: String?
    let missing: String?
    /// The mounts this host made or reuses, innermost last.
    private var mounts: [String] = []

    /// Creates the device's storage image, `bytes` long, as an ext4 filesystem; why not, when
    /// it could not.
    static func makeImage(_ image: String, bytes: UInt64) -> String? {
        guard FileManager.default.createFile(atPath: image, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: image) else {
            return "cannot create \(image)"
        }
        try? handle.truncate(atOffset: bytes)
        try? handle.close()
        guard let mkfs = program("mkfs.ext4"),
              run(mkfs, ["-q", "-F", "-m", "0", "-E", "lazy_itable_init=1,lazy_journal_init=1", image]) else {
            try? FileManager.default.removeItem(atPath: image)
            return "mkfs.ext4 is missing or failed: apt-get install e2fsprogs"
        }
        return nil
    }

    init(deviceDirectory: String, limitBytes: UInt64) {
        self.limitBytes = limitBytes
        let what = "a size limit on the device's containers and app groups"
        guard limitBytes > 0 else {
            (inForce, missing) = (nil, nil)
            return
        }
        #if os(Linux)
        _ = Self.sweptAbandoned
        let image = deviceDirectory + "/storage.img"
        let mountPoint = deviceDirectory + "/.storage"
        let bound = ["containers", "groups"].map { deviceDirectory + "/" + $0 }
        let size = "\(limitBytes >> 20) MiB"
        if System.isMountPoint(mountPoint) {
            // A host killed before it could unmount left it: the same data, mounted.
            mounts = [mountPoint] + bound.filter(System.isMountPoint)
            for (folder, target) in zip(["containers", "groups"], bound) where !mounts.contains(target) {
                Self.bind(mountPoint + "/" + folder, at: target)
                if System.isMountPoint(target) { mounts.append(target) }
            }
            (inForce, missing) = ("\(what): \(size) (\(image), mounted again)", nil)
            return
        }
        guard geteuid() == 0 else {
            (inForce, missing) = (nil, "\(what) (mounting its filesystem needs root; each file is still limited)")
            return
        }
        let fresh = !FileManager.default.fileExists(atPath: image)
        if fresh, bound.contains(where: { !((try? FileManager.default.contentsOfDirectory(atPath: $0)) ?? []).isEmpty }) {
            (inForce, missing) = (nil, "\(what) (this device directory's containers were written before it had a storage image: they stay on the disk)")
            return
        }
        if fresh, let why = Self.makeImage(image, bytes: limitBytes) {
            (inForce, missing) = (nil, "\(what) (\(why))")
            return
        }
        System.makeDirectory(mountPoint, mode: 0o700)
        guard let mount = Self.program("mount"),
              Self.run(mount, ["-o", "loop,nosuid,nodev", image, mountPoint]), System.isMountPoint(mountPoint) else {
            System.removeDirectory(mountPoint)
            (inForce, missing) = (nil, "\(what) (its image could not be mounted: no loop device here)")
            return
        }
        mounts = [mountPoint]
        for (folder, target) in zip(["containers", "groups"], bound) {
            Self.bind(mountPoint + "/" + folder, at: target)
            if System.isMountPoint(target) { mounts.append(target) }
        }
        guard mounts.count == 3 else {
            for path in mounts.reversed() { System.unmount(path) }
            mounts.removeAll()
            (inForce, missing) = (nil, "\(what) (its folders could not be bound)")
            return
        }
        (inForce, missing) = ("\(what): \(size) for all of them together (an ext4 image mounted for the device)", nil)
        #else
        (inForce, missing) = (nil, "\(what) (needs Linux)")
        #endif
    }

    var isLimited: Bool { !mounts.isEmpty }

    /// Unmounts what this host mounted (innermost first); the image stays with the device.
    func close() {
        for path in mounts.reversed() { System.unmount(path) }
        mounts.removeAll()
    }

    deinit { close() }

    /// Unmounts, once per process, the storage of every device no host holds any more (a host
    /// killed before it could unmount: its lock died with it): loop devices and mounts are not
    /// left behind for longer than until the next host starts. A device in use is locked and
    /// left alone; the data stays in its image.
    private static let sweptAbandoned: Void = {
        #if os(Linux)
        guard geteuid() == 0 else { return }
        for point in System.mountPoints() where point.hasSuffix("/.storage") {
            let device = (point as NSString).deletingLastPathComponent
            guard FileManager.default.fileExists(atPath: device + "/storage.img"),
                  let lock = try? System.tryExclusiveLock(device + "/host.lock") else { continue }
            for mount in [device + "/containers", device + "/groups", point] where System.isMountPoint(mount) { System.unmount(mount) }
            System.unlock(lock)
        }
        #endif
    }()

    private static func bind(_ source: String, at target: String) {
        System.makeDirectory(source, mode: 0o755)
        System.makeDirectory(target, mode: 0o755)
        _ = System.bindMount(source, at: target)
    }

    private static func program(_ name: String) -> String? {
        ["/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a helper (mkfs, mount) to its end, its output dropped; whether it succeeded.
    private static func run(_ program: String, _ arguments: [String]) -> Bool {
        (try? ChildProcess.run(program, arguments: arguments, stdoutPath: "/dev/null")) == 0
    }
}
