public import Foundation
import MAMLoop
public import MAMDeviceState
public import MAMDeclarations
public import MAMModel
public import MAMPolicy
public import MAMWire
import Synchronization

/// The async way in to a `Host` from any thread: the host and its loop run on a thread of
/// their own, and each call here hops onto it and resumes when the host has answered.
///
/// What an app does itself (share, switch identity) goes through the app's own process;
/// what the device decides (pasteboard, locations, printing, notifications, keychain, the
/// share sheet, files) is asked of the host directly, as typed calls.
public final class HostController: Sendable {
    private let thread: LoopThread
    private let box: HostBox

    /// `@unchecked Sendable` is safe: `host` is written once on the loop thread during setup,
    /// before `init` returns, and read only by jobs running on that same thread.
    private final class HostBox: @unchecked Sendable {
        var host: Host?
    }

    /// Creates the host on a new loop thread. `onEvent`, if given, is called on the loop
    /// thread for every event, in order (logs, progress displays, tests); it must be quick.
    /// If the host cannot be made, the loop thread closes its loop and ends before this throws.
    public init(configuration: HostConfiguration, onEvent: (@Sendable (HostEvent) -> Void)? = nil) throws {
        let box = HostBox()
        thread = try LoopThread { loop in
            box.host = try Host(loop: loop, configuration: configuration) { event in onEvent?(event) }
        }
        self.box = box
    }

    private func onHost<T: Sendable>(_ body: @escaping @Sendable (Host, @escaping @Sendable (T) -> Void) -> Void, orElse fallback: T) async -> T {
        await withCheckedContinuation { (c: CheckedContinuation<T, Never>) in
            let box = self.box
            let once = Once(c)
            let sent = thread.submit {
                guard let host = box.host else { return once.resume(fallback) }
                body(host) { once.resume($0) }
            }
            if !sent { once.resume(fallback) }
        }
    }

    /// Runs `body` on the loop thread with the host and returns its value.
    private func sync<T: Sendable>(_ fallback: T, _ body: @escaping @Sendable (Host) -> T) async -> T {
        await onHost({ host, done in done(body(host)) }, orElse: fallback)
    }

    private static let down = "the device is shut down"

    // MARK: - Processes

    /// Starts every app of the fleet and waits until each completed its handshake.
    /// Returns the apps that could not start, with why.
    public func startFleet() async -> [String: HostError] {
        await onHost({ host, done in host.startFleet { done($0) } }, orElse: ["*": .shuttingDown])
    }

    public func launch(_ app: String) async -> Result<Int32, HostError> {
        await onHost({ host, done in host.launch(app) { done($0) } }, orElse: .failure(.shuttingDown))
    }

    /// What conditional launch decided at the app's last launch or resume.
    public func launchReport(_ app: String) async -> LaunchCheckReport? {
        await sync(nil) { $0.launchReport(app) }
    }

    /// The app returns to the foreground: a check-in when online, then conditional launch.
    public func resume(_ app: String) async -> Result<LaunchCheckReport, HostError> {
        await sync(.failure(.shuttingDown)) { $0.resume(app) }
    }

    /// The app goes to the background.
    public func pause(_ app: String) async -> Result<Void, HostError> {
        await sync(.failure(.shuttingDown)) { $0.pause(app) }
    }

    /// Changes (`settings`) or removes (`nil`) an app configuration policy; returns how many
    /// running app/account pairs saw their configuration change (each was notified).
    public func setAppConfig(named name: String, settings: [KeyValuePair]?) async -> Result<Int, DeviceStateError> {
        await onHost({ host, done in host.setAppConfig(named: name, settings: settings) { done($0) } },
                     orElse: .failure(DeviceStateError(.appNotRunning, Self.down)))
    }

    /// Applies declarations or removes one; returns how many running apps were notified.
    public func changeDeclarations(apply entries: [DeclarationSet.Entry], remove identifier: String? = nil) async -> Result<Int, DeviceStateError> {
        await onHost({ host, done in host.changeDeclarations(apply: entries, remove: identifier) { done($0) } },
                     orElse: .failure(DeviceStateError(.appNotRunning, Self.down)))
    }

    /// A token for `account` to `resource` from the simulated Entra service, or why not.
    /// `asApp`: as the app's own process asks it (only for accounts the user signed in to it).
    public func acquireToken(_ app: String, account: String, resource: String, asApp: Bool = false) async -> (TokenDecision, token: String?) {
        await sync((TokenDecision(decision: .blocked(.appNotRunning, because: Self.down), homeAccountID: nil), nil)) {
            $0.acquireToken(app, account: account, resource: resource, fromApp: asApp)
        }
    }

    /// `remediateCompliance`: the status the app's compliance delegate receives. `asApp`: as
    /// the app's own process asks it (the user consents only for its `userAccounts`).
    public func remediate(_ app: String, account: String, silent: Bool, userCancels: Bool, asApp: Bool = false) async -> Result<RemediationOutcome, DeviceStateError> {
        await onHost({ host, done in host.remediate(app, account: account, silent: silent, userCancels: userCancels, fromApp: asApp) { done($0) } },
                     orElse: .failure(DeviceStateError(.appNotRunning, Self.down)))
    }

