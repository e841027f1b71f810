import Foundation
import MAMDevice
import MAMDeviceState
import MAMModel
import MAMTestSupport
import MAMPolicy
import MAMWire
import Testing

/// Attacks on confidentiality through the host's services: each must get nothing, be
/// refused with a reason, and leave a line in the audit log.
@Suite(.serialized) struct HostileChildTests {
    @Test func pastingOrOpeningOrNotifyingAsAnAccountNotSignedInIsRefusedAndAudited() async throws {
        let config = try makeConfiguration(apps: 1)
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        #expect(await host.signIn("app0", account: "alice@contoso.com").isAllowed)
        _ = await host.setIdentity("app0", account: "alice@contoso.com", window: "", pin: "2580")
        #expect(await host.service("app0", .copy(text: "org secret")).isAllowed)
        // notes has no account: naming alice does not make it alice.
        let paste = await host.service("notes", .paste(as: "alice@contoso.com"))
        #expect(paste.verdict.reason == .notSignedIn, "\(paste)")
        #expect(paste.value == .none, "nothing of the pasteboard comes back: \(paste.value)")
        let open = await host.service("notes", .canOpen(.oneDriveForBusiness, account: "alice@contoso.com", as: "alice@contoso.com"))
        #expect(open.verdict.reason == .notSignedIn)
        let notify = await host.service("notes", .notify(account: "alice@contoso.com", text: "org secret"))
        #expect(notify.verdict.reason == .notSignedIn)
        #expect(notify.value == .none)
        let audit = config.deviceDirectory.appendingPathComponent("audit.jsonl")
        _ = await host.exportAudit(to: audit)
        let lines = try String(contentsOf: audit, encoding: .utf8).split(separator: "\n")
        for verb in ["paste", "open", "notify"] {
            #expect(lines.contains { $0.contains("\"verb\":\"\(verb)\"") && $0.contains("\"reason\":\"not-signed-in\"") }, "\(verb) refusal audited")
        }
        #expect(await host.shutdown() == 0)
    }

    @Test func anAppWithNoAccountCannotUnprotectAlicesDataNorProtectAsHer() async throws {
        let config = try makeConfiguration(apps: 1)
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        #expect(await host.signIn("app0", account: "alice@contoso.com").isAllowed)
        let sealed = await host.service("app0", .protect(data: Array("minutes".utf8), owner: "alice@contoso.com"))
        #expect(sealed.isAllowed)
        let stolen = await host.service("notes", .unprotect(data: sealed.data))
        #expect(stolen.verdict.reason == .notSignedIn, "\(stolen)")
        #expect(stolen.data.isEmpty)
        let forged = await host.service("notes", .protect(data: [1], owner: "alice@contoso.com"))
        #expect(forged.verdict.reason == .notSignedIn)
        #expect(await host.service("app0", .unprotect(data: sealed.data)).data == Array("minutes".utf8))
        #expect(await host.shutdown() == 0)
    }

