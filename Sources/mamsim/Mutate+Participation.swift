import MAMAdmin
import MAMDevice
import MAMModel
import MAMPolicy
import MAMScenario
import MAMWire

/// The app's own part (issue 99, item 3): a mutant no step observed a difference in may still
/// reach the app's code. The baseline run recorded which getters of which account's policy
/// each app's code read, and what account's data it saved (`ScenarioReport.participation`);
/// read against the enforcer's answers before and after the mutation, they tell a setting the
/// app consults and whose effect nothing checks, or one its code ignores, from one no step reaches.
struct MutantParticipation {
    let baseline: ScenarioReport
    let scenario: Scenario
    /// `scenario`'s fleet's decisions, computed once for a sweep.
    let baseMatrix: PolicyMatrix
    let mutant: Scenario
    let mutation: Mutation

    /// Why the mutant survived in the app's code, or nil when no app's code met it.
    func survivor() -> (because: String, step: Int?)? {
        if mutation.kind == .appConfig { return configSurvivor() }
        var readings: [String: (before: PolicySummary, after: PolicySummary)] = [:]
        func summaries(_ p: Participation) -> (before: PolicySummary, after: PolicySummary)? {
            let key = "\(p.app) \(p.account.lowercased())"
            if let known = readings[key] { return known }
            guard let bundle = scenario.bundle(of: p.app), let descriptor = scenario.fleet.app(bundle) else { return nil }
            let account = p.account.isEmpty ? nil : scenario.fleet.account(named: p.account)
            let pair = (Self.summary(account, descriptor, scenario), Self.summary(account, descriptor, mutant))
            readings[key] = pair
            return pair
        }
        // A getter the app's code read, whose answer the mutant changes: the app met the new
        // value, and nothing any step observes differs.
        for p in baseline.participation {
            guard case .read(let getter) = p.kind, let (before, after) = summaries(p),
                  after.getters(answeringOtherwiseThan: before).contains(getter) else { continue }
            return ("\(place(p)) \(p.app) read \(getter.call) of \(whose(p)) policy, which this mutant answers otherwise; no step observes what the app did with it", p.step)
        }
        // A save of an account's data where the user sees it, by code that never asked the
        // save setting that the mutant changes: the code ignores the setting.
        for p in baseline.participation {
            guard case .saved(let path, let byItself) = p.kind, let (before, after) = summaries(p), after.savesToLocalDriveOtherwise(than: before),
                  !baseline.participation.contains(where: { asked($0, like: p) }) else { continue }
            // Written with its own file calls, whose data it is was not seen: said so.
            let how = byItself ? " with its own file calls (the host did not see it written: taken as its process identity's data, as the SDK files a write that names no owner)" : ""
            return ("\(place(p)) \(p.app) saved \(path)\(how), \(whose(p)) data, and its code never asked \(PolicyGetter.isSaveToAllowed.call): "
                + "the save setting this mutant changes does not reach it (the SDK's guide, Stage 4: ask isSaveToAllowed(for: .localDrive, withAccountId:) before saving)", p.step)
        }
        return nil
    }

    /// A key of an app configuration the app's code read, of an account the configuration
    /// reaches in that app: the app met the moved value, and nothing any step observes differs.
    private func configSurvivor() -> (because: String, step: Int?)? {
        guard let config = scenario.appConfigs.first(where: { $0.name == mutation.owner }) else { return nil }
        for p in baseline.participation {
            guard case .readConfig(let key) = p.kind, key == mutation.setting, let bundle = scenario.bundle(of: p.app),
                  let app = scenario.fleet.app(bundle), let account = scenario.fleet.account(named: p.account),
                  config.targets(app, account: account) else { continue }
            return ("\(place(p)) \(p.app) read the key \(UntrustedText.escaped(key).debugDescription) of \(whose(p)) app configuration \"\(config.name)\", which this mutant sets to \(mutation.value); no step observes what the app did with it", p.step)
        }
        return nil
    }

    /// Why no step reached the mutant, and a step that would: a decision of the fleet's matrix
    /// it changes, or the SDK call the setting needs the app's own code to make.
    func unreached() -> String {
        let needs = PolicyMutation.participation[mutation.setting].map { "; the setting needs the app's own part: \($0)" } ?? ""
        if mutation.kind == .declaration {
            return "no step observes a difference (an app reads its managed configuration whole, through ManagedAppConfigurationProvider: which keys its code uses is not told to the device)"
        }
        if mutation.kind == .appConfig {
            return "no app's code read the key \(UntrustedText.escaped(mutation.setting).debugDescription) of a configuration \"\(mutation.owner)\" reaches (IntuneMAMAppConfigManager.appConfig(forAccountId:), then a value for the key), and no step observes a difference"
        }
        let changes = PolicyMatrix.changes(from: baseMatrix, to: PolicyMatrix.compute(for: mutant.fleet))
        guard let first = changes.first else { return "no step observes a difference (it changes no decision of the matrix)\(needs)" }
        return "no step reaches the \(changes.count) decision(s) it changes; a step would: \(Self.step(for: first))\(needs)"
    }

    /// The step of a scenario that meets a cell of the matrix, and what the mutant makes of it.
    static func step(for c: PolicyMatrix.Change) -> String {
        let verdict = { (v: Verdict) in v.reason.map { "blocked (\($0.rawValue))" } ?? "allowed" }
        let what = switch c.grid {
        case "transfers": "a share from \(c.from) to \(c.to)"
        case "files": "a file of \(c.from) opened in \(c.to)"
        case "clipboard": "a copy in \(c.from) pasted in \(c.to)"
        case "save": "a save from \(c.from) to \(c.to)"
        case "open": "an open from \(c.to) into \(c.from)"
        default: "\(c.to) in \(c.from)"
        }
        return "\(what), which it turns from \(verdict(c.before)) to \(verdict(c.after))"
    }

    /// Whether `read` is the same app asking the save setting of `save`'s account.
    private func asked(_ read: Participation, like save: Participation) -> Bool {
        guard read.app == save.app, read.account.lowercased() == save.account.lowercased(), case .read(let g) = read.kind else { return false }
        return g == .isSaveToAllowed || g == .getSaveToLocations
    }

    private func place(_ p: Participation) -> String {
        guard let i = p.step, let step = baseline.steps.first(where: { $0.index == i }) else { return "at launch (the fleet's start):" }
        return "step \(i + 1) (\(step.title)):"
    }

    private func whose(_ p: Participation) -> String { p.account.isEmpty ? "the unmanaged identity's" : "\(p.account)'s" }

    /// The policy object the host hands the app for `account` under `scenario`'s fleet.
    static func summary(_ account: Account?, _ app: AppDescriptor, _ scenario: Scenario) -> PolicySummary {
        let reading = Enforcer.policyReading(as: account, app: app.bundleID, in: scenario.fleet)
        let capture = Enforcer.screenCapture(as: account, in: app, policies: scenario.appConfigs, fleet: scenario.fleet)
        return PolicySummary(reading, of: account, screenCaptureAllowed: capture.isAllowed)
    }
}
