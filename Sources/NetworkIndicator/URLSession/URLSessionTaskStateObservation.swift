#if canImport(ObjectiveC)
import Foundation
import ObjectiveC

/// Ends a tracked `URLSessionTask`'s tasks the moment its `state` becomes `.completed`, by
/// key-value observing (Apple platforms; swift-corelibs-foundation has no KVO, see
/// ``URLSessionTaskPoller``).
///
/// Each observation lives as long as its task: it is attached to the task as an associated
/// object, so nothing else has to keep it, and a task that is never resumed takes it along when
/// it is deallocated.
enum URLSessionTaskStateObservation {
    /// Calls `handler` with each new `state` of `task` (the current one first), on whichever
    /// thread changed it, until `task` is deallocated. `handler` must not read `task.state`
    /// (Foundation may hold a lock of its own while it notifies).
    static func observe(
        _ task: URLSessionTask,
        _ handler: @escaping @Sendable (URLSessionTask, URLSessionTask.State) -> Void
    ) {
        let observation = task.observe(\.state, options: [.initial, .new]) { task, change in
            if let state = change.newValue { handler(task, state) }
        }
        ObservationList.attach(observation, to: task)
    }

    /// Ends every task of `task` in `manager` when `task` completes (finished, failed or
    /// cancelled). Safe from any thread.
    static func endOnCompletion(of task: URLSessionTask, in manager: NetworkIndicatorManager) {
        observe(task) { [weak manager] task, state in
            guard state == .completed else { return }
            manager?.driver.finishAll(ObjectIdentifier(task))
        }
    }
}

/// The observations attached to one task (one per `track` or session): an associated object,
/// released with the task.
private final class ObservationList {
    /// Guards the read-then-attach of the list, which the runtime does not do as one step.
    private static let lock = LockedState(())
    /// The key's address is unique and stable: the object lives as long as the process.
    private static let key = AssociationKey()

    private var observations: [NSKeyValueObservation] = []

    static func attach(_ observation: NSKeyValueObservation, to task: URLSessionTask) {
        let key = UnsafeRawPointer(Unmanaged.passUnretained(Self.key).toOpaque())
        lock.withLock { _ in
            if let list = objc_getAssociatedObject(task, key) as? ObservationList {
                list.observations.append(observation)
            } else {
                let list = ObservationList()
                list.observations.append(observation)
                objc_setAssociatedObject(task, key, list, .OBJC_ASSOCIATION_RETAIN)
            }
        }
    }
}

private final class AssociationKey: Sendable {}
#endif
