/// An opaque token for one network task, returned by
/// ``NetworkIndicatorManager/beganNetworkTask(label:)``.
///
/// The task lasts exactly as long as the token: when the last reference to it goes away its
/// `deinit` ends the task at once, on whichever thread released it. Store it next to the work
/// (in the object that owns the request, or a local that lives across the `await`), and let it
/// go when the work is done. Passing it to ``NetworkIndicatorManager/finishedNetworkTask(forToken:)``
/// ends the task earlier; releasing it afterwards does nothing more.
///
/// The token keeps its manager alive. It is `Sendable`: it may be created, moved and released
/// on any thread.
public final class NetworkActivityToken: Sendable {
    let manager: NetworkIndicatorManager
    /// The index of the manager's registry slot pinned to this token until its `deinit`: its
    /// tasks are found there, without a hash lookup.
    let slot: Int32

    /// Made by the manager, under its lock, with the slot it pins to the token.
    init(manager: NetworkIndicatorManager, slot: Int32) {
        self.manager = manager
        self.slot = slot
    }

    deinit {
        end(unpinning: true)
    }

    /// Ends the token's tasks without reporting anything if they already ended; the token keeps
    /// its slot, so it can still be begun again. Usable from this module's inlinable code (the
    /// async sequence's iterator).
    @usableFromInline
    func end() {
        end(unpinning: false)
    }

    /// Ends the token's tasks; `unpinning` (its `deinit`) also frees its slot.
    private func end(unpinning: Bool) {
        manager.endTasks(ofOpaqueToken: ObjectIdentifier(self), pinnedAt: slot, unpinning: unpinning)
    }
}
