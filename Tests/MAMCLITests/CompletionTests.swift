import Foundation
import Testing

/// The shell completion scripts offer the reporter names and complete file paths where a
/// command takes files.
extension CLITests {
    @Suite struct CompletionTests {
        @Test func completionsNameReportersAndFiles() async throws {
            let zsh = try await CLI.run(["--generate-completion-script", "zsh"], timeout: 60)
            #expect(zsh.status == 0)
            #expect(zsh.stdout.contains("'human' 'json' 'sarif' 'junit' 'github-actions' 'xcode'"), "lint --reporter values")
            #expect(zsh.stdout.contains("*.yaml") || zsh.stdout.contains("yaml"), "scenario files are completed by extension")
            let bash = try await CLI.run(["--generate-completion-script", "bash"], timeout: 60)
            #expect(bash.status == 0 && bash.stdout.contains("sarif") && bash.stdout.contains("yaml"), "\(bash.stdout.prefix(400))")
        }
    }
}
