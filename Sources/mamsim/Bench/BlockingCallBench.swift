import Foundation
import MAMKit
import MAMModel
import MAMPlayedHost
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
        // The played host answers every service request allowed.
        let host = try PlayedHost(bundleID: "com.mamsim.bench", recording: false) { _, _ in ServiceResult(verdict: .allowed("bench")) }
        let app = try await MAMApp.connect(fd: host.appEnd)
        defer {
            app.close()
            host.leave()
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
}
