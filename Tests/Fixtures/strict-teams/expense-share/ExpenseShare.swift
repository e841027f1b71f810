// ExpenseShare — a team's multi-identity expense app with a share-extension-like receipt flow, written from
// Microsoft's guide to the Intune App SDK for iOS.
//
// "Expenses" (com.contoso.expenses, IntuneMAMSettings MultiIdentity) registers the work account MSAL signed in,
// persists the receipt its share extension handed over and gives the file its owner, shows the account's expenses
// (UI identity), reads policies, and for each receipt shared to it writes the receipt and the claim under thread
// identity scopes and shares the claim onward. Its Intune code uses only the SDK's public Swift names
// (`import IntuneMAMSwift`). It makes eight integration mistakes, each on ONE line marked `// MISTAKE n: <check>`
// (docs/STRICT.md's check name, or `none (...)` where the guide names a mistake no check covers), and does more
// things right, each on a line marked `// CORRECT: <what>`. EXPECTED.md quotes these line numbers: do not reflow.
//
// Sources (Microsoft Learn, "Intune App SDK for iOS" developer guide), cited where used:
//   [P3] https://learn.microsoft.com/en-us/mem/intune/developer/app-sdk-ios-phase3  (enrollment, restart)
//   [P4] https://learn.microsoft.com/en-us/mem/intune/developer/app-sdk-ios-phase4  (save-as, the data owner's policy)
//   [P5] https://learn.microsoft.com/en-us/mem/intune/developer/app-sdk-ios-phase5  (identities, file owner, share
//        extensions, identity switch, selective wipe)
//
// Platform stand-ins: Linux has no UIKit, so the file system and the share sheet iOS gives the app are MAMKit's
// calls, in `Platform` at the bottom, as in Tests/Fixtures/strict-probe. The entry point is `MAMIntuneFacade.run`.
//   arguments: WORK_UPN WORK_OID SHARE_TO_APP
import Foundation
import IntuneMAMSwift
import MAMKit
import MAMModel
import MAMWire

/// The app's enrollment and policy delegates, one object. `@unchecked Sendable`: the SDK calls it on the main
/// thread; `lock` guards what the launch task waits on.
final class ExpenseDelegates: IntuneMAMEnrollmentDelegate, IntuneMAMPolicyDelegate, @unchecked Sendable {
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

    /// [P5] "if the app can handle the request to switch to the specified identity, it should pass ...Success";
    /// every screen of the app can show any signed-in account's expenses, so it always can.
    func identitySwitchRequired(forAccountId accountId: String, reason: IntuneMAMIdentitySwitchReason,
                                completionHandler: @escaping (IntuneMAMSwitchIdentityResult) -> Void) {
        note("identitySwitch \(accountId.isEmpty ? "personal" : accountId) \(reason.rawValue)")
        completionHandler(.success); if accountId.isEmpty { completionHandler(.success) } // MISTAKE 7: identity-switch-unhandled
    }

    /// [P5] "The SDK is capable of removing all files owned by the user and will do so if the app returns FALSE":
    /// the app drops what it holds in memory for the account and leaves the files to the SDK.
    func wipeData(forAccountId accountId: String) -> Bool {
        note("wipe \(accountId)")
        Ledger.shared.drafts[accountId] = nil
        return false // CORRECT: the SDK deletes the account's files [P5]
    }

    /// [P3] "If true is returned, the application must handle the restart": the app reloads its account list.
    func restartApplication() -> Bool {
        note("restartApplication: the account list is reloaded")
        Ledger.shared.reloadRequested = true
        return true // CORRECT: the app handles the restart itself [P3]
    }
}

/// Reads made inside a thread identity scope (synchronous: the scope's closure is not async here).
enum Scoped {
    /// [P5] thread identity "affects what policies are applied on the current thread": inside the scope the
    /// identity in effect is the account whose expenses are being checked.
    static func pinRequired(for accountId: String) -> Bool {
        var required = false
        IntuneMAMSwiftContextManager.setAccountId(accountId) { required = IntuneMAMPolicyManager.instance().policy()?.isPINRequired ?? false } // CORRECT: policy() read inside the account's scope [P5]
        return required
    }
}

