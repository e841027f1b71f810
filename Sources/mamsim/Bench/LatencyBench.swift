import Foundation
import MAMLoop
import MAMWire
import MAMModel

/// Round trips host ⇄ app over the real stack (libuv pipe, framing, protobuf-c, the app
/// runtime's channel), with the loop thread and the child pinned to CPU 0: on a 2-vCPU VM a
/// cross-CPU wake-up costs more than the round trip itself (INTEROP-NOTES.md).
enum LatencyBench {
    struct Result: Sendable {
        var p50: Double
        var p99: Double
    }

    /// What the bench's loop thread records, read after `join()`.
    fileprivate struct Recorded {
        var samples: [Double] = []
        var error: String?
        /// How the app ended, and after how many round trips.
        var exit: ChildProcess.Exit?
        var roundTrips: Int = 0
    }

    // Touched only on the bench's loop thread (`LoopBound`), then read after `join()`: no
    // runtime exclusivity check per sample.
    private final class State: LoopBound<Recorded>, @unchecked Sendable {
        let finished = DispatchSemaphore(value: 0)

        init() { super.init(Recorded()) }
    }

    /// The host's end of the round trips' counters.
    fileprivate struct Counters {
        var decoder = FrameDecoder()
        var seq: UInt64 = 0
        var sentAt: UInt64 = 0
        var done = 0
        var process: ChildProcess?
    }

    /// The host's end of the round trips. Its counters are read on the loop thread only
    /// (`LoopBound`): as variables captured by the read callback, each access was a runtime
    /// exclusivity check, which is the harness's cost, not the channel's.
    private final class Pinger: LoopBound<Counters> {
        let pipe: MAMLoop.Pipe
        let payload: [UInt8]
        let count: Int
        let warmup: Int
        let state: State
        /// The connection's pool, as the host keeps one per child.
        let strings = StringPool()

        init(pipe: MAMLoop.Pipe, size: Int, count: Int, warmup: Int, state: State) {
            self.pipe = pipe
            payload = [UInt8](repeating: 0x5A, count: size)
            self.count = count
            self.warmup = warmup
            self.state = state
            super.init(Counters())
        }

        func ping() {
            self.value.seq += 1
            let seq = self.value.seq
            self.value.sentAt = EventLoop.hrtime()
            // Written from its parts, as a channel sends: a frame captured by the closure was
            // one more copy of `Frame.Body`, and one more destruction.
            pipe.enqueue { [payload] in FrameEncoder.encode(seq: seq, body: .ping(payload), appendingTo: &$0) }
        }

        func finish() {
            pipe.close()
            self.value.process?.kill(SIGTERM)
        }

        func received(_ chunk: UnsafeRawBufferPointer) {
            do {
                try self.value.decoder.feed(chunk, onFrameBytes: { bytes in
                    var frame = Frame(body: .launchFinished)
                    try FrameParser.parse(bytes, strings: strings, into: &frame)
                    defer { strings.recycle(&frame) }
                    switch frame.body {
                    case .hello:
                        self.value.seq += 1
                        let seq = self.value.seq
                        pipe.enqueue { FrameEncoder.encode(Frame(seq: seq, replyTo: frame.seq, body: .welcome(Welcome(bundleID: "com.mamsim.bench", kind: .app, appHandle: "bench", processIdentity: "", maxFrameSize: 1 << 24))), appendingTo: &$0) }
                        ping()
                    case .ping:
                        let rtt = Double(EventLoop.hrtime() - self.value.sentAt) / 1000
                        self.value.done += 1
                        if self.value.done > warmup { state.value.samples.append(rtt) }
                        if self.value.done < count + warmup { ping() } else { finish() }
                    default:
                        break
                    }
                })
            } catch {
                state.value.error = "\(error)"
                finish()
            }
        }
    }

    /// Round trips made before the timed ones.
    static let warmup = 1000

    static func run(appRuntime: String, size: Int, count: Int, warmup: Int = LatencyBench.warmup) throws -> Result {
        let state = State()
        let thread = try LoopThread { loop in
            pinToCPU0()
            let pinger = Pinger(pipe: try Pipe(loop: loop), size: size, count: count, warmup: warmup, state: state)
            pinger.value.process = try ChildProcess(loop: loop, executable: appRuntime, arguments: [], channel: pinger.pipe) { exit in
                state.value.exit = exit
                state.value.roundTrips = pinger.value.done
                // (Letting the child go ends the cycle through this callback.)
                pinger.value.process?.close()
                pinger.value.process = nil
                state.finished.signal()
            }
            try pinger.pipe.startReading(onRead: { pinger.received($0) }, onEnd: { _ in pinger.finish() })
        }
        // Once the child exited and the pipe closed, only the waker is left: close it so the
        // loop ends.
        state.finished.wait()
        thread.submit { thread.stopAcceptingJobs() }
        _ = thread.join()
        if let e = state.value.error { throw BenchError(message: "latency bench: \(e)") }
        // An app that ended before its round trips were made (it crashed, or is not an app
        // runtime) leaves nothing to measure: say so, with how it ended.
        guard state.value.samples.count == count else {
            let ended = state.value.exit.map { "\($0)" } ?? "closed its channel"
            throw BenchError(message: "latency bench: the app runtime \(appRuntime) \(ended) after \(state.value.roundTrips) of \(warmup + count) round trips; run it alone to see why")
        }
        let sorted = state.value.samples.sorted()
        return Result(p50: sorted[sorted.count / 2], p99: sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
    }
}

struct BenchError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Pins the calling thread (and the children it spawns) to CPU 0.
func pinToCPU0() {
    System.allowCPUs([0])
}

/// Every thread of this process on CPU 0 for the time of `body`, as the round trips are: the
/// benches that play the host on a thread of their own (their app's loop, the played host and
/// the awaiting tasks) are then timed without a cross-CPU wake-up per hop, which on a 2-vCPU VM
/// costs more than the call. Threads started meanwhile inherit the pin; afterwards each thread
/// gets back the CPUs it had, a new one those of the caller.
func withProcessOnCPU0<T>(_ body: () async throws -> T) async rethrows -> T {
    let process = getpid()
    let caller = System.allowedCPUs()
    var before: [Int32: [Int]] = [:]
    for thread in System.threads(of: process) {
        before[thread] = System.allowedCPUs(of: thread)
        System.allowCPUs([0], to: thread)
    }
    defer {
        for thread in System.threads(of: process) {
            if let cpus = before[thread] ?? caller { System.allowCPUs(cpus, to: thread) }
        }
    }
    return try await body()
}
