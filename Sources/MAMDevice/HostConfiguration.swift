public import Foundation
public import MAMModel
public import MAMPolicy

/// One app or extension the host may run: its scenario handle, what the enforcer knows of it,
/// and the program that plays it.
public struct AppSpec: Sendable {
    /// The scenario's name for the app (`mail`).
    public var handle: String
    public var descriptor: AppDescriptor
    /// The app's own executable; `nil` runs the generic runtime (`mamsim-app`).
    public var executable: String?
    public var arguments: [String]
    /// Extensions are started when an item is shared to them, not with the fleet.
    public var startsWithFleet: Bool
    /// An extension's activation rule: does it accept an item with these type identifiers
    /// (`managed`: the item is org data, offered only as the Intune-prefixed types)?
    public var activation: (@Sendable (_ types: [String], _ managed: Bool) -> (activated: Bool, reason: String))?

    public init(handle: String, descriptor: AppDescriptor, executable: String? = nil, arguments: [String] = [], startsWithFleet: Bool? = nil) {
        self.handle = handle
        self.descriptor = descriptor
        self.executable = executable
        self.arguments = arguments
        self.startsWithFleet = startsWithFleet ?? (descriptor.kind == .app)
    }

    public var bundleID: BundleID { descriptor.bundleID }
}

/// Everything a host needs to bring a device up.
public struct HostConfiguration: Sendable {
    public var apps: [AppSpec]
    public var fleet: Fleet
    /// Where the device keeps its state (SQLite store, containers); reusing a directory
    /// restores everything a previous host acknowledged.
    public var deviceDirectory: URL
    /// Policies beyond those of the fleet's accounts that `setPolicy` may assign.
    public var extraPolicies: [IosManagedAppProtection] = []
    /// The simulated clock at first start.
    public var clockStart: Instant?
    /// Path of the generic app runtime.
    public var appRuntime: String
    public var maximumFrameSize: UInt32 = 16 << 20
    /// How long an app has to send `Hello` after spawn.
    public var handshakeTimeout: UInt64 = 10_000
    /// How long a destination has to acknowledge a delivery before the sender is told `failed`.
    public var deliveryTimeout: UInt64 = 10_000
    /// How long a scripted command may take.
    public var commandTimeout: UInt64 = 20_000
    /// Teardown: time between `Bye` and SIGTERM, and between SIGTERM and SIGKILL.
    public var byeGrace: UInt64 = 2_000
    public var terminateGrace: UInt64 = 1_000
    /// Children's stdout/stderr go to /dev/null instead of the host's.
    public var quietChildren = false
    /// Every decision goes to the audit log in the device store. Benchmarks turn it off to
    /// measure the broker alone.
    public var auditDecisions = true
    /// The host remembers every item each app or extension accepted (`expectState.received`).
    /// Benchmarks moving 100 000 items turn it off.
    public var recordDeliveries = true
    /// Shares a child may have in flight at once; a flood beyond it is refused.
    public var maximumSharesInFlight = 4096

    public init(apps: [AppSpec], fleet: Fleet, deviceDirectory: URL, appRuntime: String) {
        self.apps = apps
        self.fleet = fleet
        self.deviceDirectory = deviceDirectory
        self.appRuntime = appRuntime
    }
}