@main
struct Expenses {
    /// The façade's documented start: the main thread becomes the app's run loop.
    static func main() {
        MAMIntuneFacade.run(runtime: "Expenses/1", finishesLaunching: true) { app in await launch(app) }
    }

    static func launch(_ app: MAMApp) async {
        let args = Array(CommandLine.arguments.dropFirst())
        guard args.count >= 3 else { await Platform.say(app, ["arguments=missing"]); return }
        let (upn, oid, shareTo) = (args[0], args[1], args[2])
        let delegates = ExpenseDelegates()
        let folder = "Documents/\(oid)"   // each account's expenses in a container of its own

        // ── Launch: delegates first, then the account MSAL signed in is registered [P3] ─────────────────────
        IntuneMAMPolicyManager.instance().delegate = delegates // CORRECT: policy delegate set before the enrollment call
        IntuneMAMEnrollmentManager.instance().delegate = delegates // CORRECT: enrollment delegate set before the enrollment call
        IntuneMAMEnrollmentManager.instance().registerAndEnrollAccountId(oid) // CORRECT: the Entra object ID MSAL returned [P3]
        let status = await delegates.firstStatus()
        var facts = ["enrollment=\(status.statusCode.rawValue)"]

        // The share extension handed over a receipt (data, not a file) before any account's screen was up. [P5]
        // "If the shared item is data, the app is responsible for setting the file owner if this data is persisted".
        let pending = "\(folder)/pending-receipt.txt"
        let persisted = await Platform.write(app, pending, Array("Receipt: hotel 189.00 EUR\n".utf8))
        let owner = await Task.detached { () -> String in
            IntuneMAMFileProtectionManager.instance().protect(pending, accountId: oid) // CORRECT: the file exists; it becomes the account's [P5]
            // The thumbnail is protected now and rendered later: no file is there yet.
            IntuneMAMFileProtectionManager.instance().protect("\(folder)/pending-receipt-thumb.txt", accountId: oid) // MISTAKE 1: protect-missing-file
            return IntuneMAMFileProtectionManager.instance().protectionInfo(pending)?.accountId ?? "none"
        }.value
        facts += ["pendingPersisted=\(persisted)", "pendingOwner=\(owner == oid ? "oid" : owner)"]

        // ── The account's expenses are shown: the UI identity first, and only on success [P5] ───────────────
        let switched = await withCheckedContinuation { c in
            IntuneMAMPolicyManager.instance().setUIPolicyAccountId(oid) { c.resume(returning: $0) } // CORRECT: UI identity set by OID before the data is shown [P5]
        }
        facts.append("uiSwitch=\(switched.rawValue)")

        // ── The policy getters, off the main thread ─────────────────────────────────────────────────────────
        let read = await Task.detached { () -> [String] in
            let manager = IntuneMAMPolicyManager.instance()
            let policy = manager.policy(forAccountId: oid) // CORRECT: the policy of the owner of the data, by OID [P4]
            var out = ["saveOneDrive=\(policy?.isSaveToAllowed(for: .oneDriveForBusiness, withAccountId: oid) ?? true)"] // CORRECT: OneDrive's account, by OID [P4]
            out.append("saveLocal=\(policy?.isSaveToAllowed(for: .localDrive, withAccountId: oid) ?? true)") // CORRECT: the account that owns the sandbox container [P4]
            // The export to the device's own storage asks for the account's container as if it had no owner.
            out.append("saveLocalNil=\(policy?.isSaveToAllowed(for: .localDrive, withAccountId: nil) ?? true)") // MISTAKE 2: none (no Android check named in the sources)
            out.append("processPolicy=\(manager.policy() == nil ? "nil" : "present")") // MISTAKE 3: process-policy-in-multi-identity
            out.append("scopedPIN=\(Scoped.pinRequired(for: oid))")
            out.append("uiIdentity=\(manager.getUIPolicyAccountId() == oid ? "oid" : "other")")
            return out
        }.value
        facts += read
        facts.append("events=\(delegates.events.joined(separator: ";"))")
        await Platform.say(app, facts)
        app.finishedLaunching()

        // ── Receipts shared to the app: the receipt and its claim written, the claim shared onward ──────────
        var received = 0
        for await delivery in app.deliveries {
            received += 1
            let n = received
            let receipt = Platform.bytes(delivery.item)
            let claim = Array("Expense claim \(n): \(String(decoding: receipt, as: UTF8.self))\n".utf8)
            Ledger.shared.drafts[oid, default: []].append("claim-\(n)")
            await IntuneMAMSwiftContextManager.setAccountId(oid) { _ = await Platform.write(app, "\(folder)/receipt-\(n).txt", receipt) } // CORRECT: written in the account's thread identity scope [P5]
            await IntuneMAMSwiftContextManager.setAccountId(upn) { _ = await Platform.write(app, "\(folder)/claim-\(n).txt", claim) } // MISTAKE 4: account-id-is-upn
            // The thumbnail is rendered by a background task that carries no identity.
            let thumb = await Task.detached { await Platform.write(app, "\(folder)/receipt-\(n)-thumb.txt", receipt) }.value // MISTAKE 5: file-written-without-thread-identity
            let owned = await Platform.share(app, claim, to: shareTo, as: oid) // CORRECT: the claim leaves as the account's data
            let unowned = await Platform.share(app, claim, to: shareTo, as: "") // MISTAKE 6: item-shared-without-owner
            // After the switch to the unmanaged identity the personal screen is up; its "attach the last receipt" offers erin's file.
            let attached = n > 1 ? await Platform.shareFile(app, "\(folder)/receipt-1.txt", to: shareTo) : "not offered" // MISTAKE 8: item-identity-mismatch
            await Platform.say(app, ["thumb\(n)Written=\(thumb)", "claim\(n)SharedOwned=\(owned)", "claim\(n)SharedUnowned=\(unowned)", "receipt1FromPersonalScreen\(n)=\(attached)"])
        }
        app.close()
    }
}

