// Shared by the model-based test, the stress test and the libFuzzer target (Fuzz/), which
// compiles the files of this folder into the library's own module (.ci/fuzz.sh).
import Foundation

#if !NETWORK_INDICATOR_FUZZ
import NetworkIndicator
#endif

/// A real manager's own tasks, told apart from its descendants' through its public snapshot: every
/// activity except the child managers' records (which count their whole subtrees).
struct ManagerOwnTasks {
    /// The manager's own open tasks, dead tokens awaiting the sweep included.
    var count = 0
    /// The open pushes.
    var pushes = 0
    /// Whether it tracks a weak token (so its sweep timer runs).
    var tracksWeakTokens = false

    init(of manager: NetworkIndicatorManager) {
        for activity in manager.activitySnapshot().activities {
            switch activity.kind {
            case .childManager: continue
            case .counter: pushes += activity.taskCount
            case .weakToken: tracksWeakTokens = true
            case .opaqueToken, .group: break
            }
            count += activity.taskCount
        }
    }
}
