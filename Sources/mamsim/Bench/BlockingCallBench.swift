import Foundation
import MAMKit
import MAMModel
import MAMWire

/// What a synchronous SDK-shaped getter costs (`isSaveToAllowed` is `callBlocking`) against the
/// same call awaited (`call`): one app (MAMKit) over a socket pair to a host played on a
/// thread of its own, which answers every `can_save` at once. Both forms make the same calls
/// to the same host, in interleaved rounds, so the machine's slow moments fall on both.
enum BlockingCallBench {
    struct Result {
        var asyncP50: Double
        var blockingP50: Double
    }

    static func run(rounds: Int = 10, perRound: Int = 500) async throws -> Result {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
            throw BenchError(message: "blocking call bench: socketpair: \(String(cString: strerror(errno)))")
        }
        let hostEnd = fds[1]
        let host = Thread { answer(fd: hostEnd) }
        host.start()
        let app = try await MAMApp.connect(fd: fds[0])
        defer {
            app.close()
            close(fds[1])
        }
        let call = Service.CanSave(location: .localDrive, account: "")
        var asyncSamples: [Double] = [], blockingSamples: [Double] = []
        for _ in 0..<rounds {
            for _ in 0..<perRound {
                let start = DispatchTime.now().uptimeNanoseconds
                guard await app.call(call).isAllowed else { throw BenchError(message: "blocking call bench: the async call was refused") }
                asyncSamples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
            }
            // The blocking form from a thread of its own, as synchronous app code calls it.
            blockingSamples += try await withCheckedThrowingContinuation { (c: CheckedContinuation<[Double], any Error>) in
                Thread {
                    var samples: [Double] = []
                    for _ in 0..<perRound {
                        let start = DispatchTime.now().uptimeNanoseconds
                        guard (try? app.callBlocking(call, timeout: .seconds(10)))?.isAllowed == true else {
                            return c.resume(throwing: BenchError(message: "blocking call bench: the blocking call failed"))
                        }
                        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
                    }
                    c.resume(returning: samples)
                }.start()
            }
        }
        func p50(_ s: [Double]) -> Double { s.sorted()[s.count / 2] }
        return Result(asyncP50: p50(asyncSamples), blockingP50: p50(blockingSamples))
    }

    /// The played host: answers every service request allowed.
    private static func answer(fd: Int32) {
        PlayedHost.serve(fd: fd, bundleID: "com.mamsim.bench") { _, _ in ServiceResult(verdict: .allowed("bench")) }
    }
}

/// A host played on a thread of the bench's own, over one end of a socket pair: it welcomes
/// the app, then answers each service request with `answer` (the benches that measure app-side
/// calls without the device behind them).
enum PlayedHost {
    static func serve(fd: Int32, bundleID: BundleID, answer: (ServiceRequest, ServiceContext) -> ServiceResult) {
        var decoder = FrameDecoder()
        var buffer = [UInt8](repeating: 0, count: 65536)
        var out: [UInt8] = []
        func send(_ frame: Frame) {
            out.removeAll(keepingCapacity: true)
            FrameEncoder.encode(frame, appendingTo: &out)
            _ = out.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            try? decoder.feed(Array(buffer[..<n])) { payload in
                guard let frame = try? FrameParser.parse(payload) else { return }
                switch frame.body {
                case .hello:
                    send(Frame(seq: 1, replyTo: frame.seq, body: .welcome(Welcome(bundleID: bundleID, kind: .app))))
                case .serviceRequest(let request, let context):
                    send(Frame(seq: 0, replyTo: frame.seq, body: .serviceResult(answer(request, context))))
                default: break
                }
            }
        }
    }
}
