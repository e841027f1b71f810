import Foundation
import Testing

extension CLITests {
    /// docs/ARCHITECTURE.md's module table is held against Package.swift: every target has
    /// a row, no row names a target that is gone, and what a target imports is in its row.
    @Suite struct ArchitectureDocTests {
        static let external = ["Yams": "Yams", "Crypto": "swift-crypto", "_CryptoExtras": "swift-crypto", "X509": "swift-certificates",
                               "SwiftASN1": "swift-asn1", "GRDB": "GRDB", "ArgumentParser": "swift-argument-parser"]

        /// Each target of Package.swift and what it depends on, read from its text (running
        /// `swift package` from inside `swift test` would wait for the build folder's lock).
        static func packageTargets() throws -> [String: [String]] {
            // The fuzz targets, appended only with MAMSIM_FUZZ=1, are not the product's modules.
            let whole = try String(contentsOf: CLI.repo("Package.swift"), encoding: .utf8)
            let text = whole.components(separatedBy: "package.targets.append").first ?? whole
            let kinds = try Regex(#"\.(target|executableTarget|systemLibrary|testTarget)\("#)
            var result: [String: [String]] = [:]
            let starts = text.matches(of: kinds).map(\.range)
            for (k, start) in starts.enumerated() {
                if text[start].hasPrefix(".testTarget") { continue }
                let end = k + 1 < starts.count ? starts[k + 1].lowerBound : text.endIndex
                let block = String(text[start.upperBound..<end])
                guard let name = block.firstMatch(of: #/name:\s*"([^"]+)"/#)?.1 else { continue }
                var deps: [String] = []
                if let list = block.firstMatch(of: #/dependencies:\s*\[(.*?)\]/#.dotMatchesNewlines())?.1 {
                    for m in list.matches(of: #/(\.product\(name:\s*)?"([^"]+)"(,\s*package:\s*"[^"]+"\))?/#) { deps.append(String(m.2)) }
                }
                result[String(name)] = deps
            }
            return result
        }

        @Test func theModuleTableMatchesPackageSwift() throws {
            let imports = try Self.packageTargets()
            try #require(imports.count > 10, "Package.swift read: \(imports.keys.sorted())")
            let doc = try String(contentsOf: CLI.repo("docs/ARCHITECTURE.md"), encoding: .utf8)
            let section = try #require(doc.components(separatedBy: "## Modules (Sources/)").last?.components(separatedBy: "\n## ").first)
            var rows: [String: String] = [:]
            for line in section.split(separator: "\n") where line.hasPrefix("| `") {
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                guard cells.count >= 4 else { continue }
                rows[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[3]
            }
            #expect(Set(rows.keys) == Set(imports.keys), "in the table only: \(Set(rows.keys).subtracting(imports.keys).sorted()); in Package.swift only: \(Set(imports.keys).subtracting(rows.keys).sorted())")
            for (target, deps) in imports {
                guard let row = rows[target] else { continue }
                let allowed = Set(row.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                for dep in deps {
                    #expect(allowed.contains(Self.external[dep] ?? dep), "\(target) imports \(dep), which its row (\(row)) does not name")
                }
            }
        }

    }
}
