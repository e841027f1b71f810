import Foundation
import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `signWithIdentity`: the app signs data with a ManagedApp identity's private key (mutual TLS).
struct SignWithIdentityStep: StepVerb {
    static let name = "signWithIdentity"
    static let since = "v1.1"
    static let summary = "the app signs data with a ManagedApp identity; the runner verifies it with the identity's certificate"
    static let example = "signWithIdentity: {app: mail, id: vpn, data: challenge}"
    static let arguments: [VerbArgument] = [.app(), .required("id", .text, "the identity's identifier"), .required("data", .text, "what is signed")]
    static let outcomes: [OutcomeForm] = [.signature, .errorCode, .failed, .failedBecause]

    var app: String
    var id: String
    var data: [UInt8]

    init(app: String, id: String, data: [UInt8]) { (self.app, self.id, self.data) = (app, id, data) }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(), id: a.text("id"), data: Array(a.text("data").utf8)) }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.call(app, Service.SignWithIdentity(id: id, data: data))
        let parties = "\(app): identity \(id)"
        guard let signature = r.allowedAnswer else {
            // ManagedApp's two errors (invalidIdentifier, serverError as timeout) are `{error: …}`,
            // as `managedSecret` and SCENARIOS.md v1.5 (device.assetServer) say them.
            if case .failed(let reason, _) = r.verdict, reason == .invalidIdentifier || reason == .timeout { return (.errorCode(reason), r.verdict.explanation, parties) }
            return (Observed(r.verdict, allowed: .failed(nil)), r.verdict.explanation, parties)
        }
        // Checked as the server at the other end of mutual TLS would: with the certificate
        // the app was given.
        let cert = await run.call(app, Service.ManagedSecret(kind: .identity, id: id))
        guard case .identity(let der)? = cert.answer else { return (.signature(verified: false), "no certificate for \(id)", parties) }
        let ok = CertificateSummary.verify(signature, over: data, certificate: der)
        return (.signature(verified: ok), "\(r.verdict.explanation); signature \(Data(signature).base64EncodedString()) \(ok ? "verifies" : "does not verify") with the identity's certificate", parties)
    }
}
