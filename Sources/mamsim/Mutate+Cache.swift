import Crypto
import Foundation
import MAMAdmin
import MAMScenario

/// Mutants' verdicts kept by what decides them (issue 99, item 5): an unchanged scenario,
/// inputs, programs and mamsim give the same verdict, so it is not run again. The key is a
/// SHA-256 over the scenario file's bytes and every input it read (policies, exports), the
/// programs' identity — mamsim itself, the app runtime, every program beside it, each app's
/// and extension's own program (a script also by its folder's files) — and the mutant (its
/// policy, setting and value). Programs are known by path, size and modification time: hashing
/// every binary at each sweep would cost more than most sweeps.
struct MutateCache {
    let folder: URL
    private let programs: [String]

    init(folder: String?, runtime: String) {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? ((env["HOME"] ?? NSTemporaryDirectory()) + "/.cache")
        self.folder = URL(fileURLWithPath: folder ?? base + "/mamsim/mutate", isDirectory: true)
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let beside = URL(fileURLWithPath: runtime).deletingLastPathComponent()
        let neighbours = ((try? FileManager.default.contentsOfDirectory(at: beside, includingPropertiesForKeys: nil)) ?? [])
            .map(\.path).filter { FileManager.default.isExecutableFile(atPath: $0) }.sorted()
        programs = ["mutate-cache/1", Self.stamp(me), Self.stamp(runtime)] + neighbours.map(Self.stamp)
    }

    /// The part of the key a scenario gives: its bytes, its inputs' and its programs'.
    func fingerprint(of scenario: Scenario) -> String {
        var hash = SHA256()
        for line in programs { hash.update(data: Data((line + "\n").utf8)) }
        for file in [scenario.file] + scenario.inputs {
            hash.update(data: Data(file.lastPathComponent.utf8))
            hash.update(data: (try? Data(contentsOf: file)) ?? Data("unreadable".utf8))
        }
        let executables = (scenario.apps.map(\.executable) + scenario.extensions.map(\.executable)).compactMap { $0 }
        for program in executables {
            hash.update(data: Data(Self.stamp(program.path).utf8))
            // A script runs what its folder holds: each file there by its stamp.
            if let head = try? FileHandle(forReadingFrom: program).read(upToCount: 2), head == Data("#!".utf8) {
                let folder = program.deletingLastPathComponent()
                let files = ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []).map(\.path).sorted()
                for file in files { hash.update(data: Data(Self.stamp(file).utf8)) }
                hash.update(data: (try? Data(contentsOf: program)) ?? Data())
            }
        }
        return Self.hex(hash.finalize())
    }

    func outcome(_ fingerprint: String, _ p: MutateCommand.Planned) -> MutateCommand.Outcome? {
        guard let data = try? Data(contentsOf: file(fingerprint, p)) else { return nil }
        return try? JSONDecoder().decode(MutateCommand.Outcome.self, from: data)
    }

    /// Kept atomically (written aside, then renamed): parallel sweeps never read half a verdict.
    func keep(_ outcome: MutateCommand.Outcome, _ fingerprint: String, _ p: MutateCommand.Planned) {
        let target = file(fingerprint, p)
        guard (try? FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)) != nil,
              let data = try? JSONEncoder().encode(outcome) else { return }
        let aside = target.appendingPathExtension("\(getpid()).tmp")
        guard (try? data.write(to: aside)) != nil else { return }
        if rename(aside.path, target.path) != 0 { try? FileManager.default.removeItem(at: aside) }
    }

    private func file(_ fingerprint: String, _ p: MutateCommand.Planned) -> URL {
        let key = Self.hex(SHA256.hash(data: Data([fingerprint, p.mutation.kind.rawValue, p.mutation.owner, p.mutation.setting, p.mutation.value].joined(separator: "\u{0}").utf8)))
        return folder.appendingPathComponent(String(key.prefix(2))).appendingPathComponent(key + ".json")
    }

    static func stamp(_ path: String) -> String {
        let a = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (a?[.size] as? NSNumber)?.int64Value ?? -1
        let time = (a?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return "\(path) \(size) \(time)"
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String { digest.map { String(format: "%02x", $0) }.joined() }
}
