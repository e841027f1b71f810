import Foundation
import MAMDevice
import MAMModel
import MAMTestSupport
import MAMWire
import Testing
import MAMPolicy
import MAMLoop

@Suite(.serialized) struct HostTests {
    @Test func twentyAppsComeUpAndAManagedShareIsDeliveredAndAcknowledged() async throws {
        let log = EventLog()
        let host = try HostController(configuration: try makeConfiguration(apps: 20)) { log.record($0) }
        let failures = await host.startFleet()
        #expect(failures.isEmpty, "\(failures)")
        #expect(log.all.filter { if case .ready = $0 { true } else { false } }.count == 21)
        #expect(await host.signIn("app0", account: "ALICE@contoso.com").isAllowed)
        #expect(await host.signIn("app7", account: alice.oid).isAllowed)
        let outcome = await host.share(from: "app0", to: "app7", item: textItem("q3", "Q3 numbers"), identity: "alice@contoso.com")
        #expect(outcome == .delivered)
        // The destination got the item once, stamped with alice as owner by the host.
        let received = await host.command("app7", .listReceived)
        #expect(received == .received([ReceivedEntry(itemID: "q3", owner: "alice@contoso.com")]))
        #expect(await host.shutdown() == 0)
        for pid in log.pids { #expect(!isAlive(pid), "pid \(pid) survived teardown") }
    }

    @Test func managedDataToAnUnmanagedAppIsBlockedWithTheOwnersPolicyNamed() async throws {
        let host = try HostController(configuration: try makeConfiguration(apps: 1))
        #expect(await host.startFleet().isEmpty)
        _ = await host.signIn("app0", account: "alice@contoso.com")
        let outcome = await host.share(from: "app0", to: "notes", item: textItem("q3", "Q3"), identity: "alice@contoso.com")
        #expect(outcome.reason == .outboundPolicy)
        if case .blocked(_, let why) = outcome {
            #expect(why.contains("Contoso strict"))
            #expect(why.contains("com.example.notes"))
        } else {
            Issue.record("expected blocked, got \(outcome)")
        }
        // Personal data passes.
        #expect(await host.share(from: "app0", to: "notes", item: textItem("p", "lunch?")) == .delivered)
        #expect(await host.shutdown() == 0)
    }

    @Test func aChildThatLiesAboutItsOwnerOrTheDestinationGetsAnErrorAndTheHostCarriesOn() async throws {
        let log = EventLog()
        let host = try HostController(configuration: try makeConfiguration(apps: 2)) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let lie = await host.share(from: "app0", to: "app1", item: textItem("x", "x"), identity: "alice@contoso.com")
        #expect(lie.reason == .notSignedIn)
        let nowhere = await host.share(from: "app0", to: "com.nowhere.app", item: textItem("y", "y"))
        #expect(nowhere.reason == .unknownApp)
        #expect(log.hostile.count == 2)
        #expect(await host.share(from: "app0", to: "app1", item: textItem("z", "z")) == .delivered)
        #expect(await host.shutdown() == 0)
    }

    /// The broker decides a stream of shares between two apps once, and again as soon as
    /// the device changes: a sign-out, then a sign-in, each change the very next share's answer.
    @Test func aRouteDecidedOnceIsDecidedAgainWhenTheDeviceChanges() async throws {
        let host = try HostController(configuration: try makeConfiguration(apps: 2))
        #expect(await host.startFleet().isEmpty)
        #expect(await host.signIn("app0", account: "alice@contoso.com").isAllowed)
        #expect(await host.signIn("app1", account: "alice@contoso.com").isAllowed)
        for i in 0..<3 {
            #expect(await host.share(from: "app0", to: "app1", item: textItem("a\(i)", "x"), identity: "alice@contoso.com") == .delivered)
        }
        #expect(await host.signOut("app1", account: "alice@contoso.com").isAllowed)
        for i in 0..<2 {
            let outcome = await host.share(from: "app0", to: "app1", item: textItem("b\(i)", "x"), identity: "alice@contoso.com")
            guard case .blocked = outcome else { Issue.record("org data reached an app alice left: \(outcome)"); continue }
        }
        #expect(await host.signIn("app1", account: "alice@contoso.com").isAllowed)
        #expect(await host.share(from: "app0", to: "app1", item: textItem("c", "x"), identity: "alice@contoso.com") == .delivered)
        #expect(await host.signOut("app0", account: "alice@contoso.com").isAllowed)
        let notSignedIn = await host.share(from: "app0", to: "app1", item: textItem("d", "x"), identity: "alice@contoso.com")
        #expect(notSignedIn.reason == .notSignedIn, "\(notSignedIn)")
        #expect(await host.shutdown() == 0)
    }

    @Test(arguments: [
        ("oversized", [UInt8]([0xFF, 0xFF, 0xFF, 0xF0]), "exceeds the maximum"),
        ("malformed", [UInt8]([0, 0, 0, 3, 0x52, 0x7F, 0x01]), "unreadable frame"),
    ])
    func aChildSendingABadFrameIsCutOffAndOthersKeepWorking(name: String, bytes: [UInt8], expected: String) async throws {
        let log = EventLog()
        let hostile = try scriptedChild(name, frames: [], rawPrefix: bytes)
        let spec = AppSpec(handle: "evil", descriptor: AppDescriptor(bundleID: "com.evil.app"), executable: hostile)
        var config = try makeConfiguration(apps: 2, extra: [spec])
        config.fleet.install(spec.descriptor)
        let host = try HostController(configuration: config) { log.record($0) }
        let failures = await host.startFleet()
        #expect(failures["evil"] != nil)
        #expect(failures.count == 1)
        #expect(log.hostile.contains { $0.hasPrefix("evil:") && $0.contains(expected) }, "\(log.hostile)")
        #expect(await host.pid(of: "evil") == nil)
        #expect(await host.share(from: "app0", to: "app1", item: textItem("ok", "ok")) == .delivered)
        #expect(await host.shutdown() == 0)
    }

    @Test func aChildSpeakingBeforeHelloOrOutOfOrderIsCutOff() async throws {
        let log = EventLog()
        let early = try scriptedChild("early", frames: [Frame(seq: 1, body: .bye(reason: "hi"))])
        let replay = try scriptedChild("replay", frames: [
            Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "evil"))),
            Frame(seq: 3, body: .ping([1])),
        ])
        let specs = [
            AppSpec(handle: "early", descriptor: AppDescriptor(bundleID: "com.evil.early"), executable: early),
            AppSpec(handle: "replay", descriptor: AppDescriptor(bundleID: "com.evil.replay"), executable: replay),
        ]
        var config = try makeConfiguration(apps: 2, extra: specs)
        for s in specs { config.fleet.install(s.descriptor) }
        let host = try HostController(configuration: config) { log.record($0) }
        _ = await host.startFleet()
        try await log.wait(for: "early cut off") { if case .hostile("early", let what, true) = $0, what == "sent bye before hello" { what } else { nil } }
        try await log.wait(for: "replay cut off") { if case .hostile("replay", let what, true) = $0, what.contains("sent frame seq 3 after 1") { what } else { nil } }
        #expect(await host.share(from: "app1", to: "app0", item: textItem("ok", "ok")) == .delivered)
        #expect(await host.shutdown() == 0)
    }

    @Test func aDestinationKilledMidTransferFailsTheShareAndTheHostServesOthers() async throws {
        // A destination that completes the handshake and dies (SIGKILL) once the item arrived.
        let silent = try receivingChild("silent", then: """
            os.kill(os.getpid(), 9)
            """)
        let spec = AppSpec(handle: "silent", descriptor: AppDescriptor(bundleID: "com.contoso.silent"), executable: silent)
        var config = try makeConfiguration(apps: 2, extra: [spec])
        config.fleet.install(spec.descriptor)
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        let result = await host.share(from: "app0", to: "silent", item: textItem("lost", "data"))
        #expect(result.reason == .appNotRunning, "\(result)")
        #expect(result.explanation.contains("before acknowledging"))
        #expect(await host.share(from: "app0", to: "app1", item: textItem("next", "next")) == .delivered)
        #expect(await host.shutdown() == 0)
    }

    @Test func teardownTerminatesAChildThatIgnoresByeAndLeavesNoProcess() async throws {
        let log = EventLog()
        // Answers hello, then ignores bye, SIGTERM and EOF: only SIGKILL ends it.
        let stubborn = try scriptedChild(
            "stubborn", frames: [Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "stubborn")))],
            then: "trap '' TERM\nwhile :; do sleep 1; done")
        let spec = AppSpec(handle: "stubborn", descriptor: AppDescriptor(bundleID: "com.contoso.stubborn"), executable: stubborn)
        var config = try makeConfiguration(apps: 3, extra: [spec])
        config.fleet.install(spec.descriptor)
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let pids = log.pids
        #expect(pids.count == 5)
        let started = ContinuousClock.now
        #expect(await host.shutdown() == 0)
        #expect(ContinuousClock.now - started < .seconds(5))
        for pid in pids { #expect(!isAlive(pid), "pid \(pid) survived teardown") }
        let killed = log.all.contains { if case .exited("stubborn", _, let exit, _) = $0 { exit.signal == 9 } else { false } }
        #expect(killed)
    }

    @Test func aCrashedAppCanBeRelaunched() async throws {
        let log = EventLog()
        let host = try HostController(configuration: try makeConfiguration(apps: 2)) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let first = await host.pid(of: "app1")
        #expect(await host.kill("app1"))
        try await log.wait(for: "app1 reaped") { if case .exited("app1", _, let exit, false) = $0 { exit.signal } else { nil } }
        #expect(await host.share(from: "app0", to: "app1", item: textItem("a", "a")).reason == .appNotRunning)
        let relaunched = await host.launch("app1")
        #expect((try? relaunched.get()) != nil)
        #expect(await host.pid(of: "app1") != first)
        #expect(await host.share(from: "app0", to: "app1", item: textItem("b", "b")) == .delivered)
        #expect(await host.shutdown() == 0)
    }

    @Test func aMultiIdentityDestinationSwitchesToItsUnmanagedIdentityToTakePersonalData() async throws {
        let chat = AppSpec(handle: "chat", descriptor: AppDescriptor(bundleID: "com.contoso.chat", multiIdentity: true))
        var config = try makeConfiguration(apps: 1, extra: [chat])
        config.fleet.install(chat.descriptor)
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        #expect(await host.signIn("chat", account: "alice@contoso.com").isAllowed)
        #expect(await host.signIn("chat", account: "bob@outlook.com").isAllowed)
        let switched = await host.setIdentity("chat", account: "alice@contoso.com", window: "", pin: "2580")
        #expect(switched.status == .success, "\(switched)")
        // Personal data into alice's managedApps inbound policy: blocked for alice, but chat can
        // show its unmanaged identity instead, and does.
        let outcome = await host.share(from: "notes", to: "chat", item: textItem("p", "personal"))
        #expect(outcome == .delivered, "\(outcome)")
        let ui = try await host.identities("chat").get().ui
        #expect(ui == "")
        // Naming the receiver turns the switch off: the block stands.
        let named = await host.share(from: "notes", to: "chat", item: textItem("q", "personal"), receiveAs: "alice@contoso.com")
        #expect(named.reason == .inboundPolicy, "\(named)")
        // Without an unmanaged account to switch to, the data is blocked.
        #expect(await host.signOut("chat", account: "bob@outlook.com").isAllowed)
        _ = await host.setIdentity("chat", account: "alice@contoso.com", window: "", pin: "2580")
        let alone = await host.share(from: "notes", to: "chat", item: textItem("r", "personal"))
        #expect(alone.reason == .inboundPolicy, "\(alone)")
        #expect(await host.shutdown() == 0)
    }

    @Test func anExtensionStartedAgainWhileItsLastInstanceIsStillExitingServesBoth() async throws {
        // The runtime leaves on Bye, but its process lingers half a second after that.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-tests-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let script = dir.appendingPathComponent("lingering-extension.sh")
        try writeTestProgram("#!/bin/sh\n'\(appRuntime)'\nsleep 0.5\n", to: script.path)
        let ext = AppSpec(
            handle: "share-ext", descriptor: AppDescriptor(bundleID: "com.contoso.App0.share", kind: .share, containingApp: "com.contoso.App0"),
            executable: script.path, startsWithFleet: false)
        var config = try makeConfiguration(apps: 1, extra: [ext])
        config.fleet.install(ext.descriptor)
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        #expect(await host.share(from: "notes", to: "share-ext", item: textItem("one", "1")) == .delivered)
        #expect(await host.share(from: "notes", to: "share-ext", item: textItem("two", "2")) == .delivered)
        #expect(log.received("share-ext") == ["one", "two"])
        #expect(await host.shutdown() == 0)
        for pid in log.pids { #expect(!isAlive(pid), "pid \(pid) survived teardown") }
        let exits = log.all.filter { if case .exited("share-ext", _, _, _) = $0 { true } else { false } }
        #expect(exits.count == 2)
    }

    @Test func accountsNoLongerAllowedAreSignedOutOfEveryAppAndTheirDataWiped() async throws {
        let log = EventLog()
        let host = try HostController(configuration: try makeConfiguration(apps: 2)) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        #expect(await host.signIn("app0", account: "alice@contoso.com").isAllowed)
        #expect(await host.signIn("app1", account: "BOB@outlook.com").isAllowed)
        let changes = try await host.setAllowedAccounts(["alice@contoso.com"]).get()
        #expect(changes.count == 1)
        #expect(try await host.identities("app0").get().signedIn.map(\.upn) == ["alice@contoso.com"])
        #expect(try await host.identities("app1").get().signedIn.isEmpty)
        #expect(log.all.contains { if case .signedOut("app1", "bob@outlook.com") = $0 { true } else { false } })
        // bob may not come back while the list stands; addIdentity of alice goes through the app.
        #expect(await host.signIn("app1", account: "bob@outlook.com").blockedBy == .accountNotAllowed)
        let added = await host.addIdentity("app1", account: "alice@contoso.com")
        #expect(added.isAllowed, "\(added)")
        #expect(await host.shutdown() == 0)
    }

    @Test func aFileSharedFromAContainerArrivesInTheDestinationsInboxOwnedAndProtected() async throws {
        let config = try makeConfiguration(apps: 2)
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        #expect(await host.signIn("app0", account: "alice@contoso.com").isAllowed)
        #expect(await host.signIn("app1", account: "alice@contoso.com").isAllowed)
        let secret = Array("Q3 board minutes".utf8)
        // app0 writes the file through the SDK service; its owner is app0's file identity.
        let wrote = await host.service("app0", .writeFile(path: "Documents/q3.txt", data: secret, owner: nil))
        #expect(wrote.value == .file(owner: "alice@contoso.com", encrypted: true), "\(wrote)")
        let onDisk = try Data(contentsOf: config.deviceDirectory.appendingPathComponent("containers/com.contoso.App0/Documents/q3.txt"))
        #expect(!onDisk.isEmpty && [UInt8](onDisk) != secret, "a managed file is not stored in the clear")
        let file = Item(id: "f1", typeIdentifiers: ["public.plain-text"], payload: .file(path: "Documents/q3.txt"), fileName: "q3.txt")
        #expect(await host.share(from: "app0", to: "app1", item: file, identity: "alice@contoso.com") == .delivered)
        // The destination reads its copy from its own Inbox, decrypted for it, owned by alice.
        let read = await host.service("app1", .readFile(path: "Inbox/f1-q3.txt"))
        #expect(read.isAllowed && read.data == secret, "\(read)")
        let owner = await host.service("app1", .fileOwner(path: "Inbox/f1-q3.txt"))
        #expect(owner.value == .file(owner: "alice@contoso.com", encrypted: false))
        // A path outside the sender's containers is refused, not followed.
        let escape = Item(id: "f2", typeIdentifiers: ["public.data"], payload: .file(path: "../com.contoso.App1/Inbox/f1-q3.txt"))
        let refused = await host.share(from: "app0", to: "app1", item: escape)
        #expect(refused.reason == .badRequest, "\(refused)")
        #expect(await host.shutdown() == 0)
    }

    @Test func aPythonPluginReadsASharedFileThroughTheHostAndAcceptsIt() async throws {
        let archiver = AppSpec(
            handle: "archiver",
            descriptor: AppDescriptor(bundleID: "com.contoso.App0.archiver", kind: .share, containingApp: "com.contoso.App0"),
            executable: packageRoot.appendingPathComponent("plugins/python-archiver/run").path, startsWithFleet: false)
        var config = try makeConfiguration(apps: 1, extra: [archiver])
        config.fleet.install(archiver.descriptor)
        // What the plugin's plugin.json grants it: the Python client it runs with.
        config.childReadPaths.append(packageRoot.appendingPathComponent("clients/python/src").path)
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        let bytes = Array("minutes of the board".utf8)
        let wrote = await host.service("notes", .writeFile(path: "minutes.txt", data: bytes, owner: nil))
        #expect(wrote.isAllowed, "\(wrote)")
        let file = Item(id: "m1", typeIdentifiers: ["public.plain-text"], payload: .file(path: "minutes.txt"), fileName: "minutes.txt")
        // behaviour.py accepts non-empty items up to 1 MiB: only possible if it read the file.
        #expect(await host.share(from: "notes", to: "archiver", item: file) == .delivered)
        let empty = await host.service("notes", .writeFile(path: "empty.txt", data: [], owner: nil))
        #expect(empty.isAllowed)
        let emptyFile = Item(id: "m2", typeIdentifiers: ["public.plain-text"], payload: .file(path: "empty.txt"), fileName: "empty.txt")
        #expect(await host.share(from: "notes", to: "archiver", item: emptyFile).reason == .badRequest, "an empty file is declined")
        #expect(await host.shutdown() == 0)
    }

    @Test func anAppWrittenWithTheAsyncAPIReceivesAndSharesOnThroughTheBroker() async throws {
        let relayBinary = URL(fileURLWithPath: appRuntime).deletingLastPathComponent().appendingPathComponent("ExampleRelayApp").path
        let relay = AppSpec(handle: "relay", descriptor: AppDescriptor(bundleID: "com.contoso.relay"), executable: relayBinary, arguments: ["app0"])
        var config = try makeConfiguration(apps: 2, extra: [relay])
        config.fleet.install(relay.descriptor)
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        for app in ["app0", "app1", "relay"] {
            #expect(await host.signIn(app, account: "alice@contoso.com").isAllowed)
        }
        // alice's data in, and on as alice: the relay names the account it received the item as.
        #expect(await host.share(from: "app1", to: "relay", item: textItem("p1", "org data"), identity: "alice@contoso.com") == .delivered)
        let relayed = try await log.waitForReceived("app0", itemID: "relayed-p1")
        #expect(relayed.item.ownership?.upn == "alice@contoso.com", "app0 got the relayed item, owned by alice: \(relayed)")
        #expect(await host.shutdown() == 0)
    }
}
