import Foundation
import Testing
import MAMLoop
import MAMModel
#if canImport(Glibc)
import Glibc
#endif

/// Every test ends the libuv way: all handles closed and `uv_loop_close` returning 0.
private func finish(_ loop: EventLoop) {
    #expect(loop.openHandleCount == 0)
    #expect(loop.close() == 0)
}

@Test func timerFiresTheExactNumberOfTimesThenCloses() throws {
    let loop = try EventLoop()
    let timer = try Timer(loop: loop)
    var fired = 0
    var closed = 0
    timer.start(after: 1, repeat: 1) {
        fired += 1
        if fired == 3 { timer.close { closed += 1 } }
    }
    loop.run()
    #expect(fired == 3)
    #expect(closed == 1)
    #expect(timer.state == .closed)
    finish(loop)
}

@Test func closingTwiceCallsTheCloseCallbackOnce() throws {
    let loop = try EventLoop()
    let timer = try Timer(loop: loop)
    var closed = 0
    timer.close { closed += 1 }
    timer.close { closed += 1 }
    loop.run()
    #expect(closed == 1)
    finish(loop)
}

@Test func wakerRunsJobsFromOtherThreadsInOrderOnTheLoop() async throws {
    let loop = try EventLoop()
    let waker = try Waker(loop: loop)
    let loopThread = pthread_self()
    nonisolated(unsafe) var seen: [Int] = []  // touched on the loop thread only
    nonisolated(unsafe) var onLoopThread = true
    let done = 200
    let thread = Thread {
        for i in 0..<done {
            waker.submit {
                if pthread_equal(pthread_self(), loopThread) == 0 { onLoopThread = false }
                seen.append(i)
                if i == done - 1 { waker.close() }
            }
        }
    }
    thread.start()
    loop.run()
    #expect(seen == Array(0..<done))
    #expect(onLoopThread)
    #expect(waker.submit {} == false)
    finish(loop)
}

@Test func childEchoesFramesOverFd3AndExitsCleanly() throws {
    let loop = try EventLoop()
    let pipe = try Pipe(loop: loop)
    var exit: ChildProcess.Exit?
    // `cat` reading and writing fd 3 is an echo server on the socketpair.
    let child = try ChildProcess(
        loop: loop, executable: "/bin/sh", arguments: ["-c", "exec cat <&3 >&3"], channel: pipe
    ) { exit = $0 }
    #expect(child.pid > 0)
    var received: [UInt8] = []
    let message = Array("hello through fd 3".utf8)
    var ended = false
    try pipe.startReading(onRead: { chunk in
        received += chunk
        if received.count == message.count * 3 { pipe.close() }
    }, onEnd: { _ in ended = true })
    // Three enqueues in one iteration leave as one write.
    pipe.enqueue(message)
    pipe.enqueue(message)
    pipe.enqueue(message)
    loop.run()
    #expect(received == message + message + message)
    #expect(ended == false)
    #expect(exit?.status == 0)
    #expect(exit?.signal == 0)
    child.close()
    loop.run()
    finish(loop)
}

/// Flushes larger than the socket takes at once: the part written directly and the rest
/// queued in libuv, then later flushes while earlier bytes still wait — every byte arrives,
/// in order.
@Test func largeFlushesArriveWholeAndInOrder() throws {
    let loop = try EventLoop()
    let pipe = try Pipe(loop: loop)
    var exit: ChildProcess.Exit?
    let child = try ChildProcess(
        loop: loop, executable: "/bin/sh", arguments: ["-c", "exec cat <&3 >&3"], channel: pipe
    ) { exit = $0 }
    let chunks = (0..<6).map { i in (0..<(700_000 + i * 13)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) } }
    let expected = chunks.flatMap { $0 }
    var received: [UInt8] = []
    received.reserveCapacity(expected.count)
    // A write the socket cannot take at once waits in one request; what is queued behind it
    // waits in the pipe (never a second request, which copied it) and leaves when it is done.
    var mostWaiting = 0
    let watchdog = try Timer(loop: loop)
    try pipe.startReading(onRead: { chunk in
        mostWaiting = max(mostWaiting, pipe.pendingWrites)
        received += chunk
        if received.count >= expected.count { pipe.close(); watchdog.close() }
    }, onEnd: { _ in pipe.close(); watchdog.close() })
    // Bytes left queued behind a finished write would never arrive: end the test instead.
    watchdog.start(after: 20_000) { pipe.close(); watchdog.close() }
    // Two flushes now, the rest from timers while the first bytes are still in flight.
    pipe.enqueue(chunks[0])
    pipe.flush()
    pipe.enqueue(chunks[1])
    let timer = try Timer(loop: loop)
    var next = 2
    timer.start(after: 1, repeat: 1) {
        mostWaiting = max(mostWaiting, pipe.pendingWrites)
        guard next < chunks.count else { return timer.close() }
        pipe.enqueue(chunks[next])
        pipe.flush()
        next += 1
    }
    loop.run()
    #expect(received.count == expected.count)
    #expect(received == expected)
    #expect(mostWaiting == 1, "write requests waiting at once: at most \(mostWaiting)")
    #expect(exit == nil || exit?.status == 0)
    child.close()
    loop.run()
    finish(loop)
}

