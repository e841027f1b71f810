import ArgumentParser

/// The command line: a thin `@main` over the modules.
@main
struct Mamsim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mamsim",
        abstract: "A simulated managed iOS device: apps and extensions as real processes, Intune app protection enforced by the host.",
        subcommands: [RunCommand.self, TestCommand.self, LintCommand.self, ConfigureCommand.self, ActivationCommand.self, BenchCommand.self])
}
