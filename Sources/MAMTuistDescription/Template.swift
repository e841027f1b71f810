// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// A plugin: the value a `Plugin.swift` manifest defines.
public struct Plugin: Codable, Equatable, Sendable {
    public let name: String

    public init(name: String) {
        self.name = name
    }
}

/// A `tuist scaffold` template.
public struct Template: Codable, Equatable, Sendable {
    public let description: String
    public let attributes: [Attribute]
    public let items: [Item]

    public init(description: String, attributes: [Attribute] = [], items: [Item] = []) {
        self.description = description
        self.attributes = attributes
        self.items = items
    }

    /// Where an item's content comes from.
    public enum Contents: Codable, Equatable, Sendable {
        /// Text given in the template manifest.
        case string(String)
        /// A template file (which may use project description helpers).
        case file(Path)
        /// A folder copied as it is.
        case directory(Path)
    }

    /// A file or folder the template writes.
    public struct Item: Codable, Equatable, Sendable {
        public let path: String
        public let contents: Contents

        public static func item(path: String, contents: Contents) -> Self {
            Item(path: path, contents: contents)
        }

        public static func string(path: String, contents: String) -> Template.Item {
            Item(path: path, contents: .string(contents))
        }

        public static func file(path: String, templatePath: Path) -> Template.Item {
            Item(path: path, contents: .file(templatePath))
        }

        public static func directory(path: String, sourcePath: Path) -> Template.Item {
            Item(path: path, contents: .directory(sourcePath))
        }
    }

    /// An attribute `tuist scaffold` takes: required, or optional with a default.
    public enum Attribute: Codable, Equatable, Sendable {
        case required(String)
        case optional(String, default: Value)

        /// An optional attribute's default value.
        public indirect enum Value: Codable, Equatable, Sendable, ExpressibleByStringLiteral,
            ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
            ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral
        {
            case string(String)
            case integer(Int)
            case real(Double)
            case boolean(Bool)
            case dictionary([String: Value])
            case array([Value])

            public init(stringLiteral value: String) { self = .string(value) }
            public init(integerLiteral value: Int) { self = .integer(value) }
            public init(floatLiteral value: Double) { self = .real(value) }
            public init(booleanLiteral value: Bool) { self = .boolean(value) }

            public init(dictionaryLiteral elements: (String, Template.Attribute.Value)...) {
                self = .dictionary(Dictionary(uniqueKeysWithValues: elements))
            }

            public init(arrayLiteral elements: Template.Attribute.Value...) {
                self = .array(elements)
            }
        }
    }
}

extension String.StringInterpolation {
    /// An attribute in a template string is its Stencil placeholder, `{{ name }}`.
    public mutating func appendInterpolation(_ value: Template.Attribute) {
        switch value {
        case let .required(name), let .optional(name, default: _):
            appendLiteral("{{ \(name) }}")
        }
    }
}

/// A string in which `\(.projectName)` stands for the project's name.
public struct TemplateString: Encodable, Decodable, Equatable, ExpressibleByStringLiteral,
    CustomStringConvertible, ExpressibleByStringInterpolation
{
    let rawString: String

    public enum Token: String, Equatable {
        case projectName = "${project_name}"
    }

    public init(stringLiteral: String) {
        rawString = stringLiteral
    }

    public init(stringInterpolation: StringInterpolation) {
        rawString = stringInterpolation.string
    }

    public var description: String {
        rawString
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var string: String

        public init(literalCapacity _: Int, interpolationCount _: Int) {
            string = ""
        }

        public mutating func appendLiteral(_ literal: String) {
            string.append(literal)
        }

        public mutating func appendInterpolation(_ token: TemplateString.Token) {
            string.append(token.rawValue)
        }
    }
}
