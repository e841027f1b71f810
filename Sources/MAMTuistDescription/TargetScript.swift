// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// A run-script build phase, before (`pre`) or after (`post`) the sources and resources phases.
public struct TargetScript: Codable, Equatable, Sendable {
    /// When the script runs.
    public enum Order: String, Codable, Equatable, Sendable {
        case pre
        case post
    }

    /// What the phase runs.
    public enum Script: Equatable, Codable, Sendable {
        /// A tool looked up on the PATH, with arguments.
        case tool(path: String, args: [String])
        /// A script file, with arguments.
        case scriptPath(path: Path, args: [String])
        /// The script's text.
        case embedded(String)
    }

    /// A file-list path (`.xcfilelist`): one that exists, or one Tuist creates empty.
    public enum FileListPath: ExpressibleByStringInterpolation, Codable, Hashable, Sendable {
        case path(Path)
        case generated(Path)

        public var path: Path {
            switch self {
            case let .path(path), let .generated(path): path
            }
        }

        public static func path(_ pathString: String) -> FileListPath {
            .path(Path.path(pathString))
        }

        public static func generated(_ pathString: String) -> FileListPath {
            .generated(Path.relativeToManifest(pathString))
        }

        public static func relativeToCurrentFile(_ pathString: String, callerPath: StaticString = #filePath) -> FileListPath {
            .path(Path.relativeToCurrentFile(pathString, callerPath: callerPath))
        }

        public static func relativeToManifest(_ pathString: String) -> FileListPath {
            .path(Path.relativeToManifest(pathString))
        }

        public static func relativeToRoot(_ pathString: String) -> FileListPath {
            .path(Path.relativeToRoot(pathString))
        }

        public init(stringLiteral: String) {
            self = .path(Path(stringLiteral: stringLiteral))
        }
    }

    public var name: String
    public var script: Script
    public var order: Order
    public var inputPaths: [FileListGlob]
    public var inputFileListPaths: [FileListPath]
    public var outputPaths: [Path]
    public var outputFileListPaths: [FileListPath]
    /// Whether Xcode may skip the script when its inputs have not changed.
    public var basedOnDependencyAnalysis: Bool?
    public var runForInstallBuildsOnly: Bool
    public var shellPath: String
    public var dependencyFile: Path?

    init(
        name: String,
        script: Script = .embedded(""),
        order: Order,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [FileListPath] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [FileListPath] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) {
        self.name = name
        self.script = script
        self.order = order
        self.inputPaths = inputPaths
        self.inputFileListPaths = inputFileListPaths
        self.outputPaths = outputPaths
        self.outputFileListPaths = outputFileListPaths
        self.basedOnDependencyAnalysis = basedOnDependencyAnalysis
        self.runForInstallBuildsOnly = runForInstallBuildsOnly
        self.shellPath = shellPath
        self.dependencyFile = dependencyFile
    }
}

extension TargetScript {
    /// A script that runs before the sources and resources phases.
    public static func pre(
        path: Path,
        arguments: String...,
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [FileListPath] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [FileListPath] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        TargetScript(name: name, script: .scriptPath(path: path, args: arguments), order: .pre, inputPaths: inputPaths,
                     inputFileListPaths: inputFileListPaths, outputPaths: outputPaths, outputFileListPaths: outputFileListPaths,
                     basedOnDependencyAnalysis: basedOnDependencyAnalysis, runForInstallBuildsOnly: runForInstallBuildsOnly,
                     shellPath: shellPath, dependencyFile: dependencyFile)
    }

    /// A script that runs before the sources and resources phases.
    public static func pre(
        path: Path,
        arguments: [String],
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [FileListPath] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [FileListPath] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        TargetScript(name: name, script: .scriptPath(path: path, args: arguments), order: .pre, inputPaths: inputPaths,
                     inputFileListPaths: inputFileListPaths, outputPaths: outputPaths, outputFileListPaths: outputFileListPaths,
                     basedOnDependencyAnalysis: basedOnDependencyAnalysis, runForInstallBuildsOnly: runForInstallBuildsOnly,
                     shellPath: shellPath, dependencyFile: dependencyFile)
    }

    /// A script that runs before the sources and resources phases.
    public static func pre(
        tool: String,
        arguments: String...,
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [FileListPath] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [FileListPath] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        TargetScript(name: name, script: .tool(path: tool, args: arguments), order: .pre, inputPaths: inputPaths,
                     inputFileListPaths: inputFileListPaths, outputPaths: outputPaths, outputFileListPaths: outputFileListPaths,
                     basedOnDependencyAnalysis: basedOnDependencyAnalysis, runForInstallBuildsOnly: runForInstallBuildsOnly,
                     shellPath: shellPath, dependencyFile: dependencyFile)
    }

