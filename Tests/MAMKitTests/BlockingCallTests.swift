import Foundation
import MAMModel
import MAMWire
import Synchronization
import Testing
@testable import MAMKit

/// A host played by the test over a socket pair: it welcomes the app, then answers each
/// service request with what `answer` returns (`nil`: never answers), on a thread of its own.
final class FakeHost: @unchecked Sendable {
    let appEnd: Int32
    private let hostEnd: Int32
    private let answer: @Sendable (ServiceRequest, ServiceContext) -> ServiceResult?
    let seen = Mutex<[(ServiceRequest, ServiceContext)]>([])
    /// The command results the app sent, in order, with how many service requests had been
    /// answered before each.
    let commandResults = Mutex<[(CommandResult, answeredBefore: Int)]>([])
    /// The deliveries' acknowledgements the app sent, in order.
    let deliveryAcks = Mutex<[DeliverAcks]>([])
    /// The identity switches the app asked for, in order.
    let identities = Mutex<[SetIdentity]>([])
    private let writing = Mutex<Void>(())
    private var thread: Thread?

    init(answer: @escaping @Sendable (ServiceRequest, ServiceContext) -> ServiceResult?) throws {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw POSIXError(.EMFILE) }
        (appEnd, hostEnd) = (fds[0], fds[1])
        self.answer = answer
        let t = Thread { [self] in serve() }
        thread = t
        t.start()
    }

    func send(_ frame: Frame) {
        var bytes: [UInt8] = []
        FrameEncoder.encode(frame, appendingTo: &bytes)
        // All of it, and one frame at a time: a large frame leaves in parts (a signal, a full
        // socket buffer), and the serving thread's answers must not land between them.
        writing.withLock { _ in bytes.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = write(hostEnd, raw.baseAddress! + sent, raw.count - sent)
                if n > 0 { sent += n } else if n < 0 && errno == EINTR { continue } else { return }
            }
        } }
    }

    /// Goes away: the app's channel sees its end.
    func leave() { shutdown(hostEnd, Int32(SHUT_RDWR)) }

    private func serve() {
        var decoder = FrameDecoder()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(hostEnd, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            try? decoder.feed(Array(buffer[..<n])) { payload in
                guard let frame = try? FrameParser.parse(payload) else { return }
                switch frame.body {
                case .hello:
                    send(Frame(seq: 1, replyTo: frame.seq, body: .welcome(Welcome(bundleID: "com.contoso.mail", kind: .app))))
                case .serviceRequest(let request, let context):
                    seen.withLock { $0.append((request, context)) }
                    if let result = answer(request, context) {
                        send(Frame(seq: 0, replyTo: frame.seq, body: .serviceResult(result)))
                    }
                case .commandResult(let result):
                    commandResults.withLock { $0.append((result, seen.withLock { $0.count })) }
                case .deliverAcks(let acks):
                    deliveryAcks.withLock { $0.append(acks) }
                case .setIdentity(let request):
                    // Every switch succeeds: the tests' accounts need no PIN or launch check.
                    identities.withLock { $0.append(request) }
                    send(Frame(seq: 0, replyTo: frame.seq, body: .identityResult(IdentityResult(status: .success, account: request.account))))
                default: break
                }
            }
        }
    }
}

/// Typed service calls from an app (MAMKit): the same answer async and blocking, the blocking
/// call's thread identity, its timeout and the host going away (issue 42).
@Suite(.serialized) struct BlockingCallTests {
    static let policyAnswer: @Sendable (ServiceRequest, ServiceContext) -> ServiceResult? = { request, _ in
        switch request {
        case .readFile(let path): ServiceResult(verdict: .allowed(""), value: .data(Array(path.utf8)))
        case .canSave: ServiceResult(verdict: .blocked(.saveLocation, "saving to that location is blocked"))
        case .remediationInProgress: ServiceResult(verdict: .allowed(""), value: .flag(true))
        default: nil
        }
    }

