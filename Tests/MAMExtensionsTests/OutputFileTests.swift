import Foundation
import MAMActivation
import Testing

/// What mamsim writes (security issue 95, finding 4): a report, a scenario, a template, a plist
/// lint fixes — never through a link a repository commits, never over a folder, never leaving
/// half a file; a missing folder is made, an existing file replaced whole.
@Suite struct OutputFileTests {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-output-\(UUID().uuidString)").standardizedFileURL
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    func text(_ relative: String) -> String? { try? String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8) }

    @Test func aFileIsWrittenAndReplacedWholeInFoldersMadeForIt() throws {
        let file = root.appendingPathComponent("a/b/report.txt")
        try OutputFile.write(Data("one".utf8), to: file, within: root)
        try OutputFile.write(Data("two".utf8), to: file, within: root)
        #expect(text("a/b/report.txt") == "two")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("a/b").path) == ["report.txt"])
    }

    @Test func aLinkOrAFolderIsRefusedAndLeftAsItWas() throws {
        let victim = root.appendingPathComponent("victim.txt")
        try Data("untouched".utf8).write(to: victim)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("link.txt"), withDestinationURL: victim)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("folder"), withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: root.appendingPathComponent("folder/keep.txt"))
        for (name, why) in [("link.txt", "it is a link"), ("folder", "it is a folder")] {
            #expect {
                try OutputFile.write(Data("x".utf8), to: root.appendingPathComponent(name), within: root)
            } throws: { error in
                (error as? OutputFile.Refused)?.why.hasPrefix(why) == true
            }
        }
        #expect(text("victim.txt") == "untouched" && text("folder/keep.txt") == "mine")
        // Nothing of the refused writes is left beside them.
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: root.path)) == ["victim.txt", "link.txt", "folder"])
    }

    /// A link among the folders under the root (a repository's `mamsim-extensions` pointing out
    /// of the checkout) stops the write before anything is made through it; a link above the
    /// root, which the user named, does not.
    @Test func aLinkedFolderUnderTheRootIsRefused() throws {
        let outside = root.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let repo = root.appendingPathComponent("repo")
        try FileManager.default.createDirectory(at: repo, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: repo.appendingPathComponent("plugins"), withDestinationURL: outside)
        #expect {
            try OutputFile.write(Data("x".utf8), to: repo.appendingPathComponent("plugins/share/Info.plist"), within: repo)
        } throws: { error in
            (error as? OutputFile.Refused)?.why.contains("plugins is a link") == true
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
        let named = root.appendingPathComponent("named")
        try FileManager.default.createSymbolicLink(at: named, withDestinationURL: repo)
        try OutputFile.write(Data("y".utf8), to: named.appendingPathComponent("out/file.txt"), within: named.appendingPathComponent("out"))
        #expect(text("repo/out/file.txt") == "y")
    }

    /// An abandoned file (a report that failed half way) leaves nothing behind and the old
    /// file in place.
    @Test func anUncommittedFileLeavesNothing() throws {
        let file = root.appendingPathComponent("report.json")
        try Data("old".utf8).write(to: file)
        do {
            let writer = try OutputFile(file, within: root)
            try writer.write(Data("half".utf8))
        }
        #expect(text("report.json") == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["report.json"])
    }
}
