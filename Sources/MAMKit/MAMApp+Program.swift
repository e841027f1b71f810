import MAMLoop
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension MAMApp {
    /// Runs a program that plays an app the way iOS runs one, for the façades' `run`: `body`,
    /// the app's launch and life, runs in a task once the app is connected (and `bind` has
    /// bound a façade to it), while the calling thread — the process's main thread — is handed
    /// to `parkMainThread`, which serves the main run loop and never returns. The process exits
    /// when `body` returns (status 0), or at once with status 1 when there is no host to connect
    /// to. MAMKit runs no run loop of its own (it does without Foundation): the façade passes it.
    public static func runProgram(runtime: String, finishesLaunching: Bool, bind: @escaping @Sendable (MAMApp) -> Void,
                                  parkMainThread: () -> Never, _ body: @escaping @Sendable (MAMApp) async -> Void) -> Never {
        Task.detached {
            let app: MAMApp
            do {
                app = try await connect(runtime: runtime, finishesLaunching: finishesLaunching)
            } catch {
                try? System.writeAll(2, Array("\(runtime): cannot connect to the mamsim host on fd 3 (\(error)); a mamsim fleet starts this program\n".utf8))
                exit(1)
            }
            bind(app)
            await body(app)
            exit(0)
        }
        parkMainThread()
    }
}
