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
