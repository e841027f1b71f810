// ShiftHandover — a team's single-identity shift hand-over app, written from Microsoft's guide to the Intune App
// SDK for iOS.
//
// "Shift Handover" (com.contoso.shifthandover, single identity, MSAL configured without client capabilities)
// registers the nurse MSAL signed in, keeps the hand-over notes, asks MSAL for a Microsoft Graph token to post
// them, and when the token is refused asks the SDK to remediate compliance. Its enrollment delegate tries a failed
// registration once more; a second work account the user adds is refused by the SDK. Its Intune code uses
// only the SDK's public Swift names (`import IntuneMAMSwift`). It makes two integration mistakes, each on ONE
// line marked `// MISTAKE n: <check>` (docs/STRICT.md's check name, or `none (...)` where the guide names a
// mistake no check covers), and does more things right, each on a line marked `// CORRECT: <what>`. EXPECTED.md
// quotes these line numbers: do not reflow.
//
// Sources (Microsoft Learn, "Intune App SDK for iOS" developer guide), cited where used:
//   [P3] https://learn.microsoft.com/en-us/mem/intune/developer/app-sdk-ios-phase3  (enrollment, status codes,
//        deregistration, delegates)
//   [P4] https://learn.microsoft.com/en-us/mem/intune/developer/app-sdk-ios-phase4  (policy, save-as)
//   [P6] https://learn.microsoft.com/en-us/mem/intune/developer/app-sdk-ios-phase6  (App Protection CA)
//
// Platform stand-ins: MSAL's token request and the file system are MAMKit's calls, in `Platform` at the bottom,
// as in Tests/Fixtures/strict-probe. The entry point is `MAMIntuneFacade.run`.
//   arguments: NURSE_UPN NURSE_OID
import Foundation
import IntuneMAMSwift
import MAMKit
import MAMModel
import MAMWire

/// The app's enrollment, policy and compliance delegates, one object. `@unchecked Sendable`: the SDK calls it on
/// the main thread; `lock` guards what the launch task waits on.
final class HandoverDelegates: IntuneMAMEnrollmentDelegate, IntuneMAMPolicyDelegate, IntuneMAMComplianceDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: CheckedContinuation<IntuneMAMEnrollmentStatus, Never>?
    private var told: IntuneMAMEnrollmentStatus?
    private var lines: [String] = []
    private var retried: Set<String> = []
    let compliance: AsyncStream<IntuneMAMComplianceStatus>
    private let complianceInput: AsyncStream<IntuneMAMComplianceStatus>.Continuation
    var events: [String] { lock.withLock { lines } }
    func note(_ line: String) { lock.withLock { lines.append(line) } }

    init() {
        let pair = AsyncStream.makeStream(of: IntuneMAMComplianceStatus.self)
        compliance = pair.stream
        complianceInput = pair.continuation
    }

    func enrollmentRequest(with status: IntuneMAMEnrollmentStatus) {
        note("enrollment \(status.statusCode.rawValue)")
        let accountId = status.accountId
        // A failed registration is tried once more, whatever the SDK said of it.
        let retry = !status.didSucceed && lock.withLock { retried.insert(accountId).inserted }
        if retry { IntuneMAMEnrollmentManager.instance().registerAndEnrollAccountId(accountId) } // MISTAKE 1: enrollment-retried-after-refusal
        let c: CheckedContinuation<IntuneMAMEnrollmentStatus, Never>? = lock.withLock {
            guard told == nil else { return nil }
            told = status
            defer { waiting = nil }
            return waiting
        }
        c?.resume(returning: status)
    }

    func unenrollRequest(with status: IntuneMAMEnrollmentStatus) {
        note("unenroll \(status.statusCode.rawValue)")
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

    /// [P3] "If true is returned, the application must handle the restart": the app reloads its notes.
    func restartApplication() -> Bool {
        note("restartApplication: the notes are reloaded")
        return true // CORRECT: the app handles the restart itself [P3]
    }

    /// [P3] the SDK removes the account's files when the app returns false.
    func wipeData(forAccountId accountId: String) -> Bool {
        note("wipe \(accountId)")
        Shift.shared.notes.removeAll()
        return false // CORRECT: the SDK deletes the account's files
    }

    /// [P6] the compliance delegate hears how a remediation ended.
    func accountId(_ accountId: String, hasComplianceStatus status: IntuneMAMComplianceStatus, withErrorMessage errMsg: String, andErrorTitle errTitle: String) {
        note("compliance \(status)")
        complianceInput.yield(status)
    }
}

@main
struct ShiftHandoverApp {
    /// The façade's documented start: the main thread becomes the app's run loop.
    static func main() {
        MAMIntuneFacade.run(runtime: "ShiftHandover/1", finishesLaunching: true) { app in await launch(app) }
    }

