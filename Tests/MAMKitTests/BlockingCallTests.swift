import Foundation
import MAMModel
import MAMPlayedHost
import MAMWire
import Synchronization
import Testing
@testable import MAMKit

/// Typed service calls from an app (MAMKit): the same answer async and blocking, the blocking
/// call's thread identity, its timeout and the host going away (issue 42).
@Suite(.serialized) struct BlockingCallTests {
    static let policyAnswer: @Sendable (ServiceRequest, ServiceContext) -> ServiceResult? = { request, _ in
        switch request {
        case .readFile(let call): ServiceResult(verdict: .allowed(""), value: .data(Array(call.path.utf8)))
        case .canSave: ServiceResult(verdict: .blocked(.saveLocation, "saving to that location is blocked"))
        case .remediationInProgress: ServiceResult(verdict: .allowed(""), value: .flag(true))
        default: nil
        }
    }

    @Test func aBlockingCallGetsTheSameTypedAnswerAsTheAsyncOne() async throws {
        let host = try PlayedHost(answer: Self.policyAnswer)
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
        let host = try PlayedHost(answer: Self.policyAnswer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        _ = try await Task.detached {
            try ThreadIdentity.withAccountId("alice@contoso.com") { try app.callBlocking(Service.ReadFile(path: "x")) }
        }.value
        #expect(host.seen.withLock { $0.last?.1.thread } == "alice@contoso.com")
    }

    @Test func aBlockingCallTheHostNeverAnswersEndsWithTimedOut() async throws {
        let host = try PlayedHost(answer: { _, _ in nil })
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        let outcome = await Task.detached { () -> BlockingCallError? in
            do throws(BlockingCallError) { _ = try app.callBlocking(Service.ReadFile(path: "x"), timeout: .milliseconds(200)); return nil } catch { return error }
        }.value
        #expect(outcome == .timedOut(.milliseconds(200)))
    }

    @Test func aBlockingCallEndsWhenTheHostGoesAway() async throws {
        let host = try PlayedHost(answer: { _, _ in nil })
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
        let host = try PlayedHost(answer: Self.policyAnswer)
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
            let host = try PlayedHost(answer: BlockingCallTests.policyAnswer)
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
