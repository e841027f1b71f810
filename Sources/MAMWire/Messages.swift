public import MAMModel

/// One message between the host and a child: the Swift face of `mamsim.v1.Frame`.
///
/// `seq` numbers a sender's frames from 1; `replyTo` names the frame a reply answers (0 = none).
public struct Frame: Sendable, Hashable {
    public var seq: UInt64
    public var replyTo: UInt64
    public var body: Body

    public init(seq: UInt64, replyTo: UInt64 = 0, body: Body) {
        self.seq = seq
        self.replyTo = replyTo
        self.body = body
    }

    public enum Body: Sendable, Hashable {
        case hello(Hello)
        case welcome(Welcome)
        case shareRequest(ShareRequest)
        case shareResult(ShareOutcome)
        case deliver(Deliver)
        case deliverAck(DeliverAck)
        case setIdentity(SetIdentity)
        case identityResult(IdentityResult)
        case getIdentity(window: String)
        case identityInfo(IdentityInfo)
        case command(Command)
        case commandResult(CommandResult)
        case error(code: String, message: String)
        case bye(reason: String)
        case ping([UInt8])
        case serviceRequest(ServiceRequest)
        case serviceResult(ServiceResult)

        /// The wire name of the body, for logs and errors.
        public var name: String {
            switch self {
            case .hello: "hello"
            case .welcome: "welcome"
            case .shareRequest: "share_request"
            case .shareResult: "share_result"
            case .deliver: "deliver"
            case .deliverAck: "deliver_ack"
            case .setIdentity: "set_identity"
            case .identityResult: "identity_result"
            case .getIdentity: "get_identity"
            case .identityInfo: "identity_info"
            case .command: "command"
            case .commandResult: "command_result"
            case .error: "error"
            case .bye: "bye"
            case .ping: "ping"
            case .serviceRequest: "service_request"
            case .serviceResult: "service_result"
            }
        }
    }
}

/// The kind of a child process, as the host assigned it at spawn.
public enum ChildKind: Sendable, Hashable {
    case app, shareExtension, actionExtension
}

/// The first frame a child sends.
public struct Hello: Sendable, Hashable {
    public static let currentProtocolVersion: UInt32 = 1
    public var protocolVersion: UInt32
    public var pid: Int32
    public var runtime: String
    public init(protocolVersion: UInt32 = Hello.currentProtocolVersion, pid: Int32, runtime: String) {
        self.protocolVersion = protocolVersion
        self.pid = pid
        self.runtime = runtime
    }
}

/// The host's answer to `Hello`: who the child is. A child never chooses its own identity.
public struct Welcome: Sendable, Hashable {
    public var bundleID: BundleID
    public var kind: ChildKind
    public var appHandle: String
    public var processIdentity: String
    public var maxFrameSize: UInt32
    public init(bundleID: BundleID, kind: ChildKind, appHandle: String, processIdentity: String, maxFrameSize: UInt32) {
        self.bundleID = bundleID
        self.kind = kind
        self.appHandle = appHandle
        self.processIdentity = processIdentity
        self.maxFrameSize = maxFrameSize
    }
}

/// A child asks the broker to share an item with another app or extension.
public struct ShareRequest: Sendable, Hashable {
    /// An app handle or bundle id.
    public var destination: String
    public var item: Item
    /// The sender's effective identity; `""` = unmanaged.
    public var identity: String
    /// The receiving account in a multi-identity destination; `""` = its current identity.
    public var receiveAs: String
    public init(destination: String, item: Item, identity: String, receiveAs: String = "") {
        self.destination = destination
        self.item = item
        self.identity = identity
        self.receiveAs = receiveAs
    }
}

/// The host hands an item to a destination.
public struct Deliver: Sendable, Hashable {
    public var item: Item
    public var senderBundleID: BundleID
    public var receivedAs: String
    public init(item: Item, senderBundleID: BundleID, receivedAs: String) {
        self.item = item
        self.senderBundleID = senderBundleID
        self.receivedAs = receivedAs
    }
}

public struct DeliverAck: Sendable, Hashable {
    public var itemID: String
    public var accepted: Bool
    public init(itemID: String, accepted: Bool) {
        self.itemID = itemID
        self.accepted = accepted
    }
}

public struct SetIdentity: Sendable, Hashable {
    public enum Scope: Sendable, Hashable { case process, ui }
    public var scope: Scope
    public var window: String
    /// `""` = unmanaged.
    public var account: String
    public init(scope: Scope, window: String = "", account: String) {
        self.scope = scope
        self.window = window
        self.account = account
    }
}

/// Result of an identity switch (RULES.md §8).
public struct IdentityResult: Sendable, Hashable {
    public enum Status: Sendable, Hashable { case success, canceled, notAllowed, failed }
    public var status: Status
    public var reason: String
    public var explanation: String
    public var account: String
    public init(status: Status, reason: String = "", explanation: String = "", account: String = "") {
        self.status = status
        self.reason = reason
        self.explanation = explanation
        self.account = account
    }
}

public struct IdentityInfo: Sendable, Hashable {
    public var processIdentity: String
    public var uiIdentity: String
    public var signedIn: [String]
    public init(processIdentity: String, uiIdentity: String, signedIn: [String]) {
        self.processIdentity = processIdentity
        self.uiIdentity = uiIdentity
        self.signedIn = signedIn
    }
}

/// A scripted instruction from the host to an app's runtime (scenario steps).
public struct Command: Sendable, Hashable {
    public var verb: String
    public var args: [String: String]
    public var item: Item?
    public init(verb: String, args: [String: String] = [:], item: Item? = nil) {
        self.verb = verb
        self.args = args
        self.item = item
    }
}

public struct CommandResult: Sendable, Hashable {
    public var ok: Bool
    public var outcome: String
    public var reason: String
    public var explanation: String
    public var values: [String: String]
    public var data: [UInt8]
    public init(ok: Bool, outcome: String, reason: String = "", explanation: String = "",
                values: [String: String] = [:], data: [UInt8] = []) {
        self.ok = ok
        self.outcome = outcome
        self.reason = reason
        self.explanation = explanation
        self.values = values
        self.data = data
    }
}

/// A child asks for a service of the OS or the Intune SDK (files, data protection,
/// keychain, pasteboard, save/open checks, printing, notifications, the share sheet).
public struct ServiceRequest: Sendable, Hashable {
    public var op: String
    public var args: [String: String]
    public var data: [UInt8]
    public init(op: String, args: [String: String] = [:], data: [UInt8] = []) {
        self.op = op
        self.args = args
        self.data = data
    }
}

/// The host's answer to a `ServiceRequest`.
public struct ServiceResult: Sendable, Hashable {
    public var ok: Bool
    /// A RULES.md §11 reason code when refused.
    public var reason: String
    public var explanation: String
    public var values: [String: String]
    public var data: [UInt8]
    /// An iOS status where one applies (keychain: -34018, -25300).
    public var status: Int32
    public init(ok: Bool, reason: String = "", explanation: String = "", values: [String: String] = [:],
                data: [UInt8] = [], status: Int32 = 0) {
        self.ok = ok
        self.reason = reason
        self.explanation = explanation
        self.values = values
        self.data = data
        self.status = status
    }
}
