// Shared by the model-based test and the libFuzzer target (Fuzz/), which compiles the files of
// this folder into the library's own module with -D NETWORK_INDICATOR_FUZZ (.ci/fuzz.sh).
import Foundation

#if !NETWORK_INDICATOR_FUZZ
@testable import NetworkIndicator
import NetworkIndicatorTesting
#endif

/// Counts diagnostics from any thread.
final class DiagnosticCounter: Sendable {
    private let storage = LockedState(0)
    var count: Int { storage.withLock { $0 } }
    var handler: NetworkIndicatorDiagnosticsHandler {
        { [storage] _ in storage.withLock { $0 += 1 } }
    }
}
