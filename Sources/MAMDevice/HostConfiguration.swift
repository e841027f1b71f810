public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import MAMDeclarations
public import MAMModel
public import MAMPolicy
public import MAMWire

/// One app or extension the host may run: its scenario handle, what the enforcer knows of it,
/// and the program that plays it.
public struct AppSpec: Sendable {
    /// The scenario's name for the app (`mail`).
    public var handle: String { didSet { key = AppHandle(handle) } }
    public var descriptor: AppDescriptor
    /// The app's own executable; `nil` runs the generic runtime (`mamsim-app`).
    public var executable: String?
    public var arguments: [String]
    /// Extensions are started when an item is shared to them, not with the fleet.
    public var startsWithFleet: Bool
    /// An extension's activation rule: does it accept an item with these type identifiers
    /// (`managed`: the item is org data, offered only as the Intune-prefixed types)?
    public var activation: (@Sendable (_ types: [String], _ managed: Bool) -> (activated: Bool, reason: String))?

    /// What its confined process may use beyond its own program and container.
    public var sandbox = AppSandbox()
    /// Accounts the user signed in to the app with MSAL (its token cache), as UPNs or OIDs:
    /// besides the accounts signed in to its SDK, the app's own process may ask the token
    /// service for these, and an interactive remediation it starts may enroll them. For any
    /// other account the simulated user does not consent: a scenario step signs it in.
    public var userAccounts: [String] = []
    /// Whether the scenario listed `userAccounts` (`msalAccounts:`). Unlisted, every account of
    /// the scenario is one the app's MSAL holds when a step enrolls it (SCENARIOS.md v1.3: the
    /// app calls registerAndEnrollAccountId once its user signed in); listed, only those.
    /// The app's own process is held to the list either way.
    public var userAccountsListed = false
    /// How its delegate answers the SDK's calls (a switch it requires, a selective wipe): sent
    /// in `Welcome` for the generic runtime to follow.
    public var delegate = DelegateAnswers()

    public init(handle: String, descriptor: AppDescriptor, executable: String? = nil, arguments: [String] = [], startsWithFleet: Bool? = nil) {
        self.handle = handle
        key = AppHandle(handle)
        self.descriptor = descriptor
        self.executable = executable
        self.arguments = arguments
        self.startsWithFleet = startsWithFleet ?? (descriptor.kind == .app)
    }

    public var bundleID: BundleID { descriptor.bundleID }
    /// The handle's key, made once: the host looks apps up by it on every share.
    public private(set) var key: AppHandle

    /// The bundle whose identity state the app uses: an extension's is its containing app's.
    public var identityOwner: BundleID {
        if descriptor.kind != .app, let container = descriptor.containingApp { return container }
        return bundleID
    }
}

/// What a confined app may use beyond the default: folders to read (its interpreter's
/// installation, a runtime shared with other plugins) and environment variables to receive.
/// A plugin names them in `plugin.json` (`"sandbox": {"read": [...], "environment": [...]}`).
public struct AppSandbox: Sendable, Hashable {
    /// Absolute paths, readable and executable.
    public var read: [String]
    /// Names of the host's environment variables passed on besides the default few.
    public var environment: [String]
    /// The program is readable alone, not its folder (which holds what no declaration may
    /// have: a secret, an untracked file of the project, a scenario's input).
    public var programAlone: Bool

    public init(read: [String] = [], environment: [String] = [], programAlone: Bool = false) {
        self.read = read
        self.environment = environment
        self.programAlone = programAlone
    }
}

/// Whether children run confined to their own containers.
public enum Confinement: Sendable, Hashable {
    /// Landlock where the kernel has it (the host says which at start), none elsewhere.
    case whereAvailable
    /// Landlock, or the host does not start.
    case required
    /// None: children can read the whole device directory (same user, no sandbox).
    case none
}

/// One step of ending a child: the host walks the list until the child has exited.
public enum TeardownStep: Sendable, Hashable {
    /// Send `Bye` and wait this long for the child to leave by itself.
    case ask(wait: Duration)
    /// Send a signal (SIGTERM) and wait this long.
    case signal(Int32, wait: Duration)
    /// SIGKILL: nothing can ignore it; the exit is reaped as usual.
    case kill
}

