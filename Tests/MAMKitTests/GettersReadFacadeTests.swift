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

    /// The keys of an app configuration the code read, once per key and account; `fullData`
    /// reads every key; a configuration fetched and never read tells nothing.
    @Test func eachConfigurationKeyReadIsToldOnceWithItsAccount() async throws {
        let host = try PlayedHost(answer: FacadeTests.answer)
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer { app.close() }
        MAMIntuneFacade.connect(app)
        func keys() -> [String] {
            host.seen.withLock { $0 }.compactMap { request, _ in
                if case .policyGettersRead(let r) = request, !r.configKeys.isEmpty { return "\(r.configKeys.joined(separator: ",")) \(r.account)" }
                return nil
            }
        }
        await Task.detached {
            let config = IntuneMAMAppConfigManager.instance().appConfig(forAccountId: FacadeTests.aliceOID)
            _ = config.stringValue(forKey: "region", queryType: .any)
            _ = config.hasConflict("region")
            _ = config.boolValue(forKey: "sync", queryType: .or)
            _ = IntuneMAMAppConfigManager.instance().appConfig(forAccountId: "bob@contoso.com").fullData
        }.value
        for _ in 0..<200 where keys().count < 4 { try? await Task.sleep(for: .milliseconds(10)) }
        #expect(keys() == ["region \(FacadeTests.aliceOID)", "sync \(FacadeTests.aliceOID)", "region bob@contoso.com", "sync bob@contoso.com"], "\(keys())")
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
