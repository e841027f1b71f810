// The generic app and extension runtime. The host spawns it with the channel on fd 3, assigns
// its bundle id in the handshake, and drives it with commands, so scenario steps act through
// the same path a real app would (share requests, identity changes, acknowledgements).
import CConfine
import CZygote
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
        var arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "--zygote" {
            // The host's template: from here on every app is forked, and only a new app
            // returns, with the arguments the host gave it.
            arguments = ArraySlice(serveAsZygote())
        }
        confineIfAsked(arguments)
        AppChannel.runProgram(runtime: "mamsim-app/2") { channel in
            let runtime = Runtime(channel: channel)
            channel.onCommand = { command, reply in runtime.execute(command, reply: reply) }
            channel.onDeliver = { runtime.receive($0) }
            // `receive` keeps an item's id and owner, never the item: its payload can stay in
            // the read buffer, uncopied.
            channel.lendsReceivedPayloads = true
        }
    }
}

extension AppRuntime {
    /// `--confine [--confine-read PATH]... [--confine-write PATH]... [--confine-limit NAME=N]...
    /// [--confine-cgroup PROCS_FILE] [--confine-device-cgroup PROCS_FILE]`:
    /// the host asks the built-in runtime to confine itself (CConfine: default-deny) before it
    /// reads anything from its channel — the sandbox mamsim-confine gives other programs,
    /// without that launcher's extra exec. A runtime that cannot confine itself when asked
    /// does not run.
    static func confineIfAsked(_ arguments: ArraySlice<String>) {
        let asked = confinement(asked: arguments)
        guard asked.confine else {
            // What the template prepared for confined apps is not this app's to keep.
            mamsim_confine_release()
            if !asked.read.isEmpty || !asked.write.isEmpty { fail("--confine-read and --confine-write need --confine") }
            return
        }
        var error = [CChar](repeating: 0, count: 4400)
        var limits = asked.limits
        let cgroup = asked.cgroup.map { strdup($0) } ?? nil
        let deviceCgroup = asked.deviceCgroup.map { strdup($0) } ?? nil
        defer {
            free(cgroup)
            free(deviceCgroup)
        }
        limits.cgroup_procs = UnsafePointer(cgroup)
        limits.device_cgroup_procs = UnsafePointer(deviceCgroup)
        let result = withArrayOfCStrings(asked.read) { read in
            withArrayOfCStrings(asked.write) { write in
                mamsim_confine(read, Int32(asked.read.count), write, Int32(asked.write.count), &limits, &error, error.count)
            }
        }
        if result != 0 {
            fail("cannot confine itself: " + String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// What `--confine`, `--confine-read`, `--confine-write` and `--confine-limit` ask for.
    static func confinement(asked arguments: ArraySlice<String>) -> (confine: Bool, read: [String], write: [String], limits: mamsim_limits, cgroup: String?, deviceCgroup: String?) {
        var confine = false
        var cgroup: String?
        var deviceCgroup: String?
        var read: [String] = []
        var write: [String] = []
        var limits = mamsim_limits()
        var rest = arguments
        while let argument = rest.popFirst() {
            switch argument {
            case "--confine": confine = true
            case "--confine-read": if let path = rest.popFirst() { read.append(path) }
            case "--confine-write": if let path = rest.popFirst() { write.append(path) }
            case "--confine-cgroup": cgroup = rest.popFirst()
            case "--confine-device-cgroup": deviceCgroup = rest.popFirst()
            case "--confine-limit":
                guard let pair = rest.popFirst(), let eq = pair.firstIndex(of: "="), let value = UInt64(pair[pair.index(after: eq)...]) else {
                    fail("--confine-limit takes NAME=NUMBER")
                }
                switch pair[..<eq] {
                case "memory": limits.memory_bytes = value
                case "file-size": limits.file_bytes = value
                case "open-files": limits.open_files = value
                case "processes": limits.processes = value
                default: fail("--confine-limit: unknown limit \(pair[..<eq])")
                }
            default: continue  // the runtime takes no other argument; what the host adds is ignored
            }
        }
        return (confine, read, write, limits, cgroup, deviceCgroup)
    }

    /// Runs the code paths every app runs at start (its arguments read and its confinement
    /// asked for, frame encoding and parsing of the handshake and of the commonest traffic),
    /// so their type metadata and pages are ready in each forked app — instantiated after the
    /// fork, the metadata was a third of a forked app's start — then serves the host's fork
    /// requests on fd 3. No loop, no thread and no descriptor besides the control socket and
    /// the system paths its confinement prepared (each app closes those as it confines itself)
    /// exists here: a fork copies nothing that is one app's.
    static func serveAsZygote() -> [String] {
        // The loader has bound every symbol already: the apps forked from here do not carry
        // the host's request for it (`SpawnEnvironment.template`) to what they run.
        if getenv("MAMSIM_TEMPLATE_BIND_NOW") != nil {
            unsetenv("LD_BIND_NOW")
            unsetenv("MAMSIM_TEMPLATE_BIND_NOW")
        }
        // Every app it forks confines itself: the system's paths are opened, the bounding set
        // emptied and the system call filter installed once, here, rather than in each app
        // (the largest part of a forked app's own work until it is ready).
        if getenv("MAMSIM_TEMPLATE_CONFINES") != nil {
            unsetenv("MAMSIM_TEMPLATE_CONFINES")
            _ = mamsim_confine_prepare()
        }
        let sample = Array("--confine\u{0}--confine-read\u{0}/p\u{0}--confine-write\u{0}/d/c\u{0}--confine-limit\u{0}memory=1\u{0}".utf8)
        let arguments = sample.withUnsafeBytes(forkArguments)
        let asked = confinement(asked: ArraySlice(arguments))
        _ = withArrayOfCStrings(asked.read) { $0 != nil }
        let warm: [Frame] = [
            Frame(seq: 1, body: .hello(Hello(pid: getpid(), runtime: "mamsim-app/2"))),
            Frame(seq: 2, body: .deliverAck(DeliverAck(itemID: "warm", accepted: true))),
        ]
        for frame in warm {
            var encoded: [UInt8] = []
            FrameEncoder.encode(frame, appendingTo: &encoded, withLengthPrefix: false)
            _ = try? FrameParser.parse(encoded)
        }
        AppChannel.prepareTemplate()
        var text: UnsafeMutablePointer<CChar>?
        var length = 0
        let status = mamsim_zygote_serve(3, &text, &length)
        guard status == 0, let text else { fail("zygote: cannot serve the host (\(status))") }
        defer { free(text) }
        return forkArguments(UnsafeRawBufferPointer(start: text, count: length))
    }

    /// The arguments of a fork request: NUL-terminated strings, one after the other.
    static func forkArguments(_ bytes: UnsafeRawBufferPointer) -> [String] {
        bytes.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
    }

    static func fail(_ message: String) -> Never {
        let line = "mamsim-app: \(message)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
        exit(126)
    }

    static func withArrayOfCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}

/// `Runtime`'s state on its loop's thread (`LoopBound`): its fields are read and
/// written through `value` (`Runtime.value.field`), checked to be on the loop's thread in debug builds.
struct RuntimeLoopState {
    /// What arrived: item id and owner of the last `keptReceived` items (the items themselves
    /// are the app's business), a ring once full. Kept whole, a flood of 3 million items grew
    /// the receiving app to 140 MB, and a `listReceived` answer of millions of entries would
    /// not fit in one frame (16 MiB; these, of ids of at most 256 bytes, do).
    /// Written on the loop thread only, for every item: its exclusivity check is left out.
    var received: [(id: String, owner: String)] = []
    /// Where the next item goes once the ring is full (the oldest one kept).
    var nextReceived: Int = 0
}

/// What the scripted app remembers and how it answers the host's commands.
final class Runtime: LoopBound<RuntimeLoopState> {
    let channel: AppChannel
    static let keptReceived = 16_384

    init(channel: AppChannel) {
        self.channel = channel
        super.init(RuntimeLoopState(), loop: channel.loop)
    }

    /// How the scenario says this app's delegate answers the SDK (the defaults when unsaid).
    private var delegate: DelegateAnswers { channel.welcome?.delegate ?? DelegateAnswers() }

    /// Keeps nothing of the item but its id and owner (the channel lends payloads where they
    /// were read, `lendsReceivedPayloads`).
    func receive(_ deliver: Deliver) -> Bool {
        let entry = (id: deliver.item.id, owner: deliver.item.ownership?.upn ?? "")
        if self.value.received.count < Self.keptReceived {
            self.value.received.append(entry)
        } else {
            self.value.received[self.value.nextReceived] = entry
            self.value.nextReceived = self.value.nextReceived + 1 == Self.keptReceived ? 0 : self.value.nextReceived + 1
        }
        return true
    }

    /// The items kept, oldest first.
    var receivedInOrder: [ReceivedEntry] {
        (self.value.received[self.value.nextReceived...] + self.value.received[..<self.value.nextReceived]).map { ReceivedEntry(itemID: $0.id, owner: $0.owner) }
    }

    func execute(_ command: Command, reply: @escaping (CommandResult) -> Void) {
        switch command {
        case .share(let request):
            channel.share(request) { reply(.share($0)) }
        case .setIdentity(let request):
            channel.setIdentity(request.account, window: request.scope == .process ? nil : request.window,
                                mainThread: request.mainThread) { reply(.setIdentity($0)) }
        case .addIdentity:
            // IntuneMAMPolicyDelegate addAccountId: the generic runtime adds the account unless
            // the scenario says its delegate refuses.
            reply(.addIdentity(added: !delegate.refusesAddAccount))
        case .allowedAccountsChanged:
            reply(.acknowledged)
        case .notification(let n):
            // The generic runtime reads policy and configuration when it needs them: a change
            // needs no work of its own. restartApplication: the SDK restarts it unless the
            // scenario says it restarts on its own.
            reply(.notified(restartsItself: n.kind == .restartApplication && delegate.restartsItself))
        case .identitySwitchRequired:
            // The generic runtime shows the requested identity unless its delegate refuses.
            reply(.identitySwitchRequired(accepted: !delegate.refusesIdentitySwitch))
        case .wipeAccountData:
            // The generic runtime keeps no data of its own: it leaves the account's files to the
            // SDK (FALSE), unless the scenario says its delegate answers TRUE — then the files
            // it wrote through the device stay, as in an app that claims a wipe it did not do.
            reply(.wipeAccountData(wiped: delegate.wipesDataItself))
        case .flood(let flood):
            self.flood(flood, reply: reply)
        case .listReceived:
            reply(.received(receivedInOrder))
        case .exit(let status):
            // Scripted crash or exit, e.g. a share extension that dies mid-request.
            exit(status)
        }
    }
}

/// `FloodProgress`'s state on its loop's thread (`LoopBound`): its fields are read and
/// written through `value` (`FloodProgress.value.field`), checked to be on the loop's thread in debug builds.
fileprivate struct FloodProgressState {
    var sent: UInt64 = 0
    var answered: UInt64 = 0
    var delivered: UInt64 = 0
    var firstProblem: Verdict?
    var onAnswer: ((Verdict) -> Void)?
}

/// A flood's counters, on the app's loop thread only. Captured as variables they were boxes
/// the runtime checked for exclusive access on every share and answer.
private final class FloodProgress: LoopBound<FloodProgressState> {
}

/// `f` and `n` in decimal, as `"f\(n)"` spells it, written digit by digit: the interpolation
/// was a tenth of the sending app's instructions per item in the broker bench.
func floodItemID(_ n: UInt64) -> String {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { buffer in
        var i = buffer.count
        var v = n
        repeat {
            i -= 1
            buffer[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
            v /= 10
        } while v > 0
        i -= 1
        buffer[i] = UInt8(ascii: "f")
        return String(decoding: UnsafeBufferPointer(rebasing: buffer[i...]), as: UTF8.self)
    }
}

extension Runtime {
    /// Benchmark load: shares `count` items of `size` bytes, keeping at most `window`
    /// unanswered, and replies once every share was answered with how many were delivered.
    func flood(_ flood: Flood, reply: @escaping (CommandResult) -> Void) {
        guard flood.count > 0, !flood.destination.isEmpty else {
            return reply(.error(.badRequest, "flood needs a destination and a count above 0"))
        }
        let count = flood.count
        let window = UInt64(max(1, flood.window))
        let payload = [UInt8](repeating: 0x61, count: Int(flood.size))
        let types = ["public.data"]
        let progress = FloodProgress(FloodProgressState())
        // One completion for every share (it reads nothing of its own share): a closure made
        // per share is an allocation and a retain of everything it captures.
        func sendMore() {
            while progress.value.sent < count && progress.value.sent - progress.value.answered < window {
                let item = Item(id: floodItemID(progress.value.sent), typeIdentifiers: types, payload: .inline(payload))
                progress.value.sent += 1
                channel.share(ShareRequest(destination: flood.destination, item: item, identity: flood.identity), completion: progress.value.onAnswer!)
            }
        }
        progress.value.onAnswer = { outcome in
            progress.value.answered += 1
            if outcome.isDelivered { progress.value.delivered += 1 } else if progress.value.firstProblem == nil { progress.value.firstProblem = outcome }
            if progress.value.answered == count {
                reply(.flood(delivered: progress.value.delivered, firstProblem: progress.value.firstProblem))
                // The closure holds itself through `sendMore`: let go once the flood is over.
                progress.value.onAnswer = nil
            } else {
                sendMore()
            }
        }
        sendMore()
    }
}
