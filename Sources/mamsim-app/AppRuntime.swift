// The generic app and extension runtime. The host spawns it with the channel on fd 3, assigns
// its bundle id in the handshake, and drives it with commands, so scenario steps act through
// the same path a real app would (share requests, identity changes, acknowledgements).
import MAMKit
import MAMLoop
import MAMModel
import MAMWire
#if canImport(Glibc)
import Glibc
#endif

@main
struct AppRuntime {
    static func main() {
        let loop: EventLoop
        let channel: AppChannel
        do {
            loop = try EventLoop()
            channel = try AppChannel(loop: loop)
        } catch {
            printError("mamsim-app: \(error)")
            exit(2)
        }
        let runtime = Runtime(channel: channel)
        channel.onCommand = { command, reply in runtime.execute(command, reply: reply) }
        channel.onDeliver = { runtime.receive($0) }
        channel.onClose = { _ in loop.stop() }
        do {
            try channel.start(runtime: "mamsim-app/1")
        } catch {
            printError("mamsim-app: \(error)")
            exit(2)
        }
        loop.run()
        exit(0)
    }
}

/// What the scripted app remembers and how it answers the host's commands.
final class Runtime {
    let channel: AppChannel
    var received: [Deliver] = []

    init(channel: AppChannel) { self.channel = channel }

    func receive(_ deliver: Deliver) -> Bool {
        received.append(deliver)
        return true
    }

    func execute(_ command: Command, reply: @escaping (CommandResult) -> Void) {
        switch command.verb {
        case "share":
            guard let item = command.item, let to = command.args["to"] else {
                return reply(CommandResult(ok: false, outcome: "error", reason: Reason.badRequest.rawValue, explanation: "share needs an item and a destination"))
            }
            let request = ShareRequest(
                destination: to, item: item, identity: command.args["identity"] ?? "",
                receiveAs: command.args["receiveAs"] ?? "")
            channel.share(request) { outcome in
                switch outcome {
                case .delivered:
                    reply(CommandResult(ok: true, outcome: "delivered"))
                case .blocked(let r, let why):
                    reply(CommandResult(ok: true, outcome: "blocked", reason: r.rawValue, explanation: why))
                case .failed(let r, let why):
                    reply(CommandResult(ok: true, outcome: "failed", reason: r.rawValue, explanation: why))
                }
            }
        case "setIdentity":
            let window = command.args["window"]
            let body = Frame.Body.setIdentity(SetIdentity(
                scope: window == nil ? .process : .ui, window: window ?? "", account: command.args["account"] ?? ""))
            channel.send(body) { frame in
                if case .identityResult(let r) = frame.body {
                    reply(CommandResult(ok: true, outcome: "\(r.status)", reason: r.reason, explanation: r.explanation))
                } else {
                    reply(CommandResult(ok: false, outcome: "error", reason: Reason.badRequest.rawValue, explanation: "unexpected answer \(frame.body.name)"))
                }
            }
        case "received":
            let list = received.map { d in "\(d.item.id):\(d.item.ownership?.upn ?? "")" }.joined(separator: ",")
            reply(CommandResult(ok: true, outcome: list))
        case "exit":
            // Scripted crash or exit, e.g. a share extension that dies mid-request.
            exit(Int32(command.args["status"] ?? "0") ?? 0)
        default:
            reply(CommandResult(ok: false, outcome: "error", reason: Reason.badRequest.rawValue, explanation: "mamsim-app does not know the command \"\(command.verb)\""))
        }
    }
}

/// Writes a line to stderr without touching C's `stderr` global (not concurrency-safe).
func printError(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}
