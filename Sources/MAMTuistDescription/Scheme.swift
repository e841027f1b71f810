// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// A scheme: what to build, run, test, profile, analyze and archive.
public struct Scheme: Equatable, Codable, Sendable {
    public var name: String
    /// Whether the scheme is shared (checked in, visible to `xcodebuild`).
    public var shared: Bool
    /// Whether the scheme is hidden from Xcode's scheme menu.
    public var hidden: Bool
    public var buildAction: BuildAction?
    public var testAction: TestAction?
    public var runAction: RunAction?
    public var archiveAction: ArchiveAction?
    public var profileAction: ProfileAction?
    public var analyzeAction: AnalyzeAction?

    /// Every part given (declared so that the older public `init(name:…)` can sit beside it).
    init(_ name: String, shared: Bool, hidden: Bool, buildAction: BuildAction?, testAction: TestAction?, runAction: RunAction?,
         archiveAction: ArchiveAction?, profileAction: ProfileAction?, analyzeAction: AnalyzeAction?) {
        self.name = name
        self.shared = shared
        self.hidden = hidden
        self.buildAction = buildAction
        self.testAction = testAction
        self.runAction = runAction
        self.archiveAction = archiveAction
        self.profileAction = profileAction
        self.analyzeAction = analyzeAction
    }

    public static func scheme(
        name: String,
        shared: Bool = true,
        hidden: Bool = false,
        buildAction: BuildAction? = nil,
        testAction: TestAction? = nil,
        runAction: RunAction? = nil,
        archiveAction: ArchiveAction? = nil,
        profileAction: ProfileAction? = nil,
        analyzeAction: AnalyzeAction? = nil
    ) -> Self {
        Scheme(name, shared: shared, hidden: hidden, buildAction: buildAction, testAction: testAction, runAction: runAction,
               archiveAction: archiveAction, profileAction: profileAction, analyzeAction: analyzeAction)
    }
}

/// A target, in this project or the project in the folder `projectPath`.
public struct TargetReference: Hashable, Codable, ExpressibleByStringInterpolation, Sendable {
    public var projectPath: Path?
    public var targetName: String

    init(projectPath: Path?, target: String) {
        self.projectPath = projectPath
        targetName = target
    }

    public init(stringLiteral value: String) {
        self.init(projectPath: nil, target: value)
    }

    public static func project(path: Path, target: String) -> TargetReference {
        TargetReference(projectPath: path, target: target)
    }

    public static func target(_ name: String) -> TargetReference {
        TargetReference(projectPath: nil, target: name)
    }
}

/// The order in which a scheme builds its targets.
public enum BuildOrder: Codable, Sendable {
    /// By the dependency graph (the default).
    case dependency
    /// In the order listed; Xcode may stop honouring it.
    case manual
}

/// A script run before or after an action.
public struct ExecutionAction: Equatable, Codable, Sendable {
    public var title: String
    public var scriptText: String
    /// The target whose build settings the script sees.
    public var target: TargetReference?
    /// The shell; nil lets Xcode choose.
    public var shellPath: String?

    public static func executionAction(
        title: String = "Run Script",
        scriptText: String,
        target: TargetReference? = nil,
        shellPath: String? = nil
    ) -> Self {
        ExecutionAction(title: title, scriptText: scriptText, target: target, shellPath: shellPath)
    }
}

/// A scheme's build action.
public struct BuildAction: Equatable, Codable, Sendable {
    public var targets: [TargetReference]
    /// For which actions each target is built; a target not here is built for all.
    public var buildFor: [TargetReference: Set<BuildActionTarget.BuildFor>]
    public var preActions: [ExecutionAction]
    public var postActions: [ExecutionAction]
    public var buildOrder: BuildOrder
    public var runPostActionsOnFailure: Bool
    /// Whether Xcode may find dependencies implicitly.
    public var findImplicitDependencies: Bool

    public static func buildAction(
        targets: [TargetReference],
        preActions: [ExecutionAction] = [],
        postActions: [ExecutionAction] = [],
        buildOrder: BuildOrder = .dependency,
        runPostActionsOnFailure: Bool = false,
        findImplicitDependencies: Bool = true
    ) -> BuildAction {
        BuildAction(targets: targets, buildFor: [:], preActions: preActions, postActions: postActions, buildOrder: buildOrder,
                    runPostActionsOnFailure: runPostActionsOnFailure, findImplicitDependencies: findImplicitDependencies)
    }

    /// A build action whose targets each say for which actions they are built.
    public static func buildAction(
        buildActionTargets: [BuildActionTarget],
        preActions: [ExecutionAction] = [],
        postActions: [ExecutionAction] = [],
        buildOrder: BuildOrder = .dependency,
        runPostActionsOnFailure: Bool = false,
        findImplicitDependencies: Bool = true
    ) -> BuildAction {
        var targets: [TargetReference] = []
        var buildFor: [TargetReference: Set<BuildActionTarget.BuildFor>] = [:]
        for entry in buildActionTargets {
            if buildFor[entry.target] == nil { targets.append(entry.target) }
            buildFor[entry.target, default: []].formUnion(entry.buildFor)
        }
        return BuildAction(targets: targets, buildFor: buildFor, preActions: preActions, postActions: postActions, buildOrder: buildOrder,
                           runPostActionsOnFailure: runPostActionsOnFailure, findImplicitDependencies: findImplicitDependencies)
    }
}

/// A target of a build action and the actions it is built for.
public struct BuildActionTarget: Equatable, Codable, Sendable {
    public enum BuildFor: String, Codable, CaseIterable, Sendable {
        case analyzing
        case archiving
        case profiling
        case running
        case testing
    }

    public var target: TargetReference
    public var buildFor: Set<BuildFor>

    public static func target(_ name: String, buildFor: Set<BuildFor> = Set(BuildFor.allCases)) -> BuildActionTarget {
        BuildActionTarget(target: .target(name), buildFor: buildFor)
    }

    public static func project(path: Path, target: String, buildFor: Set<BuildFor> = Set(BuildFor.allCases)) -> BuildActionTarget {
        BuildActionTarget(target: .project(path: path, target: target), buildFor: buildFor)
    }
}

/// What a run or profile action launches: a chosen target, or ask at launch.
public enum Executable: Equatable, Codable, Sendable {
    case askOnLaunch
    /// The target, or nil for the default.
    case executable(TargetReference?)
}

/// Whether the run action launches the app or waits for it to be launched.
public enum LaunchStyle: Codable, Sendable {
    case automatically
    case waitForExecutableToBeLaunched
}
