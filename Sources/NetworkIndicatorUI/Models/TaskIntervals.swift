import NetworkIndicator

/// The open intervals of ``NetworkActivitySignposts``, one per task told as begun, by the event's
/// id; plain Swift so that the pairing is tested on Linux (the signposter is Apple-only).
struct TaskIntervals<Interval> {
    private var open: [UInt64: Interval] = [:]

    /// The intervals open now.
    var count: Int { open.count }

    /// Begins an interval (`begin`) for each task that began, and ends (`end`) the interval of
    /// each that ended, in order. The end of a task whose begin was not heard (it began before
    /// the output was attached) ends nothing.
    mutating func apply(
        _ events: [NetworkActivityTaskEvent],
        begin: (NetworkActivityTaskEvent) -> Interval,
        end: (Interval, NetworkActivityTaskEvent.Ending) -> Void
    ) {
        for event in events {
            switch event {
            case .began(_, let id, _):
                open[id] = begin(event)
            case .ended(_, let id, _, let ending):
                if let interval = open.removeValue(forKey: id) { end(interval, ending) }
            }
        }
    }
}
