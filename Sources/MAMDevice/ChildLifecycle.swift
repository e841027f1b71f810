/// One child's life as the supervisor follows it, from its spawn to its exit: where it is
/// (`State`), why it ends, and the deadlines the supervisor's sweep watches (its hello, its own
/// launch work, an unfinished frame, the next teardown step).
///
/// A value with no I/O: each operation checks and sets what the next one reads, and returns
/// what the supervisor must do (tell the child why it is cut off, signal it, take a teardown
/// step), which alone talks to the process and its channel. Its tests need no process
/// (`ChildLifecycleTests`). Times are the loop's, in milliseconds.
struct ChildLifecycle {
    enum State { case spawning, ready, closing, exited }

    private(set) var state: State = .spawning
    /// The host itself asked the child to go (bye, kill, teardown, a cut-off): its exit is no
    /// surprise.
    private(set) var exitExpected = false
    /// Why the host cut the child off (a protocol mistake, a deadline): the first reason.
    private(set) var cutOffReason: String?
    /// By when the child must have said hello; once ready and still finishing its launch, by
    /// when it must have finished it.
    private(set) var handshakeDeadline: UInt64 = .max
    /// The app said in `Hello` it finishes launching later: its launch completes at
    /// `launchFinished` (or at `handshakeDeadline`).
    private(set) var finishingLaunch = false
    /// The Intune SDK ends it to launch it again (`restartApplication`): what waits for its
    /// launch waits for the new process instead.
    private(set) var endedForRelaunch = false
    /// This process is such a relaunch (its failure is told in those terms).
    let isSDKRelaunch: Bool
    /// A signal came while the template was forking it: it is killed as soon as it exists.
    private(set) var killedWhileForking = false
    /// The teardown step to take next (`HostConfiguration.teardown`), and by when.
    private(set) var teardownStep: Int?
    private(set) var teardownDeadline: UInt64 = .max
    /// The host began ending it: a second `end` walks no second teardown.
    private(set) var teardownStarted = false
    /// What the child is told in its `Bye`.
    private(set) var byeReason = ""
    /// Since when one of its frames has been incomplete; `nil` at a frame boundary.
    private(set) var partialFrameSince: UInt64?

    init(isSDKRelaunch: Bool = false) {
        self.isSDKRelaunch = isSDKRelaunch
    }

    var isLive: Bool { state == .spawning || state == .ready }

    /// Anything of its life with a deadline the sweep must watch.
    var hasDeadlines: Bool {
        state == .spawning || finishingLaunch || teardownStep != nil || partialFrameSince != nil
    }

    // MARK: - Starting

    /// Its process runs and its channel is read: it must say hello by `deadline`.
    mutating func started(helloBy deadline: UInt64) {
        handshakeDeadline = deadline
    }

    /// Its hello was answered: it is ready. An app with launch work of its own keeps the rest
    /// of the handshake time to finish it.
    mutating func welcomed(finishesLaunching: Bool) {
        state = .ready
        finishingLaunch = finishesLaunching
        if !finishesLaunching { handshakeDeadline = .max }
    }

    /// Its own launch work is done (or its time is up): `true` once, when the launch completes now.
    mutating func finishLaunch() -> Bool {
        guard finishingLaunch else { return false }
        finishingLaunch = false
        handshakeDeadline = .max
        return true
    }

    // MARK: - Deadlines

    /// It started a frame `timeout` ago and has not finished it.
    func frameOverdue(now: UInt64, timeout: UInt64) -> Bool {
        guard let since = partialFrameSince, isLive else { return false }
        return since + timeout <= now
    }

    /// It was given until its deadline to say hello and did not.
    func helloOverdue(now: UInt64) -> Bool { state == .spawning && handshakeDeadline <= now }

    /// It said it would finish its launch and its time is up.
    func launchOverdue(now: UInt64) -> Bool { finishingLaunch && handshakeDeadline <= now }

    /// The teardown step whose time has come, if any.
    func teardownDue(now: UInt64) -> Int? {
        guard let step = teardownStep, teardownDeadline <= now else { return nil }
        return step
    }

    /// Its frames were read: `buffered`, whether a frame is left incomplete; `completedOne`,
    /// whether a frame ended in this read. The clock of an unfinished frame starts when it
    /// started: a child streaming frames back to back (each read ending mid-frame) completes
    /// some on every read. `true` when a clock started (the sweep must watch it).
    mutating func framesRead(buffered: Bool, completedOne: Bool, now: UInt64) -> Bool {
        guard buffered else {
            partialFrameSince = nil
            return false
        }
        guard completedOne || partialFrameSince == nil else { return false }
        partialFrameSince = now
        return true
    }

    // MARK: - Ending

    /// The host cuts it off for `why` (the first reason is kept). `true` when it is to be told
    /// why before it is killed: it was neither closing already nor still being forked (no
    /// channel yet). Nothing once it exited.
    mutating func cutOff(_ why: String, forking: Bool) -> Bool {
        guard state != .exited else { return false }
        if cutOffReason == nil { cutOffReason = why }
        exitExpected = true
        guard state != .closing, !forking else { return false }
        state = .closing
        return true
    }

    /// It said bye: it goes of its own accord.
    mutating func saidBye() {
        exitExpected = true
        state = .closing
    }

    /// Its channel ended: `true` when it was live (it is of no use now and is to be ended).
    mutating func channelEnded() -> Bool {
        guard isLive else { return false }
        state = .closing
        return true
    }

    /// A signal was asked for while it had no process yet: it is killed once it has one.
    mutating func killWhileForking() { killedWhileForking = true }

    /// The SDK ends it to launch the app again.
    mutating func endForRelaunch() { endedForRelaunch = true }

    /// The host begins ending it, telling it `reason` in its bye: `true` when the teardown's
    /// first step is to be taken now (not when it exited, nor when its teardown began already).
    mutating func beginTeardown(reason: String) -> Bool {
        guard state != .exited, !teardownStarted else { return false }
        teardownStarted = true
        exitExpected = true
        state = .closing
        byeReason = reason
        return true
    }

    /// Whether step `index` of a teardown of `count` steps is to be taken: not once it exited,
    /// nor past the last (the walk is over then).
    mutating func takesTeardownStep(_ index: Int, of count: Int) -> Bool {
        guard state != .exited, index < count else {
            teardownStep = nil
            return false
        }
        return true
    }

    /// Step `index` was taken: the next (if any) is due at `deadline`.
    mutating func tookTeardownStep(_ index: Int, of count: Int, nextAt deadline: UInt64) {
        teardownStep = index + 1 < count ? index + 1 : nil
        teardownDeadline = deadline
    }

    /// Its process exited (or it never got one): `true` when it had answered the handshake.
    @discardableResult
    mutating func exited() -> Bool {
        let answeredHandshake = state == .ready
        state = .exited
        teardownStep = nil
        return answeredHandshake
    }
}