/// A pipe closed while a write waits for a peer that does not read: the write is cancelled
/// (not reported as the pipe's end: the owner closed it), and the pipe, which the waiting
/// write kept alive, is freed once it is over.
@Test func closingAPipeWhileAWriteWaitsCancelsItAndFreesThePipe() throws {
    let loop = try EventLoop()
    weak var gone: MAMLoop.Pipe?
    var ended = 0
    var child: ChildProcess?
    do {
        let pipe = try Pipe(loop: loop)
        gone = pipe
        // A child that never reads its channel.
        child = try ChildProcess(loop: loop, executable: "/bin/sh", arguments: ["-c", "exec sleep 30"], channel: pipe) { _ in }
        try pipe.startReading(onRead: { _ in }, onEnd: { _ in ended += 1 })
        pipe.enqueue([UInt8](repeating: 7, count: 4 << 20))
        pipe.flush()
        #expect(pipe.pendingWrites == 1, "4 MiB should not fit in the socket at once")
        #expect(pipe.backlogByteCount > 0)
        // More bytes queue behind the waiting write, in a buffer of their own.
        pipe.enqueue([UInt8](repeating: 8, count: 1000))
        pipe.close()
    }
    child?.kill(SIGKILL)
    child?.close()
    loop.run()
    #expect(ended == 0, "a pipe its owner closed reports no end")
    #expect(gone == nil, "the pipe outlived its cancelled write")
    finish(loop)
}

@Test func writingToADeadChildIsADisconnectNotACrash() throws {
    let loop = try EventLoop()
    let pipe = try Pipe(loop: loop)
    var exit: ChildProcess.Exit?
    var endError: UVError?? = .none
    let child = try ChildProcess(loop: loop, executable: "/bin/sh", arguments: ["-c", "exit 3"], channel: pipe) {
        exit = $0
        // Write after the child is gone: SIGPIPE is ignored, the write fails with EPIPE.
        for _ in 0..<4 { pipe.enqueue([UInt8](repeating: 1, count: 65536)) }
    }
    try pipe.startReading(onRead: { _ in }, onEnd: { error in
        endError = .some(error)
        pipe.close()
    })
    loop.run()
    #expect(exit?.status == 3)
    // Either EOF was read first (nil) or the write failed with a disconnect error.
    if case .some(.some(let e)) = endError { #expect(e.isDisconnect, "\(e)") }
    #expect(endError != nil)
    child.close()
    loop.run()
    finish(loop)
}

@Test func killedChildReportsItsSignal() throws {
    let loop = try EventLoop()
    let pipe = try Pipe(loop: loop)
    var exit: ChildProcess.Exit?
    let child = try ChildProcess(loop: loop, executable: "/bin/sleep", arguments: ["30"], channel: pipe) { exit = $0 }
    child.kill(SIGKILL)
    loop.run()
    #expect(exit?.signal == SIGKILL)
    child.close()
    pipe.close()
    loop.run()
    finish(loop)
}

@Test func spawningAMissingProgramThrowsAndLeavesNothingOpen() throws {
    let loop = try EventLoop()
    let pipe = try Pipe(loop: loop)
    #expect(throws: UVError.self) {
        _ = try ChildProcess(loop: loop, executable: "/nonexistent/mamsim-app", arguments: [], channel: pipe) { _ in }
    }
    // Nothing waits for a child that never was (one iteration lets the watcher's close finish).
    loop.runOnce(wait: false)
    #expect(loop.openHandleCount == 1, "only the unopened pipe")
    pipe.close()
    loop.run()
    finish(loop)
}

@Test func signalWatcherSeesARaisedSignal() throws {
    let loop = try EventLoop()
    let watcher = try SignalWatcher(loop: loop)
    var got: Int32 = 0
    try watcher.start(signal: SIGUSR1) { sig in
        got = sig
        watcher.close()
    }
    // Sent from inside the loop, to the whole process, the way a user's kill would arrive.
    let timer = try Timer(loop: loop)
    timer.start(after: 1) {
        kill(getpid(), SIGUSR1)
        timer.close()
    }
    loop.run()
    #expect(got == SIGUSR1)
    finish(loop)
}

