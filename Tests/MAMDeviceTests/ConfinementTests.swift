import Foundation
import MAMDevice
import MAMDeviceState
import MAMModel
import MAMTestSupport
import MAMPolicy
import MAMWire
import Testing

/// Confinement: a child reads and writes its own container, and nothing else of the device.
/// Skipped, with the reason in the test report, where the kernel has no Landlock.
@Suite(.serialized, .enabled(if: landlockAvailable(), "this kernel has no Landlock: children cannot be confined here"))
struct ConfinementTests {
    @Test func aChildCannotReadAnotherAppsContainerNorTheStoreButUsesItsOwn() async throws {
        var config = try makeConfiguration(apps: 1)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-tests-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let report = dir.appendingPathComponent("spy-\(UUID().uuidString).sh")
        // The spy tries the store, another app's container and its own, and writes what it saw
        // in its own container, the one place it may write.
        try writeTestProgram("""
            #!/bin/sh
            d="$MAMSIM_DEVICE_DIR"
            out="$d/containers/com.evil.spy/seen.txt"
            { cat "$d/device.sqlite" >/dev/null 2>&1 && echo store-readable || echo store-denied
              cat "$d/containers/com.contoso.App0/Documents/q3.txt" 2>/dev/null || echo other-denied
              ls "$d" >/dev/null 2>&1 && echo dir-listable || echo dir-denied
              echo mine > "$d/containers/com.evil.spy/mine.txt" && cat "$d/containers/com.evil.spy/mine.txt"
            } > "$out"
            exec '\(appRuntime)'
            """, to: report.path)
        let spy = AppSpec(handle: "spy", descriptor: AppDescriptor(bundleID: "com.evil.spy"), executable: report.path, startsWithFleet: false)
        config.apps.append(spy)
        config.fleet.install(spy.descriptor)
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let note = log.all.compactMap { if case .confinement(let n) = $0 { n } else { nil } }.first ?? ""
        #expect(note.contains("confined with Landlock"), "\(note)")
        #expect(await host.signIn("app0", account: "alice@contoso.com").isAllowed)
        _ = await host.service("app0", .writeFile(path: "Documents/q3.txt", data: Array("alice's numbers".utf8), owner: nil))
        #expect((try? await host.launch("spy").get()) != nil)
        let seen = try String(contentsOf: config.deviceDirectory.appendingPathComponent("containers/com.evil.spy/seen.txt"), encoding: .utf8)
        #expect(seen == "store-denied\nother-denied\ndir-denied\nmine\n", "\(seen)")
        #expect(await host.shutdown() == 0)
    }

