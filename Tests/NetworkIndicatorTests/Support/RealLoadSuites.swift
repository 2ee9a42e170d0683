import Testing

/// The parent of the suites that make real swift-corelibs-foundation loads over loopback, so that
/// their tests run one at a time.
///
/// Run side by side, loads on different sessions that are cancelled or invalidated in flight can
/// crash the test process inside swift-corelibs-foundation (a `try!` in `EasyHandle.swift` on
/// libcurl's code 43, bad function argument); it happened once in a full CI run. One load at a time
/// costs a few seconds; the suites' own claims do not depend on it.
@Suite(.serialized)
enum RealLoadSuites {}

/// Whether a cancel stops the `URLSessionTask` of a helper's load (`data(for:tracking:)`, …) at
/// once: on Apple platforms; on Linux the package lets it run on for a second, and cancels it
/// only if it still runs then, since swift-corelibs-foundation crashes or deadlocks when a task
/// is cancelled as it completes.
#if canImport(FoundationNetworking)
let cancelledHelperLoadsStopAtOnce = false
#else
let cancelledHelperLoadsStopAtOnce = true
#endif