    @Test func aSenderCannotReplaceAFileDeliveredEarlierNorNameFoldersWithItsItemIDs() async throws {
        let config = try makeConfiguration(apps: 2)
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        for app in ["app0", "app1"] { #expect(await host.signIn(app, account: "alice@contoso.com").isAllowed) }
        _ = await host.service("app0", .writeFile(path: "Documents/q3.txt", data: Array("alice's numbers".utf8), owner: "alice@contoso.com"))
        let file = Item(id: "f1", typeIdentifiers: ["public.plain-text"], payload: .file(path: "Documents/q3.txt"), fileName: "q3.txt")
        #expect(await host.share(from: "app0", to: "app1", item: file, identity: "alice@contoso.com") == .delivered)
        // The same id again with other bytes and a name that climbs: a new file, the first intact.
        _ = await host.service("app0", .writeFile(path: "Documents/other.txt", data: Array("forged".utf8), owner: "alice@contoso.com"))
        let forged = Item(id: "f1", typeIdentifiers: ["public.plain-text"], payload: .file(path: "Documents/other.txt"), fileName: "../Documents/q3.txt")
        #expect(await host.share(from: "app0", to: "app1", item: forged, identity: "alice@contoso.com") == .delivered)
        #expect(await host.service("app1", .readFile(path: "Inbox/f1-q3.txt")).data == Array("alice's numbers".utf8))
        #expect(await host.service("app1", .fileOwner(path: "Inbox/f1-q3.txt")).value == .file(owner: "alice@contoso.com", encrypted: false))
        #expect(await host.service("app1", .readFile(path: "Inbox/f1-2-q3.txt")).data == Array("forged".utf8))
        // An id naming a folder is refused before anything is written.
        let sneaky = Item(id: "x/../../Documents/q3", typeIdentifiers: ["public.plain-text"], payload: .file(path: "q3.txt"), fileName: "q3.txt")
        let refused = await host.share(from: "notes", to: "app1", item: sneaky)
        #expect(refused.reason == .badRequest, "\(refused)")
        #expect(refused.explanation.contains("path separator"))
        // Every other refused shape of id, ASCII and not; a non-ASCII id that is none of them passes.
        for id in [".hidden", "a\\b", "bell\u{7}", "del\u{7F}", "next-line\u{85}"] {
            let odd = Item(id: id, typeIdentifiers: ["public.plain-text"], payload: .inline(Array("x".utf8)))
            #expect(await host.share(from: "notes", to: "app1", item: odd).reason == .badRequest, "\(id.debugDescription)")
        }
        let accented = Item(id: "résumé-1", typeIdentifiers: ["public.plain-text"], payload: .inline(Array("x".utf8)))
        #expect(await host.share(from: "app0", to: "app1", item: accented, identity: "alice@contoso.com") == .delivered)
        #expect(await host.shutdown() == 0)
    }

    @Test func aChildThatNeverReadsIsCutOffBeforeTheHostHoldsMoreThanTheBacklogLimit() async throws {
        // Hello, then 96 pings of 64 KiB; the child never reads the host's echoes.
        var frames: [Frame] = [Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "deaf")))]
        let payload = [UInt8](repeating: 0x70, count: 64 << 10)
        for seq in 2...97 { frames.append(Frame(seq: UInt64(seq), body: .ping(payload))) }
        let deaf = try scriptedChild("deaf", frames: frames)
        let spec = AppSpec(handle: "deaf", descriptor: AppDescriptor(bundleID: "com.evil.deaf"), executable: deaf)
        var config = try makeConfiguration(apps: 2, extra: [spec])
        config.fleet.install(spec.descriptor)
        config.maximumBacklog = 2 << 20
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        _ = await host.startFleet()
        let why = try await log.wait(for: "deaf cut off") {
            if case .hostile("deaf", let what, true) = $0, what.hasPrefix("does not read its channel") { what } else { nil }
        }
        #expect(why.contains("limit 2 MiB"), "\(why)")
        #expect(await host.share(from: "app0", to: "app1", item: textItem("ok", "ok")) == .delivered)
        #expect(await host.shutdown() == 0)
    }

    @Test func aChildThatStartsAFrameAndNeverFinishesItIsCutOff() async throws {
        // Hello, then the header of a 100-byte frame and 10 bytes of it: a slow-loris.
        let slow = try scriptedChild("slowloris", frames: [Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "slow")))],
                                     then: "printf '\\000\\000\\000\\144abcdefghij' >&3\nsleep 30")
        let spec = AppSpec(handle: "slowloris", descriptor: AppDescriptor(bundleID: "com.evil.slow"), executable: slow)
        var config = try makeConfiguration(apps: 2, extra: [spec])
        config.fleet.install(spec.descriptor)
        config.frameTimeout = .milliseconds(300)
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let why = try await log.wait(for: "slowloris cut off") {
            if case .hostile("slowloris", let what, true) = $0 { what } else { nil }
        }
        #expect(why.contains("did not finish it"), "\(why)")
        #expect(why.contains("10 bytes of it received"), "\(why)")
        #expect(await host.share(from: "app0", to: "app1", item: textItem("ok", "ok")) == .delivered)
        #expect(await host.shutdown() == 0)
    }

    @Test func whatAChildStartedEndsWithItAtTeardown() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-tests-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // The app starts a long sleep in the background (a grandchild), notes its pid in its own
        // container (the one place a confined app may write), then runs the runtime.
        let script = dir.appendingPathComponent("parent-\(UUID().uuidString).sh")
        // A duration no other test uses: the grandchild is found by it from outside (in a PID
        // namespace of its own, the pid the app sees means nothing here).
        let marker = 3000 + Int.random(in: 0..<900)
        try writeTestProgram(
            "#!/bin/sh\nsleep \(marker) &\necho $! > \"$MAMSIM_DEVICE_DIR/containers/com.contoso.parent/grandchild.pid\"\nexec '\(appRuntime)'\n",
            to: script.path)
        let spec = AppSpec(handle: "parent", descriptor: AppDescriptor(bundleID: "com.contoso.parent"), executable: script.path)
        var config = try makeConfiguration(apps: 1, extra: [spec])
        config.fleet.install(spec.descriptor)
        let pidFile = config.deviceDirectory.appendingPathComponent("containers/com.contoso.parent/grandchild.pid")
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        #expect(FileManager.default.fileExists(atPath: pidFile.path))
        // The shell writes the pid right after its fork; the grandchild execs sleep a moment later.
        for _ in 0..<200 where ChildProcessLimitTests.running("sleep\u{0}\(marker)") == 0 {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(ChildProcessLimitTests.running("sleep\u{0}\(marker)") == 1)
        #expect(await host.shutdown() == 0)
        // Killed with its group (or its namespace); a zombie waiting to be reaped is not running.
        var alive = ChildProcessLimitTests.running("sleep\u{0}\(marker)") > 0
        for _ in 0..<200 where alive {
            try await Task.sleep(for: .milliseconds(5))
            alive = ChildProcessLimitTests.running("sleep\u{0}\(marker)") > 0
        }
        #expect(!alive, "the grandchild sleep \(marker) survived teardown")
    }

    @Test func oneSendersItemIDDoesNotHideAnotherSendersItemWithTheSameID() async throws {
        let host = try HostController(configuration: try makeConfiguration(apps: 3))
        #expect(await host.startFleet().isEmpty)
        #expect(await host.share(from: "app0", to: "app2", item: textItem("same", "from app0")) == .delivered)
        #expect(await host.share(from: "app1", to: "app2", item: textItem("same", "from app1")) == .delivered)
        // app0's item again, after another sender's: acknowledged, and not shown twice.
        #expect(await host.share(from: "app0", to: "app2", item: textItem("same", "from app0")) == .delivered)
        let received = await host.command("app2", .listReceived)
        #expect(received == .received([ReceivedEntry(itemID: "same", owner: ""), ReceivedEntry(itemID: "same", owner: "")]), "\(received)")
        #expect(await host.shutdown() == 0)
    }
}

