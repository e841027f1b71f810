// Field Notes: a small app's own Intune integration, written against the SDK-shaped façade
// only (its names are the Intune App SDK's; MAMIntuneFacade is unofficial, docs/FACADE.md).
// At launch it enrolls the user it was given with loginAndEnrollAccount and waits for its
// enrollment delegate; then, as the code of a real app does, it reads its account's policy and
// app configuration, checks isSaveToAllowed before saving a note to the local drive, and
// shares the note to another app. What it found goes to Documents/report.txt, one line a
// fact; what its delegates and observers hear afterwards (policy changes, wipes, identity
// switches) goes to Documents/events.txt. MAMKit appears only where iOS itself would act:
// connecting to the host, the file system and the share sheet.
//   arguments: ACCOUNT [SHARE-TO-APP]
import Foundation
import Synchronization
import MAMIntuneFacade
import MAMKit
import MAMModel
import MAMWire

/// The app's delegates, one object as in many apps. `@unchecked Sendable`: the statuses
/// arrive on the main thread; `lock` guards what the launch task waits on.
final class IntuneDelegates: IntuneMAMEnrollmentDelegate, IntuneMAMPolicyDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: CheckedContinuation<IntuneMAMEnrollmentStatus, Never>?
    private var told: IntuneMAMEnrollmentStatus?
    let log: EventLog

    init(log: EventLog) { self.log = log }

    func enrollmentRequest(with status: IntuneMAMEnrollmentStatus) {
        log.write("enrollment \(status.statusCode.name) for \(status.accountId) (\(status.identity)) on the main thread: \(Thread.isMainThread)")
        let c: CheckedContinuation<IntuneMAMEnrollmentStatus, Never>? = lock.withLock {
            guard told == nil else { return nil }
            told = status
            defer { waiting = nil }
            return waiting
        }
        c?.resume(returning: status)
    }

    func unenrollRequest(with status: IntuneMAMEnrollmentStatus) {
        log.write("unenrollment \(status.statusCode.name) for \(status.accountId)")
    }

    /// The app deletes nothing itself: the SDK wipes the account's data.
    func wipeData(forAccountId accountId: String) -> Bool {
        log.write("wipe requested for \(accountId)")
        return false
    }

    /// The first policy for an account asks the app to restart: Field Notes reloads its own
    /// screens (nothing of the old account is on them), so it says it restarts itself and the
    /// SDK does not end it mid-launch.
    func restartApplication() -> Bool {
        log.write("restart asked for after the first policy: the app restarts itself")
        return true
    }

    func identitySwitchRequired(forAccountId accountId: String, reason: IntuneMAMIdentitySwitchReason,
                                completionHandler: @escaping (IntuneMAMSwitchIdentityResult) -> Void) {
        log.write("identity switch to \(accountId.isEmpty ? "the personal identity" : accountId) (reason \(reason.rawValue)) accepted")
        completionHandler(.success)
    }

    func firstStatus() async -> IntuneMAMEnrollmentStatus {
        await withCheckedContinuation { c in
            let already: IntuneMAMEnrollmentStatus? = lock.withLock {
                if told == nil { waiting = c }
                return told
            }
            if let already { c.resume(returning: already) }
        }
    }
}

/// Documents/events.txt, personal data of the app, appended a line at a time, in order. Each
/// line is on disk before the delegate or observer that wrote it returns (a blocking write, as
/// a synchronous file API is): what the SDK told the app is recorded by the time the SDK's
/// call is answered, so a step that reads the file next finds it.
final class EventLog: Sendable {
    let app: MAMApp
    private let lines = Mutex<String>("")

    init(app: MAMApp) { self.app = app }

    /// Called on the main thread, where the SDK calls delegates and posts notifications.
    func write(_ line: String) {
        let all = lines.withLock { text -> String in
            text += line + "\n"
            return text
        }
        _ = try? app.callBlocking(Service.WriteFile(path: "Documents/events.txt", data: Array(all.utf8), owner: ""))
    }
}

@main
struct FieldNotes {
    /// The main thread is the app's run loop, where the SDK calls the delegates.
    static func main() {
        MAMIntuneFacade.run(runtime: "FieldNotes/1", finishesLaunching: true) { app in await launch(app) }
    }

