// FieldInspection — a team's single-identity field inspection app, written from Microsoft's guide to the Intune App SDK for iOS.
//
// "Site Inspect" (com.contoso.fieldinspect) signs its inspector in with MSAL and registers the account with the
// SDK, reads the account's policy and app configuration, asks save-as/open-from before moving inspection data,
// re-reads the policy when it changes, and answers the SDK's restart and selective wipe in its policy delegate. Its
// Intune code uses only the SDK's public Swift names (`import IntuneMAMSwift`). It makes seven integration
// mistakes, each on ONE line marked `// MISTAKE n: <check>` (docs/STRICT.md's check name, or `none (...)` where the
// guide names a mistake no check covers), and does more things right, each on a line marked `// CORRECT: <what>`.
// EXPECTED.md (beside this file) quotes these line numbers: do not reflow this file.
//
// Sources (Microsoft Learn, "Intune App SDK for iOS" developer guide), cited where used:
//   [P3] https://learn.microsoft.com/en-us/mem/intune/developer/app-sdk-ios-phase3  (enrollment, delegates, restart)
//   [P4] https://learn.microsoft.com/en-us/mem/intune/developer/app-sdk-ios-phase4  (save-as/open-from, app config)
//   [P5] https://learn.microsoft.com/en-us/mem/intune/developer/app-sdk-ios-phase5  (selective wipe)
//
// Platform stand-ins: Linux has no UIKit, so the file system iOS gives the app is MAMKit's file call, in
// `Platform` at the bottom, as in Tests/Fixtures/strict-probe. The entry point is `MAMIntuneFacade.run`.
//   arguments: INSPECTOR_UPN INSPECTOR_OID
import Foundation
import IntuneMAMSwift
import MAMKit
import MAMModel
import MAMWire

/// The app's enrollment and policy delegates, one object. `@unchecked Sendable`: the SDK calls it on the main
/// thread; `lock` guards what the launch task waits on.
final class InspectionDelegates: IntuneMAMEnrollmentDelegate, IntuneMAMPolicyDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: CheckedContinuation<IntuneMAMEnrollmentStatus, Never>?
    private var told: IntuneMAMEnrollmentStatus?
    private var lines: [String] = []
    var events: [String] { lock.withLock { lines } }
    private func note(_ line: String) { lock.withLock { lines.append(line) } }

    func enrollmentRequest(with status: IntuneMAMEnrollmentStatus) {
        note("enrollment \(status.statusCode.rawValue)")
        let c: CheckedContinuation<IntuneMAMEnrollmentStatus, Never>? = lock.withLock {
            guard told == nil else { return nil }
            told = status
            defer { waiting = nil }
            return waiting
        }
        c?.resume(returning: status)
    }

    func policyRequest(with status: IntuneMAMEnrollmentStatus) {
        note("policy \(status.statusCode.rawValue)")
    }

    /// The first enrollment status, as the delegate heard it.
    func firstStatus() async -> IntuneMAMEnrollmentStatus {
        await withCheckedContinuation { c in
            let already: IntuneMAMEnrollmentStatus? = lock.withLock {
                if told == nil { waiting = c }
                return told
            }
            if let already { c.resume(returning: already) }
        }
    }

    /// [P3] "If true is returned, the application must handle the restart": the app reloads its inspection list
    /// from the SDK's state; before the enrollment it held nothing of the account.
    func restartApplication() -> Bool {
        note("restartApplication: the inspection list is reloaded")
        Session.shared.reloadRequested = true
        return true // CORRECT: the app handles the restart itself [P3]
    }

    /// Selective wipe: the app forgets the inspections it holds in memory and says it wiped. The inspection files
    /// it wrote under Documents/inspections/ stay: [P5] "The SDK is capable of removing all files owned by the user
    /// and will do so if the app returns FALSE"; answering TRUE, the app must remove them itself.
    func wipeData(forAccountId accountId: String) -> Bool {
        note("wipe \(accountId)")
        Session.shared.openInspections.removeAll()
        return true // MISTAKE 1: wipe-answered-with-files-left
    }
}

