/// What a benchmark run measured: one sample per update in microseconds,
/// the set-up in milliseconds, the index's bytes per place (arithmetic on its
/// buffers' strides), and a checksum of what the updates computed, so that no
/// update can be optimised away.
public struct BenchmarkSamples: Sendable {
    public var samples: [Double]
    public var buildMs: Double
    public var bytesPerPlace: Double
    public var checksum: Double
    /// The index alone, built again without making the pins (the map variants).
    public var indexMs: Double?
    /// The parts of each update, by name, in microseconds (the pipeline variant).
    public var parts: [(name: String, samples: [Double])] = []

    public init(samples: [Double], buildMs: Double, bytesPerPlace: Double, checksum: Double, indexMs: Double? = nil) {
        self.samples = samples
        self.buildMs = buildMs
        self.bytesPerPlace = bytesPerPlace
        self.checksum = checksum
        self.indexMs = indexMs
    }

    /// The sample at quantile `p` (0 to 1) of the sorted samples.
    public func percentile(_ p: Double) -> Double {
        Self.percentile(p, of: samples)
    }

    /// The value at quantile `p` (0 to 1) of `values` sorted; 0 for none.
    public static func percentile(_ p: Double, of values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded()))]
    }

    public var mean: Double { samples.reduce(0, +) / Double(samples.count) }
}

/// Told after each timed update (outside its timing): the updates done, of
/// how many, and the samples so far.
public typealias BenchmarkProgress = (_ done: Int, _ total: Int, _ samples: [Double]) -> Void
