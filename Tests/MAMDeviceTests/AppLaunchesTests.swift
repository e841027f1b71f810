@testable import MAMDevice
import Testing

/// One app's launches as the supervisor follows them (`AppLaunches`), with no process: the
/// restarts the Intune SDK makes before a launch finished are counted only while someone waits
/// for that launch, a launch that finishes starts the count over, one that fails keeps it, and
/// an app with nothing left to follow says so (its entry goes).
@Suite struct AppLaunchesTests {
    @Test func restartsCountOnlyWhileSomeoneWaitsForTheLaunch() {
        var launches = AppLaunches()
        let alone = launches.restarted()
        #expect(alone == 0, "a restart nobody waits for is no restart before launch")
        #expect(launches.isIdle)
        launches.wait { _ in }
        #expect(!launches.isIdle)
        var counts: [Int] = []
        for _ in 1...Supervisor.relaunchLimit { counts.append(launches.restarted()) }
        #expect(counts == Array(1...Supervisor.relaunchLimit))
    }

    @Test func aFinishedLaunchStartsTheCountOverAndAFailedOneKeepsIt() {
        var launches = AppLaunches()
        var told: [String] = []
        launches.wait { told.append("\($0)") }
        _ = launches.restarted()
        _ = launches.restarted()
        let failed = launches.ended(finished: false)
        for w in failed { w(.failure(.shuttingDown)) }
        #expect(told.count == 1 && failed.count == 1)
        #expect(launches.restartsBeforeReady == 2 && !launches.isIdle, "a failed launch keeps the restarts it counted")
        let again = launches.ended(finished: false)
        #expect(again.isEmpty, "each waiter is told once")
        launches.wait { _ in }
        let third = launches.restarted()
        #expect(third == 3)
        let finished = launches.ended(finished: true)
        #expect(finished.count == 1)
        #expect(launches.restartsBeforeReady == 0 && launches.isIdle)
    }

    @Test func aRelaunchUnderWayIsSomethingToFollow() {
        var launches = AppLaunches()
        launches.relaunching = true
        #expect(!launches.isIdle)
        launches.relaunching = false
        #expect(launches.isIdle)
    }
}