@main
struct SiteInspect {
    /// The façade's documented start: the main thread becomes the app's run loop.
    static func main() {
        MAMIntuneFacade.run(runtime: "SiteInspect/1", finishesLaunching: true) { app in await launch(app) }
    }

    static func launch(_ app: MAMApp) async {
        let args = Array(CommandLine.arguments.dropFirst())
        guard args.count >= 2 else { await Platform.say(app, ["arguments=missing"]); return }
        let (upn, oid) = (args[0], args[1])
        let delegates = InspectionDelegates()

        // ── Launch: delegates first, then the account MSAL signed in is registered [P3] ─────────────────────
        IntuneMAMPolicyManager.instance().delegate = delegates // CORRECT: policy delegate set before the enrollment call
        IntuneMAMEnrollmentManager.instance().delegate = delegates // CORRECT: enrollment delegate set before the enrollment call
        let policyObserver = NotificationCenter.default.addObserver(forName: .IntuneMAMPolicyDidChange, object: nil, queue: .main) { note in
            guard let id = note.userInfo?[IntuneMAMPolicyDidChangeNotificationAccountId] as? String else { return }
            Task.detached { Session.shared.captureBlocked = !(IntuneMAMPolicyManager.instance().policy(forAccountId: id)?.isScreenCaptureAllowed ?? true) } // CORRECT: the changed policy is read again, off the main thread
        }
        let configObserver = NotificationCenter.default.addObserver(forName: .IntuneMAMAppConfigDidChange, object: nil, queue: .main) { note in
            guard let id = note.userInfo?[IntuneMAMAppConfigDidChangeNotificationAccountId] as? String else { return }
            Task.detached { Session.shared.template = IntuneMAMAppConfigManager.instance().appConfig(forAccountId: id).stringValue(forKey: "inspectionTemplate", queryType: .any) } // CORRECT: the changed configuration is read again [P4]
        }
        IntuneMAMEnrollmentManager.instance().registerAndEnrollAccountId(oid) // CORRECT: the Entra object ID MSAL returned (tenantProfile.identifier) [P3]
        let status = await delegates.firstStatus()
        var facts = ["enrollment=\(status.statusCode.rawValue)", "accountId=\(status.accountId == oid ? "oid" : status.accountId)"]

        // The inspection draft is the app's own data, kept in its sandbox and edited in place: [P4] "Data being
        // edited and saved in-place doesn't need to be checked with this API".
        let draft = Array("Pump station 4: inspection draft\n".utf8); Session.shared.openInspections = ["pump-station-4"]
        let written = await Platform.write(app, "Documents/inspections/draft.txt", draft)
        facts.append("draftWritten=\(written)")

        // ── The policy getters, off the main thread ([P4]: the policy of the data's owner) ────────────────────
        let read = await Task.detached { () -> [String] in
            let manager = IntuneMAMPolicyManager.instance()
            var out: [String] = []
            let policy = manager.policy(forAccountId: oid) // CORRECT: the policy of the owner of the data, by OID [P4]
            // The export screen keeps the policy it was opened with; nothing reads it again after a change.
            Session.shared.exportPolicy = manager.policy(forAccountId: oid) // MISTAKE 2: policy-cached-without-observer
            out.append("saveOneDrive=\(policy?.isSaveToAllowed(for: .oneDriveForBusiness, withAccountId: oid) ?? true)") // CORRECT: OneDrive's account, by OID [P4]
            out.append("saveOneDriveNil=\(policy?.isSaveToAllowed(for: .oneDriveForBusiness, withAccountId: nil) ?? true)") // MISTAKE 3: location-needs-account
            out.append("saveLocal=\(policy?.isSaveToAllowed(for: .localDrive, withAccountId: oid) ?? true)") // CORRECT: the enrolled account owns a single-identity app's sandbox [P4]
            out.append("saveLocalNil=\(policy?.isSaveToAllowed(for: .localDrive, withAccountId: nil) ?? true)") // MISTAKE 4: none (no Android check named in the sources)
            out.append("saveCameraRoll=\(policy?.isSaveToAllowed(for: .cameraRoll, withAccountId: nil) ?? true)") // CORRECT: the photo library has no account: nil [P4]
            out.append("openSharePoint=\(policy?.isOpenFromAllowed(for: .sharePoint, withAccountId: oid) ?? true)") // CORRECT: SharePoint's account, by OID [P4]
            out.append("openSharePointUPN=\(policy?.isOpenFromAllowed(for: .sharePoint, withAccountId: upn) ?? true)") // MISTAKE 5: account-id-is-upn
            out.append("openPhotos=\(policy?.isOpenFromAllowed(for: .photos, withAccountId: nil) ?? true)") // CORRECT: the photo library has no account: nil [P4]
            out.append("openAccountDocument=\(policy?.isOpenFromAllowed(for: .accountDocument, withAccountId: "") ?? true)") // MISTAKE 6: location-needs-account
            out.append("exportSharePoint=\(Session.shared.exportPolicy?.isSaveToAllowed(for: .sharePoint, withAccountId: oid) ?? true)")
            out.append("pinRequired=\(manager.policy()?.isPINRequired ?? false)") // CORRECT: policy() of a single-identity app is its enrolled account's
            let config = IntuneMAMAppConfigManager.instance().appConfig(forAccountId: oid) // CORRECT: app configuration by OID [P4]
            out.append("template=\(config.stringValue(forKey: "inspectionTemplate", queryType: .any) ?? "none")")
            let byName = IntuneMAMAppConfigManager.instance().appConfig(forAccountId: upn) // MISTAKE 7: account-id-is-upn
            out.append("templateByUPN=\(byName.stringValue(forKey: "inspectionTemplate", queryType: .any) ?? "none")")
            return out
        }.value
        facts += read
        facts.append("events=\(delegates.events.joined(separator: ";"))")
        await Platform.say(app, facts)
        app.finishedLaunching()

        // ── Site photos shared to the app: kept with the inspection, then the report is exported ─────────────
        var received = 0
        for await delivery in app.deliveries {
            received += 1
            let n = received
            _ = await Platform.write(app, "Documents/inspections/photo-\(n).txt", Platform.bytes(delivery.item))
            let export = await Task.detached { () -> [String] in
                let now = IntuneMAMPolicyManager.instance().policy(forAccountId: oid) // CORRECT: read again where it is used, after any change [P4]
                return ["photo\(n)ToOneDrive=\(now?.isSaveToAllowed(for: .oneDriveForBusiness, withAccountId: oid) ?? true)",
                        "report\(n)ToSharePoint=\(Session.shared.exportPolicy?.isSaveToAllowed(for: .sharePoint, withAccountId: oid) ?? true)"]
            }.value
            await Platform.say(app, export + ["template=\(Session.shared.template ?? "unchanged")", "captureBlocked=\(Session.shared.captureBlocked)"])
        }
        NotificationCenter.default.removeObserver(policyObserver)
        NotificationCenter.default.removeObserver(configObserver)
        app.close()
    }
}

