// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// Accessors Tuist writes for a kind of resource (SwiftGen parsers, Stencil templates).
public struct ResourceSynthesizer: Codable, Equatable, Sendable {
    public var templateType: TemplateType
    public var parser: Parser
    public var parserOptions: [String: Parser.Option]
    public var extensions: Set<String>
    /// Parameters the template reads as `{{param.key}}`, over Tuist's own.
    public var context: [String: Parser.Option]

    public init(
        templateType: TemplateType,
        parser: Parser,
        parserOptions: [String: Parser.Option],
        extensions: Set<String>,
        context: [String: Parser.Option] = [:]
    ) {
        self.templateType = templateType
        self.parser = parser
        self.parserOptions = parserOptions
        self.extensions = extensions
        self.context = context
    }

    /// Where the template comes from.
    public enum TemplateType: Codable, Equatable, Sendable {
        /// A plugin's template named `resourceName`.
        case plugin(name: String, resourceName: String)
        /// `Tuist/ResourceSynthesizers/<resourceName>.stencil`, else Tuist's own.
        case defaultTemplate(resourceName: String)
    }

    /// The SwiftGen parser that reads the files.
    public enum Parser: String, Codable, Sendable {
        case strings
        case assets
        case plists
        case fonts
        case coreData
        case interfaceBuilder
        case json
        case yaml
        case files

        /// A parser option or context value.
        public enum Option: Equatable, Codable, Sendable, ExpressibleByStringInterpolation,
            ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
            ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral
        {
            case string(String)
            case integer(Int)
            case double(Double)
            case boolean(Bool)
            case dictionary([String: Option])
            case array([Option])

            public init(stringLiteral value: String) { self = .string(value) }
            public init(integerLiteral value: Int) { self = .integer(value) }
            public init(floatLiteral value: Double) { self = .double(value) }
            public init(booleanLiteral value: Bool) { self = .boolean(value) }

            public init(dictionaryLiteral elements: (String, Self)...) {
                self = .dictionary(Dictionary(uniqueKeysWithValues: elements))
            }

            public init(arrayLiteral elements: Self...) {
                self = .array(elements)
            }
        }
    }
}

extension ResourceSynthesizer {
    private static func make(_ parser: Parser, _ resourceName: String, plugin: String?, parserOptions: [String: Parser.Option],
                             extensions: Set<String>, context: [String: Parser.Option]) -> Self {
        let type: TemplateType = plugin.map { .plugin(name: $0, resourceName: resourceName) } ?? .defaultTemplate(resourceName: resourceName)
        return ResourceSynthesizer(templateType: type, parser: parser, parserOptions: parserOptions, extensions: extensions, context: context)
    }

