// ClinicRemediation — a team's multi-identity clinic app with App Protection conditional access, written from
// Microsoft's guide to the Intune App SDK for iOS.
//
// "Ward Rounds" (com.contoso.wardrounds, IntuneMAMSettings MultiIdentity, MSAL clientCapabilities ["protapp"])
// enrolls its nurse with loginAndEnrollAccount, opens the ward list when the enrollment succeeds, is restarted by
// the SDK for its first policy, then asks MSAL for a token and remediates compliance for the account MSAL names.
// Its enrollment delegate removes accounts the SDK refused. Its Intune code uses only the SDK's public Swift names
// (`import IntuneMAMSwift`). It makes five integration mistakes, each on ONE line marked `// MISTAKE n: <check>`
// (docs/STRICT.md's check name, or `none (...)` where the guide names a mistake no check covers), and does more
// things right, each on a line marked `// CORRECT: <what>`. EXPECTED.md quotes these line numbers: do not reflow.
//
// Sources (Microsoft Learn, "Intune App SDK for iOS" developer guide), cited where used:
//   [P3] https://learn.microsoft.com/en-us/mem/intune/developer/app-sdk-ios-phase3  (enrollment, deregistration,
//        delegates, application restart)
//   [P5] https://learn.microsoft.com/en-us/mem/intune/developer/app-sdk-ios-phase5  (UI identity)
//   [P6] https://learn.microsoft.com/en-us/mem/intune/developer/app-sdk-ios-phase6  (App Protection CA)
//
// The app runs twice: the SDK restarts it after the first policy [P3] (its delegate leaves the restart to the SDK),
// and the relaunched process finds the account enrolled and goes on. Platform stand-ins: MSAL's token request and
// the file system are MAMKit's calls, in `Platform` at the bottom. The entry point is `MAMIntuneFacade.run`.
//   arguments: NURSE_UPN
import Foundation
import IntuneMAMSwift
import MAMKit
import MAMModel
import MAMWire

/// The app's enrollment, policy and compliance delegates, one object. `@unchecked Sendable`: the SDK calls it on
/// the main thread; `lock` guards what the launch task waits on.
final class WardDelegates: IntuneMAMEnrollmentDelegate, IntuneMAMPolicyDelegate, IntuneMAMComplianceDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: CheckedContinuation<IntuneMAMEnrollmentStatus, Never>?
    private var told: IntuneMAMEnrollmentStatus?
    private var lines: [String] = []
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
        switch status.statusCode {
        case .newPoliciesReceived:
            // Enrolled: the ward list opens for the account, on bed 12 where the nurse left off.
            Rounds.shared.openChart = "bed 12"
            IntuneMAMPolicyManager.instance().setUIPolicyAccountId(accountId) { result in self.note("ward \(result.rawValue)") } // MISTAKE 1: restart-unhandled-with-state
        case .singleManagedAccountMode:
            // A second work account: the app keeps one, so the refused account is removed at once.
            IntuneMAMEnrollmentManager.instance().deRegisterAndUnenrollAccountId(accountId, withWipe: false) // MISTAKE 2: deregister-in-callback
        case .loginCanceled:
            // The user backed out of adding an account: it is removed once this callback has returned.
            DispatchQueue.main.async { IntuneMAMEnrollmentManager.instance().deRegisterAndUnenrollAccountId(accountId, withWipe: false) } // CORRECT: deregistration dispatched to run after the callback [P3]
        default:
            break
        }
        let c: CheckedContinuation<IntuneMAMEnrollmentStatus, Never>? = lock.withLock {
            guard told == nil else { return nil }
            told = status
            defer { waiting = nil }
            return waiting
        }
        c?.resume(returning: status)
    }

    func unenrollRequest(with status: IntuneMAMEnrollmentStatus) {
        note("unenrollment \(status.statusCode.rawValue)")
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

    /// [P3] "If false is returned, the SDK will restart the application after this method returns"; [P6] "If the
    /// app needs to save state before restarting, it can do so in restartApplication". The open chart (bed 12) is not
    /// saved, and the relaunched app opens at the ward list: the nurse's place is lost. The first mistake is made
    /// here; the place Strict Mode can name is the screen the restart loses, and the mistake is marked there.
    func restartApplication() -> Bool {
        note("restartApplication")
        return false
    }

    /// [P6]: in every status but compliant the user has no token; "the app should display ... the error message
    /// and title string supplied by withErrorMessage and andErrorTitle".
    func accountId(_ accountId: String, hasComplianceStatus status: IntuneMAMComplianceStatus,
                   withErrorMessage errMsg: String, andErrorTitle errTitle: String) {
        note("compliance \(status.rawValue)")
        switch status {
        case .compliant:
            break
        case .interactionRequired:
            Rounds.shared.alert = "Sign-in needed" // MISTAKE 3: none (no Android check named in the sources)
        default:
            Rounds.shared.alert = "\(errTitle): \(errMsg)" // CORRECT: the SDK's title and message shown to the user [P6]
        }
        complianceInput.yield(status)
    }
}

