import Foundation
import MAMActivation
import MAMBundle
import MAMPolicy

/// The Graph documents `mamsim whatif` reads, as the tools that export a tenant write them:
/// files named on the command line, and folders read recursively — their `.json` files and
/// Microsoft365DSC's `.ps1` — in path order. A folder is what a tool wrote, or what a pull
/// request changed: a link in it that leads out of it is refused, never followed (whatif would
/// read and quote a file elsewhere). Each file is bounded before it is parsed, as every input
/// of mamsim is.
public enum WhatIfExports {
    /// Why the exports cannot be read: what is missing, a link out of its folder, a file too
    /// large or unreadable, or nothing What If answers from.
    public struct Refused: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// The files under `paths`, in the order named, a folder's in path order.
    public static func files(in paths: [String]) throws(Refused) -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw Refused(description: "\(path) does not exist; name Graph JSON files or folders of them")
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let found = (FileManager.default.enumerator(atPath: path)?.compactMap { $0 as? String } ?? [])
                .filter { $0.lowercased().hasSuffix(".json") || $0.lowercased().hasSuffix(".ps1") }.sorted()
            let root = URL(fileURLWithPath: path)
            for name in found {
                let file = (path as NSString).appendingPathComponent(name)
                guard ProjectRoot.contains(root, URL(fileURLWithPath: file)) else {
                    throw Refused(description: "\(file) is a link to \(URL(fileURLWithPath: file).resolvingSymlinksInPath().path), outside \(path); an export folder's files are read only inside it — copy the file in, or name it on the command line")
                }
                files.append(file)
            }
        }
        return files
    }

    /// The bytes of an export, bounded before it is parsed (a JSON export is read at about ten
    /// times its size in memory).
    static func contents(of file: String) throws(Refused) -> Data {
        do { return try InputFile.contents(of: URL(fileURLWithPath: file)) } catch let tooLarge as InputFile.TooLarge {
            throw Refused(description: tooLarge.description)
        } catch {
            throw Refused(description: "\(file) cannot be read (\(error.localizedDescription))")
        }
    }

    /// Every Graph document under `paths`, imported in path order, with the warnings and the
    /// objects skipped to show. Throws `Refused`, or the import error of a document that does
    /// not import (it names the file and the object).
    public static func load(_ paths: [String]) throws -> (WhatIfPolicies, [String]) {
        let files = try files(in: paths)
        var policies = WhatIfPolicies()
        var notes: [String] = []
        var skippedAll: [String] = []
        for file in files {
            let data = try contents(of: file)
            let (warnings, skipped) = file.lowercased().hasSuffix(".ps1")
                ? try policies.add(dscExport: String(decoding: data, as: UTF8.self), source: file)
                : try policies.add(document: [UInt8](data), source: file)
            notes += warnings + skipped.map { "skipped \($0)" }
            skippedAll += skipped
        }
        try refuseNothingToAnswer(policies, paths: paths, files: files.count, skipped: skippedAll)
        notes += policies.attachAssignments()
        if policies.protections.isEmpty { notes.append("no iosManagedAppProtection among \(files.count) file\(files.count == 1 ? "" : "s"): every app is unprotected") }
        for p in policies.protections where p.assignments.isEmpty {
            notes.append("policy \"\(p.title)\" has no assignments (export it with $expand=assignments): it applies to no persona")
        }
        return (policies, notes)
    }

    /// Nothing What If evaluates (a compliance or configuration export): refused, naming what
    /// was found — never "every app is unprotected" with a green gate.
    static func refuseNothingToAnswer(_ policies: WhatIfPolicies, paths: [String], files: Int, skipped skippedAll: [String]) throws(Refused) {
        guard policies.protections.isEmpty && policies.conditionalAccess.isEmpty else { return }
        let found = skippedAll.isEmpty ? "nothing whatif reads" : "\(skippedAll.count) object\(skippedAll.count == 1 ? "" : "s") of other kinds: " + skippedAll.prefix(3).joined(separator: "; ") + (skippedAll.count > 3 ? "; …" : "")
        throw Refused(description: "\(paths.joined(separator: ", ")): no iosManagedAppProtection and no conditionalAccessPolicy among \(files) file\(files == 1 ? "" : "s") (\(found)); What If answers from app protection and conditional access policies: export those (docs/WHATIF.md, \"What it reads\")")
    }
}
