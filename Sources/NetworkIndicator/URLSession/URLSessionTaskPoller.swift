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
/// the first tracked task to the poll that finds none left. Tasks are held weakly: a task that
/// dies uncompleted (one that was never resumed) leaves the watch and ends at the manager's
/// sweep, because its address may already belong to another object.
enum URLSessionTaskPoller {
    /// Seconds between two reads of the tracked tasks' states: a completed task ends at most
    /// this long (plus the main queue's latency) after its completion.
    static let interval: TimeInterval = 0.05

    /// How late the system may run a poll, so that it can coalesce wake-ups.
    static let leeway: TimeInterval = 0.01

    private struct WeakTask {
        weak var task: URLSessionTask?
    }

    private struct Watch {
        /// Tells this watch from a later one of a manager at a reused address.
        let id: UInt64
        weak var manager: NetworkIndicatorManager?
        var tasks: [ObjectIdentifier: WeakTask] = [:]
        var timer: (any NetworkIndicatorCancellable)?
    }

    private struct Watches {
        var byManager: [ObjectIdentifier: Watch] = [:]
        var nextID: UInt64 = 0
    }

    private static let watches = LockedState(Watches())

    /// Watches `task` for `manager` until it completes or dies; starts the poll if none runs.
    /// Safe from any thread.
    static func watch(_ task: URLSessionTask, for manager: NetworkIndicatorManager) {
        let key = ObjectIdentifier(manager)
        let (id, replaced, needsTimer) = watches.withLock { watches in
            var replaced: (any NetworkIndicatorCancellable)?
            if watches.byManager[key]?.manager !== manager {
                // None yet, or one left by a dead manager whose address this one reuses.
                replaced = watches.byManager[key]?.timer
                watches.byManager[key] = Watch(id: watches.nextID, manager: manager)
                watches.nextID += 1
            }
            // Mutated in place, never copied out and back: a copy would copy every watched task
            // (linear in their number for each new one).
            let needsTimer = watches.byManager[key]!.tasks.isEmpty && watches.byManager[key]!.timer == nil
            watches.byManager[key]!.tasks[ObjectIdentifier(task)] = WeakTask(task: task)
            return (watches.byManager[key]!.id, replaced, needsTimer)
        }
        replaced?.cancel()
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

    /// Ends the tasks of the completed tasks of watch `id`; ends the watch once it has none.
    @MainActor
    static func poll(_ key: ObjectIdentifier, id: UInt64) {
        let (manager, tasks) = watches.withLock { watches in
            guard let watch = watches.byManager[key], watch.id == id else {
                return (nil as NetworkIndicatorManager?, [URLSessionTask]())
            }
            return (watch.manager, watch.tasks.values.compactMap(\.task))
        }
        // States are read without the lock: Foundation takes locks of its own to answer.
        let completed = tasks.filter { $0.state == .completed }
        for task in completed {
            manager?.driver.finishAll(ObjectIdentifier(task))
        }
        let finishedTimer: (any NetworkIndicatorCancellable)? = watches.withLock { watches in
            guard var watch = watches.byManager[key], watch.id == id else { return nil }
            for task in completed where watch.tasks[ObjectIdentifier(task)]?.task === task {
                watch.tasks[ObjectIdentifier(task)] = nil
            }
            watch.tasks = watch.tasks.filter { $0.value.task != nil }
            guard watch.tasks.isEmpty || watch.manager == nil else {
                watches.byManager[key] = watch
                return nil
            }
            watches.byManager[key] = nil
            return watch.timer
        }
        finishedTimer?.cancel()
    }
}
