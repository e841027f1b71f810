import Foundation
@testable import MAMDevice
import MAMModel
import MAMPolicy
import MAMWire
import Synchronization
import Testing

/// A started host whose fleet is one program of the test's own (`pythonChild`).
func startHost(with child: AppSpec) async throws -> (HostController, HostConfiguration) {
    var config = try makeConfiguration(apps: 0, extra: [child])
    config.fleet.install(child.descriptor)
    let host = try HostController(configuration: config)
    #expect(await host.startFleet().isEmpty)
    return (host, config)
}

/// Services asked for by an app's own process, over its channel.
@Suite(.serialized) struct ServiceCallTests {
    /// `policy_query` (isSpotlightIndexingAllowed…): under alice's policy, which sends org data
    /// only to managed apps, indexing her data for Spotlight is restricted; unmanaged data is
    /// not. The host decides and audits each call the child sent.
    @Test func anAppsOwnProcessReadsAFeatureSwitchOfItsPolicy() async throws {
        var hello: [UInt8] = [], frames: [UInt8] = []
        FrameEncoder.encode(Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "asker"))), appendingTo: &hello)
        FrameEncoder.encode(Frame(seq: 2, body: .serviceRequest(.policyQuery(.spotlight, as: "alice@contoso.com", accounts: []))), appendingTo: &frames)
        FrameEncoder.encode(Frame(seq: 3, body: .serviceRequest(.policyQuery(.spotlight, as: "", accounts: []))), appendingTo: &frames)
        // It asks once alice is signed in to it (the SDK answers a policy only for an account
        // it enrolled: a sign-in's registerAndEnroll, here the host's own sign-in).
        let asker = try pythonChild("asker", """
            os.write(3, bytes(\(hello)))
            readFrame()   # welcome
            while not os.path.exists(os.environ["MAMSIM_CONTAINER"] + "/go"):
                time.sleep(0.01)
            os.write(3, bytes(\(frames)))
            for _ in range(2):   # the two answers
                readFrame()
            time.sleep(30)
            """)
        let (host, config) = try await startHost(with: AppSpec(handle: "asker", descriptor: AppDescriptor(bundleID: "com.contoso.asker"), executable: asker))
        _ = await host.signIn("asker", account: "alice@contoso.com")
        let container = config.deviceDirectory.resolvingSymlinksInPath().appendingPathComponent("containers/com.contoso.asker")
        try Data().write(to: container.appendingPathComponent("go"))
        let audit = config.deviceDirectory.appendingPathComponent("audit.jsonl")
        var lines: [Substring] = []
        for _ in 0..<100 {
            _ = await host.exportAudit(to: audit)
            lines = try String(contentsOf: audit, encoding: .utf8).split(separator: "\n").filter { $0.contains("\"verb\":\"policy_query\"") }
            if lines.count == 2 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first { $0.contains("\"owner\":\"alice@contoso.com\"") }.map {
            $0.contains("\"sourceApp\":\"asker\"") && $0.contains("\"destinationApp\":\"spotlight\"") && $0.contains("\"reason\":\"feature-restricted\"")
        } == true, "\(lines)")
        #expect(lines.first { $0.contains("\"owner\":\"\"") }.map { $0.contains("\"decision\":\"allowed\"") } == true, "\(lines)")
        #expect(await host.shutdown() == 0)
    }

    /// A program of its own finds its data container in MAMSIM_CONTAINER and may keep files
    /// there (the file the device then serves it as Documents/… is the same file).
    @Test func aChildFindsItsContainerInItsEnvironment() async throws {
        var hello: [UInt8] = []
        FrameEncoder.encode(Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "keeper"))), appendingTo: &hello)
        let keeper = try pythonChild("keeper", """
            os.makedirs(os.path.join(os.environ["MAMSIM_CONTAINER"], "Documents"), exist_ok=True)
            with open(os.path.join(os.environ["MAMSIM_CONTAINER"], "Documents", "note.txt"), "w") as f:
                f.write("groups in " + os.environ["MAMSIM_APP_GROUPS_DIR"])
            os.write(3, bytes(\(hello)))
            readFrame()   # welcome
            time.sleep(30)
            """)
        let (host, config) = try await startHost(with: AppSpec(handle: "keeper", descriptor: AppDescriptor(bundleID: "com.contoso.keeper", sdkIntegrated: false), executable: keeper))
        let read = await host.service("keeper", .readFile(path: "Documents/note.txt"))
        let expected = "groups in " + config.deviceDirectory.resolvingSymlinksInPath().path + "/groups"
        #expect(String(decoding: read.data, as: UTF8.self) == expected, "\(read)")
        #expect(await host.shutdown() == 0)
    }
}