    /// A script that runs before the sources and resources phases.
    public static func pre(
        tool: String,
        arguments: [String],
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [FileListPath] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [FileListPath] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        TargetScript(name: name, script: .tool(path: tool, args: arguments), order: .pre, inputPaths: inputPaths,
                     inputFileListPaths: inputFileListPaths, outputPaths: outputPaths, outputFileListPaths: outputFileListPaths,
                     basedOnDependencyAnalysis: basedOnDependencyAnalysis, runForInstallBuildsOnly: runForInstallBuildsOnly,
                     shellPath: shellPath, dependencyFile: dependencyFile)
    }

    /// A script that runs before the sources and resources phases. `script` is its text.
    public static func pre(
        script: String,
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [FileListPath] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [FileListPath] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        TargetScript(name: name, script: .embedded(script), order: .pre, inputPaths: inputPaths,
                     inputFileListPaths: inputFileListPaths, outputPaths: outputPaths, outputFileListPaths: outputFileListPaths,
                     basedOnDependencyAnalysis: basedOnDependencyAnalysis, runForInstallBuildsOnly: runForInstallBuildsOnly,
                     shellPath: shellPath, dependencyFile: dependencyFile)
    }

    /// A script that runs after the sources and resources phases.
    public static func post(
        path: Path,
        arguments: String...,
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [FileListPath] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [FileListPath] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        TargetScript(name: name, script: .scriptPath(path: path, args: arguments), order: .post, inputPaths: inputPaths,
                     inputFileListPaths: inputFileListPaths, outputPaths: outputPaths, outputFileListPaths: outputFileListPaths,
                     basedOnDependencyAnalysis: basedOnDependencyAnalysis, runForInstallBuildsOnly: runForInstallBuildsOnly,
                     shellPath: shellPath, dependencyFile: dependencyFile)
    }

    /// A script that runs after the sources and resources phases.
    public static func post(
        path: Path,
        arguments: [String],
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [FileListPath] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [FileListPath] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        TargetScript(name: name, script: .scriptPath(path: path, args: arguments), order: .post, inputPaths: inputPaths,
                     inputFileListPaths: inputFileListPaths, outputPaths: outputPaths, outputFileListPaths: outputFileListPaths,
                     basedOnDependencyAnalysis: basedOnDependencyAnalysis, runForInstallBuildsOnly: runForInstallBuildsOnly,
                     shellPath: shellPath, dependencyFile: dependencyFile)
    }

    /// A script that runs after the sources and resources phases.
    public static func post(
        tool: String,
        arguments: String...,
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [FileListPath] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [FileListPath] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        TargetScript(name: name, script: .tool(path: tool, args: arguments), order: .post, inputPaths: inputPaths,
                     inputFileListPaths: inputFileListPaths, outputPaths: outputPaths, outputFileListPaths: outputFileListPaths,
                     basedOnDependencyAnalysis: basedOnDependencyAnalysis, runForInstallBuildsOnly: runForInstallBuildsOnly,
                     shellPath: shellPath, dependencyFile: dependencyFile)
    }

    /// A script that runs after the sources and resources phases.
    public static func post(
        tool: String,
        arguments: [String],
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [FileListPath] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [FileListPath] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        TargetScript(name: name, script: .tool(path: tool, args: arguments), order: .post, inputPaths: inputPaths,
                     inputFileListPaths: inputFileListPaths, outputPaths: outputPaths, outputFileListPaths: outputFileListPaths,
                     basedOnDependencyAnalysis: basedOnDependencyAnalysis, runForInstallBuildsOnly: runForInstallBuildsOnly,
                     shellPath: shellPath, dependencyFile: dependencyFile)
    }

    /// A script that runs after the sources and resources phases. `script` is its text.
    public static func post(
        script: String,
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [FileListPath] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [FileListPath] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        TargetScript(name: name, script: .embedded(script), order: .post, inputPaths: inputPaths,
                     inputFileListPaths: inputFileListPaths, outputPaths: outputPaths, outputFileListPaths: outputFileListPaths,
                     basedOnDependencyAnalysis: basedOnDependencyAnalysis, runForInstallBuildsOnly: runForInstallBuildsOnly,
                     shellPath: shellPath, dependencyFile: dependencyFile)
    }
}