/// The process exists and is not a zombie (Linux `/proc/<pid>/stat`).
func isRunning(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return isAlive(pid) }
    let state = stat[stat.index(close, offsetBy: 2)...].prefix(1)
    return state != "Z" && state != "X"
}

/// Whether this kernel has Landlock (`mamsim-confine --probe`, built beside the runtime).
func landlockAvailable() -> Bool {
    let launcher = URL(fileURLWithPath: appRuntime).deletingLastPathComponent().appendingPathComponent("mamsim-confine").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: launcher)
    process.arguments = ["--probe"]
    process.standardOutput = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
}

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

/// Attacks from a confined child on everything outside its sandbox: each must fail, while its
/// own container stays usable. The child is a real Python process run through the launcher;
/// it writes what it managed into its container, the one place it may write, then hands over
/// to the built-in runtime for the handshake.
@Suite(.serialized, .enabled(if: landlockAvailable(), "this kernel has no Landlock: children cannot be confined here"))
struct SandboxAttackTests {
    /// A second device (another scenario's, under the cache of temporary devices), a scenario
    /// input, the home folder, /tmp, /etc/shadow, the terminal, a new pseudo-terminal, the
    /// host's /proc entries, signals to the host and a sibling app, TCP to a loopback port, an
    /// abstract socket of the host's, a CI token in the host's environment, capabilities.
    @Test func aHostileChildReachesNothingOutsideItsSandbox() async throws {
        let cacheRoot = try #require(DeviceLocations.cacheRoot, "no HOME or XDG_CACHE_HOME")
        let otherDevice = cacheRoot.appendingPathComponent("mamsim-device-other-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: otherDevice, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: otherDevice) }
        try "another scenario's store key".write(to: otherDevice.appendingPathComponent("store.key"), atomically: true, encoding: .utf8)
        let inputs = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-inputs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: inputs) }
        let secret = inputs.appendingPathComponent("identity.json")
        try #"{"Password": "landmarks"}"#.write(to: secret, atomically: true, encoding: .utf8)
        setenv("CI_JOB_TOKEN_OF_THE_HOST", "glpat-secret", 1)