/// What an app's ManagedApp decoder refused reaches the administrator: an audit line and a
/// diagnostic, the app's words cut to one line of bounded length (a hostile app cannot fill
/// the log with one call).
@Suite(.serialized) struct DecoderReportTests {
    @Test func aDecoderErrorIsLoggedForTheAdministratorBounded() async throws {
        let config = try makeConfiguration(apps: 1)
        let said = Mutex<[String]>([])
        let host = try HostController(configuration: config) { event in
            if case .said(let handle, let what) = event { said.withLock { $0.append("\(handle): \(what)") } }
        }
        #expect(await host.startFleet().isEmpty)
        let r = await host.service("app0", .managedConfigUndecodable("bad\n" + String(repeating: "x", count: 100_000)))
        // Said in the run's output too, not only in the audit log (issue 87, item 3).
        #expect(said.withLock { $0 }.first?.hasPrefix(#"app0: its configuration decoder refused the ManagedApp configuration, so the app sees nil: bad\u{A}xxx"#) == true,
                "\(said.withLock { $0 }.first?.prefix(200) ?? "nothing said")")
        #expect(r.isAllowed, "\(r)")
        let audit = config.deviceDirectory.appendingPathComponent("audit.jsonl")
        _ = await host.exportAudit(to: audit)
        let lines = try String(contentsOf: audit, encoding: .utf8).split(separator: "\n").filter { $0.contains("decoder refused") }
        #expect(lines.count == 1 && lines[0].contains("\"verb\":\"managedConfig\"") && lines[0].contains(#"bad\\u{A}x"#), "\(lines)")
        #expect((lines.first?.count ?? .max) < 1_000, "the app's error is cut: \(lines.first?.count ?? 0) characters")
        // The same words again are said once; new words every time are heard a bounded number of times.
        _ = await host.service("app0", .managedConfigUndecodable("bad\n" + String(repeating: "x", count: 100_000)))
        for i in 0..<100 { _ = await host.service("app0", .managedConfigUndecodable("error \(i)")) }
        _ = await host.exportAudit(to: audit)
        let all = try String(contentsOf: audit, encoding: .utf8).split(separator: "\n").filter { $0.contains("decoder refused") }
        #expect(all.count == ServiceDesk.decoderReportsPerApp, "\(all.count) lines")
        #expect(await host.shutdown() == 0)
    }
}

/// `IntuneMAMComplianceManager.h`: an app's remediations run one at a time; a call for another
/// account is queued, a repeat for an account not yet answered is dropped, and
/// `remediationInProgressForAccountId` is true from the call until the delegate is told.
@Suite(.serialized) struct RemediationQueueTests {
    @Test func remediationsRunOneAtATimeInTheOrderAsked() async throws {
        var config = try makeConfiguration(apps: 1)
        config.brokerInstalled = true
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        let asked: [RemediationStart] = await host.run(orElse: []) { host in
            guard let app = try? host.app("app0") else { return [] }
            return ["alice@contoso.com", "bob@outlook.com", "alice@contoso.com"].compactMap { account in
                try? host.tokens.remediate(app, account: account, silent: false, userCancels: false, fromApp: false, heldForUser: account.hasPrefix("alice")) { _ in }
            }
        }
        #expect(asked == [.started, .queued(behindUser: true), .dropped])
        let inProgress: [Bool] = await host.run(orElse: []) { host in
            guard let app = try? host.app("app0") else { return [] }
            return ["alice@contoso.com", "bob@outlook.com", "carol@contoso.com"].compactMap { try? host.tokens.remediationInProgress(app, account: $0) }
        }
        #expect(inProgress == [true, true], "carol is no account of this device; alice and bob are asked for")
        let told: [String] = await host.complete { host, done in
            host.tokens.finishRemediations(try host.app("app0")) { done($0.map { "\($0.0.upn) \($0.1.status.rawValue)" }) }
        } ?? []
        // Alice's remediation enrolls her (the broker is installed); bob is not a managed account.
        #expect(told == ["alice@contoso.com compliant", "bob@outlook.com notCompliant"], "\(told)")
        let after: Bool? = await host.run(orElse: nil) { host in try? host.tokens.remediationInProgress(host.app("app0"), account: "alice@contoso.com") }
        #expect(after == false)
        #expect(await host.shutdown() == 0)
    }

