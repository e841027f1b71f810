// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// The kind of product a target builds. The raw values are Tuist's.
public enum Product: String, Codable, Equatable, Sendable {
    case app
    case staticLibrary = "static_library"
    case dynamicLibrary = "dynamic_library"
    case framework
    case staticFramework
    case unitTests = "unit_tests"
    case uiTests = "ui_tests"
    case bundle
    case commandLineTool
    case appClip
    case appExtension = "app_extension"
    case watch2App
    case watch2Extension
    case tvTopShelfExtension
    case messagesExtension
    case stickerPackExtension = "sticker_pack_extension"
    case xpc
    case systemExtension
    case extensionKitExtension = "extension_kit_extension"
    /// A Swift macro (built as a command-line tool that dependents load).
    case macro
    case plugin
}
