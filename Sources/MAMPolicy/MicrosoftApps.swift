public import MAMModel

/// Which fleet apps a policy's `appGroupType` of Microsoft's apps reaches (RULES.md §1).
///
/// A fleet app says so itself with `publisher:`; without it, the bundle id decides: the core
/// apps are those Microsoft Learn lists as "Core Microsoft Apps" in the data protection
/// framework (Edge, Excel, Microsoft 365, OneDrive, OneNote, Outlook, PowerPoint, SharePoint,
/// Teams, To Do, Word), by their App Store bundle ids; every other `com.microsoft.` app counts
/// for `allMicrosoftApps` only.
public enum MicrosoftApps {
    public static let core: Set<BundleID> = [
        "com.microsoft.msedge",
        "com.microsoft.Office.Excel",
        "com.microsoft.officemobile",
        "com.microsoft.skydrive",
        "com.microsoft.onenote",
        "com.microsoft.Office.Outlook",
        "com.microsoft.Office.Powerpoint",
        "com.microsoft.sharepoint",
        "com.microsoft.skype.teams",
        "com.microsoft.to-do",
        "com.microsoft.Office.Word",
    ]

    static func publisherIsMicrosoft(_ app: AppDescriptor) -> Bool? {
        app.publisher.map { $0.lowercased() == "microsoft" }
    }

    /// Reached by `allCoreMicrosoftApps`.
    public static func isCore(_ app: AppDescriptor) -> Bool {
        publisherIsMicrosoft(app) ?? core.contains(app.bundleID)
    }

    /// Reached by `allMicrosoftApps`.
    public static func isMicrosoft(_ app: AppDescriptor) -> Bool {
        publisherIsMicrosoft(app) ?? (core.contains(app.bundleID) || app.bundleID.folded.hasPrefix("com.microsoft."))
    }
}