@Test func openingANonPipeDescriptorIsAClearError() throws {
    let loop = try EventLoop()
    let pipe = try Pipe(loop: loop)
    let fd = open("/dev/null", O_RDONLY)
    defer { Glibc.close(fd) }
    #expect(throws: PipeOpenError.self) { try pipe.open(fd: fd) }
    pipe.close()
    loop.run()
    finish(loop)
}

/// A set-up that fails half-way leaves nothing open: the handles it made are closed with the
/// loop (their wrappers freed), and the loop thread ends.
@Test func aLoopThreadWhoseSetUpFailsClosesWhatItOpened() throws {
    // `@unchecked Sendable` is safe: the loop thread writes these before `LoopThread.init`
    // returns (it waits for the set-up), and the test reads them only afterwards.
    final class Seen: @unchecked Sendable {
        weak var timer: MAMLoop.Timer?
        weak var pipe: MAMLoop.Pipe?
    }
    struct SetUpFailed: Error {}
    let seen = Seen()
    #expect(throws: SetUpFailed.self) {
        _ = try LoopThread { loop in
            let timer = try MAMLoop.Timer(loop: loop)
            timer.start(after: 60_000) {}
            seen.timer = timer
            let pipe = try MAMLoop.Pipe(loop: loop)
            seen.pipe = pipe
            throw SetUpFailed()
        }
    }
    #expect(seen.timer == nil, "the timer's wrapper was released by its close callback")
    #expect(seen.pipe == nil, "the pipe's wrapper was released by its close callback")
}

/// Bytes a reader keeps from `onReceive` are never read over, whatever other pipes of the
/// loop read after them: two echo children stream megabytes, one side keeps every chunk it
/// got (so the loop's buffers fill and are set aside) and compares them at the end; the
/// other lets go of each chunk at once.
@Test func bytesKeptFromAReadAreNeverReadOver() throws {
    let loop = try EventLoop()
    let keeper = try Pipe(loop: loop)
    let dropper = try Pipe(loop: loop)
    let children = try [keeper, dropper].map { pipe in
        try ChildProcess(loop: loop, executable: "/bin/sh", arguments: ["-c", "exec cat <&3 >&3"], channel: pipe) { _ in }
    }
    let data = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
    var kept: [ReceivedBytes] = []
    var keptCount = 0
    var dropped: [UInt8] = []
    try keeper.startReading(onReceive: { chunk in
        kept.append(chunk)
        keptCount += chunk.count
        if keptCount >= data.count { keeper.close() }
    }, onEnd: { _ in keeper.close() })
    try dropper.startReading(onReceive: { chunk in
        dropped += chunk.array
        if dropped.count >= data.count { dropper.close() }
    }, onEnd: { _ in dropper.close() })
    for start in stride(from: 0, to: data.count, by: 250_000) {
        let part = Array(data[start..<min(start + 250_000, data.count)])
        keeper.enqueue(part)
        dropper.enqueue(part)
    }
    loop.run()
    var joined: [UInt8] = []
    joined.reserveCapacity(keptCount)
    for chunk in kept { joined += chunk.array }
    #expect(joined.count == data.count)
    // (Where they differ, not the megabytes themselves.)
    #expect(zip(joined, data).enumerated().first { $0.element.0 != $0.element.1 }?.offset == nil, "bytes kept from a read changed after later reads")
    #expect(dropped.count == data.count && zip(dropped, data).allSatisfy { $0 == $1 })
    // The kept chunks filled more than one buffer, each chunk inside its buffer.
    #expect(Set(kept.map { ObjectIdentifier($0.buffer) }).count > 1)
    #expect(kept.allSatisfy { $0.offset + $0.count <= $0.buffer.capacity })
    for child in children { child.close() }
    loop.run()
    finish(loop)
}

/// While nothing keeps what was read, every read starts at the front of the same buffer.
@Test func readsNobodyKeepsReuseTheFrontOfOneBuffer() throws {
    let loop = try EventLoop()
    let pipe = try Pipe(loop: loop)
    let child = try ChildProcess(loop: loop, executable: "/bin/sh", arguments: ["-c", "exec cat <&3 >&3"], channel: pipe) { _ in }
    let data = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
    var got: [UInt8] = []
    var offsets = Set<Int>()
    var buffers = Set<ObjectIdentifier>()
    try pipe.startReading(onReceive: { chunk in
        got += chunk.array
        offsets.insert(chunk.offset)
        buffers.insert(ObjectIdentifier(chunk.buffer))
        if got.count >= data.count { pipe.close() }
    }, onEnd: { _ in pipe.close() })
    pipe.enqueue(data)
    loop.run()
    #expect(got.count == data.count && zip(got, data).allSatisfy { $0 == $1 })
    #expect(offsets == [0])
    #expect(buffers.count == 1)
    child.close()
    loop.run()
    finish(loop)
}
