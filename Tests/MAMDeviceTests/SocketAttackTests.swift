import Foundation
import MAMDevice
import MAMModel
import MAMTestSupport
import MAMPolicy
import Testing

/// A listening unix socket at a path, as the machine's ssh-agent or docker socket is.
final class PathSocket {
    let folder: URL
    let path: String
    let fd: Int32
    init() throws {
        folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("mamsim-sock-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o777)
        path = folder.appendingPathComponent("agent.sock").path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { for (i, b) in bytes.enumerated() { $0[i] = b } }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        chmod(path, 0o777)
    }
    deinit {
        close(fd)
        try? FileManager.default.removeItem(at: folder)
    }
}

/// What a hostile child tries with unix sockets: the machine's listening socket by its path, a
/// socket of its own that a sibling connects to, a datagram pair whose end sends to a path,
/// and the machine's socket list. Each attempt's outcome goes to a JSON file.
let socketAttacks = """
    import json, socket
    def attempt(seen, name, action):
        try:
            action()
            seen[name] = "allowed"
        except Exception as e:
            seen[name] = type(e).__name__
    def machine(path):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.settimeout(2); s.connect(path)
    def dgram(path):
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); a.sendto(b"x", path)
    def own_server(path):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(path); s.listen(1)
        globals()["server"] = s
    def stream_pair():
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM); a.send(b"x"); b.recv(1)
    def attack(targets, out):
        seen = {"started": True}
        attempt(seen, "machine-socket", lambda: machine(targets["socket"]))
        attempt(seen, "datagram-pair", lambda: dgram(targets["socket"]))
        attempt(seen, "stream-pair", stream_pair)
        if "serve" in targets:
            attempt(seen, "serve", lambda: own_server(targets["serve"]))
        if "sibling" in targets:
            attempt(seen, "sibling-socket", lambda: machine(targets["sibling"]))
        try:
            seen["proc-net-lists-machine-socket"] = targets["socket"] in open("/proc/net/unix").read()
        except Exception as e:
            seen["proc-net-lists-machine-socket"] = type(e).__name__
        json.dump(seen, open(out, "w"))

    """

@Suite(.serialized, .enabled(if: landlockAvailable(), "this kernel has no Landlock: children cannot be confined here"))
struct SocketAttackTests {
    /// Positive control: unconfined, the same code reaches the socket (so the attack is real).
    @Test func unconfinedTheAttackReachesTheSocket() throws {
        let agent = try PathSocket()
        let out = agent.folder.appendingPathComponent("seen.json").path
        let script = try pythonChild("socket-control", socketAttacks + """
            attack({"socket": \(String(reflecting: agent.path))}, \(String(reflecting: out)))
            """)
        let process = try Process.run(URL(fileURLWithPath: script), arguments: [])
        process.waitUntilExit()
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any])
        #expect(seen["started"] as? Bool == true)
        #expect(seen["machine-socket"] as? String == "allowed", "\(seen)")
        #expect(seen["datagram-pair"] as? String != "PermissionError", "\(seen)")
    }

    /// Two confined programs of their own in one fleet: neither reaches the machine's socket,
    /// the first cannot serve one and the second cannot connect to it, neither sends from a
    /// datagram pair; a stream pair still works; with a network namespace, /proc/net/unix does
    /// not list the machine's socket.
    @Test func aConfinedChildReachesNoSocketByPathNorAnotherChild() async throws {
        let agent = try PathSocket()
        let program = try pythonChild("socket-spy", socketAttacks + """
            me = os.environ["MAMSIM_CONTAINER"]
            targets = json.load(open(me + "/targets.json"))
            attack(targets, me + "/seen.json")
            os.execv(targets["runtime"], [targets["runtime"]])
            """)
        let first = AppSpec(handle: "server", descriptor: AppDescriptor(bundleID: "com.evil.server"), executable: program, startsWithFleet: false)
        let second = AppSpec(handle: "client", descriptor: AppDescriptor(bundleID: "com.evil.client"), executable: program, startsWithFleet: false)
        var config = try makeConfiguration(apps: 0, extra: [first, second])
        config.fleet.install(first.descriptor)
        config.fleet.install(second.descriptor)
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let report = log.all.compactMap { if case .confinement(let n) = $0 { n } else { nil } }.first ?? ""
        let containers = config.deviceDirectory.resolvingSymlinksInPath().appendingPathComponent("containers")
        let serverSocket = containers.appendingPathComponent("com.evil.server/s.sock").path
        for (bundle, extra) in [("com.evil.server", ["serve": serverSocket]), ("com.evil.client", ["sibling": serverSocket])] {
            let container = containers.appendingPathComponent(bundle)
            try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
            let targets = ["socket": agent.path, "runtime": appRuntime].merging(extra) { a, _ in a }
            try JSONSerialization.data(withJSONObject: targets).write(to: container.appendingPathComponent("targets.json"))
        }
        #expect((try? await host.launch("server").get()) != nil)
        #expect((try? await host.launch("client").get()) != nil)
        for bundle in ["com.evil.server", "com.evil.client"] {
            let seen = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: containers.appendingPathComponent("\(bundle)/seen.json"))) as? [String: Any])
            #expect(seen["started"] as? Bool == true, "\(bundle) did not run its attacks")
            #expect(seen["machine-socket"] as? String == "PermissionError", "\(bundle): \(seen)")
            #expect(seen["datagram-pair"] as? String == "PermissionError", "\(bundle): \(seen)")
            #expect(seen["stream-pair"] as? String == "allowed", "\(bundle): \(seen)")
            if bundle == "com.evil.server" { #expect(seen["serve"] as? String == "PermissionError", "\(seen)") }
            if bundle == "com.evil.client" { #expect(seen["sibling-socket"] as? String == "PermissionError", "\(seen)") }
            if report.contains("network namespace for each program") {
                #expect(seen["proc-net-lists-machine-socket"] as? Bool == false, "\(bundle): \(seen)")
            }
        }
        #expect(!report.contains("not in force: unix sockets"), "\(report)")
        #expect(await host.shutdown() == 0)
    }

    /// The same through the launcher as an ordinary user (nobody), who can make no namespace:
    /// the seccomp filter alone holds. Positive control first: as nobody, unconfined, the
    /// attack reaches the socket.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
                   && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs root to become nobody, setpriv and /usr/bin/python3"))
    func asAnOrdinaryUserAConfinedChildReachesNoSocketByPath() throws {
        let agent = try PathSocket()
        let launcher = URL(fileURLWithPath: appRuntime).deletingLastPathComponent().appendingPathComponent("mamsim-confine").path
        let script = agent.folder.appendingPathComponent("attack.py")
        try writeTestProgram(socketAttacks.appending("import sys\nattack({\"socket\": sys.argv[1]}, sys.argv[2])\n"), to: script.path)
        func run(confined: Bool) throws -> [String: Any] {
            let writable = agent.folder.appendingPathComponent("out-\(confined)")
            try FileManager.default.createDirectory(at: writable, withIntermediateDirectories: true)
            chmod(writable.path, 0o777)
            let result = writable.appendingPathComponent("seen.json").path
            var arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "--"]
            if confined {
                // The launcher is under the test's build folder; as nobody it must be reachable.
                // In a session of its own, as the host starts it (it refuses to run in a terminal's).
                arguments += ["/usr/bin/setsid", "--wait", launcher, "--read", agent.folder.path, "--write", writable.path, "--"]
            }
            arguments += ["/usr/bin/python3", script.path, agent.path, result]
            let process = try Process.run(URL(fileURLWithPath: "/usr/bin/setpriv"), arguments: arguments)
            process.waitUntilExit()
            return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: result))) as? [String: Any])
        }
        let control = try run(confined: false)
        #expect(control["started"] as? Bool == true)
        #expect(control["machine-socket"] as? String == "allowed", "\(control)")
        guard FileManager.default.isExecutableFile(atPath: launcher), access(launcher, X_OK) == 0 else { return }
        let seen = try run(confined: true)
        #expect(seen["started"] as? Bool == true, "the confined attack did not run")
        #expect(seen["machine-socket"] as? String == "PermissionError", "\(seen)")
        #expect(seen["datagram-pair"] as? String == "PermissionError", "\(seen)")
        #expect(seen["stream-pair"] as? String == "allowed", "\(seen)")
    }
}

