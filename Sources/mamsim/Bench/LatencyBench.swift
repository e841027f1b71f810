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

    private final class State: @unchecked Sendable {
        // Touched only on the bench's loop thread, then read after `join()`.
        var samples: [Double] = []
        var error: String?
        let finished = DispatchSemaphore(value: 0)
    }

    static func run(appRuntime: String, size: Int, count: Int, warmup: Int = 1000) throws -> Result {
        let state = State()
        let thread = try LoopThread { loop in
            pinToCPU0()
            let pipe = try Pipe(loop: loop)
            var decoder = FrameDecoder()
            var seq: UInt64 = 0
            var sentAt: UInt64 = 0
            var done = 0
            let payload = [UInt8](repeating: 0x5A, count: size)
            var process: ChildProcess?
            func ping() {
                seq += 1
                let frame = Frame(seq: seq, body: .ping(payload))
                sentAt = EventLoop.hrtime()
                pipe.enqueue { FrameEncoder.encode(frame, appendingTo: &$0) }
            }
            func finish() {
                pipe.close()
                process?.kill(SIGTERM)
            }
            process = try ChildProcess(loop: loop, executable: appRuntime, arguments: [], channel: pipe) { _ in
                process?.close()
                state.finished.signal()
            }
            try pipe.startReading(onRead: { chunk in
                do {
                    try decoder.feed(chunk, onFrameBytes: { bytes in
                        let frame = try FrameParser.parse(bytes)
                        switch frame.body {
                        case .hello:
                            seq += 1
                            pipe.enqueue { FrameEncoder.encode(Frame(seq: seq, replyTo: frame.seq, body: .welcome(Welcome(bundleID: "com.mamsim.bench", kind: .app, appHandle: "bench", processIdentity: "", maxFrameSize: 1 << 24))), appendingTo: &$0) }
                            ping()
                        case .ping:
                            let rtt = Double(EventLoop.hrtime() - sentAt) / 1000
                            done += 1
                            if done > warmup { state.samples.append(rtt) }
                            if done < count + warmup { ping() } else { finish() }
                        default:
                            break
                        }
                    })
                } catch {
                    state.error = "\(error)"
                    finish()
                }
            }, onEnd: { _ in finish() })
        }
        // Once the child exited and the pipe closed, only the waker is left: close it so the
        // loop ends.
        state.finished.wait()
        thread.submit { thread.stopAcceptingJobs() }
        _ = thread.join()
        if let e = state.error { throw BenchError(message: "latency bench: \(e)") }
        let sorted = state.samples.sorted()
        return Result(p50: sorted[sorted.count / 2], p99: sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
    }
}

struct BenchError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Pins the calling thread (and the children it spawns) to CPU 0.
/// `sched_setaffinity` is a GNU extension the Glibc module does not export, so it is looked
/// up at run time.
func pinToCPU0() {
    typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "sched_setaffinity") else { return }
    let setAffinity = unsafeBitCast(symbol, to: SetAffinity.self)
    var mask = [UInt64](repeating: 0, count: 16)  // 1024 CPUs, glibc's cpu_set_t size
    mask[0] = 1
    _ = mask.withUnsafeBytes { setAffinity(0, $0.count, $0.baseAddress!) }
}
