/// An opaque token for one network task, returned by
/// ``NetworkIndicatorManager/beganNetworkTask(label:progress:weight:file:line:)``.
///
/// The task lasts exactly as long as the token: when the last reference to it goes away its
/// `deinit` ends the task at once, on whichever thread released it. Store it next to the work
/// (in the object that owns the request, or a local that lives across the `await`), and let it
/// go when the work is done. Passing it to ``NetworkIndicatorManager/finishedNetworkTask(forToken:)-(Object)``
/// ends the task earlier; releasing it afterwards does nothing more.
///
/// The token keeps its manager alive. It is `Sendable`: it may be created, moved and released
/// on any thread.
public final class NetworkActivityToken: Sendable {
    /// Kept alive by the token (see above); its driver holds the token's entry.
    let manager: NetworkIndicatorManager
    /// The registry slot pinned to this token until its `deinit`, found with no hash lookup, and
    /// the slot's generation when pinned: the registry compares it, so the pair names this
    /// token's entry only.
    let pinned: PinnedSlot

    /// Made by the manager after the driver pinned `pinned` to it.
    init(manager: NetworkIndicatorManager, pinned: PinnedSlot) {
        self.manager = manager
        self.pinned = pinned
    }

    deinit {
        // Through a method of the token, whose `self` is borrowed: the deinit's own call copied
        // the manager (a retain and a release); callgrind, Benchmarks/README.md, "The opaque
        // token's release".
        stopTracking()
    }

    /// Ends the token's tasks for good, as its release would, reporting nothing if they already
    /// ended: the token can begin no task after this (its slot is freed, and its release does
    /// nothing more). For work that stops being tracked before its token goes: a cancelled
    /// ``NetworkIndicatorManager/withNetworkActivity(isolation:label:progress:file:line:_:)`` body, and the
    /// async sequence's iterator (this module's inlinable code) once cancelled or done.
    @usableFromInline
    func stopTracking() {
        manager.release(pinned)
    }
}
