/// Microsoft's data protection framework for iOS (levels 1–3: basic, enhanced, high), built in
/// so a tenant's policy can be compared to a level without a network (`mamsim matrix --diff
/// baseline:level-2 ours.json`). The documents are in Generated/BaselineDocuments.swift, written by
/// scripts/fetch-baselines at a pinned commit with their licence.
public enum Baselines {
    /// `level-1`, `level-2`, `level-3`.
    public static var names: [String] { documents.map(\.name) }

    /// The Graph document of `name` (`level-2`, or `baseline:level-2` as the command line
    /// writes it), as published.
    public static func document(_ name: String) -> String? {
        let bare = name.hasPrefix("baseline:") ? String(name.dropFirst("baseline:".count)) : name
        return documents.first { $0.name == bare.lowercased() }?.json
    }

    /// Where the documents come from, for reports.
    public static var origin: String { source }
}