/// A declared path is resolved and checked once, when the host starts, and the launcher opens
/// what was checked without following links (security issue 46, finding 4).
@Suite(.serialized, .enabled(if: landlockAvailable(), "this kernel has no Landlock: children cannot be confined here"))
struct DeclaredPathAttackTests {
    @Test func aDeclaredFolderRepointedAfterTheCheckGrantsNothingMore() async throws {
        let root = URL(fileURLWithPath: "/tmp").appendingPathComponent("mamsim-decl-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: root) }
        let safe = root.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: safe, withIntermediateDirectories: true)
        try "public".write(to: safe.appendingPathComponent("readme.txt"), atomically: true, encoding: .utf8)
        // The declaration names a link; the host resolves it to data/ when it starts.
        let link = root.appendingPathComponent("declared")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: safe.path)
        let program = try pythonChild("declared-spy", """
            import json
            me = os.environ["MAMSIM_CONTAINER"]
            targets = json.load(open(me + "/targets.json"))
            seen = {"started": True}
            for name, path in [("declared", targets["declared"] + "/readme.txt"), ("shadow", "/etc/shadow")]:
                try:
                    open(path).read(); seen[name] = "allowed"
                except Exception as e:
                    seen[name] = type(e).__name__
            json.dump(seen, open(me + "/seen.json", "w"))
            os.execv(targets["runtime"], [targets["runtime"]])
            """)
        var spy = AppSpec(handle: "spy", descriptor: AppDescriptor(bundleID: "com.evil.declared"), executable: program, startsWithFleet: false)
        spy.sandbox.read = [link.path]
        var config = try makeConfiguration(apps: 0, extra: [spy])
        config.fleet.install(spy.descriptor)
        config.quietChildren = true // its stderr to the device's logs, quoted when it fails
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let container = config.deviceDirectory.resolvingSymlinksInPath().appendingPathComponent("containers/com.evil.declared")
        try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: ["declared": safe.path, "runtime": appRuntime]).write(to: container.appendingPathComponent("targets.json"))
        // Positive control: the child runs and reads what was declared, not /etc/shadow.
        #expect((try? await host.launch("spy").get()) != nil)
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: container.appendingPathComponent("seen.json"))) as? [String: Any])
        #expect(seen["started"] as? Bool == true)
        #expect(seen["declared"] as? String == "allowed", "\(seen)")
        #expect(seen["shadow"] as? String == "PermissionError", "\(seen)")
        #expect(await host.kill("spy"))
        for _ in 0..<250 where await host.pid(of: "spy") != nil { try await Task.sleep(for: .milliseconds(20)) }
        // The attack: what was checked becomes a link to the whole machine.
        try FileManager.default.removeItem(at: safe)
        try FileManager.default.createSymbolicLink(atPath: safe.path, withDestinationPath: "/")
        try? FileManager.default.removeItem(at: container.appendingPathComponent("seen.json"))
        let again = await host.launch("spy")
        #expect((try? again.get()) == nil, "the child started with a grant re-pointed at /")
        #expect(!FileManager.default.fileExists(atPath: container.appendingPathComponent("seen.json").path))
        #expect("\(again)".contains("a path changed since the host checked it"), "\(again)")
        #expect(await host.shutdown() == 0)
    }
}
