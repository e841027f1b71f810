import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `wipe`: the admin's selective wipe of one account's data in one app.
struct WipeStep: AppAccountVerb {
    static let name = "wipe"
    static let since = "v1"
    static let summary = "a selective wipe of the account's data in the app"
    static let example = "wipe: {app: mail, account: alice@contoso.com}"

    var app: String
    var account: Account


    func run(_ run: StepRun) async -> StepOutcome {
        // With `delivery: checkIn` the service holds the wipe until the app's next check-in.
        let held = await run.host.result { [app, account] host -> Bool in
            guard host.fleet.service.delivery == .checkIn else { return false }
            try host.enrollment.queueWipe(try host.app(app), account: StepRun.key(account))
            return true
        }
        switch held {
        case .success(true): return (.ok, "the service holds the wipe of \(account) in \(app) until the app's next check-in", "\(account) in \(app)")
        case .success(false): break
        case .failure(let e): return (.failed(e.reason), e.message, "\(account) in \(app)")
        }
        switch await run.host.complete({ [app, account] host, done in host.accounts.wipe(try host.app(app), account: StepRun.key(account), done) }) {
        case .success(let report): return (.ok, report.description, "\(account) in \(app)")
        case .failure(let e): return (.failed(e.reason), e.message, "\(account) in \(app)")
        }
    }
}
