import Foundation
import MAMDevice
import MAMLoop
import MAMModel
import MAMPolicy
import MAMWire
import Testing

/// The built-in runtime's apps are forked from one template: each is still a real process,
/// the host's own child, and lives and dies as an exec'd app does.
@Suite struct ZygoteTests {
    /// What /proc says of a process: parent, process group, command line.
    struct ProcessInfoLine {
        var ppid: Int32
        var pgrp: Int32
        var cmdline: String
        init?(_ pid: Int32) {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 3, let ppid = Int32(fields[1]), let pgrp = Int32(fields[2]) else { return nil }
            self.ppid = ppid
            self.pgrp = pgrp
            cmdline = (try? String(decoding: Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")), as: UTF8.self)) ?? ""
        }
    }

    /// The template's pid, from the host's note.
    static func template(in log: EventLog) -> Int32? {
        for case .note(let n) in log.all where n.hasPrefix("built-in apps are forked from a template (pid ") {
            return Int32(n.split(separator: " ").last?.dropLast() ?? "")
        }
        return nil
    }

    static func isRunningTemplate(_ pid: Int32) -> Bool {
        guard let info = ProcessInfoLine(pid) else { return false }
        return info.ppid == getpid() && info.cmdline.hasSuffix("mamsim-app\u{0}--zygote\u{0}")
    }

    @Test func forkedAppsAreTheHostsChildrenLeadingTheirOwnGroups() async throws {
        let config = try makeConfiguration(apps: 3)
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let ready = log.all.compactMap { if case .ready(let h, _, let pid) = $0 { (h, pid) } else { nil } }
        #expect(ready.count == 4)
        for (handle, pid) in ready {
            let info = try #require(ProcessInfoLine(pid), "\(handle)")
            #expect(info.ppid == getpid(), "\(handle) is the host's child")
            #expect(info.pgrp == pid, "\(handle) leads its own process group")
            #expect(info.cmdline.hasSuffix("--zygote\u{0}"), "\(handle) was forked from the template")
        }
        // One template besides the apps.
        let template = try #require(Self.template(in: log))
        #expect(!ready.map(\.1).contains(template))
        #expect(Self.isRunningTemplate(template))
        // Each app answers as itself: its bundle id came from the host after the fork.
        #expect(await host.signIn("app1", account: "alice@contoso.com").isAllowed)
        #expect(await host.signIn("app2", account: "alice@contoso.com").isAllowed)
        #expect(await host.share(from: "app1", to: "app2", item: textItem("n1", "note"), identity: "alice@contoso.com") == .delivered)
        guard case .received(let entries) = await host.command("app2", .listReceived) else { Issue.record("no list"); return }
        #expect(entries == [ReceivedEntry(itemID: "n1", owner: "alice@contoso.com")])
        #expect(await host.shutdown() == 0)
        // The template ends with the fleet, and is reaped (no zombie left in /proc).
        for _ in 0..<100 where FileManager.default.fileExists(atPath: "/proc/\(template)") {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(template)"))
    }

    /// The built-in runtime starts with glibc's per-thread cache of freed blocks enlarged
    /// (`SpawnEnvironment.runtimeMallocTunables`), forked from the template or exec'd.
    @Test(arguments: [true, false])
    func theBuiltInRuntimeStartsWithItsAllocatorTuned(forked: Bool) async throws {
        var config = try makeConfiguration(apps: 1)
        config.forkBuiltInApps = forked
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let pid = try #require(log.all.compactMap { if case .ready(_, _, let pid) = $0 { pid } else { nil } }.first)
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ")).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(environ.contains("GLIBC_TUNABLES=glibc.malloc.tcache_count=512"), "\(environ)")
        #expect(await host.shutdown() == 0)
    }

    @Test func aForkedAppThatCrashesIsSeenAndStartsAgain() async throws {
        let config = try makeConfiguration(apps: 1)
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let first = try #require(await host.pid(of: "app0"))
        #expect(await host.kill("app0", signal: SIGKILL))
        var exit: ChildProcess.Exit?
        for _ in 0..<200 where exit == nil {
            exit = log.all.compactMap { if case .exited("app0", first, let e, false) = $0 { e } else { nil } }.first
            if exit == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(exit?.signal == SIGKILL, "\(log.all)")
        let second = try await host.launch("app0").get()
        #expect(second != first)
        #expect(ProcessInfoLine(second)?.ppid == getpid())
        #expect(await host.command("app0", .listReceived) == .received([]))
        #expect(await host.shutdown() == 0)
    }

    /// A fleet of one app plus `late`, launched on demand, started; its template's pid.
    static func fleetWithALateApp(templateTimeout: Duration = .seconds(5)) async throws -> (HostController, EventLog, Int32) {
        var config = try makeConfiguration(apps: 1)
        config.templateTimeout = templateTimeout
        let late = AppSpec(handle: "late", descriptor: AppDescriptor(bundleID: "com.contoso.Late"), startsWithFleet: false)
        config.apps.append(late)
        config.fleet.install(late.descriptor)
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        return (host, log, try #require(Self.template(in: log)))
    }

    @Test func whenTheTemplateDiesAppsAreExecdInstead() async throws {
        let (host, log, template) = try await Self.fleetWithALateApp()
        kill(template, SIGKILL)
        var noted = false
        for _ in 0..<200 where !noted {
            noted = log.all.contains { if case .note(let n) = $0 { n.contains("built-in apps are exec'd from now on") } else { false } }
            if !noted { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(noted, "\(log.all)")
        let pid = try await host.launch("late").get()
        let info = try #require(ProcessInfoLine(pid))
        #expect(!info.cmdline.contains("--zygote"), "exec'd: \(info.cmdline.debugDescription)")
        #expect(await host.command("late", .listReceived) == .received([]))
        // The apps forked earlier live on.
        #expect(await host.command("app0", .listReceived) == .received([]))
        #expect(await host.shutdown() == 0)
    }

    /// A template that stops answering never stalls the host: the loop serves the running
    /// apps while a fork waits, and at the deadline the template is killed and the app exec'd.
    @Test func aHungTemplateDoesNotStallTheHost() async throws {
        let (host, log, template) = try await Self.fleetWithALateApp(templateTimeout: .seconds(3))
        kill(template, SIGSTOP)
        let launched = Task { await host.launch("late") }
        // Served while the fork waits for its answer.
        #expect(await host.command("app0", .listReceived) == .received([]))
        #expect(await host.signIn("app0", account: "alice@contoso.com").isAllowed)
        let spawnedLate = log.all.contains { if case .spawned("late", _) = $0 { true } else { false } }
        #expect(!spawnedLate, "the late app waits for the template's answer")
        let pid = try await launched.value.get()
        let info = try #require(ProcessInfoLine(pid))
        #expect(!info.cmdline.contains("--zygote"), "exec'd after the deadline: \(info.cmdline.debugDescription)")
        #expect(log.all.contains { if case .note(let n) = $0 { n.contains("ETIMEDOUT") && n.contains("exec'd from now on") } else { false } }, "\(log.all)")
        // The stopped template was killed and reaped, not left behind.
        for _ in 0..<100 where FileManager.default.fileExists(atPath: "/proc/\(template)") {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(template)"))
        #expect(await host.command("late", .listReceived) == .received([]))
        #expect(await host.shutdown() == 0)
    }

    /// A device shut down while apps are being forked ends: the forks' answers still come,
    /// each new app is killed and reaped, and their launches fail as the device's are.
    @Test func shutdownWhileAppsAreForkedEndsCleanly() async throws {
        let config = try makeConfiguration(apps: 1, extra: (0..<6).map { i in
            AppSpec(handle: "late\(i)", descriptor: AppDescriptor(bundleID: BundleID("com.contoso.Late\(i)")), startsWithFleet: false)
        })
        let log = EventLog()
        let host = try HostController(configuration: config) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        let template = try #require(Self.template(in: log))
        // The template holds its answers until the device is shutting down.
        kill(template, SIGSTOP)
        let launches = (0..<6).map { i in Task { await host.launch("late\(i)") } }
        try await Task.sleep(for: .milliseconds(500))
        let shutdown = Task { await host.shutdown() }
        try await Task.sleep(for: .milliseconds(100))
        kill(template, SIGCONT)
        #expect(await shutdown.value == 0)
        for launch in launches {
            guard case .failure(let failure) = await launch.value else { Issue.record("a launch succeeded during shutdown"); continue }
            #expect(failure.reason == .appNotRunning, "\(failure)")
        }
        let forked = log.all.compactMap { if case .exited(let h, let pid, _, true) = $0, h.hasPrefix("late") { pid } else { nil } }
        #expect(forked.count == 6, "every app forked during the shutdown was killed and reaped: \(log.all)")
        for pid in forked { #expect(!FileManager.default.fileExists(atPath: "/proc/\(pid)"), "pid \(pid) is gone") }
        #expect(!log.all.contains { if case .note(let n) = $0 { n.contains("exec'd from now on") } else { false } }, "the template answered in time")
    }
}
