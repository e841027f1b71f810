// An app that handles App Protection conditional access the way Microsoft's sample compliance
// delegate does (seed 002): it asks for a token; when the service answers that an app
// protection policy is required, it calls remediateCompliance for the homeAccountId, waits for
// the compliance delegate's status and, once compliant, asks again. Any other status is shown
// to the user as an error title and message. What it shows goes to Documents/status.txt.
//   arguments: ACCOUNT [RESOURCE]
import MAMKit
import MAMModel
import MAMWire
import Synchronization

@main
struct CAApp {
    static func main() async {
        let account = CommandLine.arguments.dropFirst().first ?? ""
        let resource = CommandLine.arguments.dropFirst(2).first ?? "00000003-0000-0000-c000-000000000000"
        guard let app = try? await MAMApp.connect(runtime: "ExampleCAApp/1", finishesLaunching: true) else { return }
        // The compliance delegate: each status, in order.
        let (statuses, input) = AsyncStream.makeStream(of: SDKNotification.self)
        app.observeNotifications { n in
            if n.kind == .complianceStatus { input.yield(n) }
        }
        // It reloads its accounts itself after an enrollment (restartApplication answers
        // TRUE), so the SDK does not restart it in the middle of the sign-in.
        app.answerRestartApplication { true }
        await show(await signIn(app, account: account, resource: resource, statuses: statuses), app)
        app.finishedLaunching()
        for await _ in app.deliveries {}
        app.close()
    }

    static func signIn(_ app: MAMApp, account: String, resource: String, statuses: AsyncStream<SDKNotification>) async -> String {
        let first = await app.acquireToken(account: account, resource: resource, silent: false)
        if first.token != nil { return "token acquired" }
        switch first.reason {
        case .protectionPolicyRequired:
            guard let home = first.homeAccountID else { return "error: no homeAccountId to remediate" }
            await app.remediateCompliance(accountId: home.split(separator: ".").first.map(String.init) ?? account, silent: false)
            var iterator = statuses.makeAsyncIterator()
            guard let status = await iterator.next() else { return "error: the compliance delegate was not called" }
            // The status, with the error title and message the app shows.
            guard status.detail == "compliant" else { return "remediation failed: \(status.detail)" + (status.title.isEmpty ? "" : " — \(status.title): \(status.message)") }
            let second = await app.acquireToken(account: account, resource: resource, silent: true)
            return second.token != nil ? "token acquired after remediation" : "error after remediation: \(second.explanation)"
        case .appProtectionUnsupported:
            return "this app cannot meet app protection conditional access (no protapp capability)"
        default:
            return "error: \(first.explanation)"
        }
    }

    static func show(_ text: String, _ app: MAMApp) async {
        _ = await app.writeFile("Documents/status.txt", Array(text.utf8))
    }
}
