import Foundation
public import MAMModel
public import MAMWire
public import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A host played over one end of a socket pair, on a thread of its own: it welcomes the app,
/// then answers each service request with what `answer` returns (`nil`: never answers), every
/// identity switch with success, and records what the app sent. The one stand-in for the host
/// that the tests of the app side (MAMKit, the façades) and the benches of app-side calls share:
/// an app under test connects to `appEnd` (`MAMApp.connect(fd:)`).
public final class PlayedHost: @unchecked Sendable {
    // `@unchecked Sendable`: `answer` and the ends are constants; everything the serving
    // thread and the caller share is behind a `Mutex`.
    public let appEnd: Int32
    private let hostEnd: Int32
    private let bundleID: BundleID
    private let recording: Bool
    private let answer: @Sendable (ServiceRequest, ServiceContext) -> ServiceResult?
    /// The service requests the app made, in order (when recording).
    public let seen = Mutex<[(ServiceRequest, ServiceContext)]>([])
    /// The command results the app sent, in order, with how many service requests had been
    /// answered before each.
    public let commandResults = Mutex<[(CommandResult, answeredBefore: Int)]>([])
    /// The deliveries' acknowledgements the app sent, in order.
    public let deliveryAcks = Mutex<[DeliverAcks]>([])
    /// The identity switches the app asked for, in order.
    public let identities = Mutex<[SetIdentity]>([])
    /// The bytes of the frame being written, kept from one frame to the next.
    private let writing = Mutex<[UInt8]>([])

    /// `recording: false` keeps no request (a bench's flood of calls).
    public init(bundleID: BundleID = "com.contoso.mail", recording: Bool = true,
                answer: @escaping @Sendable (ServiceRequest, ServiceContext) -> ServiceResult?) throws {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw POSIXError(.EMFILE) }
        (appEnd, hostEnd) = (fds[0], fds[1])
        self.bundleID = bundleID
        self.recording = recording
        self.answer = answer
        Thread { [self] in serve() }.start()
    }

    /// Sends `frame` whole, and one frame at a time: a large frame leaves in parts (a signal,
    /// a full socket buffer), and the serving thread's answers must not land between them.
    public func send(_ frame: Frame) {
        writing.withLock { bytes in
            bytes.removeAll(keepingCapacity: true)
            FrameEncoder.encode(frame, appendingTo: &bytes)
            bytes.withUnsafeBytes { raw in
                var sent = 0
                while sent < raw.count {
                    let n = write(hostEnd, raw.baseAddress! + sent, raw.count - sent)
                    if n > 0 { sent += n } else if n < 0 && errno == EINTR { continue } else { return }
                }
            }
        }
    }

    /// Goes away: the app's channel sees its end.
    public func leave() { shutdown(hostEnd, Int32(SHUT_RDWR)) }

    private func serve() {
        var decoder = FrameDecoder()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(hostEnd, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            try? decoder.feed(Array(buffer[..<n])) { payload in
                guard let frame = try? FrameParser.parse(payload) else { return }
                switch frame.body {
                case .hello:
                    send(Frame(seq: 1, replyTo: frame.seq, body: .welcome(Welcome(bundleID: bundleID, kind: .app))))
                case .serviceRequest(let request, let context):
                    if recording { seen.withLock { $0.append((request, context)) } }
                    if let result = answer(request, context) {
                        send(Frame(seq: 0, replyTo: frame.seq, body: .serviceResult(result)))
                    }
                case .commandResult(let result):
                    commandResults.withLock { $0.append((result, seen.withLock { $0.count })) }
                case .deliverAcks(let acks):
                    deliveryAcks.withLock { $0.append(acks) }
                case .setIdentity(let request):
                    // Every switch succeeds: the played accounts need no PIN or launch check.
                    identities.withLock { $0.append(request) }
                    send(Frame(seq: 0, replyTo: frame.seq, body: .identityResult(IdentityResult(status: .success, account: request.account))))
                case .getIdentity(let window):
                    // The identity last set for the window, and for the process, as the app
                    // named them.
                    let set = identities.withLock { $0 }
                    let ui = set.last { $0.scope == .ui && $0.window == window }?.account ?? ""
                    let process = set.last { $0.scope == .process }?.account ?? ""
                    send(Frame(seq: 0, replyTo: frame.seq, body: .identityInfo(IdentityInfo(processIdentity: process, uiIdentity: ui))))
                default: break
                }
            }
        }
    }
}