extension Duration {
    /// Whole milliseconds, as libuv timers take them (negative → 0).
    var milliseconds: UInt64 {
        let (s, atto) = components
        guard s >= 0 else { return 0 }
        return UInt64(s) * 1000 + UInt64(atto / 1_000_000_000_000_000)
    }
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
    /// Intune targeted app configuration policies at first start (RULES.md §9); a device
    /// directory that stored run-time changes keeps those.
    public var appConfigs: [AppConfigPolicy] = []
    /// Apple DDM declarations the MDM server has sent at start (applied over what the device
    /// directory holds).
    public var declarations: [DeclarationSet.Entry] = []
    /// Entra conditional access policies (RULES.md §10) at start.
    public var conditionalAccess: [ConditionalAccessPolicy] = []
    /// Microsoft Authenticator (the broker) is installed at start: app protection CA
    /// remediation needs it. A device fact (`setDevice` installs it at run time).
    public var brokerInstalled: Bool {
        get { fleet.device.brokerInstalled }
        set { fleet.device.brokerInstalled = newValue }
    }
    /// The network at start (`device.network`); `nil` keeps what the device directory holds.
    public var networkOnline: Bool?
    /// Path of the generic app runtime.
    public var appRuntime: String
    public var maximumFrameSize: UInt32 = 16 << 20
    /// How long an app has to send `Hello` after spawn.
    public var handshakeTimeout: Duration = .seconds(10)
    /// How long a child may take to finish a frame it started sending (no slow-loris).
    public var frameTimeout: Duration = .seconds(10)
    /// How long a destination has to acknowledge a delivery before the sender is told `failed`.
    public var deliveryTimeout: Duration = .seconds(10)
    /// How long a command to an app may take.
    public var commandTimeout: Duration = .seconds(20)
    /// How a child is ended (at teardown, or an extension with nothing left to do).
    public var teardown: [TeardownStep] = [.ask(wait: .seconds(2)), .signal(SIGTERM, wait: .seconds(1)), .kill]
    /// How children are kept out of the device directory (other apps' containers, the store).
    public var confinement: Confinement = .whereAvailable
    /// The launcher that confines a child (`mamsim-confine`); `nil` = beside `appRuntime`.
    public var confinementLauncher: String?
    /// Paths every confined child may read besides its own program (absolute). Checked like a
    /// plugin's own (`AppSandbox.read`).
    public var childReadPaths: [String] = []
    /// Paths no child may be granted a folder that holds: the scenario's folder and the
    /// inputs it read (policies, declarations with their secrets). The device directory and
    /// the cache of temporary devices are never readable, nor anything in or around them.
    public var protectedPaths: [URL] = []
    /// Resource limits of each confined child.
    public var childLimits = ChildLimits()
    /// Limits of the whole device (all children together); `device.limits` in a scenario.
    public var deviceLimits = DeviceLimits()
    /// Children's stdout/stderr go to /dev/null instead of the host's.
    public var quietChildren = false
    /// Apps of the built-in runtime are forked from one pre-initialised template (the
    /// zygote) instead of exec'd, where the platform allows it (Linux). Apps with their own
    /// executable or a plugin's `run` are exec'd either way. `MAMSIM_FORK_APPS=0` in the
    /// environment turns it off (to compare, or to rule the template out).
    public var forkBuiltInApps = ProcessInfo.processInfo.environment["MAMSIM_FORK_APPS"] != "0"
    /// Whether the apps leave a CPU to the broker's loop once the fleet has started (Linux):
    /// `MAMSIM_BROKER_CPU=shared|dedicated|automatic` in the environment chooses too.
    public var brokerCPU = BrokerCPU(environment: ProcessInfo.processInfo.environment["MAMSIM_BROKER_CPU"])
    /// How long the template may take to answer a fork. One that does not is killed and every
    /// later app is exec'd; the host's loop never waits for it meanwhile.
    public var templateTimeout: Duration = .seconds(5)
    /// Every decision goes to the audit log in the device store (group-committed once per
    /// loop iteration, before any answer leaves).
    public var auditDecisions = true
    /// Refused decisions each child may put in the audit log; beyond it they are coalesced.
    public var auditRefusalBudget = AuditRefusalBudget()
    /// Each item an app or extension accepted is reported as `HostEvent.received`
    /// (`expectState.received`). Benchmarks moving 100 000 items turn it off.
    public var reportDeliveries = true
    /// The run around the device: the scenario step being run (written into audit records)
    /// and what the simulated user types at prompts.
    public var context = RunContext()
    /// Bytes the host may hold for a child that does not read them (answers, deliveries); a
    /// child beyond it is cut off as too slow, so no child can grow the host's memory.
    public var maximumBacklog = 64 << 20
    /// Shares a child may have in flight at once; a flood beyond it is refused.
    public var maximumSharesInFlight = 4096
    /// Bytes of a child's shares the host holds at once, not yet answered (each share counts
    /// its inline payload, at least 256 bytes); a share past it is answered `failed(busy)` at
    /// once, while the child's answers and acknowledgements keep flowing.
    public var maximumBytesInFlight = 32 << 20
    /// What the host holds for all children's shares not yet answered: the read buffers their
    /// payloads pin (whole) and twice their payloads (the copy written to the receiver); a
    /// share past it is answered `failed(busy)` at once, acknowledgements still flowing.
    public var maximumHostBytesInFlight = 160 << 20
    /// A child's pending shares that may keep the read buffer their payload arrived in (up to
    /// 256 KiB each, usually shared by many): past it a payload is copied out, so a receiver
    /// that does not acknowledge cannot make the host hold read buffers for ever.
    public var maximumReadBuffersInFlight = 1024

