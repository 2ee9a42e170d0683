// Unsafe code: one `UnsafeRawPointer`, the key of the associated-object list
// (`ObservationList.attach`). It is the address of a static object that lives as long as the
// process, never dereferenced, only compared by the Objective-C runtime; nothing else here is
// unsafe.
#if canImport(ObjectiveC)
import Foundation
import ObjectiveC

/// Ends a tracked `URLSessionTask`'s tasks the moment its `state` becomes `.completed`, by
/// key-value observing (Apple platforms; swift-corelibs-foundation has no KVO, see
/// ``URLSessionTaskPoller``).
///
/// Each observation is attached to its task as an associated object, so nothing else has to
/// keep it, and it is invalidated (and let go) once the task has completed; a task that never
/// completes takes it along when it is deallocated. What each state asks for is decided by
/// ``TaskStateWatch``; the callout reads nothing of the task (Foundation may hold the task's
/// lock while it notifies) and calls only the manager's driver, which runs no code of anyone
/// else's on the calling thread.
enum URLSessionTaskStateObservation {
    /// Feeds each new `state` of `task` (the current one first), on whichever thread changed it,
    /// to `watch`, and calls `perform` with its answer (under the observation's own lock, so
    /// that two answers never cross), until the answer says to stop. The observation is then
    /// invalidated from a global queue, outside the callout.
    static func observe(
        _ task: URLSessionTask,
        _ watch: TaskStateWatch,
        perform: @escaping @Sendable (URLSessionTask, TaskStateWatch.Actions) -> Void
    ) {
        let slot = ObservationSlot(watch)
        let observation = task.observe(\.state, options: [.initial, .new]) { task, change in
            guard let state = change.newValue else { return }
            let actions = slot.stateChanged(to: state) { perform(task, $0) }
            if actions.stopObserving {
                DispatchQueue.global().async { slot.stop() }
            }
        }
        // A task already completed stopped the watch in the initial callout, before the
        // observation was stored: it is invalidated here instead.
        let list = ObservationList.attach(observation, to: task)
        if !slot.store(observation, in: list) {
            observation.invalidate()
            ObservationList.detach(observation, from: list)
        }
    }

    /// Ends every task of `task` in `manager` when `task` completes (finished, failed or
    /// cancelled). Safe from any thread.
    static func endOnCompletion(
        of task: URLSessionTask,
        in manager: NetworkIndicatorManager,
        recordingIn progress: URLSessionTaskProgress
    ) {
        observe(task, TaskStateWatch()) { [weak manager] task, actions in
            if actions.stopObserving { recordEnd(of: task, in: progress) }
            if actions.finish { manager?.driver.apply(.finishAll(ObjectIdentifier(task))) }
        }
    }

    /// Records the completed `task`'s final reading in `progress` from a global queue: the
    /// callout may hold the task's lock, and the block holds the task until then (a reading
    /// meanwhile records it too).
    static func recordEnd(of task: URLSessionTask, in progress: URLSessionTaskProgress) {
        DispatchQueue.global().async { progress.recordEnd(of: task) }
    }
}

/// One observation's watch and, once stored, the observation, under one lock: the callout and
/// the invalidation may run on two threads.
private final class ObservationSlot: @unchecked Sendable {
    // `@unchecked`: `NSKeyValueObservation` is not `Sendable`; it is stored, taken and
    // invalidated only under `lock`, once.
    private let lock = NSLock()
    private var watch: TaskStateWatch
    /// Weak: the task's list keeps the observation, whose closure keeps this slot. Held
    /// strongly here too, the two kept each other alive after a task that never completed was
    /// deallocated, with its watch and its progress record.
    private weak var observation: NSKeyValueObservation?
    private weak var list: ObservationList?
    private var isStopped = false

    init(_ watch: TaskStateWatch) {
        self.watch = watch
    }

    /// Asks the watch about `state` and performs its answer, both under the lock, so that two
    /// reports on two threads never both end the task. `perform` must call no code of anyone
    /// else's.
    func stateChanged(
        to state: URLSessionTask.State,
        perform: (TaskStateWatch.Actions) -> Void
    ) -> TaskStateWatch.Actions {
        lock.lock()
        defer { lock.unlock() }
        let actions = watch.stateChanged(to: state)
        perform(actions)
        return actions
    }

    /// Stores `observation`, attached to `list`; `false` if the watch already stopped (the
    /// caller invalidates and detaches it).
    func store(_ observation: NSKeyValueObservation, in list: ObservationList) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !isStopped, !watch.hasStopped else { return false }
        self.observation = observation
        self.list = list
        return true
    }

    /// Invalidates the observation and lets go of it (the task's list drops it too).
    func stop() {
        lock.lock()
        let observation = self.observation
        let list = self.list
        self.observation = nil
        isStopped = true
        lock.unlock()
        guard let observation else { return }
        observation.invalidate()
        if let list { ObservationList.detach(observation, from: list) }
    }
}

/// The observations attached to one task (one per `track`): an associated object,
/// released with the task.
private final class ObservationList {
    /// Guards the lists, and the read-then-attach of a task's list, which the runtime does not
    /// do as one step.
    private static let lock = LockedState(())
    /// The key's address is unique and stable: the object lives as long as the process.
    private static let key = AssociationKey()

    private var observations: [NSKeyValueObservation] = []

    /// Attaches `observation` to `task`'s list (made on first use); returns the list.
    static func attach(_ observation: NSKeyValueObservation, to task: URLSessionTask) -> ObservationList {
        let key = UnsafeRawPointer(Unmanaged.passUnretained(Self.key).toOpaque())
        return lock.withLock { _ in
            let list: ObservationList
            if let existing = objc_getAssociatedObject(task, key) as? ObservationList {
                list = existing
            } else {
                list = ObservationList()
                objc_setAssociatedObject(task, key, list, .OBJC_ASSOCIATION_RETAIN)
            }
            list.observations.append(observation)
            return list
        }
    }

    /// Lets go of an invalidated observation.
    static func detach(_ observation: NSKeyValueObservation, from list: ObservationList) {
        lock.withLock { _ in
            list.observations.removeAll { $0 === observation }
        }
    }
}

private final class AssociationKey: Sendable {}
#endif
