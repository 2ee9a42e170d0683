/// The continuations of ``NetworkIndicatorManager/visibilityUpdates()``, behind the manager's
/// lock (streams open and cancel on any thread). A new stream is unprimed: the next delivery gives
/// it the current visibility and skips it for that hop's change, so it never hears a value twice.
struct StreamRegistry {
    typealias Continuation = AsyncStream<Bool>.Continuation

    /// The streams one delivery yields to.
    struct Delivery {
        /// Primed streams, which hear a visibility change.
        var updated: [Continuation] = []
        /// Streams opened since the last delivery, which hear the current visibility.
        var primed: [Continuation] = []
    }

    private var streams: [UInt64: Continuation] = [:]
    private var unprimedIDs: [UInt64] = []
    private var nextID: UInt64 = 0

    var all: [Continuation] { Array(streams.values) }

    /// Adds `continuation`, unprimed; returns its ID for ``remove(_:)``.
    mutating func add(_ continuation: Continuation) -> UInt64 {
        let id = nextID
        nextID += 1
        streams[id] = continuation
        unprimedIDs.append(id)
        return id
    }

    mutating func remove(_ id: UInt64) {
        streams[id] = nil
        unprimedIDs.removeAll { $0 == id }
    }

    /// The streams of one delivery; the unprimed ones count as primed afterwards.
    mutating func takeDelivery(visibilityChanged: Bool) -> Delivery {
        var delivery = Delivery()
        if visibilityChanged {
            delivery.updated = streams.filter { !unprimedIDs.contains($0.key) }.map(\.value)
        }
        delivery.primed = unprimedIDs.compactMap { streams[$0] }
        unprimedIDs.removeAll()
        return delivery
    }
}
