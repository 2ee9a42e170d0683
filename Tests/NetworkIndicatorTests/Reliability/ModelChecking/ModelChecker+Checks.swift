// Shared by the model-based test and the libFuzzer target (Fuzz/), which compiles the files of
// this folder into the library's own module with -D NETWORK_INDICATOR_FUZZ (.ci/fuzz.sh).
import Foundation

#if !NETWORK_INDICATOR_FUZZ
@testable import NetworkIndicator
import NetworkIndicatorTesting
#endif

/// The checks that ``ModelChecker/apply(_:)`` runs after each step.
extension ModelChecker {
    /// After dropping one reference to released manager `manager`, which `holders` objects
    /// still keep alive: it is alive exactly while they do, and the counts agree.
    func checkHolders(
        _ holders: Int,
        of manager: Int,
        during operation: ModelOperation,
        dropping dropped: String
    ) -> String? {
        if holders == 0 { endOwnTasks(manager) }
        guard (releasing != nil) == (holders > 0) else {
            return "after \(operation), dropping \(dropped): released m\(manager) alive \(releasing != nil), "
                + "but \(holders) opaque tokens and groups hold it"
        }
        return checkCounts(after: "\(operation), dropping \(dropped)")
    }

    /// For every manager: its count is its own tasks plus its children's counts, and its own
    /// tasks are the model's (plus at most its dead tokens' tasks awaiting the sweep).
    func checkCounts(after step: @autoclosure () -> String) -> String? {
        // Leaves first, each manager read once: a manager's children are after it.
        var counts = [0, 0, 0, 0]
        for manager in (0..<Self.managerCount).reversed() {
            guard let real = realManager(manager) else { continue }
            let count = real.activeTaskCount
            let ownTasks = ManagerOwnTasks(of: real)
            let (ownCount, pushes) = (ownTasks.count, ownTasks.pushes)
            counts[manager] = count
            var children = 0
            for child in Self.children[manager] { children += counts[child] }
            guard count == ownCount + children else {
                return "after \(step()): m\(manager) counts \(count), but its own tasks \(ownCount) "
                    + "+ its children's \(children) = \(ownCount + children)"
            }
            let model = own[manager]
            guard ownCount >= model.total && ownCount <= model.total + model.deadTaskBound, pushes == model.pushes
            else {
                return "after \(step()): m\(manager) has \(ownCount) own tasks (\(pushes) pushes), model "
                    + "\(model.total) (\(model.pushes) pushes, + up to \(model.deadTaskBound) awaiting the sweep); "
                    + "activeTaskCount \(count), model \(modelCount(manager))"
            }
        }
        return nil
    }

    func check(after operation: ModelOperation) -> String? {
        if let failure = checkCounts(after: "\(operation)") { return failure }
        guard diagnostics.count == expectedDiagnostics else {
            return "after \(operation): \(diagnostics.count) diagnostics, model expects \(expectedDiagnostics)"
        }
        if case .settle = operation { return checkSettled() }
        return nil
    }

    /// After a settle: every manager's indicator and output show exactly while its count is
    /// positive, its snapshot lists its active children, only sweep timers are pending, and
    /// released managers' outputs were told the indicator is gone.
    func checkSettled() -> String? {
        var sweepingManagers = 0
        for index in 0..<Self.managerCount {
            let manager = managers[index]!
            let count = modelCount(index)
            let visible = manager.isIndicatorVisible
            guard visible == (count > 0), outputs[index].isVisible == visible else {
                return
                    "after settle: m\(index) indicator \(visible), output \(outputs[index].isVisible), model count \(count)"
            }
            if ManagerOwnTasks(of: manager).tracksWeakTokens { sweepingManagers += 1 }
            if !Self.children[index].isEmpty {
                // One record per active child, with its count.
                let records = manager.activitySnapshot().activities.filter { $0.kind == .childManager }
                let active = Self.children[index].filter { modelCount($0) > 0 }
                let matches =
                    records.count == active.count
                    && records.allSatisfy { record in
                        active.contains { Self.labels[$0] == record.label && modelCount($0) == record.taskCount }
                    }
                guard matches else {
                    return "after settle: m\(index)'s snapshot lists children "
                        + "\(records.map { "\($0.label): \($0.taskCount)" }), model "
                        + "\(active.map { "\(Self.labels[$0]): \(modelCount($0))" })"
                }
            }
            for slot in 0..<ModelOperation.groupSlots {
                guard let group = groups[index][slot] else { continue }
                guard group.activeOperationCount == own[index].counts[OwnTasks.Kind.group.rawValue][slot] else {
                    return "after settle: group m\(index)/\(slot) has \(group.activeOperationCount) operations, "
                        + "model \(own[index].counts[OwnTasks.Kind.group.rawValue][slot])"
                }
            }
        }
        // The tree runs one timer, for the earliest of its managers' sweeps.
        guard scheduler.pendingWorkCount == min(sweepingManagers, 1) else {
            return "after settle: \(scheduler.pendingWorkCount) pending work items, "
                + "\(sweepingManagers) managers track weak tokens (one timer for the tree)"
        }
        guard !releasedOutputs.contains(where: \.isVisible) else {
            return "after settle: a released manager's output still shows the indicator"
        }
        releasedOutputs.removeAll()
        return nil
    }
}
