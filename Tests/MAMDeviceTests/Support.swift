import Foundation
import MAMDevice
import MAMModel
import MAMTestSupport
import MAMPolicy
import MAMWire
import Synchronization

/// The package root, found from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The generic app runtime built beside the tests (`swift build` builds every product).
let appRuntime: String = {
    if let p = ProcessInfo.processInfo.environment["MAMSIM_APP"] { return p }
    let candidates = [".build/debug/mamsim-app", ".build/release/mamsim-app"].map { packageRoot.appendingPathComponent($0).path }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
}()

let alice = Account(upn: "alice@contoso.com", oid: "0b6f1c2e-2f4b-4c1e-9a55-3c1f0e6d7a10", tenant: "contoso.onmicrosoft.com")
let bob = Account(upn: "bob@outlook.com")

/// A policy in Graph terms: org data only to policy-managed apps.
func strictPolicy() throws -> IosManagedAppProtection {
    let json = """
    {"@odata.type": "#microsoft.graph.iosManagedAppProtection", "displayName": "Contoso strict",
     "allowedOutboundDataTransferDestinations": "managedApps", "allowedInboundDataTransferSources": "managedApps"}
    """
    return try GraphPolicyImporter.importPolicies(Array(json.utf8), source: "strict.json").policies[0]
}

/// A fleet of `count` SDK apps `app0…` plus an unmanaged `notes` app, alice managed.
func makeConfiguration(apps count: Int, extra: [AppSpec] = []) throws -> HostConfiguration {
    var fleet = Fleet()
    fleet.add(alice, policy: try strictPolicy())
    fleet.add(bob)
    var specs = (0..<count).map { i in
        AppSpec(handle: "app\(i)", descriptor: AppDescriptor(bundleID: BundleID("com.contoso.App\(i)")))
    }
    specs.append(AppSpec(handle: "notes", descriptor: AppDescriptor(bundleID: "com.example.notes", sdkIntegrated: false)))
    specs += extra
    for s in specs { fleet.install(s.descriptor) }
    var config = HostConfiguration(apps: specs, fleet: fleet, deviceDirectory: temporaryDeviceDirectory(), appRuntime: appRuntime)
    config.teardown = [.ask(wait: .milliseconds(500)), .signal(SIGTERM, wait: .milliseconds(500)), .kill]
    config.deliveryTimeout = .seconds(5)
    config.childReadPaths = pythonInstallation
    return config
}

/// Where the `python3` on PATH lives when it is not the system's (pyenv under the home
/// folder, as on CI's machines): the tests' Python children are confined and must read it.
let pythonInstallation: [String] = {
    let env = ProcessInfo.processInfo.environment
    var paths: [String] = []
    if let root = env["PYENV_ROOT"], root.hasPrefix("/") { paths.append(root) }
    if let home = env["HOME"], FileManager.default.fileExists(atPath: home + "/.pyenv") { paths.append(home + "/.pyenv") }
    return paths
}()

/// Collects host events for assertions.
final class EventLog: Sendable {
    private let events = Mutex<[HostEvent]>([])
    func record(_ e: HostEvent) { events.withLock { $0.append(e) } }
    var all: [HostEvent] { events.withLock { $0 } }
    var hostile: [String] {
        all.compactMap { if case .hostile(let h, let what, _) = $0 { "\(h): \(what)" } else { nil } }
    }
    var pids: [Int32] {
        all.compactMap { if case .spawned(_, let pid) = $0 { pid } else { nil } }
    }
    /// Ids of the items `handle` accepted, in order.
    func received(_ handle: String) -> [String] {
        all.compactMap { if case .received(let h, let r) = $0, h == handle { r.item.id } else { nil } }
    }

    /// Waits (polling the log, at most `timeout`) until an event matches; fails the test if none does.
    @discardableResult
    func wait<T>(for what: String, timeout: Duration = .seconds(10), _ match: (HostEvent) -> T?) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = all.lazy.compactMap(match).first { return found }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw WaitTimedOut(what: what, events: all.map(\.description))
    }

    func waitForReceived(_ handle: String, itemID: String) async throws -> ReceivedItem {
        try await wait(for: "\(handle) to accept \(itemID)") {
            if case .received(let h, let r) = $0, h == handle, r.item.id == itemID { r } else { nil }
        }
    }
}

