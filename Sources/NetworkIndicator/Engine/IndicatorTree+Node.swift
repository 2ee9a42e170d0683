import Foundation

/// The reads of one node (one ``read(_:_:)``, and the two counts the tree reads itself) and its
/// events that move no count: a stale ``IndicatorTree/NodeID`` reads as `nil` (the counts as 0)
/// and changes nothing.
extension IndicatorTree {
    static let rootID = NodeID(index: 0, generation: 0)

    /// The handler of a removed node, and the answer for a stale id.
    static let silent: NetworkIndicatorDiagnosticsHandler = { _ in }

    // MARK: - Reads

    /// The open tasks of `id` and of all its descendants.
    func activeTaskCount(of id: NodeID) -> Int {
        read(id) { $0.activeTaskCount } ?? 0
    }

    /// The open tasks of the token `reference` names in `id`; for the progress roll-up, never on
    /// begin or finish.
    func openTaskCount(_ reference: TaskReference, in id: NodeID) -> Int {
        read(id) { $0.registry.openTaskCount(reference) } ?? 0
    }

    /// Reads the node `id`; `nil` if it is stale (its manager gone).
    func read<Result>(_ id: NodeID, _ body: (Node) -> Result) -> Result? {
        // Borrowed in place, not copied out with `node(at:)`: a copy retains and releases every
        // field of the node, once per part a settle or a reading asks (`openTaskCount`).
        contains(id) ? borrowNode(Int(id.index), body) : nil
    }

    /// When the count of `id` last left zero, if it has tasks now; `nil` if idle or removed.
    func busySince(of id: NodeID) -> TimeInterval? {
        read(id) { $0.activeTaskCount > 0 ? $0.activeSince : nil } ?? nil
    }

    // MARK: - Events that move no count

    /// Replaces the handler of `id`, its own from now on, and of each scope below that has none
    /// of its own; returns the old one, to release after the lock (the scopes' copies are of it).
    mutating func replaceDiagnosticsHandler(
        of id: NodeID,
        with handler: @escaping NetworkIndicatorDiagnosticsHandler
    )
        -> NetworkIndicatorDiagnosticsHandler
    {
        guard contains(id) else { return handler }
        let old = withNode(Int(id.index)) { node in
            defer {
                node.diagnosticsHandler = handler
                node.hasOwnDiagnosticsHandler = true
            }
            return node.diagnosticsHandler
        }
        var below = children(ofNodeAt: id.index)
        while let index = below.popLast() {
            let follows = withNode(Int(index)) { node in
                guard !node.hasOwnDiagnosticsHandler else { return false }
                node.diagnosticsHandler = handler
                return true
            }
            if follows { below += children(ofNodeAt: index) }
        }
        return old
    }

    /// Changes the settings of `id`; they apply at its next reconcile. The stale-task threshold
    /// in force passes down to the scopes below that set none. Returns whether the tree's hop must
    /// be enqueued.
    mutating func changeSettings(of id: NodeID, _ update: (inout NetworkIndicatorSettings) -> Void) -> Bool {
        guard contains(id) else { return false }
        let needsHop = event(id, ifGone: ()) { ((), $0.schedule.settingsChanged(update)) }.1
        return passStaleThresholdDown(from: id.index) || needsHop
    }

    /// The labels of the scopes from the root (left out) down to the node at `index`.
    func scopePath(ofNodeAt index: Int32) -> [String] {
        chain(ofNodeAt: index).reversed().filter { $0 > 0 }
            .map { node(at: Int($0)).label ?? ActivityLabel.unlabelledScope }
    }

    /// An output was attached to `id`; returns the count to tell it at once (if it wants counts)
    /// and whether the tree's hop must be enqueued.
    mutating func outputAttached(receivesCount: Bool, in id: NodeID) -> (Int?, Bool) {
        event(id, ifGone: nil) { node in
            node.schedule.outputAttached(
                receivesCount: receivesCount,
                activity: node.activity(count: node.activeTaskCount)
            )
        }
    }

    /// `count` outputs of `id` that wanted counts were detached or found deallocated.
    mutating func countObserversLeft(_ count: Int, in id: NodeID) {
        _ = event(id, ifGone: ()) { ($0.schedule.countObserversLeft(count), false) }
    }

    // MARK: - Private

    /// Gives the stale-task threshold in force at `index` to its scopes; each whose own threshold
    /// in force changed asks for a hop (its sweep may start or stop) and passes it on. Returns
    /// whether the tree's hop must be enqueued.
    private mutating func passStaleThresholdDown(from index: Int32) -> Bool {
        let threshold = borrowNode(Int(index)) { $0.schedule.staleThreshold }
        var needsHop = false
        for child in children(ofNodeAt: index) {
            let (changed, asks) = withNode(Int(child)) { $0.schedule.inherit(staleThreshold: threshold) }
            guard changed else { continue }
            if asks, markDirty(child) { needsHop = true }
            if passStaleThresholdDown(from: child) { needsHop = true }
        }
        return needsHop
    }

    /// The main actor is about to make an outlet for `id`: `true`, and noted in the node, whose
    /// removal then has it closed on the main actor (a node without one leaves nothing for the
    /// main queue, so that scopes made and released where it never runs cost nothing there), if
    /// `id` is still a node of the tree; `false` if it was removed (make none).
    mutating func outletMade(for id: NodeID) -> Bool {
        guard contains(id) else { return false }
        withNode(Int(id.index)) { $0.hasOutlet = true }
        return true
    }

    /// Runs `body` on the node `id`; marks the node dirty if it asks for a hop.
    private mutating func event<Result>(
        _ id: NodeID,
        ifGone: Result,
        _ body: (inout Node) -> (Result, Bool)
    ) -> (Result, Bool) {
        guard contains(id) else { return (ifGone, false) }
        let (result, asks) = withNode(Int(id.index), body)
        return (result, asks && markDirty(id.index))
    }
}
