import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy

/// `finishRemediation`: the user finishes the SDK's remediation UI that a `remediate` with
/// `wait: false` left in front of them. That remediation, and every one queued behind it,
/// runs to its end in the order the app asked, each decided on the device as it is then; the
/// outcome is what the compliance delegate was told, in order.
struct FinishRemediationStep: StepVerb {
    static let name = "finishRemediation"
    static let since = "v1.2"
    static let summary = "the user finishes the SDK's remediation UI: the app's remediations under way and queued end in order"
    static let example = "finishRemediation: {app: mail}"
    static let arguments: [VerbArgument] = [.app(extensions: false)]
    static let outcomes: [OutcomeForm] = [.statuses, .failedBecause]

    var app: String

    init(_ a: VerbArgumentReader) {
        app = a.app()
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let told: Result<[ToldStatus], DeviceStateError> = await run.host.complete { [app] host, done in
            host.tokens.finishRemediations(try host.app(app)) { told in
                done(.success(told.map { ToldStatus(account: $0.0, status: $0.1.status) }))
            }
        }
        switch told {
        case .success(let list):
            let why = list.isEmpty ? "no remediation was under way in \(app)"
                : "the delegate was told " + list.map { "\($0.status.rawValue) for \($0.account)" }.joined(separator: ", then ")
            return (.statuses(list), why, app)
        case .failure(let e): return (.failed(e.reason), e.message, app)
        }
    }
}
