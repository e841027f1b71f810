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
        for _ in 1...LaunchWaiters.relaunchLimit { counts.append(launches.restarted()) }
        #expect(counts == Array(1...LaunchWaiters.relaunchLimit))
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
        launches.relaunch(true)
        #expect(!launches.isIdle)
        launches.relaunch(false)
        #expect(launches.isIdle)
    }
}

/// Every app's launches (`LaunchWaiters`), the SDK's relaunch and the supervisor's shutdown
/// and template as values with no process.
@Suite struct LaunchWaitersTests {
    let mail = AppHandle("mail"), word = AppHandle("word")

    @Test func eachAppsWaitersAreToldOnceAndAnAppWithNothingToFollowIsForgotten() {
        var launches = LaunchWaiters()
        var told: [String] = []
        launches.wait(for: mail) { told.append("mail \($0)") }
        launches.wait(for: mail) { told.append("mail again \($0)") }
        launches.wait(for: word) { told.append("word \($0)") }
        for w in launches.ended(mail, finished: true) { w(.success(7)) }
        #expect(told == ["mail success(7)", "mail again success(7)"])
        #expect(launches.ended(mail, finished: true).isEmpty, "each waiter is told once")
        for w in launches.ended(word, finished: false) { w(.failure(.shuttingDown)) }
        #expect(told.count == 3 && launches.isEmpty)
    }

    @Test func restartsReachTheLimitOnlyWhileALaunchIsAwaited() {
        var launches = LaunchWaiters()
        let unawaited = launches.restarted(mail)
        #expect(unawaited.count == 0 && !unawaited.overLimit && launches.isEmpty)
        launches.wait(for: mail) { _ in }
        var counts: [Int] = []
        var over: [Bool] = []
        for _ in 1...LaunchWaiters.relaunchLimit {
            let restart = launches.restarted(mail)
            counts.append(restart.count)
            over.append(restart.overLimit)
        }
        #expect(counts == Array(1...LaunchWaiters.relaunchLimit))
        #expect(over == Array(repeating: false, count: LaunchWaiters.relaunchLimit - 1) + [true])
    }

    @Test func aRelaunchIsFollowedUntilItIsOver() {
        var launches = LaunchWaiters()
        launches.relaunch(mail, underWay: true)
        #expect(launches.isRelaunching(mail) && !launches.isRelaunching(word) && !launches.isEmpty)
        launches.relaunch(mail, underWay: false)
        #expect(!launches.isRelaunching(mail) && launches.isEmpty)
    }

    @Test func aShutdownAskedForTwiceTellsBothOnceInOrder() {
        var shutdown = SupervisorShutdown()
        var told: [Int] = []
        let first = shutdown.begin { told.append(1) }
        let second = shutdown.begin { told.append(2) }
        #expect(first && !second && shutdown.begun)
        shutdown.finished()?()
        #expect(told == [1, 2])
        #expect(shutdown.finished() == nil, "told once")
    }

    @Test func aTemplateThatFailedIsNotStartedAgainAndItsFailureIsToldOnce() {
        var template = BuiltInTemplate()
        #expect(!template.mayStart(forkBuiltInApps: false))
        let first = template.fail(), second = template.fail()
        #expect(first.first && first.closing == nil && !second.first && template.failed)
        #expect(!template.mayStart(forkBuiltInApps: true) && template.running == nil)
    }
}

/// The enrollment desk's work under way (`WorkUnderWay`), with no process: its waiters are
/// handed back once, when the last call is over, never while one is left.
@Suite struct WorkUnderWayTests {
    @Test func waitersAreHandedBackOnceWhenTheLastCallEnds() {
        var work = WorkUnderWay()
        #expect(work.isSettled)
        work.begin()
        work.begin()
        var told: [Int] = []
        work.wait { told.append(1) }
        work.wait { told.append(2) }
        let early = work.end()
        #expect(early.isEmpty && !work.isSettled, "one call is still under way")
        let last = work.end()
        for w in last { w() }
        #expect(told == [1, 2] && work.isSettled)
        work.begin()
        let again = work.end()
        #expect(again.isEmpty, "each waiter is handed back once")
    }
}
