import Foundation
@testable import MAMIntuneFacade
import MAMModel
import MAMPlayedHost
import MAMWire
import Synchronization
import Testing
@testable import MAMKit

extension FacadeTests {
/// The getters of the policy object the app's code read (issue 99, item 3), told to the host
/// as the SDK names them, once per getter and account, before the app acts on the answer; a
/// getter never read is never told. Nested in FacadeTests: the façade is bound process-wide.
@Suite struct GettersReadFacadeTests {
    static func told(_ host: PlayedHost, count: Int) async -> [String] {
        func reports() -> [String] {
            host.seen.withLock { $0 }.compactMap { request, _ in
                if case .policyGettersRead(let r) = request { return "\(r.getters.joined(separator: ",")) \(r.account)" }
                return nil
            }
        }
        for _ in 0..<200 where reports().count < count { try? await Task.sleep(for: .milliseconds(10)) }
        return reports()
    }

    @Test func eachGetterReadIsToldOnceWithItsAccount() async throws {
        let host = try PlayedHost(answer: FacadeTests.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        await Task.detached {
            guard let policy = IntuneMAMPolicyManager.instance().policy(forAccountId: FacadeTests.aliceOID) else { return }
            _ = policy.isPINRequired
            _ = policy.isPINRequired
            _ = policy.isSaveToAllowed(for: .localDrive, withAccountId: FacadeTests.aliceOID)
            _ = policy.notificationPolicy
            _ = policy.isPINRequired
        }.value
        let told = await Self.told(host, count: 3)
        #expect(told == ["isPINRequired \(FacadeTests.aliceOID)", "isSaveToAllowed(for:withAccountId:) \(FacadeTests.aliceOID)",
                         "notificationPolicy \(FacadeTests.aliceOID)"], "\(told)")
    }

    @Test func aPolicyReadButNotAskedTellsNothing() async throws {
        let host = try PlayedHost(answer: FacadeTests.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        let read = await Task.detached { IntuneMAMPolicyManager.instance().policy(forAccountId: FacadeTests.aliceOID) != nil }.value
        #expect(read)
        // The policy's own fetch reaches the host; give a stray report the time to follow it.
        try await Task.sleep(for: .milliseconds(100))
        #expect(await Self.told(host, count: 0).isEmpty)
    }
}
}