        // A loopback TCP listener and an abstract unix socket, both the host side's.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        listen(listener, 4)
        var bound = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = Int(UInt16(bigEndian: bound.sin_port))
        let abstractName = "mamsim-test-\(UUID().uuidString)"
        let abstract = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(abstract) }
        var unixAddress = sockaddr_un()
        unixAddress.sun_family = sa_family_t(AF_UNIX)
        let nameBytes = [UInt8(0)] + Array(abstractName.utf8)
        withUnsafeMutableBytes(of: &unixAddress.sun_path) { for (i, b) in nameBytes.enumerated() { $0[i] = b } }
        let unixLength = socklen_t(MemoryLayout<sa_family_t>.size + nameBytes.count)
        #expect(withUnsafePointer(to: &unixAddress) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(abstract, $0, unixLength) } } == 0)
        listen(abstract, 4)

        let spyProgram = try pythonChild("sandbox-spy", """
            import json, signal, socket
            mine = os.environ["MAMSIM_DEVICE_DIR"] + "/containers/com.evil.spy"
            targets = json.load(open(mine + "/targets.json"))
            seen = {}
            def attempt(name, action):
                try:
                    action()
                    seen[name] = "allowed"
                except Exception as e:
                    seen[name] = type(e).__name__
            def tcp():
                s = socket.socket(); s.settimeout(2); s.connect(("127.0.0.1", targets["port"]))
            def abstract():
                s = socket.socket(socket.AF_UNIX); s.connect("\\0" + targets["abstract"])
            def udp():
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"x", ("127.0.0.1", targets["port"]))
            attempt("other-device", lambda: open(targets["otherDevice"] + "/store.key").read())
            attempt("cache-root", lambda: os.listdir(targets["cacheRoot"]))
            attempt("scenario-input", lambda: open(targets["input"]).read())
            attempt("home", lambda: os.listdir(os.path.expanduser("~")))
            attempt("tmp", lambda: os.listdir("/tmp"))
            attempt("shadow", lambda: open("/etc/shadow").read())
            attempt("tty", lambda: open("/dev/tty", "w"))
            attempt("ptmx", lambda: os.open("/dev/ptmx", os.O_RDWR))
            attempt("host-environ", lambda: open("/proc/%d/environ" % targets["host"]).read())
            attempt("host-maps", lambda: open("/proc/%d/maps" % targets["host"]).read())
            attempt("sibling-environ", lambda: open("/proc/%d/environ" % targets["sibling"]).read())
            attempt("host-root", lambda: open("/proc/%d/root/etc/hostname" % targets["host"]).read())
            attempt("host-cmdline", lambda: open("/proc/%d/cmdline" % targets["host"]).read())
            attempt("signal-host", lambda: os.kill(targets["host"], signal.SIGCONT))
            attempt("signal-sibling", lambda: os.kill(targets["sibling"], signal.SIGCONT))
            attempt("tcp", tcp)
            attempt("abstract-socket", abstract)
            attempt("udp", udp)
            attempt("own-container", lambda: open(mine + "/mine.txt", "w").write("mine"))
            seen["token"] = os.environ.get("CI_JOB_TOKEN_OF_THE_HOST", "absent")
            seen["session-leader"] = os.getsid(0) == os.getpid()
            seen["capabilities"] = [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0]
            json.dump(seen, open(mine + "/seen.json", "w"))
            os.execv(targets["runtime"], [targets["runtime"]])
            """)
        let spy = AppSpec(handle: "spy", descriptor: AppDescriptor(bundleID: "com.evil.spy"), executable: spyProgram, startsWithFleet: false)
        var config = try makeConfiguration(apps: 1, extra: [spy])
        config.fleet.install(spy.descriptor)
        config.protectedPaths = [inputs]
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let report = log.all.compactMap { if case .confinement(let n) = $0 { n } else { nil } }.first ?? ""
        let sibling = try #require(await host.pid(of: "app0"))
        let container = config.deviceDirectory.appendingPathComponent("containers/com.evil.spy")
        try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
        let targets: [String: Any] = [
            "otherDevice": otherDevice.path, "cacheRoot": cacheRoot.path, "input": secret.path, "sibling": Int(sibling), "host": Int(getpid()),
            "port": port, "abstract": abstractName, "runtime": appRuntime,
        ]
        try JSONSerialization.data(withJSONObject: targets).write(to: container.appendingPathComponent("targets.json"))
        #expect((try? await host.launch("spy").get()) != nil)
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: container.appendingPathComponent("seen.json"))) as? [String: Any])
        for denied in ["other-device", "cache-root", "scenario-input", "home", "tmp", "shadow", "tty", "ptmx", "udp"] {
            #expect(seen[denied] as? String == "PermissionError", "\(denied): \(seen[denied] ?? "nil")")
        }
        // Other processes: denied, or not even there (in a PID namespace of its own).
        let unreachable: Set<String> = ["PermissionError", "FileNotFoundError", "ProcessLookupError"]
        for denied in ["host-environ", "host-maps", "sibling-environ", "host-root"] {
            #expect(unreachable.contains(seen[denied] as? String ?? ""), "\(denied): \(seen[denied] ?? "nil")")
        }
        if report.contains("PID namespace for each program") {
            #expect(seen["host-cmdline"] as? String == "FileNotFoundError", "host-cmdline: \(seen["host-cmdline"] ?? "nil")")
        }
        let abi = landlockABI()
        if abi >= 4 { #expect(seen["tcp"] as? String == "PermissionError", "tcp: \(seen["tcp"] ?? "nil")") }
        if abi >= 6 {
            #expect(seen["abstract-socket"] as? String == "PermissionError", "abstract-socket: \(seen["abstract-socket"] ?? "nil")")
            for denied in ["signal-host", "signal-sibling"] {
                #expect(unreachable.contains(seen[denied] as? String ?? ""), "\(denied): \(seen[denied] ?? "nil")")
            }
        }
        #expect(seen["own-container"] as? String == "allowed")
        #expect(seen["token"] as? String == "absent", "the host's CI token reached the child")
        #expect(seen["session-leader"] as? Bool == true, "the child shares the host's session (and its terminal)")
        #expect(seen["capabilities"] as? String == "0000000000000000")
        #expect(await host.shutdown() == 0)
    }

    /// A path an app declares to read is checked before the fleet starts: one that holds the
    /// device directory, the cache of devices, a scenario input or the home folder is refused
    /// with a sentence naming the app and the path.
    @Test(arguments: ["device", "cache", "input", "home"])
    func aDeclaredPathThatHoldsWhatNoAppMayReadIsRefused(_ what: String) throws {
        var spec = AppSpec(handle: "plugin", descriptor: AppDescriptor(bundleID: "com.contoso.plugin"))
        var config = try makeConfiguration(apps: 0, extra: [])
        let inputs = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-inputs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: inputs) }
        config.protectedPaths = [inputs.appendingPathComponent("policy.json")]
        switch what {
        case "device": spec.sandbox.read = [config.deviceDirectory.deletingLastPathComponent().path]
        case "cache": spec.sandbox.read = [try #require(DeviceLocations.cacheRoot).deletingLastPathComponent().path]
        case "input": spec.sandbox.read = [inputs.path]
        default: spec.sandbox.read = [try #require(ProcessInfo.processInfo.environment["HOME"])]
        }
        config.apps.append(spec)
        config.fleet.install(spec.descriptor)
        let error = #expect(throws: HostError.self) { _ = try HostController(configuration: config) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("plugin asks to read \(spec.sandbox.read[0])"), "\(String(describing: error))")
    }
}

