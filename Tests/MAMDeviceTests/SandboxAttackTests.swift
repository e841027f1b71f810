import Foundation
import MAMDevice
import MAMDeviceState
import MAMModel
import MAMTestSupport
import MAMPolicy
import MAMWire
import Testing

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