    /// The built-in runtime confines itself (no launcher exec): the process the host started is
    /// mamsim-app itself, asked to confine itself, and it runs with no_new_privs — which it
    /// sets only right before Landlock's restrict_self and exits if that fails.
    @Test func theBuiltInRuntimeConfinesItselfWithoutTheLauncher() async throws {
        var config = try makeConfiguration(apps: 1)
        config.forkBuiltInApps = false
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let pid = try #require(log.all.compactMap { if case .ready("app0", _, let pid) = $0 { pid } else { nil } }.first)
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        #expect(exe.hasSuffix("/mamsim-app"), "\(exe)")
        let cmdline = try String(decoding: Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")), as: UTF8.self)
        #expect(cmdline.contains("--confine\u{0}"), "\(cmdline.debugDescription)")
        #expect(cmdline.contains("--confine-write\u{0}\(config.deviceDirectory.resolvingSymlinksInPath().path)/containers/com.contoso.App0\u{0}"), "\(cmdline.debugDescription)")
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        #expect(status.contains("NoNewPrivs:\t1"), "\(status)")
        #expect(await host.shutdown() == 0)
    }

    /// A forked app confines itself exactly as an exec'd one: its arguments come from the
    /// host through the template, and it runs with no_new_privs, which the runtime sets only
    /// right before Landlock's restrict_self (and exits if that fails).
    @Test func anAppForkedFromTheTemplateIsConfinedToo() async throws {
        let config = try makeConfiguration(apps: 1)
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        let pid = try #require(await host.pid(of: "app0"))
        let cmdline = try String(decoding: Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")), as: UTF8.self)
        #expect(cmdline.hasSuffix("mamsim-app\u{0}--zygote\u{0}"), "forked, not exec'd: \(cmdline.debugDescription)")
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        #expect(status.contains("NoNewPrivs:\t1"), "\(status)")
        #expect(await host.shutdown() == 0)
    }

    /// Starts a one-app fleet, forked from the template or exec'd, reads what `read` reads of
    /// the running app's process, and shuts the fleet down.
    static func readingOneApp<T>(forked: Bool, _ read: (Int32) throws -> T) async throws -> T {
        var config = try makeConfiguration(apps: 1)
        config.forkBuiltInApps = forked
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        let pid = try #require(await host.pid(of: "app0"))
        let value = try read(pid)
        #expect(await host.shutdown() == 0)
        return value
    }

    /// A forked app holds the same kinds of descriptors as an exec'd one: the template (its
    /// control socket, what its warm-up built before forking) leaves nothing open in the apps
    /// it forks.
    @Test func anAppForkedFromTheTemplateHoldsNoDescriptorAnExecdOneLacks() async throws {
        func descriptors(forked: Bool) async throws -> [String] {
            try await Self.readingOneApp(forked: forked) { pid in
                let folder = "/proc/\(pid)/fd"
                var kinds: [String] = []
                for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
                    let target = try FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(name)")
                    // "socket:[1234]" → "socket": the kind, not the instance.
                    kinds.append("\(name) \(target.split(separator: ":").first.map(String.init) ?? target)")
                }
                return kinds.sorted()
            }
        }
        let forked = try await descriptors(forked: true)
        let execd = try await descriptors(forked: false)
        #expect(forked == execd)
        #expect(forked.contains("3 socket"), "the channel is fd 3: \(forked)")
    }

    /// A forked app ends with the capabilities and the system call filter an exec'd one ends
    /// with (no capability, an empty bounding set, one filter), though the template emptied
    /// the bounding set and installed the filter for it before forking.
    @Test func anAppForkedFromTheTemplateHasTheCapabilitiesAndFilterOfAnExecdOne() async throws {
        func restrictions(forked: Bool) async throws -> [String] {
            try await Self.readingOneApp(forked: forked) { pid in
                let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
                return status.split(separator: "\n").filter { $0.hasPrefix("Cap") || $0.hasPrefix("Seccomp") || $0.hasPrefix("NoNewPrivs") }.map(String.init)
            }
        }
        let forked = try await restrictions(forked: true)
        #expect(forked == (try await restrictions(forked: false)))
        #expect(forked.contains("Seccomp:\t2") && forked.contains("Seccomp_filters:\t1"), "\(forked)")
        #expect(forked.contains("CapBnd:\t0000000000000000") || getuid() != 0, "\(forked)")
        #expect(forked.contains("CapEff:\t0000000000000000"), "\(forked)")
    }

    /// Beside the device directory lies a name that leads to a socket (here a link to the
    /// child's own fd 3; /dev/stderr when stderr is a pipe and the device is under /dev/shm):
    /// no Landlock rule can hold it, so it is left denied and the app still starts confined —
    /// forked or exec'd.
    @Test(arguments: [true, false])
    func aSiblingLeadingToASocketDoesNotStopConfinement(forked: Bool) async throws {
        let parent = temporaryDeviceDirectory()
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: parent) }
        try FileManager.default.createSymbolicLink(atPath: parent.appendingPathComponent("channel").path, withDestinationPath: "/proc/self/fd/3")
        var config = try makeConfiguration(apps: 1)
        config.deviceDirectory = parent.appendingPathComponent("device")
        config.forkBuiltInApps = forked
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty, "\(log.all)")
        let pid = try #require(await host.pid(of: "app0"))
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        #expect(status.contains("NoNewPrivs:\t1"), "\(status)")
        #expect(await host.shutdown() == 0)
    }

    /// A device directory under /dev (in /dev/shm, a tmpfs CI machines have): /dev is walked
    /// through rather than granted whole, and its devices stay usable — an app writes to
    /// /dev/null, built-in apps and apps with their own executable alike start confined.
    @Test(.enabled(if: FileManager.default.isWritableFile(atPath: "/dev/shm")))
    func aDeviceUnderDevShmStillLetsAppsUseDevNull() async throws {
        var hello: [UInt8] = []
        FrameEncoder.encode(Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "devnull"))), appendingTo: &hello)
        let own = try pythonChild("devnull", """
            with open("/dev/null", "w") as f:
                f.write("x")
            os.write(3, bytes(\(hello)))
            readFrame()   # welcome
            time.sleep(30)
            """)
        let spec = AppSpec(handle: "devnull", descriptor: AppDescriptor(bundleID: "com.contoso.devnull"), executable: own)
        var config = try makeConfiguration(apps: 1, extra: [spec])
        config.fleet.install(spec.descriptor)
        config.deviceDirectory = URL(fileURLWithPath: "/dev/shm/mamsim-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: config.deviceDirectory) }
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty, "\(log.all)")
        #expect(await host.pid(of: "app0") != nil)
        #expect(await host.pid(of: "devnull") != nil)
        #expect(await host.shutdown() == 0)
    }
}