/// What the app keeps between screens. `@unchecked Sendable`: written by the launch task and the observers'
/// tasks one after the other, as the scenario's steps come.
final class Session: @unchecked Sendable {
    static let shared = Session()
    var exportPolicy: (any IntuneMAMPolicy)?
    var openInspections: [String] = []
    var template: String?
    var captureBlocked = false
    var reloadRequested = false
}

/// iOS's file system, as the façade's documentation says to reach it on Linux.
enum Platform {
    static func write(_ app: MAMApp, _ path: String, _ data: [UInt8]) async -> Bool {
        await app.writeFile(path, data).isAllowed
    }

    static func bytes(_ item: Item) -> [UInt8] {
        if case .inline(let b) = item.payload { return b }
        return []
    }

    /// One `FACT key=value` line per fact, on standard output and in Documents/inspection-report.txt.
    static func say(_ app: MAMApp, _ facts: [String]) async {
        let text = facts.map { "FACT \($0)\n" }.joined()
        FileHandle.standardOutput.write(Data(text.utf8))
        Report.shared.text += text
        _ = await app.writeFile("Documents/inspection-report.txt", Array(Report.shared.text.utf8), owner: "")
    }
}

final class Report: @unchecked Sendable {
    static let shared = Report()
    var text = ""
}