    public init(apps: [AppSpec], fleet: Fleet, deviceDirectory: URL, appRuntime: String) {
        self.apps = apps
        self.fleet = fleet
        self.deviceDirectory = deviceDirectory
        self.appRuntime = appRuntime
    }
}

/// What the world around the device supplies while it runs: which scenario step is being run
/// (for the audit log) and what the user types at the next PIN prompt of an app. Set from any
/// thread (the scenario runner), read by the host on its loop.
public final class RunContext: Sendable {
    private let state = Mutex<(scenario: String, step: String, pins: [AppHandle: String], newPins: [AppHandle: String],
                               shareWindows: [AppHandle: String])>(("", "", [:], [:], [:]))

    /// Moves with every `setStep`: a reader that kept the step it read knows it still holds
    /// without taking the lock (the audit log reads the step for every record).
    private let stepGeneration = Atomic<UInt64>(0)

    public init() {}

    public func setStep(scenario: String, step: String) {
        state.withLock {
            $0.scenario = scenario
            $0.step = step
            // Inside the lock: a reader that sees the new generation reads the new step.
            stepGeneration.add(1, ordering: .releasing)
        }
    }

    /// The step with the generation it was read at.
    func step(since generation: UInt64?) -> (generation: UInt64, scenario: String, step: String)? {
        let now = stepGeneration.load(ordering: .acquiring)
        if now == generation { return nil }
        return state.withLock { (stepGeneration.load(ordering: .relaxed), $0.scenario, $0.step) }
    }

    public var step: (scenario: String, step: String) {
        state.withLock { ($0.scenario, $0.step) }
    }

    /// The PIN the user will type at `app`'s next PIN prompt (`nil`: the user cancels).
    /// `newPin`: the user changes the PIN there, `pin` being the current one.
    public func answerNextPinPrompt(_ app: String, with pin: String?, newPin: String? = nil) {
        state.withLock {
            $0.pins[AppHandle(app)] = pin
            $0.newPins[AppHandle(app)] = newPin
        }
    }

    func takePinAnswer(_ app: AppHandle) -> String? {
        state.withLock { $0.pins.removeValue(forKey: app) }
    }

    func takeNewPin(_ app: AppHandle) -> String? {
        state.withLock { $0.newPins.removeValue(forKey: app) }
    }

    /// The window `app`'s next share is made from (`nil`: none said). Shares name no window
    /// on the wire; a scenario's share step says it here.
    public func nextShare(of app: String, fromWindow window: String?) {
        let count = state.withLock { s -> Int in
            s.shareWindows[AppHandle(app)] = window
            return s.shareWindows.count
        }
        pendingShareWindows.store(count, ordering: .releasing)
    }

    /// Read on every routed share: with no window said (every share but a scenario's from a
    /// window), one atomic load and no lock.
    func takeShareWindow(_ app: AppHandle) -> String? {
        guard pendingShareWindows.load(ordering: .acquiring) > 0 else { return nil }
        let (window, count) = state.withLock { s -> (String?, Int) in
            let w = s.shareWindows.removeValue(forKey: app)
            return (w, s.shareWindows.count)
        }
        pendingShareWindows.store(count, ordering: .releasing)
        return window
    }
    private let pendingShareWindows = Atomic<Int>(0)
}

/// How many refused decisions one child may put in the audit log: `burst` at once, then
/// `perSecond`. A flood beyond it is still answered request by request, and logged as one
/// `audit-coalesced` record per flood with the count of each verb.
public struct AuditRefusalBudget: Sendable, Hashable {
    public var perSecond: Int
    public var burst: Int
    public init(perSecond: Int = 2_000, burst: Int = 10_000) {
        self.perSecond = perSecond
        self.burst = burst
    }
}
