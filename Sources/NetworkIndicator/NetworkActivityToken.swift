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

    init(manager: NetworkIndicatorManager) {
        self.manager = manager
    }

    deinit {
        end()
    }

    /// Ends the token's tasks without reporting anything if they already ended. Usable from
    /// this module's inlinable code (the async sequence's iterator).
    @usableFromInline
    func end() {
        manager.endTasks(ofOpaqueToken: ObjectIdentifier(self))
    }
}
