public import Foundation

/// Reading a file the user or a repository gave (a scenario, a project file, a plist, a Graph
/// export, a declaration): bounded, so a huge file — or one that never ends, a FIFO, a
/// `/dev/zero` — is a clear error instead of gigabytes of memory.
public enum InputFile {
    /// The largest input file mamsim reads: far beyond any real project file or policy
    /// export (a large app's project.pbxproj is a few MiB).
    public static let limit = 64 << 20

    public struct TooLarge: Error, Sendable, CustomStringConvertible {
        public let path: String
        public let limit: Int
        public var description: String {
            "\(path) is larger than \(limit >> 20) MiB, the most mamsim reads from one input file; check that it is the file you meant"
        }
    }

    /// The UTF-8 text of `url`, or `nil` when it cannot be read, is not UTF-8 or is larger
    /// than `limit`: what a reader that says "cannot be read" in its own words takes.
    public static func text(of url: URL, limit: Int = InputFile.limit) -> String? {
        (try? contents(of: url, limit: limit)).flatMap { String(data: $0, encoding: .utf8) }
    }

    /// The bytes of `url`, at most `limit` of them; throws `TooLarge` beyond, or the error
    /// that kept it from being read.
    public static func contents(of url: URL, limit: Int = InputFile.limit) throws -> Data {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var data = Data()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            data.append(chunk)
            if data.count > limit { throw TooLarge(path: url.path, limit: limit) }
        }
        return data
    }
}
