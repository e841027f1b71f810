/// One attachment of a share (an `NSItemProvider`): what matters to activation is only the
/// type identifiers it registered, most specific first.
public struct Attachment: Sendable, Hashable, CustomStringConvertible {
    public var registeredTypeIdentifiers: [String]

    public init(_ registeredTypeIdentifiers: [String]) {
        self.registeredTypeIdentifiers = registeredTypeIdentifiers
    }

    /// The same attachment as Intune hands it out from managed data: every type prefixed with
    /// `com.microsoft.intune.mam.`.
    public var intuneTwin: Attachment {
        Attachment(registeredTypeIdentifiers.map(UTIRegistry.intuneTwin(of:)))
    }

    public var description: String { "[" + registeredTypeIdentifiers.joined(separator: ", ") + "]" }
}

/// One `NSExtensionItem`: a group of attachments.
public struct ExtensionItem: Sendable, Hashable {
    public var attachments: [Attachment]
    public init(attachments: [Attachment]) { self.attachments = attachments }
}

/// What a share sheet offers an extension (`NSExtensionContext.inputItems`).
///
/// The share sheet puts every activity item of one share into a single extension item, so the
/// common constructor builds one; rules over several extension items are still evaluated faithfully.
public struct ShareInput: Sendable, Hashable, CustomStringConvertible {
    public var extensionItems: [ExtensionItem]

    public init(extensionItems: [ExtensionItem]) { self.extensionItems = extensionItems }

    /// One extension item holding these attachments.
    public init(attachments: [Attachment]) { self.extensionItems = [ExtensionItem(attachments: attachments)] }

    /// Convenience: one attachment per list of type identifiers.
    public init(_ attachments: [String]...) { self.init(attachments: attachments.map(Attachment.init)) }

    /// Every attachment of every extension item, in order.
    public var allAttachments: [Attachment] { extensionItems.flatMap(\.attachments) }

    /// The share as managed data: each attachment's types replaced by their Intune twins.
    public var intuneTwin: ShareInput {
        ShareInput(extensionItems: extensionItems.map { ExtensionItem(attachments: $0.attachments.map(\.intuneTwin)) })
    }

    public var description: String {
        extensionItems.map { "(" + $0.attachments.map(\.description).joined(separator: " ") + ")" }.joined(separator: " ")
    }
}

/// The outcome of evaluating an activation rule against a share.
public enum ActivationResult: Sendable, Hashable, CustomStringConvertible {
    case activated(because: String)
    case notActivated(because: String)

    public var isActivated: Bool {
        if case .activated = self { return true }
        return false
    }

    /// One line saying why, e.g. `rule requires exactly 1 attachment conforming to com.adobe.pdf; got 2`.
    public var reason: String {
        switch self {
        case .activated(let reason), .notActivated(let reason): return reason
        }
    }

    public var description: String { (isActivated ? "activated: " : "not activated: ") + reason }
}
