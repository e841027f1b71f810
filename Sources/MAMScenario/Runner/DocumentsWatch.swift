import Foundation
import MAMDevice
import MAMDeviceState
import MAMModel

/// Files a program of its own wrote under its container's `Documents/` itself — through
/// Foundation's file calls on `$MAMSIM_CONTAINER` (docs/GUIDE.md), not the `write_file`
/// service — which the host never sees written. Such a file is the app's data saved where the
/// user sees its files, as a service write there is (`HostEvent.savedData`), and the SDK files
/// it under the identity the app's data takes when no owner is named: its process identity.
/// `mamsim mutate` reads it as the app's own part (docs/MUTATE.md): a save its code made
/// without asking `isSaveToAllowed` is a setting the code ignores, however it wrote the file.
///
/// Looked at after the fleet's start and after each step. What a child wrote is untrusted: the
/// walk follows no link, stops at a depth and a count, and a path is escaped and cut as a
/// service write's is (`HostEvent.saved`).
struct DocumentsWatch {
    /// The apps and extensions that run a program of their own: the built-in runtime writes
    /// only through the services.
    struct Watched {
        let handle: String
        let bundle: BundleID
        let documents: URL
    }

    /// A file found new or changed since the last look.
    struct Written {
        let handle: String
        let bundle: BundleID
        /// `Documents/…`, as the services name it.
        let path: String
    }

    static let maximumFiles = 2_000
    static let maximumDepth = 16

    private let watched: [Watched]
    /// Each file's modification time and size when last seen, by its path.
    private var seen: [String: (Date, Int)] = [:]

    init(_ scenario: Scenario, deviceDirectory: URL) {
        let containers = deviceDirectory.appendingPathComponent("containers")
        watched = scenario.apps.compactMap { app in
            app.executable == nil ? nil : Watched(handle: app.id, bundle: app.descriptor.bundleID,
                                                  documents: containers.appendingPathComponent(app.descriptor.bundleID.rawValue).appendingPathComponent("Documents"))
        } + scenario.extensions.compactMap { ext in
            ext.executable == nil ? nil : Watched(handle: ext.id, bundle: ext.descriptor.bundleID,
                                                  documents: containers.appendingPathComponent(ext.descriptor.bundleID.rawValue).appendingPathComponent("Documents"))
        }
    }

    init(watching watched: [Watched]) { self.watched = watched }

    /// The files written or changed since the last look, in path order per app.
    mutating func look() -> [Written] {
        var found: [Written] = []
        for app in watched {
            var files = 0
            walk(app.documents, relative: "Documents", depth: 0, files: &files) { path, stamp in
                let key = app.handle + "\u{0}" + path
                if let before = seen[key], before == stamp { return }
                seen[key] = stamp
                found.append(Written(handle: app.handle, bundle: app.bundle, path: path))
            }
        }
        return found
    }

    /// Looks, and records each file written since the last look that the services did not
    /// write (the device holds no owner for it) as a save of the data of the app's process
    /// identity, where that is an account's (`Participation.Kind.saved`).
    mutating func record(into log: ParticipationLog, host: HostController) async {
        guard !watched.isEmpty else { return }
        for written in look() {
            let owner: String? = await host.run(orElse: nil) { [written] (host: MAMDevice.Host) -> String? in
                do {
                    // A file the services wrote has an owner row (perhaps "", unowned): its
                    // save was told as it was written.
                    let spec = try host.app(written.handle)
                    guard try host.state.fileOwner(app: written.bundle, path: ContainerPath(parsing: written.path)) == nil else { return nil }
                    return try host.state.processIdentity(app: spec.identityOwner)
                } catch {
                    return nil
                }
            }
            guard let owner, let saved = HostEvent.saved(by: written.handle, path: written.path, owner: owner) else { continue }
            log.record(saved, byItself: true)
        }
    }

    private func walk(_ dir: URL, relative: String, depth: Int, files: inout Int, _ each: (String, (Date, Int)) -> Void) {
        guard depth < Self.maximumDepth,
              let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return }
        for name in names.sorted() {
            guard files < Self.maximumFiles else { return }
            let url = dir.appendingPathComponent(name)
            // `attributesOfItem` does not follow a final link: a link is neither a file nor a folder here.
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
                  let type = attributes[.type] as? FileAttributeType else { continue }
            if type == .typeDirectory {
                walk(url, relative: relative + "/" + name, depth: depth + 1, files: &files, each)
            } else if type == .typeRegular {
                files += 1
                let modified = attributes[.modificationDate] as? Date ?? .distantPast
                let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
                each(relative + "/" + name, (modified, size))
            }
        }
    }
}