@main
struct WardRounds {
    /// The façade's documented start: the main thread becomes the app's run loop.
    static func main() {
        MAMIntuneFacade.run(runtime: "WardRounds/1", finishesLaunching: true) { app in await launch(app) }
    }

    static func launch(_ app: MAMApp) async {
        guard let upn = CommandLine.arguments.dropFirst().first else { await Platform.say(app, ["arguments=missing"]); return }
        let delegates = WardDelegates()

        // ── Launch: the delegates the SDK calls during an enrollment and a remediation, then the enrollment ──
        IntuneMAMPolicyManager.instance().delegate = delegates // CORRECT: policy delegate set before the enrollment call (restartApplication reaches it)
        IntuneMAMComplianceManager.instance().delegate = delegates // CORRECT: compliance delegate set before any remediation [P6]
        let enrolled = IntuneMAMEnrollmentManager.instance().enrolledAccountId() // CORRECT: the enrolled account's Entra object ID, from the SDK [P3]
        if enrolled == nil { IntuneMAMEnrollmentManager.instance().loginAndEnrollAccount(upn) } // MISTAKE 4: enrollment-delegate-late
        IntuneMAMEnrollmentManager.instance().delegate = delegates
        guard let oid = enrolled else {
            // First launch: [P3] "If the enrollment succeeds, the SDK will notify the user that an app restart is
            // required"; this process waits to be ended by the SDK's restart.
            let status = await delegates.firstStatus()
            if status.statusCode == .newPoliciesReceived { for await _ in app.deliveries {} }
            return app.close()
        }

        // ── Relaunched by the SDK: the ward list (the open chart was not kept) ──────────────────────────────
        var facts = ["relaunched=true", "openChart=\(Rounds.shared.openChart ?? "none")"]
        let ward = await withCheckedContinuation { c in
            IntuneMAMPolicyManager.instance().setUIPolicyAccountId(oid) { c.resume(returning: $0) } // CORRECT: UI identity set by OID before the ward is shown [P5]
        }
        facts.append("ward=\(ward.rawValue)")

        // ── App protection CA: MSAL's error names the account to remediate [P6] ─────────────────────────────
        var statuses = delegates.compliance.makeAsyncIterator()
        let first = await Platform.token(app, account: upn, silent: false)
        facts.append("firstToken=\(first.token == nil ? "blocked" : "ok")")
        if first.token == nil, let home = first.homeAccountID {
            // [P6] "This homeAccountId is in the format ObjectId.TenantId. Extract the ObjectId value".
            let objectId = String(home.split(separator: ".").first ?? "")
            let busy = await Task.detached { IntuneMAMComplianceManager.instance().remediationInProgress(forAccountId: objectId) }.value
            if !busy { IntuneMAMComplianceManager.instance().remediateCompliance(forAccountId: objectId, silent: false) } // CORRECT: the ObjectId of MSAL's homeAccountId, in an app that declares protapp [P6]
            let status = await statuses.next()
            facts.append("compliance=\(status.map { "\($0)" } ?? "none")")
        }
        let second = await Platform.token(app, account: upn, silent: true)
        facts.append("secondToken=\(second.token == nil ? "blocked" : "ok")")

        // Before a chart opens, compliance is checked again, silently, for the name the nurse signed in with.
        IntuneMAMComplianceManager.instance().remediateCompliance(forAccountId: upn, silent: true) // MISTAKE 5: account-id-is-upn
        let recheck = await statuses.next()
        facts.append("recheck=\(recheck.map { "\($0)" } ?? "none")")
        facts.append("alert=\(Rounds.shared.alert ?? "none")")
        facts.append("events=\(delegates.events.joined(separator: ";"))")
        await Platform.say(app, facts)
        app.finishedLaunching()

        // The accounts the user adds later reach the enrollment delegate; the app waits for what is shared to it.
        for await _ in app.deliveries {}
        app.close()
    }
}

/// What the app keeps between screens, in memory only. `@unchecked Sendable`: written by the delegates on the main
/// thread and read by the launch task after them.
final class Rounds: @unchecked Sendable {
    static let shared = Rounds()
    var openChart: String?
    var alert: String?
}

/// MSAL's token request and iOS's file system, as the façade's documentation says to reach them on Linux.
enum Platform {
    /// MSAL's acquireToken for Microsoft Graph: the token, or the error whose homeAccountId names the account.
    static func token(_ app: MAMApp, account: String, silent: Bool) async -> TokenResult {
        await app.acquireToken(account: account, resource: "00000003-0000-0000-c000-000000000000", silent: silent)
    }

    /// One `FACT key=value` line per fact, on standard output and in Documents/wards-report.txt.
    static func say(_ app: MAMApp, _ facts: [String]) async {
        let text = facts.map { "FACT \($0)\n" }.joined()
        FileHandle.standardOutput.write(Data(text.utf8))
        Report.shared.text += text
        _ = await app.writeFile("Documents/wards-report.txt", Array(Report.shared.text.utf8), owner: "")
    }
}

final class Report: @unchecked Sendable {
    static let shared = Report()
    var text = ""
}
