import MAMDevice
import MAMModel
import Testing

/// A scenario's step ends when the device has settled (`EnrollmentDesk.whenSettled`): the
/// check-ins a launch started, and the enrollments under way, are over, their statuses told.
@Suite struct EnrollmentSettleTests {
    /// An app that enrolls itself gets its answer at once, and its delegate is told the status
    /// a round trip later: whoever waits for the device to settle waits for that too.
    @Test func anEnrollmentIsSettledOnceItsStatusIsTold() async throws {
        let log = EventLog()
        let host = try HostController(configuration: try makeConfiguration(apps: 1)) { log.record($0) }
        #expect(await host.startFleet().isEmpty)
        #expect(await host.signIn("app0", account: "alice@contoso.com").isAllowed)
        @Sendable func told() -> Int {
            log.all.count { if case .notified(handle: "app0", name: "enrollmentStatus", _) = $0 { true } else { false } }
        }
        let settledAfter: (Int, Int)? = await host.complete { host, done in
            host.enrollment.whenSettled {
                guard let app = try? host.app("app0") else { return done(nil) }
                let before = told()
                host.enrollment.enroll(app, account: "alice@contoso.com", interactive: false)
                host.enrollment.whenSettled { done((before, told())) }
            }
        }
        let (before, after) = try #require(settledAfter)
        #expect(after == before + 1, "settled before the app was told its enrollment's status")
        #expect(await host.shutdown() == 0)
    }
}