struct WaitTimedOut: Error, CustomStringConvertible {
    let what: String
    let events: [String]
    var description: String { "timed out waiting for \(what); events: \(events.suffix(10))" }
}

func textItem(_ id: String, _ text: String) -> Item {
    Item(id: id, typeIdentifiers: ["public.plain-text"], payload: .inline(Array(text.utf8)))
}

/// A shell script standing in for an app: it sends the given frames on fd 3, then runs `tail`.
func scriptedChild(_ name: String, frames: [Frame], rawPrefix: [UInt8] = [], then tail: String = "sleep 30") throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-tests-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    var bytes = rawPrefix
    for f in frames { FrameEncoder.encode(f, appendingTo: &bytes) }
    let data = dir.appendingPathComponent("\(name).bin")
    try Data(bytes).write(to: data)
    let script = dir.appendingPathComponent("\(name).sh")
    try writeTestProgram("#!/bin/sh\ncat '\(data.path)' >&3\n\(tail)\n", to: script.path)
    return script.path
}

/// A Python child that says hello as `name`, reads the host's welcome and its first
/// delivery, then runs `then` (Python, the delivery's bytes in `deliver`).
func receivingChild(_ name: String, then: String) throws -> String {
    var hello: [UInt8] = []
    FrameEncoder.encode(Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: name))), appendingTo: &hello)
    return try pythonChild(name, """
        os.write(3, bytes(\(hello)))
        readFrame()   # welcome
        deliver = readFrame()

        """ + then)
}

/// `frame` as it goes on the wire (length prefix included), for a scripted child to write.
func wireBytes(_ frame: Frame) -> [UInt8] {
    var bytes: [UInt8] = []
    FrameEncoder.encode(frame, appendingTo: &bytes)
    return bytes
}

func isAlive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 }

/// A fresh device directory per host, in a folder of this test process's that goes when the
/// process exits: a device holds a sparse storage image and a database, and a day of test runs
/// otherwise leaves gigabytes in the temporary folder.
func temporaryDeviceDirectory() -> URL {
    testDevicesRoot.appendingPathComponent("mamsim-device-\(UUID().uuidString)")
}

/// This process's folders in the temporary folder: the devices, and the scripts standing in for apps.
private func testFolders() -> [URL] {
    let tmp = FileManager.default.temporaryDirectory
    return ["mamsim-test-devices-\(getpid())", "mamsim-tests-\(getpid())"].map { tmp.appendingPathComponent($0) }
}

private let testDevicesRoot: URL = {
    // Hosts are stopped by the tests that start them, so nothing is writing there at exit.
    atexit { for folder in testFolders() { try? FileManager.default.removeItem(at: folder) } }
    return testFolders()[0]
}()

/// A Python program standing in for an app (raw frames on fd 3, no protobuf library).
/// `readFrame()` in the program reads one frame from the host and returns its bytes.
func pythonChild(_ name: String, _ program: String) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-tests-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let script = dir.appendingPathComponent("\(name).py")
    let prelude = """
        import os, struct, sys, time
        def readExactly(n):
            data = b""
            while len(data) < n:
                chunk = os.read(3, n - len(data))
                if not chunk:
                    sys.exit(0)
                data += chunk
            return data
        def readFrame():
            return readExactly(struct.unpack(">I", readExactly(4))[0])

        """
    try writeTestProgram("#!/usr/bin/env python3\n" + prelude + program, to: script.path)
    return script.path
}

extension ServiceResult {
    /// The bytes a data answer (or a keychain value) carries, else empty: what the tests
    /// compare, read through the typed calls.
    var data: [UInt8] { Service.ReadFile.answer(from: value) ?? Service.KeychainGet.answer(from: value)?.value ?? [] }
}
