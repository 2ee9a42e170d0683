import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Ends tracked `URLSessionTask`s promptly where key-value observing is unavailable
/// (swift-corelibs-foundation, on Linux): it reads the `state` of the tracked tasks, and only
/// theirs, every ``interval`` seconds on the manager's scheduler, and only while some are
/// tracked.
///
/// One watch per manager, kept in ``watches`` under one lock; the repeating timer exists from
/// the first tracked task to the poll that finds none left.
///
/// ## Holding the tasks
///
/// A watch holds its tasks strongly: URLSession lets a task go once it has completed, and a
/// task that nobody else keeps must still be seen completing (a weak hold would lose it and
/// leave its task open until the manager's sweep). Nothing is kept forever:
///
/// - a task leaves its watch at the first poll that sees it `.completed`, and its tasks end;
/// - a task that only its watch still holds, uncompleted, can never be resumed or complete
///   (nobody else has it): it leaves at the next poll and its tasks end. A task its session
///   still holds unresumed stays counted, as it can still be resumed (swift-corelibs-foundation
///   keeps every task it made until the task completes; `invalidateAndCancel()` cancels them);
/// - when the manager goes away (its `deinit` calls ``managerWentAway(_:)``, and a poll that
///   finds it gone does the same), its watch and every task it held go too.
///
/// A task tracked by two unrelated managers is held by both watches, so neither sees it held by
/// its watch alone: if it is abandoned uncompleted, it stays until one of the managers goes.
/// Tasks are released after the lock, never under it.
enum URLSessionTaskPoller {
    /// Seconds between two reads of the tracked tasks' states: a completed task ends at most
    /// this long (plus the main queue's latency) after its completion.
    static let interval: TimeInterval = 0.05

    /// How late the system may run a poll, so that it can coalesce wake-ups.
    static let leeway: TimeInterval = 0.01

    /// A tracked task, in a box of its own so that its uniqueness can be checked in place
    /// (a copy of the dictionary that holds the box retains the box, not the task).
    ///
    /// `@unchecked Sendable`: its one variable is read and written only under the lock of
    /// ``watches``, which holds every box; what leaves the lock is the task (`Sendable`).
    private final class HeldTask: @unchecked Sendable {
        var task: URLSessionTask
        /// The progresses that record the task's final reading before it ends (one per track).
        var progresses: [URLSessionTaskProgress]

        init(_ task: URLSessionTask, _ progress: URLSessionTaskProgress) {
            self.task = task
            self.progresses = [progress]
        }
    }

    private struct Watch {
        /// Tells this watch from a later one of a manager at a reused address.
        let id: UInt64
        weak var manager: NetworkIndicatorManager?
        var tasks: [ObjectIdentifier: HeldTask] = [:]
        var timer: (any NetworkIndicatorTimer)?
    }

    private struct Watches {
        var byManager: [ObjectIdentifier: Watch] = [:]
        var nextID: UInt64 = 0
    }

    private static let watches = LockedState(Watches())

    /// Watches `task` for `manager` until it completes (or is abandoned, or the manager goes
    /// away); starts the poll if none runs. Safe from any thread.
    static func watch(
        _ task: URLSessionTask,
        for manager: NetworkIndicatorManager,
        recordingIn progress: URLSessionTaskProgress
    ) {
        let key = ObjectIdentifier(manager)
        let (id, needsTimer) = watches.withLock { watches in
            // None yet. A dead manager's watch is never found here: its `deinit` drops it
            // (`managerWentAway`) before another manager can take its address.
            if watches.byManager[key] == nil {
                watches.byManager[key] = Watch(id: watches.nextID, manager: manager)
                watches.nextID += 1
            }
            // Mutated in place, never copied out and back: a copy would copy every watched task
            // (linear in their number for each new one).
            // A watch with no task is new (a poll drops a watch whose tasks all ended, with its
            // timer, in one hold): it has no timer yet.
            let needsTimer = watches.byManager[key]!.tasks.isEmpty
            let taskKey = ObjectIdentifier(task)
            if let held = watches.byManager[key]!.tasks[taskKey] {
                held.progresses.append(progress)
            } else {
                watches.byManager[key]!.tasks[taskKey] = HeldTask(task, progress)
            }
            return (watches.byManager[key]!.id, needsTimer)
        }
        guard needsTimer else { return }
        let timer = manager.driver.scheduler.schedule(after: interval, repeating: interval, leeway: leeway) {
            poll(key, id: id)
        }
        let isOrphan = watches.withLock { watches in
            guard watches.byManager[key]?.id == id else { return true }
            watches.byManager[key]?.timer = timer
            return false
        }
        // The watch ended (or was replaced) before its timer was stored: nobody else cancels it.
        if isOrphan { timer.cancel() }
    }

    /// Ends the tasks of the completed and the abandoned tasks of watch `id`; ends the watch
    /// once it has none, or once its manager is gone.
    @MainActor
    static func poll(_ key: ObjectIdentifier, id: UInt64) {
        typealias Watched = (task: URLSessionTask, progresses: [URLSessionTaskProgress])
        let (manager, running, abandoned) = watches.withLock { watches in
            guard let watch = watches.byManager[key], watch.id == id else {
                return (nil as NetworkIndicatorManager?, [Watched](), [Watched]())
            }
            var running: [Watched] = []
            var abandoned: [Watched] = []
            // Each checked before anything here retains it: its box is the one place this
            // watch holds it.
            for held in watch.tasks.values {
                if isKnownUniquelyReferenced(&held.task) {
                    abandoned.append((held.task, held.progresses))
                } else {
                    running.append((held.task, held.progresses))
                }
            }
            return (watch.manager, running, abandoned)
        }
        // States are read without the lock: Foundation takes locks of its own to answer.
        let ended = running.filter { $0.task.state == .completed } + abandoned
        for (task, progresses) in ended {
            // Before the task ends: once let go, the task could no longer be read.
            for progress in progresses { progress.recordEnd(of: task) }
            manager?.driver.apply(.finishAll(ObjectIdentifier(task)))
        }
        let (timer, released) = watches.withLock { watches in
            guard watches.byManager[key]?.id == id else {
                return (nil as (any NetworkIndicatorTimer)?, [URLSessionTask]())
            }
            // Changed in place: a copy of the watch would copy its table of tasks.
            for (task, _) in ended {
                watches.byManager[key]!.tasks[ObjectIdentifier(task)] = nil
            }
            guard let watch = watches.byManager[key], watch.tasks.isEmpty || watch.manager == nil else {
                return (nil, [])
            }
            watches.byManager[key] = nil
            return (watch.timer, watch.tasks.values.map(\.task))
        }
        timer?.cancel()
        // `ended` and `released` let their tasks go here, after the lock.
        _ = released
    }

    /// The manager keyed `key` is going away (its `deinit`): drops its watch, cancels the
    /// poll, and releases the watched tasks, whose tasks went with the manager. Safe from any
    /// thread.
    static func managerWentAway(_ key: ObjectIdentifier) {
        let (timer, released) = watches.withLock { watches in
            // Only a watch whose manager is gone: a deinitializing manager's weak references
            // already read `nil`, and no other manager can have its address yet.
            guard let watch = watches.byManager[key], watch.manager == nil else {
                return (nil as (any NetworkIndicatorTimer)?, [URLSessionTask]())
            }
            watches.byManager[key] = nil
            return (watch.timer, watch.tasks.values.map(\.task))
        }
        timer?.cancel()
        // The tasks are let go here, after the lock.
        _ = released
    }
}