    static func launch(_ app: MAMApp) async {
        let args = CommandLine.arguments.dropFirst()
        let account = args.first ?? ""
        let shareTo = args.dropFirst().first

        // From here on, the SDK's names, except the file system and the share sheet.
        let log = EventLog(app: app)
        let delegates = IntuneDelegates(log: log)
        IntuneMAMEnrollmentManager.instance().delegate = delegates
        IntuneMAMPolicyManager.instance().delegate = delegates
        let observer = NotificationCenter.default.addObserver(forName: .IntuneMAMPolicyDidChange, object: nil, queue: nil) { note in
            let who = note.userInfo?[IntuneMAMPolicyDidChangeNotificationAccountId] as? String ?? "?"
            log.write("policy changed for \(who)")
        }
        IntuneMAMEnrollmentManager.instance().loginAndEnrollAccount(account)
        let status = await delegates.firstStatus()
        let id = status.accountId

        // The policy getters and the configuration are synchronous, as in the SDK (here in a
        // task, off the main thread, which delivers the delegates).
        let (report, canSave) = await Task.detached { () -> ([String], Bool) in
            let manager = IntuneMAMPolicyManager.instance()
            let policy = manager.policy(forAccountId: id)
            let config = IntuneMAMAppConfigManager.instance().appConfig(forAccountId: id)
            func word(_ allowed: Bool?) -> String { allowed.map { $0 ? "allowed" : "blocked" } ?? "no policy" }
            let canSave = policy?.isSaveToAllowed(for: .localDrive, withAccountId: id) ?? true
            var mask = 0
            for (location, allowed) in policy?.getSaveToLocations(forAccountId: id) ?? [:] where allowed.boolValue { mask |= location.intValue }
            return ([
                "enrollment: \(status.statusCode.name) (\(status.statusCode.rawValue)) for \(status.identity)",
                "enrolled: \(IntuneMAMEnrollmentManager.instance().enrolledAccountId() ?? "nobody"); managed: \(manager.isAccountIdManaged(id)); primary: \(manager.primaryAccountId ?? "none")",
                "PIN required: \(policy?.isPINRequired ?? false); managed browser required: \(policy?.isManagedBrowserRequired ?? false); notifications: \(policy.map { "\($0.notificationPolicy)" } ?? "none")",
                "contact sync: \(word(policy?.isContactSyncAllowed)); screen capture: \(word(policy?.isScreenCaptureAllowed)); file encryption required: \(policy?.isFileEncryptionRequired ?? false)",
                "save to local drive: \(word(canSave)); save to OneDrive for Business: \(word(policy?.isSaveToAllowed(for: .oneDriveForBusiness, withAccountId: id))); allowed save locations mask: \(mask)",
                "region (app configuration): \(config.stringValue(forKey: "region", queryType: .any) ?? "none"); conflicting: \(config.hasConflict("region"))",
            ], canSave)
        }.value

        var lines = report
        let note = Array("Site visit: pump 4 leaks\n".utf8)
        if canSave {
            let saved = await ThreadIdentity.withAccountId(id) { await app.writeFile("Documents/notes/visit.txt", note) }
            lines.append("note saved: \(saved.isAllowed ? "yes" : "no: \(saved.verdict)")")
        } else {
            lines.append("note saved: no (isSaveToAllowed said no)")
        }
        if let shareTo {
            let item = Item(id: "visit-note", typeIdentifiers: ["public.plain-text"], payload: .inline(note), fileName: "visit.txt")
            let verdict = await app.share(item, to: shareTo, as: id)
            lines.append("shared to \(shareTo): \(verdict.isAllowed ? "delivered" : "refused (\(verdict.reason.map { "\($0)" } ?? "?"))")")
        }
        _ = await app.writeFile("Documents/report.txt", Array((lines.joined(separator: "\n") + "\n").utf8), owner: "")
        app.finishedLaunching()
        for await _ in app.deliveries {}
        NotificationCenter.default.removeObserver(observer)
        app.close()
    }
}
