/// How far a file has been read, for a progress display: a read of a trace
/// opened by path (``TraceReader/read(_:csvMapping:progress:)``,
/// ``TraceStatistics/read(_:csvMapping:geodesic:progress:)``) reports its
/// bytes as stored (compressed bytes for a .gz) and the file's size after
/// each chunk, on the reading thread.
public enum ReadProgress {
    /// Called with (bytes read so far, the file's size).
    public typealias Observer = @Sendable (_ read: Int64, _ total: Int64) -> Void
}
