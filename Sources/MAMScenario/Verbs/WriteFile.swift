import Foundation
import MAMDevice
import MAMDeviceState
import MAMDocument
import MAMModel
import MAMPolicy
import MAMWire

/// `writeFile`: the app writes a file in its sandbox or an app group, owned by an identity.
struct WriteFileStep: StepVerb {
    static let name = "writeFile"
    static let since = "v1.1"
    static let summary = "the app writes a file in its container (group:<id>/path: an app group), owned by the identity it writes under"
    static let example = "writeFile: {app: mail, path: Documents/q3.txt, text: Q3 figures}"
    static let arguments: [VerbArgument] = [
        .app(), .required("path", .text, "a path in the app's container, or group:<id>/<path>"),
        .optional("text", .text, "the contents as text"), .optional("data", .text, "the contents as base64"),
        .optional("as", .account(unmanaged: true), "the thread identity it is written under (absent: the app's file identity)"),
    ]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var app: String
    var path: String
    var data: [UInt8]
    var `as`: Account?

    init(app: String, path: String, data: [UInt8], as thread: Account?) { (self.app, self.path, self.data, self.as) = (app, path, data, thread) }

    init(_ a: VerbArgumentReader) {
        let contents = ["text", "data"].filter { a.has($0) }
        var bytes: [UInt8] = []
        if contents.count != 1 {
            a.error(contents.isEmpty ? "writeFile needs text: or data: (base64)" : "writeFile has one of text: or data:, not both")
        } else if contents[0] == "text" {
            bytes = Array(a.text("text").utf8)
        } else if let s = a.reader.string(a["data"]!, what: "data") {
            if let d = Data(base64Encoded: s.filter { !$0.isWhitespace }) { bytes = Array(d) } else {
                a.reader.error(a["data"]!, "data must be base64, but \(a["data"]!.shape) is not")
            }
        }
        self.init(app: a.app(), path: a.text("path"), data: bytes, as: a.optionalAccount("as"))
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let owner = self.as.map(StepRun.identity)
        let r = await run.service(app, .writeFile(path: path, data: data, owner: owner))
        return (StepRun.fileObserved(r.verdict, allowed: .ok), r.verdict.explanation, "\(app) → \(path)\(owner.map { " as \($0.isEmpty ? "unmanaged" : $0)" } ?? "")")
    }
}