    public func setConditionalAccess(_ name: String, state: ConditionalAccessPolicy.State) async -> Result<Void, DeviceStateError> {
        await sync(.failure(DeviceStateError(.appNotRunning, Self.down))) { host in
            Result { () throws(any Error) in try host.setConditionalAccess(name, state: state) }.mapError(Self.stateError)
        }
    }

    public func setNetwork(online: Bool) async -> Result<Void, DeviceStateError> {
        await sync(.failure(DeviceStateError(.appNotRunning, Self.down))) { host in
            Result { () throws(any Error) in try host.setNetwork(online: online) }.mapError(Self.stateError)
        }
    }

    /// Kills an app as a crash would; returns false if it was not running.
    public func kill(_ app: String, signal: Int32 = 9) async -> Bool {
        await sync(false) { $0.kill(app, signal: signal) }
    }

    public func pid(of app: String) async -> Int32? {
        await sync(nil) { $0.pid(of: app) }
    }

    // MARK: - What apps do themselves (through their own process)

    /// Sends a command to an app's own process and returns its answer.
    public func command(_ app: String, _ command: Command) async -> CommandResult {
        await onHost({ host, done in host.command(app, command) { done($0) } }, orElse: .error(.appNotRunning, Self.down))
    }

    /// Makes `app` share `item` to `destination` as `identity`, through its own process and
    /// the broker, and returns the outcome the app was told.
    /// `pin`: what the user types if the destination must switch to a managed identity to
    /// import the item and a PIN prompt appears.
    public func share(from app: String, to destination: String, item: Item, identity: String = "", receiveAs: String = "",
                      pin: String? = nil) async -> ShareOutcome {
        if let pin {
            let context = await sync(RunContext?.none) { $0.configuration.context }
            context?.answerNextPinPrompt(destination, with: pin)
        }
        let request = ShareRequest(destination: destination, item: item, identity: identity, receiveAs: receiveAs)
        let outcome: ShareOutcome = switch await command(app, .share(request)) {
        case .share(let outcome): outcome
        case .error(let r, let why): .failed(r, why)
        case let other: .failed(.badRequest, "\(app) answered share with \(other.name)")
        }
        if pin != nil {
            // An answer no prompt used must not answer a later one.
            let context = await sync(RunContext?.none) { $0.configuration.context }
            context?.answerNextPinPrompt(destination, with: nil)
        }
        return outcome
    }

    /// Makes `app` switch identity (`window == nil`: its process identity) through its own
    /// process; the user types `pin` at a PIN prompt, if one appears.
    public func setIdentity(_ app: String, account: String, window: String?, pin: String?) async -> IdentityResult {
        let context = await sync(RunContext?.none) { $0.configuration.context }
        context?.answerNextPinPrompt(app, with: pin)
        let request = SetIdentity(scope: window == nil ? .process : .ui, window: window ?? "", account: account)
        switch await command(app, .setIdentity(request)) {
        case .setIdentity(let r): return r
        case .error(let r, let why): return IdentityResult(status: .failed, reason: r, explanation: why, account: account)
        case let other: return IdentityResult(status: .failed, reason: .badRequest, explanation: "\(app) answered set_identity with \(other.name)", account: account)
        }
    }

    // MARK: - What the device decides

    /// A service of the OS or the SDK, decided by the host for `app` (copy, paste, save,
    /// open, print, notify, keychain, share sheet, files, protection).
    /// `context`: the window the call is for and the thread identity in effect.
    public func service(_ app: String, _ request: ServiceRequest, context: ServiceContext = .main) async -> ServiceResult {
        await sync(ServiceResult(.failed(.appNotRunning, Self.down))) { $0.service(app, request, context: context) }
    }

    /// `app` opens `url` (`UIApplication.open`): the decision and the app that takes the link.
    public func openURL(_ app: String, url: String) async -> (Decision, handler: String?) {
        await sync((.blocked(.appNotRunning, because: Self.down), nil)) { $0.openURL(app, url: url) }
    }

    public func signIn(_ app: String, account: String) async -> Decision {
        await sync(.blocked(.appNotRunning, because: Self.down)) { $0.signIn(app, account: account) }
    }

    public func signOut(_ app: String, account: String) async -> Decision {
        await onHost({ host, done in host.signOut(app, account: account) { done($0) } }, orElse: .blocked(.appNotRunning, because: Self.down))
    }

    public func wipe(_ app: String, account: String) async -> Result<WipeReport, DeviceStateError> {
        await onHost({ host, done in host.wipe(app, account: account) { done($0) } }, orElse: .failure(DeviceStateError(.appNotRunning, Self.down)))
    }

    public func setAllowedAccounts(_ list: [String]?) async -> Result<[AllowedAccountsChange], DeviceStateError> {
        await onHost({ host, done in host.setAllowedAccounts(list) { done($0) } }, orElse: .failure(DeviceStateError(.appNotRunning, Self.down)))
    }

