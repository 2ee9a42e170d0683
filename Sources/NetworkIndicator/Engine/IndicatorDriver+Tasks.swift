/// Beginning and ending tasks, from any thread: each is one ``IndicatorDriver/changeTasks(_:)``,
/// which takes the lock in `IndicatorDriver.swift`.
extension IndicatorDriver {
    /// Begins one task for a caller's `token` (held weakly, unless it is this manager's own
    /// opaque token, whose `deinit` reports its end).
    func beginToken(_ token: AnyObject, isOwnOpaqueToken: Bool, label: String?) {
        changeTasks { state, now in
            let kind = state.classifier.kind(of: token, isOwnOpaqueToken: isOwnOpaqueToken)
            state.registry.begin(
                ObjectIdentifier(token),
                object: kind.isSwept ? token : nil,
                kind: kind,
                label: label,
                now: now
            )
        }
    }

    /// Begins one task under `key` that no weak reference tracks (an opaque token, a group).
    func begin(_ key: ObjectIdentifier, kind: TaskKind, label: String?) {
        changeTasks { $0.registry.begin(key, object: nil, kind: kind, label: label, now: $1) }
    }

    /// Ends one task under `key`.
    func finishOne(_ key: ObjectIdentifier) -> TaskRegistry.FinishOutcome {
        changeTasks { state, _ in state.registry.finishOne(key) }
    }

    /// Ends every task under `key` without reporting anything (a token or group going away).
    func finishAll(_ key: ObjectIdentifier) {
        changeTasks { state, _ in state.registry.finishAll(key) }
    }

    /// Begins one counted task.
    func push() {
        changeTasks { $0.registry.push(now: $1) }
    }

    /// Ends one counted task; `false` (and no change) if none is open.
    func pop() -> Bool {
        changeTasks { state, _ in state.registry.pop() }
    }

    /// Ends every task of this manager and of all its descendants (children first).
    func resetTree() {
        let children = withState { Array($0.children.values) }
        for child in children { child.resetTree() }
        changeTasks { state, _ in state.registry.removeAll() }
    }
}
