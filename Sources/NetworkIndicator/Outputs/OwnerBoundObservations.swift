/// The observations registered with an owner (``NetworkIndicatorManager/observeVisibility(owner:_:)``):
/// the manager keeps them, since their caller stores nothing, until their owner is gone or they
/// are cancelled.
///
/// Each entry holds its owner weakly and never refers to the manager, so it keeps neither
/// alive. An entry whose owner died is let go the next time its body would be called (it is
/// not called) or the next time an owner-bound observation is registered, whichever comes
/// first; an entry cancelled by its caller is let go at that next registration, while its
/// closure is freed at once by the cancellation itself.
@MainActor
final class OwnerBoundObservations {
    private struct Entry {
        let observation: NetworkIndicatorObservation
        let isOwnerAlive: () -> Bool
    }

    private var entries: [UInt64: Entry] = [:]
    private var nextID: UInt64 = 0

    nonisolated init() {}

    /// A new entry's ID, known before the observation exists so that its body can name it.
    func makeID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }

    /// Keeps `observation` under `id` until `isOwnerAlive` says `false` or it is cancelled;
    /// first lets go of the entries that ended since the last registration, cancelling those
    /// whose owner died (their caller may keep the handle: the body must go all the same).
    func keep(_ observation: NetworkIndicatorObservation, as id: UInt64, while isOwnerAlive: @escaping () -> Bool) {
        for entry in entries.values where !entry.isOwnerAlive() { entry.observation.cancel() }
        entries = entries.filter { !$0.value.observation.isCancelled }
        entries[id] = Entry(observation: observation, isOwnerAlive: isOwnerAlive)
    }

    /// Ends the observation kept under `id` (its owner is gone) and lets it go.
    func end(_ id: UInt64) {
        entries.removeValue(forKey: id)?.observation.cancel()
    }
}