/// What the app keeps between screens. `@unchecked Sendable`: written by the launch task and the delegates one
/// after the other, as the scenario's steps come.
final class Ledger: @unchecked Sendable {
    static let shared = Ledger()
    var drafts: [String: [String]] = [:]
    var reloadRequested = false
}

/// iOS's file system and share sheet, as the façade's documentation says to reach them on Linux.
enum Platform {
    static func write(_ app: MAMApp, _ path: String, _ data: [UInt8]) async -> Bool {
        await app.writeFile(path, data).isAllowed
    }

    static func share(_ app: MAMApp, _ data: [UInt8], to destination: String, as identity: String) async -> String {
        let item = Item(id: "claim-\(identity.isEmpty ? "personal" : "work")", typeIdentifiers: ["public.plain-text"],
                        payload: .inline(data), fileName: "claim.txt")
        let verdict = await app.share(item, to: destination, as: identity)
        return verdict.isAllowed ? "delivered" : "refused(\(verdict.reason.map { "\($0)" } ?? "?"))"
    }

    /// A file of the app's container offered to the share sheet: it leaves as its owner's.
    static func shareFile(_ app: MAMApp, _ path: String, to destination: String) async -> String {
        let item = Item(id: "file-\(path.split(separator: "/").last ?? "")", typeIdentifiers: ["public.plain-text"],
                        payload: .file(path: path), fileName: String(path.split(separator: "/").last ?? ""))
        let verdict = await app.share(item, to: destination, as: "")
        return verdict.isAllowed ? "delivered" : "refused(\(verdict.reason.map { "\($0)" } ?? "?"))"
    }

    static func bytes(_ item: Item) -> [UInt8] {
        if case .inline(let b) = item.payload { return b }
        return []
    }

    /// One `FACT key=value` line per fact, on standard output and in Documents/expense-report.txt.
    static func say(_ app: MAMApp, _ facts: [String]) async {
        let text = facts.map { "FACT \($0)\n" }.joined()
        FileHandle.standardOutput.write(Data(text.utf8))
        Report.shared.text += text
        _ = await app.writeFile("Documents/expense-report.txt", Array(Report.shared.text.utf8), owner: "")
    }
}

final class Report: @unchecked Sendable {
    static let shared = Report()
    var text = ""
}