    /// Strings accessors from the template in `Tuist/ResourceSynthesizers`, else Tuist's.
    public static func strings(parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.strings, "Strings", plugin: nil, parserOptions: parserOptions, extensions: ["strings", "stringsdict"], context: context)
    }

    /// Strings accessors from a plugin's template.
    public static func strings(plugin: String, parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.strings, "Strings", plugin: plugin, parserOptions: parserOptions, extensions: ["strings", "stringsdict"], context: context)
    }
    /// Assets accessors from the template in `Tuist/ResourceSynthesizers`, else Tuist's.
    public static func assets(parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.assets, "Assets", plugin: nil, parserOptions: parserOptions, extensions: ["xcassets"], context: context)
    }

    /// Assets accessors from a plugin's template.
    public static func assets(plugin: String, parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.assets, "Assets", plugin: plugin, parserOptions: parserOptions, extensions: ["xcassets"], context: context)
    }
    /// Fonts accessors from the template in `Tuist/ResourceSynthesizers`, else Tuist's.
    public static func fonts(parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.fonts, "Fonts", plugin: nil, parserOptions: parserOptions, extensions: ["otf", "ttc", "ttf", "woff"], context: context)
    }

    /// Fonts accessors from a plugin's template.
    public static func fonts(plugin: String, parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.fonts, "Fonts", plugin: plugin, parserOptions: parserOptions, extensions: ["otf", "ttc", "ttf", "woff"], context: context)
    }
    /// Plists accessors from the template in `Tuist/ResourceSynthesizers`, else Tuist's.
    public static func plists(parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.plists, "Plists", plugin: nil, parserOptions: parserOptions, extensions: ["plist"], context: context)
    }

    /// Plists accessors from a plugin's template.
    public static func plists(plugin: String, parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.plists, "Plists", plugin: plugin, parserOptions: parserOptions, extensions: ["plist"], context: context)
    }
    /// CoreData accessors from the template in `Tuist/ResourceSynthesizers`, else Tuist's.
    public static func coreData(parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.coreData, "CoreData", plugin: nil, parserOptions: parserOptions, extensions: ["xcdatamodeld"], context: context)
    }

    /// CoreData accessors from a plugin's template.
    public static func coreData(plugin: String, parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.coreData, "CoreData", plugin: plugin, parserOptions: parserOptions, extensions: ["xcdatamodeld"], context: context)
    }
    /// InterfaceBuilder accessors from the template in `Tuist/ResourceSynthesizers`, else Tuist's.
    public static func interfaceBuilder(parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.interfaceBuilder, "InterfaceBuilder", plugin: nil, parserOptions: parserOptions, extensions: ["storyboard"], context: context)
    }

    /// InterfaceBuilder accessors from a plugin's template.
    public static func interfaceBuilder(plugin: String, parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.interfaceBuilder, "InterfaceBuilder", plugin: plugin, parserOptions: parserOptions, extensions: ["storyboard"], context: context)
    }
    /// JSON accessors from the template in `Tuist/ResourceSynthesizers`, else Tuist's.
    public static func json(parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.json, "JSON", plugin: nil, parserOptions: parserOptions, extensions: ["json"], context: context)
    }

    /// JSON accessors from a plugin's template.
    public static func json(plugin: String, parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.json, "JSON", plugin: plugin, parserOptions: parserOptions, extensions: ["json"], context: context)
    }
    /// YAML accessors from the template in `Tuist/ResourceSynthesizers`, else Tuist's.
    public static func yaml(parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.yaml, "YAML", plugin: nil, parserOptions: parserOptions, extensions: ["yml"], context: context)
    }

    /// YAML accessors from a plugin's template.
    public static func yaml(plugin: String, parserOptions: [String: Parser.Option] = [:], context: [String: Parser.Option] = [:]) -> Self {
        make(.yaml, "YAML", plugin: plugin, parserOptions: parserOptions, extensions: ["yml"], context: context)
    }
    /// Accessors for files with `extensions`, from the template in `Tuist/ResourceSynthesizers`, else Tuist's.
    public static func files(parserOptions: [String: Parser.Option] = [:], extensions: Set<String>, context: [String: Parser.Option] = [:]) -> Self {
        make(.files, "Files", plugin: nil, parserOptions: parserOptions, extensions: extensions, context: context)
    }

    /// Accessors for files with `extensions`, from a plugin's template.
    public static func files(plugin: String, parserOptions: [String: Parser.Option] = [:], extensions: Set<String>, context: [String: Parser.Option] = [:]) -> Self {
        make(.files, "Files", plugin: plugin, parserOptions: parserOptions, extensions: extensions, context: context)
    }

    /// A plugin's template `resourceName` over files read by `parser`.
    public static func custom(
        plugin: String,
        parser: Parser,
        parserOptions: [String: Parser.Option] = [:],
        extensions: Set<String>,
        resourceName: String,
        context: [String: Parser.Option] = [:]
    ) -> Self {
        make(parser, resourceName, plugin: plugin, parserOptions: parserOptions, extensions: extensions, context: context)
    }

    /// The template `Tuist/ResourceSynthesizers/<name>.stencil` over files read by `parser`.
    public static func custom(
        name: String,
        parser: Parser,
        parserOptions: [String: Parser.Option] = [:],
        extensions: Set<String>,
        context: [String: Parser.Option] = [:]
    ) -> Self {
        make(parser, name, plugin: nil, parserOptions: parserOptions, extensions: extensions, context: context)
    }
}

extension [ResourceSynthesizer] {
    /// Strings, assets, plists and fonts.
    public static var `default`: Self {
        [.strings(), .assets(), .plists(), .fonts()]
    }
}
