import Foundation
import MAMBundle
import MAMDocument
@testable import MAMExtensions
import Testing
import Yams

/// A YAML alias bomb (security issue 70, finding 4): a kilobyte whose aliases expand to a
/// billion nodes is refused at the alias, in every reader, before anything walks it.
struct BoundedYAMLTests {
    /// Nine levels of nine aliases: 9^9 strings once expanded, 600 bytes written.
    static let bomb = """
        name: bomb
        a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
        b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
        c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
        d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
        e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
        f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
        g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
        h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
        i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
        steps: []
        """

    /// Counts the nodes of `node` expanded, as every reader after the composer walks it.
    static func expanded(_ node: Yams.Node) -> Int {
        switch node {
        case .mapping(let m): 1 + m.reduce(0) { $0 + expanded($1.key) + expanded($1.value) }
        case .sequence(let s): 1 + s.reduce(0) { $0 + expanded($1) }
        default: 1
        }
    }

    /// Positive control: the same shape two levels deep composes with Yams alone and expands
    /// by the factor the bomb multiplies nine times; the bounded reader refuses the bomb at the
    /// first alias whose expansion passes the bound, by line.
    @Test func anAliasBombIsRefusedAtTheAlias() throws {
        let small = Self.bomb.split(separator: "\n").prefix(4).joined(separator: "\n")
        let control = try #require(try Yams.compose(yaml: small))
        #expect(Self.expanded(control) > 9 * 9, "aliases expand: \(Self.expanded(control)) nodes from 4 lines")
        #expect(try BoundedYAML.compose(yaml: small) != nil)
        do {
            _ = try BoundedYAML.compose(yaml: Self.bomb)
            Issue.record("the bomb was composed")
        } catch let error as BoundedYAML.TooLarge {
            // a…e expand to 74,000 nodes, each *e to 66,430: the second *e of line 7 crosses.
            #expect(error.line == 7 && error.column == 11, "\(error)")
            #expect(error.problem.contains("*e"), "\(error)")
            #expect(error.problem.contains("200000 nodes"), "\(error)")
        }
    }

    /// An alias used as a key is hashed whole while composing: refused where it is written.
    @Test func anAliasAsAKeyIsRefusedBeforeComposing() throws {
        let text = "a: &a [x, y]\nm:\n  ? *a\n  : 1\n"
        #expect(try Yams.compose(yaml: text) != nil, "positive control: Yams composes it")
        #expect(throws: BoundedYAML.TooLarge.self) { try BoundedYAML.compose(yaml: text) }
        let flat = "a: &a x\nm:\n  *a : 1\n"
        do { _ = try BoundedYAML.compose(yaml: flat); Issue.record("composed") } catch let e as BoundedYAML.TooLarge { #expect(e.line == 3) }
    }

    /// Every line break YAML knows (libyaml's: CR LF, CR, LF, NEL, LS, PS) ends a line for the
    /// checks as it does for the parser. A text saved with Windows line ends was one line to
    /// the alias-key check, and an alias bomb used as keys below its first line hung the
    /// composer (minutes of hashing) instead of being refused at its line.
    @Test(arguments: ["\r\n", "\r", "\n", "\u{85}", "\u{2028}", "\u{2029}"])
    func anAliasKeyIsRefusedWhateverTheLineBreaks(_ br: String) throws {
        var bomb = ["a0: &a0 [x, x]"]
        for i in 1..<40 { bomb.append("a\(i): &a\(i) [*a\(i - 1), *a\(i - 1)]") }
        bomb += ["m:", "  *a39 : 1", "  *a38 : 2", "steps: []"]
        let text = bomb.joined(separator: br) + br
        do { _ = try BoundedYAML.compose(yaml: text); Issue.record("composed") } catch let e as BoundedYAML.TooLarge {
            #expect(e.line == 42 && e.column == 3, "\(e)")
        }
        // Positive control: the parser reads each of these breaks as a line's end.
        let two = try #require(try Yams.compose(yaml: "a: 1" + br + "b: 2" + br))
        #expect(two["b"]?.mark?.line == 2, "\(br.unicodeScalars.map { String($0.value, radix: 16) })")
        #expect(BoundedYAML.lines("a" + br + "b" + br + "c") == ["a", "b", "c"])
    }

    /// Nesting past the depth bound is refused; ordinary anchors and aliases still load.
    @Test func deepNestingIsRefusedAndOrdinaryAliasesLoad() throws {
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        #expect(try Yams.compose(yaml: deep) != nil, "positive control: Yams composes it")
        #expect(throws: BoundedYAML.TooLarge.self) { try BoundedYAML.compose(yaml: deep) }
        let ordinary = "base: &base {sdk: true}\napps:\n  - <<: *base\n    id: mail\n  - id: notes\n    settings: *base\n"
        let loaded = try #require(try BoundedYAML.load(yaml: ordinary) as? [String: Any])
        #expect((loaded["apps"] as? [Any])?.count == 2)
        #expect(BoundedYAMLTests.markdownStarIsNoAlias())
    }

    /// `*Note*: text` in a block scalar is text, not an alias used as a key.
    static func markdownStarIsNoAlias() -> Bool {
        (try? BoundedYAML.compose(yaml: "description: |\n  *Note*: read this\n")) != nil
    }

    /// Every reader uses the bound: an XcodeGen spec and a lint configuration.
    @Test func theSpecAndLintConfigurationReadersAreBounded() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-bomb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let spec = folder.appendingPathComponent("project.yml")
        try Self.bomb.write(to: spec, atomically: true, encoding: .utf8)
        do {
            _ = try XcodeGenSpec.read(spec)
            Issue.record("the spec was read")
        } catch {
            #expect(error.problem.contains("200000 nodes"), "\(error.problem)")
        }
        #expect(throws: LintInputError.self) { try LintConfiguration(yaml: Self.bomb, file: ".mamsim-lint.yml") }
    }
}
