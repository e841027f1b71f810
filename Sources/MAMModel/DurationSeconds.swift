extension Duration {
    /// The duration in seconds, as a `Double` (reports and benchmarks print it).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
