/// The events a streaming reader has found but not yet handed out: a reader
/// appends what one step of its input gives, and hands the events out in order.
struct EventQueue {
    private var events: [TraceEvent] = []
    private var index = 0

    mutating func append(_ event: TraceEvent) {
        if index == events.count {
            events.removeAll(keepingCapacity: true)
            index = 0
        }
        events.append(event)
    }

    var isEmpty: Bool { index == events.count }

    /// The next event found, or nil when the reader must step again.
    mutating func take() -> TraceEvent? {
        guard index < events.count else { return nil }
        defer { index += 1 }
        return events[index]
    }
}
