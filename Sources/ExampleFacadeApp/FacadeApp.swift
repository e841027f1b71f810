// A team's own Intune integration code, written against the SDK-shaped façade only (its
// names are the Intune App SDK's): at launch it enrolls the user it was given with
// loginAndEnrollAccount, waits for its enrollment delegate, then — as code does before a save —
// asks the account's policy whether saving to the local drive and to OneDrive for Business is
// allowed. What it found goes to Documents/facade.txt. MAMKit appears only in the two lines
// that connect the process to the mamsim host.
//   arguments: ACCOUNT
import Foundation
import MAMIntuneFacade
import MAMKit

/// The enrollment delegate the team's app implements. `@unchecked Sendable`: its state is
/// read and written under `lock` only (the status arrives on MAMKit's task, the app waits on
/// its own).
final class EnrollmentDelegate: IntuneMAMEnrollmentDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: CheckedContinuation<IntuneMAMEnrollmentStatus, Never>?
    private var told: IntuneMAMEnrollmentStatus?

    func enrollmentRequest(with status: IntuneMAMEnrollmentStatus) {
        let c: CheckedContinuation<IntuneMAMEnrollmentStatus, Never>? = lock.withLock {
            guard told == nil else { return nil }
            told = status
            defer { waiting = nil }
            return waiting
        }
        c?.resume(returning: status)
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

@main
struct FacadeApp {
    static func main() async {
        let account = CommandLine.arguments.dropFirst().first ?? ""
        guard let app = try? await MAMApp.connect(runtime: "ExampleFacadeApp/1", finishesLaunching: true) else { return }
        MAMIntuneFacade.connect(app)

        // From here on, only the SDK's names.
        let delegate = EnrollmentDelegate()
        IntuneMAMEnrollmentManager.instance().delegate = delegate
        IntuneMAMEnrollmentManager.instance().loginAndEnrollAccount(account)
        let status = await delegate.firstStatus()
        // The policy getters are synchronous, as in the SDK: called off the main task.
        let report = await Task.detached { () -> String in
            let policy = IntuneMAMPolicyManager.instance().policy(forAccountId: account)
            func word(_ allowed: Bool?) -> String { allowed.map { $0 ? "allowed" : "blocked" } ?? "no policy" }
            let local = word(policy?.isSaveToAllowed(for: .localDrive, withAccountId: account))
            let oneDrive = word(policy?.isSaveToAllowed(for: .oneDriveForBusiness, withAccountId: account))
            let enrolled = IntuneMAMEnrollmentManager.instance().enrolledAccountId() ?? "nobody"
            return "enrollment: \(status.statusCode.name) (\(status.statusCode.rawValue)); enrolled: \(enrolled); "
                + "save to local drive: \(local); save to OneDrive for Business: \(oneDrive)"
        }.value
        _ = await app.writeFile("Documents/facade.txt", Array(report.utf8))
        app.finishedLaunching()
        for await _ in app.deliveries {}
        app.close()
    }
}