    static func launch(_ app: MAMApp) async {
        let args = Array(CommandLine.arguments.dropFirst())
        guard args.count >= 2 else { await Platform.say(app, ["arguments=missing"]); return }
        let (upn, oid) = (args[0], args[1])
        let delegates = HandoverDelegates()

        // ── Launch: every delegate first, then the nurse MSAL signed in is registered [P3] ───────────────────
        IntuneMAMPolicyManager.instance().delegate = delegates // CORRECT: policy delegate set before the enrollment call
        IntuneMAMEnrollmentManager.instance().delegate = delegates // CORRECT: enrollment delegate set before the enrollment call
        IntuneMAMComplianceManager.instance().delegate = delegates // CORRECT: compliance delegate set before any remediation [P6]
        IntuneMAMEnrollmentManager.instance().registerAndEnrollAccountId(oid) // CORRECT: the Entra object ID MSAL returned [P3]
        let status = await delegates.firstStatus()
        var facts = ["enrollment=\(status.statusCode.rawValue)"]
        let managed = await Task.detached { IntuneMAMPolicyManager.instance().isAccountIdManaged(oid) }.value // CORRECT: asked by OID [P3]
        facts.append("managed=\(managed)")
        let enrolled = IntuneMAMEnrollmentManager.instance().enrolledAccountId() // CORRECT: the enrolled account's object ID [P3]
        facts.append("enrolledAccountId=\(enrolled == oid ? "oid" : enrolled ?? "none")")

        // ── The hand-over notes, saved in place; their export to OneDrive asks the policy first [P4] ─────────
        let notes = Array("Bed 4: fluids every 4 h\n".utf8)
        Shift.shared.notes = ["bed-4"]
        facts.append("notesWritten=\(await Platform.write(app, "Documents/handover.txt", notes))")
        let toOneDrive = await Task.detached {
            IntuneMAMPolicyManager.instance().policy(forAccountId: oid)?.isSaveToAllowed(for: .oneDriveForBusiness, withAccountId: oid) ?? true // CORRECT: the data owner's policy, OneDrive's account by OID [P4]
        }.value
        facts.append("notesToOneDrive=\(toOneDrive)")

        // ── The notes are posted to Microsoft Graph: MSAL's token, and a remediation when it is refused ──────
        var statuses = delegates.compliance.makeAsyncIterator()
        let first = await Platform.token(app, account: upn, silent: false)
        facts.append("firstToken=\(first.token == nil ? "blocked" : "ok")")
        if first.token == nil {
            // [P6] "If the app does not have the protapp capability…": this app's MSAL configuration declares none.
            IntuneMAMComplianceManager.instance().remediateCompliance(forAccountId: oid, silent: false) // MISTAKE 2: remediation-without-protapp
            let outcome = await statuses.next()
            facts.append("compliance=\(outcome.map { "\($0)" } ?? "none")")
        }
        let second = await Platform.token(app, account: upn, silent: true)
        facts.append("secondToken=\(second.token == nil ? "blocked" : "ok")")
        facts.append("events=\(delegates.events.joined(separator: ";"))")
        await Platform.say(app, facts)
        app.finishedLaunching()

        // Accounts the user adds later reach the enrollment delegate; the app waits for what is shared to it.
        for await _ in app.deliveries {}
        app.close()
    }
}

/// What the app keeps between screens, in memory only. `@unchecked Sendable`: written by the delegates on the main
/// thread and by the launch task, one after the other.
final class Shift: @unchecked Sendable {
    static let shared = Shift()
    var notes: [String] = []
}

/// MSAL's token request and iOS's file system, as the façade's documentation says to reach them on Linux.
enum Platform {
    /// MSAL's acquireToken for Microsoft Graph: the token, or why not.
    static func token(_ app: MAMApp, account: String, silent: Bool) async -> TokenResult {
        await app.acquireToken(account: account, resource: "00000003-0000-0000-c000-000000000000", silent: silent)
    }

    static func write(_ app: MAMApp, _ path: String, _ data: [UInt8]) async -> Bool {
        await app.writeFile(path, data).isAllowed
    }

    /// One `FACT key=value` line per fact, on standard output and in Documents/handover-report.txt.
    static func say(_ app: MAMApp, _ facts: [String]) async {
        let text = facts.map { "FACT \($0)\n" }.joined()
        FileHandle.standardOutput.write(Data(text.utf8))
        Report.shared.text += text
        _ = await app.writeFile("Documents/handover-report.txt", Array(Report.shared.text.utf8), owner: "")
    }
}

final class Report: @unchecked Sendable {
    static let shared = Report()
    var text = ""
}