    public func addIdentity(_ app: String, account: String) async -> Decision {
        await onHost({ host, done in host.addIdentity(app, account: account) { done($0) } }, orElse: .blocked(.appNotRunning, because: Self.down))
    }

    /// The app's identities as the device holds them.
    public func identities(_ app: String, window: String = "") async -> Result<AppIdentities, DeviceStateError> {
        await sync(.failure(DeviceStateError(.appNotRunning, Self.down))) { host in
            Result { () throws(any Error) -> AppIdentities in
                let i = try host.identities(app, window: window)
                return AppIdentities(process: i.process, ui: i.ui, signedIn: i.signedIn)
            }.mapError(Self.stateError)
        }
    }

    /// The app's effective UI identity in `window` (`""` = the main window; else the
    /// process identity); `nil` = unmanaged.
    public func effectiveAccount(_ app: String, window: String = "") async -> Result<Account?, DeviceStateError> {
        await sync(.failure(DeviceStateError(.appNotRunning, Self.down))) { host in
            Result { () throws(any Error) -> Account? in try host.effectiveAccount(app, window: window) }.mapError(Self.stateError)
        }
    }

    /// What `app` sees of the policy now (see `Host.policyView`): query verbs decide on it with
    /// the Enforcer's pure functions, so a new query needs no new host call.
    public func policyView(_ app: String, window: String = "", account: Account? = nil) async -> Result<PolicyView, DeviceStateError> {
        await sync(.failure(DeviceStateError(.appNotRunning, Self.down))) { host in
            Result { () throws(any Error) -> PolicyView in try host.policyView(app, window: window, account: account) }.mapError(Self.stateError)
        }
    }

    /// What the device holds of a file in the app's containers (owner, encryption), for `expectState`.
    public func fileStatus(_ app: String, path: String) async -> Result<FileStatus, DeviceStateError> {
        await sync(.failure(DeviceStateError(.appNotRunning, Self.down))) { host in
            Result { () throws(any Error) -> FileStatus in try host.fileStatus(app, path: path) }.mapError(Self.stateError)
        }
    }

    /// Sets a file's owner (`""` = unprotects it; `nil` = the app's file identity).
    public func setFileOwner(_ app: String, path: String, owner: String?) async -> Result<ProtectionInfo, DeviceStateError> {
        await sync(.failure(DeviceStateError(.appNotRunning, Self.down))) { host in
            Result { () throws(any Error) -> ProtectionInfo in try host.setFileOwner(app, path: path, owner: owner) }.mapError(Self.stateError)
        }
    }

    public func setPolicy(_ policy: IosManagedAppProtection?, for account: Account) async -> Result<Bool, DeviceStateError> {
        await onHost({ host, done in host.setPolicy(policy, for: account) { done($0) } },
                     orElse: .failure(DeviceStateError(.appNotRunning, Self.down)))
    }

    /// Moves the simulated clock; returns the new time.
    public func advanceClock(by duration: ISODuration) async -> Result<Instant, DeviceStateError> {
        await sync(.failure(DeviceStateError(.appNotRunning, Self.down))) { host in
            Result { () throws(any Error) -> Instant in
                try host.advanceClock(by: duration)
                return host.state.now
            }.mapError(Self.stateError)
        }
    }

    /// Writes the audit log (committed first) to `url` as JSON Lines.
    public func exportAudit(to url: URL) async -> Result<Int, DeviceStateError> {
        await sync(.failure(DeviceStateError(.appNotRunning, Self.down))) { host in
            Result { () throws(any Error) -> Int in try host.exportAudit(to: url) }.mapError(Self.stateError)
        }
    }

    private static func stateError(_ error: any Error) -> DeviceStateError {
        if let e = error as? DeviceStateError { return e }
        if let e = error as? HostError, case .unknownApp = e { return DeviceStateError(.unknownApp, e.description) }
        return DeviceStateError(.internalError, "\(error)")
    }

    /// Tears the fleet down (`HostConfiguration.teardown`), closes every handle and the loop.
    /// Returns `uv_loop_close`'s status: 0 when nothing was left open.
    public func shutdown() async -> Int32 {
        let box = self.box
        let thread = self.thread
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let once = Once(c)
            let sent = thread.submit {
                guard let host = box.host else { return once.resume(()) }
                host.shutdown {
                    box.host = nil
                    thread.stopAcceptingJobs()
                    once.resume(())
                }
            }
            if !sent { once.resume(()) }
        }
        return thread.join()
    }
}

/// An app's identities as the device holds them.
public struct AppIdentities: Sendable, Hashable {
    public var process: String?
    public var ui: String?
    public var signedIn: [Account]
}

/// Resumes a continuation at most once, from whichever path gets there first.
final class Once<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, Never>?>
    init(_ c: CheckedContinuation<T, Never>) { continuation = Mutex(c) }
    func resume(_ value: T) { continuation.withLock { $0.take() }?.resume(returning: value) }
}

/// A snapshot of what one app sees of the policy: the device's fleet (accounts, policies,
/// targeted apps), the app, and the identity asked about (`nil`: unmanaged).
public struct PolicyView: Sendable {
    public let fleet: Fleet
    public let app: BundleID
    public let identity: Account?
}
