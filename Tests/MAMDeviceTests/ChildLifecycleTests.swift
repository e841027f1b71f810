@testable import MAMDevice
import Testing

/// A child's life (`ChildLifecycle`) as the supervisor drives it, with no process: each
/// event's effect on its state, on why it ends, and on the deadlines the sweep watches.
@Suite struct ChildLifecycleTests {
    /// A child that started at 1000 ms and must say hello within 5 s.
    func started() -> ChildLifecycle {
        var life = ChildLifecycle()
        life.started(helloBy: 6000)
        return life
    }

    @Test func aChildThatSaysNoHelloIsOverdueAtItsDeadlineNotBefore() {
        let life = started()
        #expect(life.state == .spawning && life.isLive && life.hasDeadlines)
        #expect(!life.helloOverdue(now: 5999))
        #expect(life.helloOverdue(now: 6000))
        #expect(!life.launchOverdue(now: 9999), "no launch work was announced")
    }

    @Test(arguments: [false, true])
    func aWelcomeMakesItReadyAndOnlyAnnouncedLaunchWorkKeepsTheDeadline(finishesLaunching: Bool) {
        var life = started()
        life.welcomed(finishesLaunching: finishesLaunching)
        #expect(life.state == .ready && life.isLive)
        #expect(!life.helloOverdue(now: .max), "a ready child owes no hello")
        #expect(life.launchOverdue(now: 6000) == finishesLaunching)
        #expect(life.hasDeadlines == finishesLaunching)
        // Its launch completes once: a second launch_finished (or a late one after it) is not one.
        let first = life.finishLaunch(), second = life.finishLaunch()
        #expect(first == finishesLaunching)
        #expect(!second)
        #expect(!life.launchOverdue(now: .max) && !life.hasDeadlines)
    }

    @Test func anUnfinishedFrameIsTimedFromWhenItStartedNotFromEachRead() {
        var life = started()
        life.welcomed(finishesLaunching: false)
        // (buffered, a frame ended in this read, now) → the clock started, when it runs from.
        let reads: [(Bool, Bool, UInt64, Bool, UInt64?)] = [
            (false, true, 100, false, nil),   // at a frame boundary: no clock
            (true, false, 200, true, 200),    // a frame begun: its clock starts
            (true, false, 300, false, 200),   // the same frame, still incomplete: not restarted
            (true, true, 400, true, 400),     // one ended and the next begun: a new clock
            (false, true, 500, false, nil),   // all complete
        ]
        for (buffered, completed, now, starts, since) in reads {
                let started = life.framesRead(buffered: buffered, completedOne: completed, now: now)
            #expect(started == starts, "at \(now)")
            #expect(life.partialFrameSince == since, "at \(now)")
        }
        _ = life.framesRead(buffered: true, completedOne: false, now: 1000)
        #expect(!life.frameOverdue(now: 1999, timeout: 1000))
        #expect(life.frameOverdue(now: 2000, timeout: 1000))
        life.saidBye()
        #expect(!life.frameOverdue(now: 5000, timeout: 1000), "a child no longer live is not cut off for its frame")
    }

    @Test func aCutOffKeepsTheFirstReasonAndTellsTheChildOnce() {
        var life = started()
        life.welcomed(finishesLaunching: false)
        let told = life.cutOff("sent a second hello", forking: false)
        #expect(told, "a ready child is told why")
        #expect(life.state == .closing && life.exitExpected)
        let toldAgain = life.cutOff("did not finish a frame", forking: false)
        #expect(!toldAgain, "a closing child is not told again")
        #expect(life.cutOffReason == "sent a second hello")
        life.exited()
        let toldAfterExit = life.cutOff("late", forking: false)
        #expect(!toldAfterExit && life.cutOffReason == "sent a second hello")
    }

    @Test func aChildBeingForkedIsNotToldWhyItHasNoChannelYet() {
        var life = ChildLifecycle()
        let told = life.cutOff("sent no hello", forking: true)
        #expect(!told)
        #expect(life.state == .spawning && life.exitExpected && life.cutOffReason == "sent no hello")
        life.killWhileForking()
        #expect(life.killedWhileForking)
    }

    @Test func aTeardownWalksItsStepsOnceAndStopsAtTheExit() {
        var life = started()
        life.welcomed(finishesLaunching: false)
        let begun = life.beginTeardown(reason: "the device is shutting down")
        let again = life.beginTeardown(reason: "again")
        #expect(begun)
        #expect(!again, "a second end walks no second teardown")
        #expect(life.state == .closing && life.exitExpected && life.byeReason == "the device is shutting down")
        // Three steps (ask, signal, kill): each taken step schedules the next.
        var taken: [Int] = []
        var now: UInt64 = 1000
        var step: Int? = 0
        while let index = step, life.takesTeardownStep(index, of: 3) {
            taken.append(index)
            life.tookTeardownStep(index, of: 3, nextAt: now + 1000)
            #expect(life.teardownDue(now: now + 999) == nil)
            now += 1000
            step = life.teardownDue(now: now)
        }
        #expect(taken == [0, 1, 2])
        #expect(step == nil, "the last step schedules none")
        let pastTheLast = life.takesTeardownStep(3, of: 3)
        #expect(!pastTheLast)
        // An exit ends the walk wherever it was.
        var exiting = started()
        _ = exiting.beginTeardown(reason: "idle")
        exiting.tookTeardownStep(0, of: 3, nextAt: 2000)
        let answered = exiting.exited()
        #expect(!answered, "it never answered the handshake")
        let afterExit = exiting.takesTeardownStep(1, of: 3)
        let endedAfterExit = exiting.beginTeardown(reason: "late")
        #expect(exiting.teardownDue(now: .max) == nil && !afterExit && !endedAfterExit)
    }

    @Test func theExitSaysWhetherTheHandshakeWasAnswered() {
        var ready = started()
        ready.welcomed(finishesLaunching: true)
        let answered = ready.exited()
        #expect(answered)
        #expect(ready.state == .exited && !ready.isLive && ready.finishingLaunch,
                "what it owed stays readable for its exit's report")
        var silent = started()
        let silentAnswered = silent.exited()
        #expect(!silentAnswered)
    }

    @Test func aClosedChannelEndsOnlyALiveChild() {
        var life = started()
        let ended = life.channelEnded(), endedAgain = life.channelEnded()
        #expect(ended && life.state == .closing && !life.exitExpected)
        #expect(!endedAgain, "already closing")
        var relaunch = ChildLifecycle(isSDKRelaunch: true)
        relaunch.endForRelaunch()
        #expect(relaunch.isSDKRelaunch && relaunch.endedForRelaunch)
    }
}