    @Test func aBlockingCallGetsTheSameTypedAnswerAsTheAsyncOne() async throws {
        let host = try FakeHost(answer: Self.policyAnswer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        let async = await app.call(Service.ReadFile(path: "Documents/a.txt"))
        #expect(async.answer == Array("Documents/a.txt".utf8))
        let blocking = try await Task.detached { try app.callBlocking(Service.ReadFile(path: "Documents/a.txt")) }.value
        #expect(blocking.answer == async.answer)
        #expect(blocking.isAllowed)
        let save = try await Task.detached { try app.callBlocking(Service.CanSave(location: .localDrive, account: "alice@contoso.com")) }.value
        #expect(!save.isAllowed)
        #expect(save.verdict.reason == .saveLocation)
        let flag = try await Task.detached { try app.callBlocking(Service.RemediationInProgress(account: "alice@contoso.com")) }.value
        #expect(flag.answer == true)
    }

    @Test func aBlockingCallCarriesTheCallingThreadsIdentity() async throws {
        let host = try FakeHost(answer: Self.policyAnswer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        _ = try await Task.detached {
            try ThreadIdentity.withAccountId("alice@contoso.com") { try app.callBlocking(Service.ReadFile(path: "x")) }
        }.value
        #expect(host.seen.withLock { $0.last?.1.thread } == "alice@contoso.com")
    }

    @Test func aBlockingCallTheHostNeverAnswersEndsWithTimedOut() async throws {
        let host = try FakeHost(answer: { _, _ in nil })
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        let outcome = await Task.detached { () -> BlockingCallError? in
            do throws(BlockingCallError) { _ = try app.callBlocking(Service.ReadFile(path: "x"), timeout: .milliseconds(200)); return nil } catch { return error }
        }.value
        #expect(outcome == .timedOut(.milliseconds(200)))
    }

    @Test func aBlockingCallEndsWhenTheHostGoesAway() async throws {
        let host = try FakeHost(answer: { _, _ in nil })
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        let outcome = Task.detached { () -> BlockingCallError? in
            do throws(BlockingCallError) { _ = try app.callBlocking(Service.ReadFile(path: "x"), timeout: .seconds(20)); return nil } catch { return error }
        }
        while host.seen.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(5)) }
        host.leave()
        #expect(await outcome.value == .channelClosed)
    }

    /// A host command waits on the app's delegate (here the policy-change notification its
    /// observer handles), and the delegate asks a getter synchronously, as SDK-shaped code
    /// does: the call is sent and answered while the command is still unanswered, and the
    /// command's answer follows it. Were the channel's loop held by the command, the getter
    /// would time out and the command would never be answered.
    @Test func aDelegateThatCallsAGetterDuringAHostCommandDoesNotDeadlock() async throws {
        let host = try FakeHost(answer: Self.policyAnswer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        let getter = Mutex<Reply<Void>?>(nil)
        app.observeNotifications { _ in
            let reply = try? app.callBlocking(Service.CanSave(location: .localDrive, account: "alice@contoso.com"), timeout: .seconds(10))
            getter.withLock { $0 = reply }
        }
        host.send(Frame(seq: 7, replyTo: 0, body: .command(.notification(SDKNotification(kind: .policyChanged, account: "alice@contoso.com", detail: "")))))
        let deadline = ContinuousClock.now + .seconds(15)
        while host.commandResults.withLock({ $0.isEmpty }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let results = host.commandResults.withLock { $0 }
        #expect(results.count == 1, "the command was answered")
        #expect(results.first?.answeredBefore == 1, "the getter was answered before the command")
        #expect(getter.withLock { $0?.verdict.reason } == .saveLocation)
        #expect(host.seen.withLock { $0.first.map { "\($0.0.name)" } } == "can_save")
    }

    #if os(Linux) || os(macOS)
    @Test func aBlockingCallOnTheLoopThreadTrapsSayingWhy() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let host = try FakeHost(answer: BlockingCallTests.policyAnswer)
            let app = try await MAMApp.connect(fd: host.appEnd)
            // The app works: a first call is answered, so the trap below is the loop thread's.
            guard await app.call(Service.ReadFile(path: "x")).isAllowed else { exit(0) }
            app.onLoopThreadForTesting { _ = try? app.callBlocking(Service.ReadFile(path: "x")) }
            try await Task.sleep(for: .seconds(5))
            exit(0)
        }
        let said = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(said.contains("was made on MAMKit's loop thread"), "\(said)")
    }
    #endif
}
