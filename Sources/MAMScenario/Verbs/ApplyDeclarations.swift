import MAMDeclarations
import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `applyDeclarations`: the MDM sends declarations (read from files when the scenario loaded).
struct ApplyDeclarationsStep: StepVerb {
    static let name = "applyDeclarations"
    static let since = "v1.1"
    static let summary = "sends DDM declarations to the device as one batch; running apps get managedConfigChanged"
    static let example = "applyDeclarations: {files: [fixtures/ddm/landmarks-update]}"
    static let arguments: [VerbArgument] = [.required("files", .list, "declaration files or folders, relative to the scenario")]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var files: [String]
    var entries: [DeclarationSet.Entry]

    init(files: [String], entries: [DeclarationSet.Entry]) { (self.files, self.entries) = (files, entries) }
    init(_ a: VerbArgumentReader) {
        let (files, entries) = a.loading.readDeclarationFiles(a["files"]!, checkReferences: false)
        self.init(files: files, entries: entries)
    }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.complete({ [entries] host, done in host.admin.changeDeclarations(apply: entries, remove: nil, done) }) {
        case .success(let told): return (.ok, "applied \(entries.count) declaration(s) from \(files.joined(separator: ", ")); \(told) running app(s) notified", "device")
        case .failure(let e): return (.failed(e.reason), e.message, "device")
        }
    }
}
