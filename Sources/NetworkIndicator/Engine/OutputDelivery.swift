/// The manager's outputs and what they were last told, on the main actor: delivering takes no
/// lock. Outputs are held weakly: a deallocated output is simply told nothing more.
@MainActor
final class OutputDelivery {
    private struct Attached {
        weak var output: (any NetworkIndicatorOutput)?
        let id: ObjectIdentifier
        let receivesCount: Bool
    }

    private var attached: [Attached] = []
    /// What the outputs were last told.
    private(set) var isVisible = false

    nonisolated init() {}

    /// The live outputs, in the order they were added.
    var outputs: [any NetworkIndicatorOutput] { attached.compactMap(\.output) }

    /// Attaches `output`; `false` if it is attached already.
    func attach(_ output: any NetworkIndicatorOutput, receivesCount: Bool) -> Bool {
        guard !isAttached(output) else { return false }
        attached.append(Attached(output: output, id: ObjectIdentifier(output), receivesCount: receivesCount))
        return true
    }

    /// Detaches `output`: `nil` if it was not attached, else whether it received counts.
    func detach(_ output: any NetworkIndicatorOutput) -> Bool? {
        let id = ObjectIdentifier(output)
        guard let index = attached.firstIndex(where: { $0.id == id && $0.output != nil }) else { return nil }
        return attached.remove(at: index).receivesCount
    }

    /// Tells the outputs and streams what changed. An output detached by an earlier callback of
    /// the same delivery is told nothing. Returns how many count-receiving outputs were found
    /// deallocated (and let go), so that the driver stops asking for hops on their behalf.
    func deliver(visibility: Bool?, count: Int?, streams: StreamRegistry.Delivery) -> Int {
        let targets = visibility != nil || count != nil ? attached : []
        if let visibility {
            isVisible = visibility
            for target in targets {
                guard let output = target.output, isAttached(output) else { continue }
                output.networkIndicatorVisibilityDidChange(visibility)
            }
            for stream in streams.updated { stream.yield(visibility) }
        }
        for stream in streams.primed { stream.yield(isVisible) }
        if let count {
            for target in targets where target.receivesCount {
                guard let output = target.output, isAttached(output) else { continue }
                output.networkIndicatorActiveTaskCountDidChange(count)
            }
        }
        return pruneReleasedOutputs()
    }

    /// The manager is gone: outputs that showed the indicator hear `false`, count outputs hear `0`
    /// (a count output that outlives its manager keeps no stale count), and all are let go.
    func shutDown() {
        let remaining = attached
        attached.removeAll()
        let wasVisible = isVisible
        isVisible = false
        for target in remaining {
            guard let output = target.output else { continue }
            if wasVisible { output.networkIndicatorVisibilityDidChange(false) }
            if target.receivesCount { output.networkIndicatorActiveTaskCountDidChange(0) }
        }
    }

    private func isAttached(_ output: any NetworkIndicatorOutput) -> Bool {
        attached.contains { $0.output === output }
    }

    /// Lets go of deallocated outputs; returns how many of them received counts.
    private func pruneReleasedOutputs() -> Int {
        guard attached.contains(where: { $0.output == nil }) else { return 0 }
        let released = attached.filter { $0.output == nil && $0.receivesCount }.count
        attached.removeAll { $0.output == nil }
        return released
    }
}
