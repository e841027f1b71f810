import Foundation
import MAMDevice
import MAMModel
import MAMPolicy
import MAMWire
import Synchronization
import Testing

/// Backpressure (security issue 46, finding 9): the host holds a bounded number of bytes of a
/// sender's unanswered shares, answers a share past it `failed(busy)` at once while the rest
/// of the sender's traffic flows, and a receiver that never acknowledges is timed out with
/// each of its pending items answered.
@Suite(.serialized) struct BackpressureTests {
    /// A receiver that completes its handshake, reads every delivery and acknowledges none,
    /// and says in its container how many frames it read.
    static func sink() throws -> String {
        var hello: [UInt8] = []
        FrameEncoder.encode(Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "sink"))), appendingTo: &hello)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-tests-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let helloFile = dir.appendingPathComponent("sink-hello.bin")
        try Data(hello).write(to: helloFile)
        return try pythonChild("sink", """
            os.write(3, open(\(String(reflecting: helloFile.path)), "rb").read())
            me = os.environ["MAMSIM_CONTAINER"]
            frames = 0
            while True:
                readFrame()
                frames += 1
                if frames % 64 == 0:
                    open(me + "/read", "w").write(str(frames))
            """)
    }

    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kb << 10
    }

    /// Three senders flood 64 KiB shares at the sink. Run in a process of its own (an exit
    /// test), so that the host's memory is measured alone: it prints how much it grew.
    @Test func threeSendersToAReceiverThatNeverAcknowledgesStayWithinTheBoundAndAreToldBusy() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            try await BackpressureTests.flood()
        }
        let said = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        let grown = Int(said.split(separator: "\n").first { $0.hasPrefix("grown ") }?.dropFirst(6) ?? "") ?? Int.max
        // 3 senders × 32 MiB in flight, plus the host's own copies in flight to the sink.
        #expect(grown < 256 << 20, "the host grew by \(grown >> 20) MiB: \(said)")
    }

    /// Unbuffered: `exit` in an exit test left what `print` buffered unwritten.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func flood() async throws {
        let sink = AppSpec(handle: "sink", descriptor: AppDescriptor(bundleID: "com.evil.sink", sdkIntegrated: false), executable: try Self.sink())
        var config = try makeConfiguration(apps: 3, extra: [sink])
        config.fleet.install(sink.descriptor)
        config.deliveryTimeout = .seconds(3)
        config.reportDeliveries = false
        let host = try HostController(configuration: config) { _ in }
        guard await host.startFleet().isEmpty else { exit(2) }
        let container = config.deviceDirectory.resolvingSymlinksInPath().appendingPathComponent("containers/com.evil.sink")
        let before = Self.residentBytes()
        let peak = Mutex(before)
        let watcher = Task {
            while !Task.isCancelled {
                let now = Self.residentBytes()
                peak.withLock { $0 = max($0, now) }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        // Each sender asks to keep 2,000 shares of 64 KiB in flight: 125 MiB each.
        let results = await withTaskGroup(of: CommandResult.self) { group in
            for a in ["app0", "app1", "app2"] {
                group.addTask { await host.command(a, .flood(Flood(destination: "sink", count: 2_000, size: 65_536, window: 4_000))) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        watcher.cancel()
        // Positive control: the receiver ran and read deliveries.
        let read = Int((try? String(contentsOf: container.appendingPathComponent("read"), encoding: .utf8)) ?? "") ?? 0
        guard read >= 64 else { say("the sink read \(read) frames"); exit(3) }
        for r in results {
            guard case .flood(let delivered, let problem) = r, delivered == 0, problem?.reason == .busy || problem?.reason == .timeout else {
                say("unexpected flood result \(r)")
                exit(4)
            }
        }
        say("grown \(peak.withLock { $0 } - before)")
        _ = await host.shutdown()
        try? FileManager.default.removeItem(at: config.deviceDirectory)
        exit(0)
    }

    /// A sender past its bytes is answered busy at once, and its next share, once answers
    /// came, goes through: its channel was never paused.
    @Test func aSenderPastItsBytesIsToldBusyAndSharesAgainOnceAnswered() async throws {
        var config = try makeConfiguration(apps: 2)
        config.maximumBytesInFlight = 256 << 10
        let host = try HostController(configuration: config) { _ in }
        #expect(await host.startFleet().isEmpty)
        let flood = await host.command("app0", .flood(Flood(destination: "app1", count: 400, size: 65_536, window: 400)))
        guard case .flood(let delivered, let problem) = flood else { Issue.record("\(flood)"); return }
        #expect(problem?.reason == .busy, "\(String(describing: problem))")
        #expect(delivered > 0 && delivered < 400, "\(delivered) delivered")
        #expect(await host.share(from: "app0", to: "app1", item: textItem("after", "hello")) == .delivered)
        #expect(await host.shutdown() == 0)
    }

    /// A receiver is never cut off for what others send it: deliveries fill at most half of
    /// the bytes its channel may hold unread, and past them the sender is answered busy. Its
    /// own answers keep the other half (a child that leaves those unread is cut off, see
    /// HostileChildTests).
    @Test func aReceiverThatDoesNotReadIsNotCutOffForWhatOthersSendIt() async throws {
        let deaf = try scriptedChild("deaf-receiver", frames: [Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "deaf")))])
        let spec = AppSpec(handle: "deaf", descriptor: AppDescriptor(bundleID: "com.evil.deaf", sdkIntegrated: false), executable: deaf)
        var config = try makeConfiguration(apps: 2, extra: [spec])
        config.maximumBacklog = 2 << 20
        config.deliveryTimeout = .seconds(1)
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let flood = await host.command("app0", .flood(Flood(destination: "deaf", count: 200, size: 65_536, window: 200)))
        guard case .flood(let delivered, let problem) = flood else { Issue.record("\(flood)"); return }
        #expect(delivered == 0)
        #expect(problem?.reason == .busy, "\(String(describing: problem))")
        #expect(problem?.explanation.contains("deaf has not read") == true, "\(String(describing: problem))")
        #expect(problem?.explanation.contains("may fill 1 MiB of its channel") == true, "\(String(describing: problem))")
        // Still running: the next share to it is delivered to its channel and times out.
        let later = await host.share(from: "app1", to: "deaf", item: textItem("later", "hello"))
        #expect(later.reason == .busy || later.reason == .timeout, "\(later)")
        #expect(log.all.contains { if case .hostile("deaf", _, true) = $0 { true } else { false } } == false)
        #expect(await host.shutdown() == 0)
    }

    /// Security issue 70, finding 5: the bound per sender multiplies with the senders; the
    /// host's own bound holds for all of them together, counted in the read buffers their
    /// payloads pin and the copies on their way out. Three senders flood a receiver that never
    /// reads: without the host's bound (the control) every share is taken and times out,
    /// with it some are answered busy at once, naming the host, and once the rest are answered
    /// a share goes through.
    @Test(arguments: [false, true])
    func allSendersTogetherStayWithinTheHostsBound(_ bounded: Bool) async throws {
        let deaf = try scriptedChild("deaf-all", frames: [Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "deaf")))])
        let spec = AppSpec(handle: "deaf", descriptor: AppDescriptor(bundleID: "com.evil.deaf", sdkIntegrated: false), executable: deaf)
        var config = try makeConfiguration(apps: 3, extra: [spec])
        config.deliveryTimeout = .seconds(1)
        config.maximumHostBytesInFlight = bounded ? 12 << 20 : 1 << 30
        let host = try HostController(configuration: config) { _ in }
        #expect(await host.startFleet().isEmpty)
        // 64 shares of 64 KiB each: 4 MiB per sender, 12 MiB together, twice that counted.
        let results = await withTaskGroup(of: CommandResult.self) { group in
            for a in ["app0", "app1", "app2"] {
                group.addTask { await host.command(a, .flood(Flood(destination: "deaf", count: 64, size: 65_536, window: 64))) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let problems = results.compactMap { r -> Verdict? in if case .flood(_, let p) = r { p } else { nil } }
        #expect(problems.count == 3, "\(results)")
        let toldHost = problems.filter { $0.reason == .busy && $0.explanation.contains("all apps together") }
        if bounded {
            #expect(!toldHost.isEmpty, "\(problems)")
        } else {
            #expect(toldHost.isEmpty && problems.allSatisfy { $0.reason == .timeout }, "\(problems)")
        }
        // Answers flowed: with everything answered, the host holds nothing and a share passes.
        #expect(await host.share(from: "app0", to: "app1", item: textItem("after", "hello")) == .delivered)
        #expect(await host.shutdown() == 0)
    }
}
