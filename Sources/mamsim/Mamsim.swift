import ArgumentParser
import Foundation
import MAMDevice
import MAMDocument
import MAMScenario
import MAMLoop
import MAMWire

/// The release of this program, printed by `mamsim --version`.
let mamsimVersion = "0.13.0"

/// The command line: a thin `@main` over the modules.
@main
struct Mamsim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mamsim",
        abstract: "A simulated managed iOS device: apps and extensions as real processes, Intune app protection enforced by the host.",
        version: "mamsim \(mamsimVersion) (wire protocol \(Hello.currentProtocolVersion), scenario format 1.5)",
        subcommands: [RunCommand.self, InitCommand.self, TestCommand.self, MergeCommand.self, ReportCommand.self, MatrixCommand.self, WhatIfCommand.self, MutateCommand.self, LintCommand.self, ConfigureCommand.self, ActivationCommand.self, BenchCommand.self, SchemaCommand.self])

    /// The program's entry: a write to a child or a reader that went away (`| head`) fails
    /// with EPIPE instead of killing mamsim, then the command line is parsed and run.
    static func main() async {
        System.ignoreBrokenPipes()
        // Read by every host of any command: a mistyped value is said once, up front.
        if let unknown = BrokerCPU.unknownSetting(ProcessInfo.processInfo.environment["MAMSIM_BROKER_CPU"]) { Terminal.warning(unknown) }
        // A mistyped command (`mamsim rn`) is named with the nearest one, not taken for
        // unexpected arguments.
        let arguments = Array(CommandLine.arguments.dropFirst())
        let commands = configuration.subcommands.map { $0._commandName } + ["help"]
        if let first = arguments.first, !first.hasPrefix("-"), !commands.contains(first) {
            let hint = Suggestion.closest(to: first, among: commands).map { "; did you mean `mamsim \($0)`?" } ?? ""
            Terminal.error("no command \"\(first)\"\(hint.isEmpty ? "." : hint) The commands are \(commands.dropLast().joined(separator: ", ")) (`mamsim --help`).")
            Foundation.exit(2)
        }
        await main(nil)
    }
}
