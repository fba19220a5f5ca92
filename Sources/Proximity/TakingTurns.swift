/// Two buffers of one kind taking turns between updates: each update is
/// handed one, and the next is written into the other, the one handed out
/// the update before. An array no longer held by anyone else is emptied
/// without reallocating.
public struct TakingTurns<Element> {
    private var handedOut: [Element] = []
    private var spare: [Element] = []

    /// Two empty buffers.
    public init() {}

    /// The spare buffer, emptied, its room kept.
    public mutating func take() -> [Element] {
        var buffer: [Element] = []
        swap(&buffer, &spare)
        buffer.removeAll(keepingCapacity: true)
        return buffer
    }

    /// Records `buffer` as handed out; the one handed out before becomes the spare.
    public mutating func handOut(_ buffer: [Element]) {
        spare = handedOut
        handedOut = buffer
    }

    /// Returns `buffer`, taken and not handed out, as the spare.
    public mutating func giveBack(_ buffer: [Element]) {
        spare = buffer
    }
}
