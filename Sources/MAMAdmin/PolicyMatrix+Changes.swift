public import MAMModel
public import MAMPolicy

extension PolicyMatrix {
    /// One cell of a matrix: the grid, the row's party, the column (a party, a location or a
    /// feature) and the decision.
    public struct Cell: Sendable, Hashable {
        public var grid: String
        public var from: String
        public var to: String
        public var verdict: Verdict
    }

    /// A cell whose decision differs between two matrices of the same fleet.
    public struct Change: Sendable, Hashable {
        public var grid: String
        public var from: String
        public var to: String
        public var before: Verdict
        public var after: Verdict
    }

    /// Every cell, grid by grid, row by row.
    public var cells: [Cell] {
        let names = parties.map(\.description)
        func grid(_ title: String, _ columns: [String], _ values: [[Verdict]]) -> [Cell] {
            values.enumerated().flatMap { i, row in
                row.enumerated().map { j, v in Cell(grid: title, from: names[i], to: columns[j], verdict: v) }
            }
        }
        return grid("transfers", names, transfers) + grid("files", names, files) + grid("clipboard", names, clipboard)
            + grid("save", saveLocations.map(\.rawValue), save) + grid("open", openLocations.map(\.rawValue), open)
            + grid("features", features.map(\.rawValue), feature)
    }

    /// Whether two decisions differ for a person reading the matrix: allowed or not, and the
    /// reason (an explanation alone changing is not a change).
    public static func decides(_ a: Verdict, differently b: Verdict) -> Bool {
        a.isAllowed != b.isAllowed || a.reason != b.reason
    }

    /// The cells whose decision changes from `old` to `new`, in the order of `cells`. Both must
    /// be matrices of the same fleet (same parties, locations and features); cells that only
    /// one of them has are left out.
    public static func changes(from old: PolicyMatrix, to new: PolicyMatrix) -> [Change] {
        // A key of its parts, not of their texts joined: a party's name may hold any separator.
        struct Key: Hashable { let grid: String, from: String, to: String }
        var before: [Key: Verdict] = [:]
        for c in old.cells { before[Key(grid: c.grid, from: c.from, to: c.to)] = c.verdict }
        return new.cells.compactMap { c in
            guard let b = before[Key(grid: c.grid, from: c.from, to: c.to)], decides(b, differently: c.verdict) else { return nil }
            return Change(grid: c.grid, from: c.from, to: c.to, before: b, after: c.verdict)
        }
    }
}