/// The kernel's Landlock ABI, as `mamsim-confine --probe` reports it (0 without one).
func landlockABI() -> Int {
    let launcher = URL(fileURLWithPath: appRuntime).deletingLastPathComponent().appendingPathComponent("mamsim-confine").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: launcher)
    process.arguments = ["--probe"]
    let out = Pipe()
    process.standardOutput = out
    guard (try? process.run()) != nil else { return 0 }
    let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return Int(said.split(separator: " ").first ?? "") ?? 0
}

/// A child flooding refused shares is answered one by one, but the audit log keeps at most its
/// budget of refusals and one coalesced record for the rest; what is delivered is all logged.
@Suite(.serialized) struct AuditFloodTests {
    @Test func aFloodOfRefusedSharesIsCoalescedInTheAuditLog() async throws {
        var config = try makeConfiguration(apps: 2)
        // Small enough that a debug build's flood outruns it many times over.
        config.auditRefusalBudget = AuditRefusalBudget(perSecond: 200, burst: 1_000)
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        #expect(await host.signIn("app0", account: "alice@contoso.com").isAllowed)
        #expect(await host.signIn("app1", account: "alice@contoso.com").isAllowed)
        // alice's data to notes (no SDK): every share is blocked by her policy.
        let flood = 20_000
        let result = await host.command("app0", .flood(Flood(destination: "notes", count: UInt64(flood), size: 16, window: 512, identity: "alice@contoso.com")))
        guard case .flood(let delivered, let problem) = result else { Issue.record("\(result)"); return }
        #expect(delivered == 0)
        #expect(problem?.reason == .outboundPolicy, "\(String(describing: problem))")
        // Delivered shares are never coalesced.
        #expect(await host.share(from: "app0", to: "app1", item: textItem("after", "org data"), identity: "alice@contoso.com") == .delivered)
        let audit = config.deviceDirectory.appendingPathComponent("audit.jsonl")
        _ = await host.exportAudit(to: audit)
        #expect(await host.shutdown() == 0)
        let lines = try String(contentsOf: audit, encoding: .utf8).split(separator: "\n")
        let refusals = lines.filter { $0.contains("\"verb\":\"share\"") && $0.contains("\"decision\":\"blocked\"") }.count
        let coalesced = lines.filter { $0.contains("\"verb\":\"audit-coalesced\"") }
        #expect(refusals < flood / 2, "\(refusals) refusals of \(flood) were logged one by one")
        #expect(refusals >= 1_000, "the burst is logged: \(refusals)")
        #expect(lines.contains { $0.contains("\"verb\":\"share\"") && $0.contains("\"decision\":\"delivered\"") })
        let counted = coalesced.compactMap { line -> Int? in
            guard let range = line.range(of: "app0 sent ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }.reduce(0, +)
        #expect(refusals + counted == flood, "\(refusals) logged + \(counted) coalesced ≠ \(flood)")
        #expect(log.hostile.contains { $0.contains("floods refused requests") }, "\(log.hostile)")
    }
}

/// An app's own process gets tokens only for accounts its user signed in to it, and its
/// interactive remediation enrolls only those: the simulated user never consents by default.
@Suite struct ConsentTests {
    @Test func anAppGetsNoTokenForAnAccountItsUserNeverSignedIn() async throws {
        var config = try makeConfiguration(apps: 2)
        config.apps[1].userAccounts = ["alice@contoso.com"]
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        for account in ["alice@contoso.com", "bob@outlook.com"] {
            let (refused, token) = await host.acquireToken("notes", account: account, resource: "Office365", asApp: true)
            #expect(refused.decision.blockedBy == .notSignedIn, "\(account): \(refused.decision)")
            #expect(token == nil)
        }
        let (allowed, token) = await host.acquireToken("app1", account: "alice@contoso.com", resource: "Office365", asApp: true)
        #expect(allowed.decision.isAllowed && token != nil, "\(allowed.decision)")
        #expect(await host.shutdown() == 0)
    }

    @Test func anInteractiveRemediationFromTheAppEnrollsOnlyAnAccountItsUserSignedIn() async throws {
        var config = try makeConfiguration(apps: 2)
        config.brokerInstalled = true
        config.apps[1].userAccounts = ["alice@contoso.com"]
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        let declined = try await host.remediate("app0", account: "alice@contoso.com", silent: false, userCancels: false, asApp: true).get()
        #expect(declined.status == .userCancelled && !declined.enrolls, "\(declined)")
        #expect(try await host.identities("app0").get().signedIn.isEmpty, "the app enrolled alice by itself")
        let consented = try await host.remediate("app1", account: "alice@contoso.com", silent: false, userCancels: false, asApp: true).get()
        #expect(consented.status != .userCancelled, "\(consented)")
        #expect(await host.shutdown() == 0)
    }
}

/// A child's processes are limited and end with it, where the host can give each child a
/// cgroup (CI's machines can; the start-up report says when not).
@Suite(.serialized, .enabled(if: landlockAvailable(), "this kernel has no Landlock: children cannot be confined here"),
       .enabled(if: cgroupsWritable(), "no writable pids cgroup here: the host reports that children have no process limit"))
struct ChildProcessLimitTests {
    /// Processes (not zombies) whose command line names `script`.
    static func running(_ script: String) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter { name in
            guard let pid = Int32(name), let cmdline = try? String(contentsOfFile: "/proc/\(name)/cmdline", encoding: .utf8) else { return false }
            return cmdline.contains(script) && isRunning(pid)
        }.count
    }

    @Test func aForkBombStopsAtTheLimitAndADaemonDiesWithItsApp() async throws {
        let bomb = try pythonChild("fork-bomb", """
            import signal
            mine = os.environ["MAMSIM_DEVICE_DIR"] + "/containers/com.evil.bomb"
            # A daemon: double fork, its own session, out of the app's process group.
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    open(mine + "/daemon.pid", "w").write(str(os.getpid()))
                    time.sleep(300)
                os._exit(0)
            time.sleep(0.5)
            forked = 0
            for _ in range(600):
                try:
                    if os.fork() == 0:
                        time.sleep(300)
                        os._exit(0)
                    forked += 1
                except OSError:
                    break
            open(mine + "/forked.txt", "w").write(str(forked))
            time.sleep(300)
            """)
        let spec = AppSpec(handle: "bomb", descriptor: AppDescriptor(bundleID: "com.evil.bomb"), executable: bomb, startsWithFleet: false)
        var config = try makeConfiguration(apps: 0, extra: [spec])
        config.fleet.install(spec.descriptor)
        config.handshakeTimeout = .seconds(30)
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let report = log.all.compactMap { if case .confinement(let n) = $0 { n } else { nil } }.first ?? ""
        try #require(report.contains("a cgroup per child"), "no cgroup on this machine: \(report)")
        let container = config.deviceDirectory.appendingPathComponent("containers/com.evil.bomb")
        try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
        Task { _ = await host.launch("bomb") }  // it never says hello
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: container.appendingPathComponent("forked.txt").path), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let forked = Int(try String(contentsOf: container.appendingPathComponent("forked.txt"), encoding: .utf8)) ?? -1
        #expect(forked >= 0 && forked < config.childLimits.processesPerChild, "forked \(forked) processes")
        #expect(FileManager.default.fileExists(atPath: container.appendingPathComponent("daemon.pid").path))
        // Counted from outside by their program (inside a PID namespace their own pids mean
        // nothing here): the app, its children and the daemon.
        #expect(Self.running("fork-bomb") > 1, "the daemon and the children run while their app does")
        _ = await host.kill("bomb")
        try await Task.sleep(for: .milliseconds(500))
        #expect(Self.running("fork-bomb") == 0, "a process of the app outlived it")
        #expect(await host.shutdown() == 0)
    }
}


