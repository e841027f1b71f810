// The generic app and extension runtime. The host spawns it with the channel on fd 3, assigns
// its bundle id in the handshake, and drives it with commands, so scenario steps act through
// the same path a real app would (share requests, identity changes, acknowledgements).
import MAMKit
import MAMModel
import MAMWire
#if canImport(Glibc)
import Glibc
#endif

@main
struct AppRuntime {
    static func main() {
        AppChannel.runProgram(runtime: "mamsim-app/1") { channel in
            let runtime = Runtime(channel: channel)
            channel.onCommand = { command, reply in runtime.execute(command, reply: reply) }
            channel.onDeliver = { runtime.receive($0) }
        }
    }
}

/// What the scripted app remembers and how it answers the host's commands.
final class Runtime {
    let channel: AppChannel
    /// What arrived: item id and owner (the items themselves are the app's business; a
    /// benchmark delivers 100 000 of them).
    var received: [(id: String, owner: String)] = []

    init(channel: AppChannel) { self.channel = channel }

    func receive(_ deliver: Deliver) -> Bool {
        received.append((deliver.item.id, deliver.item.ownership?.upn ?? ""))
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
        case "service":
            // An OS or SDK call the scenario makes the app perform (save, print, keychain…).
            guard let op = command.args["op"] else {
                return reply(CommandResult(ok: false, outcome: "error", reason: Reason.badRequest.rawValue, explanation: "service needs op="))
            }
            var args = command.args
            args["op"] = nil
            var data: [UInt8] = []
            if case .inline(let bytes) = command.item?.payload { data = bytes }
            channel.service(ServiceRequest(op: op, args: args, data: data)) { r in
                var values = r.values
                values["status"] = "\(r.status)"
                reply(CommandResult(ok: r.ok, outcome: r.ok ? "ok" : "refused", reason: r.reason, explanation: r.explanation, values: values, data: r.data))
            }
        case "addIdentity":
            // IntuneMAMPolicyDelegate addIdentity: the generic runtime can always add an account.
            reply(CommandResult(ok: true, outcome: "success"))
        case "allowedAccountsDidChange":
            reply(CommandResult(ok: true, outcome: "ok"))
        case "identitySwitchRequired":
            // The generic runtime always agrees to show the requested identity.
            reply(CommandResult(ok: true, outcome: "accept"))
        case "wipeDataForAccountId":
            // The generic runtime keeps no data of its own: the device deletes the account's
            // files (`false` = "I did not wipe").
            reply(CommandResult(ok: true, outcome: "false"))
        case "flood":
            flood(command, reply: reply)
        case "received":
            reply(CommandResult(ok: true, outcome: received.map { "\($0.id):\($0.owner)" }.joined(separator: ",")))
        case "exit":
            // Scripted crash or exit, e.g. a share extension that dies mid-request.
            exit(Int32(command.args["status"] ?? "0") ?? 0)
        default:
            reply(CommandResult(ok: false, outcome: "error", reason: Reason.badRequest.rawValue, explanation: "mamsim-app does not know the command \"\(command.verb)\""))
        }
    }
}

extension Runtime {
    /// Benchmark load: shares `count` items of `size` bytes to `to`, keeping at most `window`
    /// unanswered, and replies once every share was answered with how many were delivered.
    func flood(_ command: Command, reply: @escaping (CommandResult) -> Void) {
        guard let to = command.args["to"], let count = Int(command.args["count"] ?? ""), count > 0 else {
            return reply(CommandResult(ok: false, outcome: "error", reason: Reason.badRequest.rawValue, explanation: "flood needs to= and count="))
        }
        let size = Int(command.args["size"] ?? "1024") ?? 1024
        let window = max(1, Int(command.args["window"] ?? "256") ?? 256)
        let identity = command.args["identity"] ?? ""
        let payload = [UInt8](repeating: 0x61, count: size)
        var sent = 0
        var answered = 0
        var delivered = 0
        var firstProblem = ""
        func sendMore() {
            while sent < count && sent - answered < window {
                let item = Item(id: "f\(sent)", typeIdentifiers: ["public.data"], payload: .inline(payload))
                sent += 1
                channel.share(ShareRequest(destination: to, item: item, identity: identity)) { outcome in
                    answered += 1
                    if outcome == .delivered { delivered += 1 } else if firstProblem.isEmpty { firstProblem = "\(outcome)" }
                    if answered == count {
                        reply(CommandResult(ok: delivered == count, outcome: "\(delivered)", explanation: firstProblem))
                    } else {
                        sendMore()
                    }
                }
            }
        }
        sendMore()
    }
}
