// Shared by the model-based test and the libFuzzer target (Fuzz/), which compiles the files of
// this folder into the library's own module with -D NETWORK_INDICATOR_FUZZ (.ci/fuzz.sh).

/// The reference model: one manager's own tasks (its descendants' are theirs), as plain counts.
struct OwnTasks {
    enum Kind: Int {
        case token, opaque, group
    }

    /// Open tasks by kind and slot.
    private(set) var counts = [
        Array(repeating: 0, count: ModelOperation.tokenSlots),
        Array(repeating: 0, count: ModelOperation.opaqueSlots),
        Array(repeating: 0, count: ModelOperation.groupSlots),
    ]
    private(set) var pushes = 0
    /// Every open task: the sum of ``counts`` and ``pushes``, kept as they change.
    private(set) var total = 0
    /// Tasks of dead tokens that the real manager may still count until its next sweep.
    var deadTaskBound = 0

    mutating func begin(_ kind: Kind, _ slot: Int) {
        counts[kind.rawValue][slot] += 1
        total += 1
    }

    /// Ends one task; `false` (misuse) if there is none.
    mutating func finish(_ kind: Kind, _ slot: Int) -> Bool {
        guard counts[kind.rawValue][slot] > 0 else { return false }
        counts[kind.rawValue][slot] -= 1
        total -= 1
        return true
    }

    /// Ends every task in the slot; returns how many there were.
    @discardableResult
    mutating func end(_ kind: Kind, _ slot: Int) -> Int {
        let ended = counts[kind.rawValue][slot]
        counts[kind.rawValue][slot] = 0
        total -= ended
        return ended
    }

    mutating func push() {
        pushes += 1
        total += 1
    }

    /// Ends one push; `false` (misuse) if there is none.
    mutating func pop() -> Bool {
        guard pushes > 0 else { return false }
        pushes -= 1
        total -= 1
        return true
    }
}