/// Whether this process may make pids cgroups (cgroup v1's pids hierarchy, or v2 with the
/// pids controller in its own cgroup's subtree): where it may not, the host says so at start.
func cgroupsWritable() -> Bool {
    if access("/sys/fs/cgroup/pids", W_OK) == 0 { return true }
    guard let own = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8))?
            .split(separator: "\n").first(where: { $0.hasPrefix("0::") })?.dropFirst(3) else { return false }
    let dir = "/sys/fs/cgroup" + (own == "/" ? "" : String(own))
    let controllers = (try? String(contentsOfFile: dir + "/cgroup.subtree_control", encoding: .utf8)) ?? ""
    return controllers.contains("pids") && access(dir, W_OK) == 0
}

/// Security issue 70, finding 6: the user is the scenario, never the app's process. An app may
/// ask for an interactive sign-in; the simulated user completes it only for an account the
/// scenario signed in to the app, whatever the app says the user answered. And the policy of
/// an account that is not one of the app's own never reaches it.
@Suite struct TheUserIsTheScenarioTests {
    static func status(_ result: ServiceResult) -> EnrollmentStatus? {
        Service.Enroll.answer(from: result.value).flatMap(EnrollmentStatus.init(rawValue:))
    }

    @Test func anAppCannotSignAnAccountInOnItsOwnWord() async throws {
        let host = try HostController(configuration: try makeConfiguration(apps: 2))
        #expect(await host.startFleet().isEmpty)
        // Positive control: the call is the one a sign-in goes through. alice, whom the scenario
        // signed in to app0, is enrolled when app0 asks for her interactively.
        _ = await host.signIn("app0", account: "alice@contoso.com")
        let alice = await host.service("app0", .enroll(account: "alice@contoso.com", interactive: true, userCancels: false))
        #expect(Self.status(alice)?.didSucceed == true, "\(alice)")
        // app1 asks for bob and says the user did not cancel: the user, who never signed bob in
        // there, cancels; bob is not signed in and app1 gets no token for him.
        let bob = await host.service("app1", .enroll(account: "bob@outlook.com", interactive: true, userCancels: false))
        #expect(Self.status(bob) == .loginCanceled, "\(bob)")
        let (refused, token) = await host.acquireToken("app1", account: "bob@outlook.com", resource: "Office365", asApp: true)
        #expect(refused.decision.blockedBy == .notSignedIn, "\(refused.decision)")
        #expect(token == nil)
        // Nor with no account named (the device's MDM user, none here).
        let nobody = await host.service("app1", .enroll(account: "", interactive: true, userCancels: false))
        #expect(Self.status(nobody)?.didSucceed != true, "\(nobody)")
        #expect(await host.shutdown() == 0)
    }

    @Test func anAppGetsNoPolicyOfAnAccountNotItsOwn() async throws {
        let host = try HostController(configuration: try makeConfiguration(apps: 2))
        #expect(await host.startFleet().isEmpty)
        _ = await host.signIn("app0", account: "alice@contoso.com")
        // Positive control: app0 holds alice, and her policy (with her OID) answers it.
        let own = await host.service("app0", .policy(as: "alice@contoso.com", accounts: []))
        let summary = try #require(Service.Policy.answer(from: own.value))
        #expect(summary.managed && !summary.oid.isEmpty, "\(summary)")
        // app1 does not hold her: nothing of hers, not her OID.
        let other = await host.service("app1", .policy(as: "alice@contoso.com", accounts: []))
        let answered = try #require(Service.Policy.answer(from: other.value))
        #expect(!answered.managed && answered.oid.isEmpty && answered.upn.isEmpty, "\(answered)")
        #expect(await host.shutdown() == 0)
    }
}
