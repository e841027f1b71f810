import MAMModel

/// One scenario verb, whole: its argument keys and their types, the outcomes it may answer, a
/// line that says what it does, an example, how its arguments are read and how it runs against
/// the host. The loader, the runner, `docs/SCENARIOS.md`'s verb reference and
/// `schemas/scenario.schema.json` all read the verb from here (`Verb.all` lists every one), so
/// a new verb is a new file and a line in that list.
protocol StepVerb: Sendable, Hashable {
    /// The verb's spelling in scenario files.
    static var name: String { get }
    /// The contract that introduced it: `v1`, `v1.1`, `v1.2`, or `mamsim` for this project's own.
    static var since: String { get }
    /// What the verb does, in one line.
    static var summary: String { get }
    /// A step that uses it, in YAML flow style.
    static var example: String { get }
    static var arguments: [VerbArgument] { get }
    /// What `expect:` may say after this verb.
    static var outcomes: [OutcomeForm] { get }
    /// The outcome a step without `expect:` must still have (`expectState` is a check by nature).
    static var implicitExpectation: ExpectedOutcome? { get }

    /// Reads the arguments; problems go to the reader (the step is dropped if any was found).
    init(_ a: VerbArgumentReader)
    /// The app or extension whose code the step runs, started first if it is an extension
    /// that is not running (as iOS does when an extension is used); `nil` for device-wide steps.
    var actingApp: String? { get }
    func run(_ run: StepRun) async -> StepOutcome
}

extension StepVerb {
    static var implicitExpectation: ExpectedOutcome? { nil }
    var actingApp: String? { nil }
}

/// What a step produced, why, and between whom (the report's line).
typealias StepOutcome = (observed: Observed, explanation: String, parties: String)

/// One argument key of a verb.
struct VerbArgument: Sendable {
    enum Kind: Sendable, Equatable {
        /// A fleet app's handle; `extensions`: an extension's handle is accepted too.
        case app(extensions: Bool)
        /// A scenario account (UPN or OID); `unmanaged`: `""` names the unmanaged identity.
        case account(unmanaged: Bool)
        case text
        case bool
        /// One of these words.
        case choice([String])
        /// An ISO-8601 duration.
        case duration
        /// A share item: `{type, text|data|file}`.
        case item
        case list
        case mapping
    }

    var key: String
    var kind: Kind
    var required: Bool
    /// `null` is a meaningful value (e.g. `policy: null` untargets).
    var nullable: Bool
    var about: String

    static func required(_ key: String, _ kind: Kind, nullable: Bool = false, _ about: String) -> VerbArgument {
        VerbArgument(key: key, kind: kind, required: true, nullable: nullable, about: about)
    }

    static func optional(_ key: String, _ kind: Kind, nullable: Bool = true, _ about: String) -> VerbArgument {
        VerbArgument(key: key, kind: kind, required: false, nullable: nullable, about: about)
    }

    /// The common `app:` argument.
    static func app(extensions: Bool = true) -> VerbArgument {
        .required("app", .app(extensions: extensions), extensions ? "the app or extension" : "the app")
    }

    /// The common `window:` argument (v1.1).
    static let window = VerbArgument.optional("window", .text, "the scene it happens in (absent: the main one)")
}

/// A scenario step's verb with its typed arguments.
public struct StepArguments: Sendable, Hashable, CustomStringConvertible {
    let value: any StepVerb

    init(_ value: some StepVerb) { self.value = value }

    public var verb: Verb { Verb(type(of: value)) }
    public var description: String { String(describing: value) }

    /// The arguments as a verb's own type (`nil` if the step is another verb).
    func `as`<V: StepVerb>(_: V.Type) -> V? { value as? V }

    public static func == (a: Self, b: Self) -> Bool { AnyHashable(a.value) == AnyHashable(b.value) }
    public func hash(into hasher: inout Hasher) { AnyHashable(value).hash(into: &hasher) }
}

/// A verb by name (the spelling in files), from the registry.
public struct Verb: Sendable, Hashable, CustomStringConvertible {
    let type: any StepVerb.Type
    public var rawValue: String { type.name }
    public var description: String { rawValue }

    init(_ type: any StepVerb.Type) { self.type = type }

    public init?(rawValue: String) {
        guard let type = Verb.registry.first(where: { $0.name == rawValue }) else { return nil }
        self.type = type
    }

    public static var allCases: [Verb] { registry.map(Verb.init) }

    var summary: String { type.summary }
    var since: String { type.since }
    var example: String { type.example }
    var arguments: [VerbArgument] { type.arguments }
    var outcomes: [OutcomeForm] { type.outcomes }

    /// The outcome a step of this verb must have when it says no `expect:`.
    public var implicitExpectation: ExpectedOutcome? { type.implicitExpectation }

    public static func == (a: Verb, b: Verb) -> Bool { a.rawValue == b.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

extension StepVerb {
    /// The step's arguments read through `a` (the loader drops them if a problem was found).
    static func load(_ a: VerbArgumentReader) -> StepArguments { StepArguments(Self(a)) }
}
typealias OutcomeForm = Loading.OutcomeForm

/// A verb that takes only an app (not an extension) and answers `ok` or why not: the lifecycle
/// verbs share their arguments, outcomes and reading.
protocol AppLifecycleVerb: StepVerb {
    var app: String { get }
    init(app: String)
}

extension AppLifecycleVerb {
    static var arguments: [VerbArgument] { [.app(extensions: false)] }
    static var outcomes: [OutcomeForm] { [.ok, .blocked, .failedBecause] }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(extensions: false)) }
}

/// A verb about one account in one app (not an extension), answering `ok` or why not.
protocol AppAccountVerb: StepVerb {
    var app: String { get }
    var account: Account { get }
    init(app: String, account: Account)
}

extension AppAccountVerb {
    static var arguments: [VerbArgument] { [.app(extensions: false), .required("account", .account(unmanaged: false), "the account")] }
    static var outcomes: [OutcomeForm] { [.ok, .blocked, .failedBecause] }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(extensions: false), account: a.account("account")) }
}

/// A verb about one file an app holds (its container, or an app group it is entitled to),
/// acting in that app.
protocol AppFileVerb: StepVerb {
    var app: String { get }
    var path: String { get }
    init(app: String, path: String)
    /// What `path` may name.
    static var pathAbout: String { get }
}

extension AppFileVerb {
    static var pathAbout: String { "a path in the app's container" }
    static var arguments: [VerbArgument] { [.app(), .required("path", .text, pathAbout)] }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(), path: a.text("path")) }
    var actingApp: String? { app }
}