    /// The same, asked by an app's own process over its channel: the answers to its calls, and
    /// its remediationInProgress queries, while the first remediation waits for the app to
    /// take its delegate's call.
    @Test func anAppsOwnProcessIsAnsweredWhetherItsRemediationIsInProgress() async throws {
        var frames: [UInt8] = []
        FrameEncoder.encode(Frame(seq: 1, body: .hello(Hello(pid: 1, runtime: "asker"))), appendingTo: &frames)
        let calls: [ServiceRequest] = [
            .remediateCompliance(account: "alice@contoso.com", silent: true), .remediateCompliance(account: "bob@outlook.com", silent: true),
            .remediateCompliance(account: "alice@contoso.com", silent: true), .remediationInProgress("alice@contoso.com"),
            .remediationInProgress("bob@outlook.com"), .remediationInProgress("nobody@contoso.com"),
        ]
        for (i, call) in calls.enumerated() { FrameEncoder.encode(Frame(seq: UInt64(2 + i), body: .serviceRequest(call)), appendingTo: &frames) }
        // It reads the welcome, alice's complianceStatus command (which it never answers) and
        // its six answers, and keeps them in its container.
        let asker = try pythonChild("remediator", """
            os.write(3, bytes(\(frames)))
            got = b""
            for _ in range(8):
                f = readFrame()
                got += struct.pack(">I", len(f)) + f
            with open(os.path.join(os.environ["MAMSIM_CONTAINER"], "answers"), "wb") as out:
                out.write(got)
            time.sleep(30)
            """)
        let (host, _) = try await startHost(with: AppSpec(handle: "asker", descriptor: AppDescriptor(bundleID: "com.contoso.asker"), executable: asker))
        var answers: [UInt64: ServiceResult] = [:]
        for _ in 0..<100 {
            let read = await host.service("asker", .readFile(path: "answers"))
            var bytes = read.data[...]
            answers = [:]
            while bytes.count >= 4 {
                let n = Int(bytes.prefix(4).reduce(0) { $0 << 8 | UInt32($1) })
                let frame = try FrameParser.parse(Array(bytes.dropFirst(4).prefix(n)))
                if case .serviceResult(let r) = frame.body { answers[frame.replyTo] = r }
                bytes = bytes.dropFirst(4 + n)
            }
            if answers.count == calls.count { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(answers.count == calls.count, "\(answers)")
        #expect(answers[2]?.verdict.explanation.contains("started") == true, "\(String(describing: answers[2]))")
        #expect(answers[3]?.verdict.explanation.contains("queued") == true, "\(String(describing: answers[3]))")
        #expect(answers[4]?.verdict.explanation.contains("no effect") == true, "\(String(describing: answers[4]))")
        #expect(answers[5]?.value == .flag(true))
        #expect(answers[6]?.value == .flag(true))
        #expect(answers[7]?.verdict.reason == .unknownAccount, "\(String(describing: answers[7]))")
        #expect(await host.shutdown() == 0)
    }
}

/// The façade's getters of issue 72: isURLAllowed / isUniversalLinkAllowed, canReceiveSharedFile /
/// canReceiveSharedItemProvider and policyForAccountIds, each answered by the policy as the
/// action itself would be, without acting.
@Suite struct PolicyGetterCallTests {
    static func host() async throws -> HostController {
        var config = try makeConfiguration(apps: 2)
        var scribble = AppSpec(handle: "scribble", descriptor: AppDescriptor(bundleID: "com.example.scribble", sdkIntegrated: false))
        scribble.descriptor.urlSchemes = ["scribble"]
        config.apps.append(scribble)
        config.fleet.install(scribble.descriptor)
        let host = try HostController(configuration: config)
        #expect(await host.startFleet().isEmpty)
        _ = await host.signIn("app0", account: "alice@contoso.com")
        return host
    }

    @Test func aLinkToAnUnmanagedAppIsAllowedOnlyForUnmanagedData() async throws {
        let host = try await Self.host()
        let alices = await host.service("app0", .urlAllowed(url: "scribble://note/1", universalLink: false, as: "alice@contoso.com"))
        #expect(alices.verdict.reason == .notExempt, "\(alices.verdict)")
        let personal = await host.service("app0", .urlAllowed(url: "scribble://note/1", universalLink: false, as: ""))
        #expect(personal.verdict.isAllowed, "\(personal.verdict)")
        let bad = await host.service("app0", .urlAllowed(url: "no scheme", universalLink: false, as: ""))
        #expect(bad.verdict.reason == .badRequest, "\(bad.verdict)")
        #expect(await host.shutdown() == 0)
    }

    @Test func aSharedFileOrItemIsReceivedAsATransferWouldBe() async throws {
        let host = try await Self.host()
        // alice's file in app0: her own data, hers to receive; the unmanaged identity's data
        // from the unmanaged notes app is refused to her (inbound: managed apps only).
        _ = await host.service("app0", .writeFile(path: "Documents/q3.txt", data: Array("q3".utf8), owner: "alice@contoso.com"))
        let own = await host.service("app0", .canReceiveShared(path: "Documents/q3.txt", owner: "", sourceBundle: "", as: "alice@contoso.com"))
        #expect(own.verdict.isAllowed, "\(own.verdict)")
        let personal = await host.service("app0", .canReceiveShared(path: "", owner: "", sourceBundle: "com.example.notes", as: "alice@contoso.com"))
        #expect(personal.verdict.reason == .inboundPolicy, "\(personal.verdict)")
        let missing = await host.service("app0", .canReceiveShared(path: "Documents/none.txt", owner: "", sourceBundle: "", as: ""))
        #expect(missing.verdict.reason == .badRequest, "\(missing.verdict)")
        #expect(await host.shutdown() == 0)
    }

    @Test func severalAccountsWithAManagedOneReadTheLockDownPolicy() async throws {
        let host = try await Self.host()
        _ = await host.signIn("app0", account: "bob@outlook.com")
        let both = await host.service("app0", .policy(as: nil, accounts: ["alice@contoso.com", "bob@outlook.com"]))
        let summary = try #require(Service.Policy.answer(from: both.value))
        #expect(summary.managed && both.verdict.explanation.contains("lock-down"), "\(both.verdict) \(summary)")
        let bobs = await host.service("app0", .policy(as: nil, accounts: ["bob@outlook.com"]))
        #expect(Service.Policy.answer(from: bobs.value)?.managed == false)
        #expect(await host.shutdown() == 0)
    }
}

/// `strict_finding` (docs/STRICT.md): a Strict Mode finding is the app's word about itself —
/// known checks only, every field bounded, a bounded number per app — and reaches the run as
/// an event, deciding nothing.
@Suite(.serialized) struct StrictFindingCallTests {
    @Test func aFindingIsBoundedAndAnUnknownCheckRefused() async throws {
        let config = try makeConfiguration(apps: 1)
        let events = Mutex<[StrictFindingEvent]>([])
        let host = try HostController(configuration: config) { event in
            if case .strict(let handle, let f) = event, handle == "app0" { events.withLock { $0.append(f) } }
        }
        #expect(await host.startFleet().isEmpty)
        let ok = await host.service("app0", .strictFinding(check: "account-id-is-upn", call: "policy(forAccountId:)", file: "App/main.swift", line: 12,
                                                          detail: "a\nb" + String(repeating: "x", count: 10_000)))
        #expect(ok.isAllowed, "\(ok)")
        let forged = await host.service("app0", .strictFinding(check: "rm -rf", call: "", file: "", line: 0, detail: ""))
        #expect(forged.verdict.reason == .badRequest, "\(forged.verdict)")
        // A check the host makes itself (security issue 83): no app may report it.
        let hostsOwn = await host.service("app0", .strictFinding(check: "wipe-answered-with-files-left", call: "IntuneMAMPolicyDelegate.wipeData(forAccountId:)",
                                                                file: "", line: 0, detail: "forged"))
        #expect(hostsOwn.verdict.reason == .badRequest && hostsOwn.verdict.explanation.contains("the host makes"), "\(hostsOwn.verdict)")
        for i in 0..<(StrictFindingHandler.findingsPerApp + 5) {
            _ = await host.service("app0", .strictFinding(check: "deregister-in-callback", call: "c", file: "F.swift", line: UInt32(i), detail: ""))
        }
        #expect(await host.shutdown() == 0)
        let got = events.withLock { $0 }
        #expect(got.count == StrictFindingHandler.findingsPerApp, "\(got.count) findings kept")
        // Bounded in UTF-8 bytes, the line break written as its escape.
        #expect(got.first.map { $0.check == "account-id-is-upn" && $0.line == 12 && $0.file == "App/main.swift" && $0.detail.utf8.count <= 600
            && $0.detail.hasPrefix(#"a\u{A}bxxx"#) && $0.detail.hasSuffix("…") && !$0.detail.contains("\n") } == true, "\(got.first.map(\.detail.utf8.count) ?? 0)")
        #expect(!got.contains { $0.check == "rm -rf" })
        #expect(!got.contains { $0.check == "wipe-answered-with-files-left" })
    }

    /// process-policy-in-multi-identity is the host's to judge: kept for a multi-identity app,
    /// dropped for a single-identity one (whose process policy is its one account's).
    @Test func theProcessPolicyIsAFindingOnlyInAMultiIdentityApp() async throws {
        var config = try makeConfiguration(apps: 2)
        config.apps[1].descriptor.multiIdentity = true
        config.fleet.install(config.apps[1].descriptor)
        let events = Mutex<[String]>([])
        let host = try HostController(configuration: config) { event in
            if case .strict(let handle, let f) = event { events.withLock { $0.append("\(handle) \(f.check)") } }
        }
        #expect(await host.startFleet().isEmpty)
        for app in ["app0", "app1"] {
            let r = await host.service(app, .strictFinding(check: "process-policy-in-multi-identity", call: "policy()", file: "App/Policy.swift", line: 3, detail: ""))
            #expect(r.isAllowed, "\(r)")
        }
        #expect(await host.shutdown() == 0)
        #expect(events.withLock { $0 } == ["app1 process-policy-in-multi-identity"])
    }

    /// restart-unhandled-with-state is the host's to judge: kept for an app that does not
    /// restore its state when relaunched (a team's executable, by default), dropped for one that does.
    @Test func anUnhandledRestartIsAFindingOnlyForAnAppThatDoesNotRestoreItsState() async throws {
        var config = try makeConfiguration(apps: 2)
        config.apps[0].descriptor.restoresState = false
        config.fleet.install(config.apps[0].descriptor)
        let events = Mutex<[String]>([])
        let host = try HostController(configuration: config) { event in
            if case .strict(let handle, let f) = event { events.withLock { $0.append("\(handle) \(f.check)") } }
        }
        #expect(await host.startFleet().isEmpty)
        for app in ["app0", "app1"] {
            let r = await host.service(app, .strictFinding(check: "restart-unhandled-with-state", call: "setUIPolicyAccountId(_:completionHandler:)",
                                                           file: "App/Screens.swift", line: 9, detail: ""))
            #expect(r.isAllowed, "\(r)")
        }
        #expect(await host.shutdown() == 0)
        #expect(events.withLock { $0 } == ["app0 restart-unhandled-with-state"])
    }

    /// remediation-without-protapp is the host's to judge: kept for an app without the
    /// capability, dropped for one that declares it.
    @Test func aRemediationWithoutProtappIsKeptOnlyWhereTheCapabilityIsMissing() async throws {
        var config = try makeConfiguration(apps: 2)
        config.apps[1].descriptor.clientCapabilities = ["ProtApp"]
        config.fleet.install(config.apps[1].descriptor)
        let events = Mutex<[String]>([])
        let host = try HostController(configuration: config) { event in
            if case .strict(let handle, let f) = event { events.withLock { $0.append("\(handle) \(f.check)") } }
        }
        #expect(await host.startFleet().isEmpty)
        for app in ["app0", "app1"] {
            let r = await host.service(app, .strictFinding(check: "remediation-without-protapp", call: "remediateCompliance(forAccountId:silent:)",
                                                           file: "App/Compliance.swift", line: 7, detail: "no protapp"))
            #expect(r.isAllowed, "\(r)")
        }
        #expect(await host.shutdown() == 0)
        #expect(events.withLock { $0 } == ["app0 remediation-without-protapp"])
    }

    /// item-shared-without-owner: a multi-identity app showing alice shares an item that names
    /// no owner (the finding) and one as alice (none); a single-identity app's ownerless share
    /// is its one account's business, no finding.
    @Test func anOwnerlessShareUnderAManagedScreenIsAFinding() async throws {
        let chat = AppSpec(handle: "chat", descriptor: AppDescriptor(bundleID: "com.contoso.chat", multiIdentity: true))
        var config = try makeConfiguration(apps: 1, extra: [chat])
        config.fleet.install(chat.descriptor)
        let events = Mutex<[String]>([])
        let host = try HostController(configuration: config) { event in
            if case .strict(let handle, let f) = event { events.withLock { $0.append("\(handle) \(f.check) \(f.call)") } }
        }
        #expect(await host.startFleet().isEmpty)
        #expect(await host.signIn("chat", account: "alice@contoso.com").isAllowed)
        #expect(await host.setIdentity("chat", account: "alice@contoso.com", window: "", pin: "2580").status == .success)
        _ = await host.share(from: "chat", to: "app0", item: textItem("a", "Q3"), identity: "")
        _ = await host.share(from: "chat", to: "notes", item: textItem("b", "Q3"), identity: "alice@contoso.com")
        #expect(await host.signIn("app0", account: "alice@contoso.com").isAllowed)
        _ = await host.share(from: "app0", to: "chat", item: textItem("c", "Q3"), identity: "")
        #expect(await host.shutdown() == 0)
        #expect(events.withLock { $0 } == ["chat item-shared-without-owner share to app0"])
    }
}
