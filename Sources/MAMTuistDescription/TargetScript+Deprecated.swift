// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

// The older overloads that take file-list paths as `[Path]`.
extension TargetScript {
    @_disfavoredOverload
    @available(*, deprecated, message: "Pass [TargetScript.FileListPath]: a string literal, `.path(...)` or `.generated(...)`.")
    public static func pre(
        path: Path,
        arguments: String...,
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [Path] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [Path] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        pre(path: path, arguments: arguments, name: name, inputPaths: inputPaths,
            inputFileListPaths: inputFileListPaths.map(FileListPath.path), outputPaths: outputPaths,
            outputFileListPaths: outputFileListPaths.map(FileListPath.path), basedOnDependencyAnalysis: basedOnDependencyAnalysis,
            runForInstallBuildsOnly: runForInstallBuildsOnly, shellPath: shellPath, dependencyFile: dependencyFile)
    }

    @_disfavoredOverload
    @available(*, deprecated, message: "Pass [TargetScript.FileListPath]: a string literal, `.path(...)` or `.generated(...)`.")
    public static func pre(
        path: Path,
        arguments: [String],
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [Path] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [Path] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        pre(path: path, arguments: arguments, name: name, inputPaths: inputPaths,
            inputFileListPaths: inputFileListPaths.map(FileListPath.path), outputPaths: outputPaths,
            outputFileListPaths: outputFileListPaths.map(FileListPath.path), basedOnDependencyAnalysis: basedOnDependencyAnalysis,
            runForInstallBuildsOnly: runForInstallBuildsOnly, shellPath: shellPath, dependencyFile: dependencyFile)
    }

    @_disfavoredOverload
    @available(*, deprecated, message: "Pass [TargetScript.FileListPath]: a string literal, `.path(...)` or `.generated(...)`.")
    public static func pre(
        tool: String,
        arguments: String...,
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [Path] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [Path] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        pre(tool: tool, arguments: arguments, name: name, inputPaths: inputPaths,
            inputFileListPaths: inputFileListPaths.map(FileListPath.path), outputPaths: outputPaths,
            outputFileListPaths: outputFileListPaths.map(FileListPath.path), basedOnDependencyAnalysis: basedOnDependencyAnalysis,
            runForInstallBuildsOnly: runForInstallBuildsOnly, shellPath: shellPath, dependencyFile: dependencyFile)
    }

    @_disfavoredOverload
    @available(*, deprecated, message: "Pass [TargetScript.FileListPath]: a string literal, `.path(...)` or `.generated(...)`.")
    public static func pre(
        tool: String,
        arguments: [String],
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [Path] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [Path] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        pre(tool: tool, arguments: arguments, name: name, inputPaths: inputPaths,
            inputFileListPaths: inputFileListPaths.map(FileListPath.path), outputPaths: outputPaths,
            outputFileListPaths: outputFileListPaths.map(FileListPath.path), basedOnDependencyAnalysis: basedOnDependencyAnalysis,
            runForInstallBuildsOnly: runForInstallBuildsOnly, shellPath: shellPath, dependencyFile: dependencyFile)
    }

    @_disfavoredOverload
    @available(*, deprecated, message: "Pass [TargetScript.FileListPath]: a string literal, `.path(...)` or `.generated(...)`.")
    public static func post(
        path: Path,
        arguments: String...,
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [Path] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [Path] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        post(path: path, arguments: arguments, name: name, inputPaths: inputPaths,
            inputFileListPaths: inputFileListPaths.map(FileListPath.path), outputPaths: outputPaths,
            outputFileListPaths: outputFileListPaths.map(FileListPath.path), basedOnDependencyAnalysis: basedOnDependencyAnalysis,
            runForInstallBuildsOnly: runForInstallBuildsOnly, shellPath: shellPath, dependencyFile: dependencyFile)
    }

    @_disfavoredOverload
    @available(*, deprecated, message: "Pass [TargetScript.FileListPath]: a string literal, `.path(...)` or `.generated(...)`.")
    public static func post(
        path: Path,
        arguments: [String],
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [Path] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [Path] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        post(path: path, arguments: arguments, name: name, inputPaths: inputPaths,
            inputFileListPaths: inputFileListPaths.map(FileListPath.path), outputPaths: outputPaths,
            outputFileListPaths: outputFileListPaths.map(FileListPath.path), basedOnDependencyAnalysis: basedOnDependencyAnalysis,
            runForInstallBuildsOnly: runForInstallBuildsOnly, shellPath: shellPath, dependencyFile: dependencyFile)
    }

    @_disfavoredOverload
    @available(*, deprecated, message: "Pass [TargetScript.FileListPath]: a string literal, `.path(...)` or `.generated(...)`.")
    public static func post(
        tool: String,
        arguments: String...,
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [Path] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [Path] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        post(tool: tool, arguments: arguments, name: name, inputPaths: inputPaths,
            inputFileListPaths: inputFileListPaths.map(FileListPath.path), outputPaths: outputPaths,
            outputFileListPaths: outputFileListPaths.map(FileListPath.path), basedOnDependencyAnalysis: basedOnDependencyAnalysis,
            runForInstallBuildsOnly: runForInstallBuildsOnly, shellPath: shellPath, dependencyFile: dependencyFile)
    }

    @_disfavoredOverload
    @available(*, deprecated, message: "Pass [TargetScript.FileListPath]: a string literal, `.path(...)` or `.generated(...)`.")
    public static func post(
        tool: String,
        arguments: [String],
        name: String,
        inputPaths: [FileListGlob] = [],
        inputFileListPaths: [Path] = [],
        outputPaths: [Path] = [],
        outputFileListPaths: [Path] = [],
        basedOnDependencyAnalysis: Bool? = nil,
        runForInstallBuildsOnly: Bool = false,
        shellPath: String = "/bin/sh",
        dependencyFile: Path? = nil
    ) -> TargetScript {
        post(tool: tool, arguments: arguments, name: name, inputPaths: inputPaths,
            inputFileListPaths: inputFileListPaths.map(FileListPath.path), outputPaths: outputPaths,
            outputFileListPaths: outputFileListPaths.map(FileListPath.path), basedOnDependencyAnalysis: basedOnDependencyAnalysis,
            runForInstallBuildsOnly: runForInstallBuildsOnly, shellPath: shellPath, dependencyFile: dependencyFile)
    }
}
