// Apple APIs used, with the availability Apple's documentation gives:
// - os_signpost(_:dso:log:name:signpostID:_:_:) with .begin and .end, OSSignpostID(log:),
//   OSLog(subsystem:category:) and OSLog.Category.pointsOfInterest: iOS 12.0+, macOS 10.14+,
//   tvOS 12.0+, watchOS 5.0+. (OSSignposter, iOS 15+, takes its message as an OSLogMessage,
//   which a message made at run time cannot be.)
#if canImport(os) && canImport(SwiftUI)
public import NetworkIndicator
import os

/// One line that shows every network task in Instruments: a signpost interval per task, in
/// Points of Interest, from its begin to its end, its message the task in words.
///
/// ```swift
/// #if DEBUG
/// let signposts = NetworkActivitySignposts()   // keep it for as long as you profile
/// #endif
/// ```
///
/// It attaches a `NetworkActivityTaskEventOutput` to `manager` (the app's by
/// default, so every scope's tasks show) for as long as it lives. An interval's begin message is
/// the task's kind, label, call site and scope path; its end says how it ended. An interval
/// begins when the task's begin reaches the main queue (one hop after the call), so its length
/// is the task's to within one hop. Main actor only.
@MainActor
public final class NetworkActivitySignposts {
    private let output: SignpostOutput

    /// Signposts `manager`'s tasks and its scopes' until this object is released.
    public init(manager: NetworkIndicatorManager = .shared) {
        output = SignpostOutput(log: OSLog(subsystem: "NetworkIndicator", category: .pointsOfInterest))
        manager.addOutput(output)
    }
}

/// The output behind ``NetworkActivitySignposts``: an interval per open task, paired by
/// `TaskIntervals` (tested on Linux).
@MainActor
private final class SignpostOutput: NetworkActivityTaskEventOutput {
    private let log: OSLog
    private var intervals = TaskIntervals<OSSignpostID>()

    init(log: OSLog) {
        self.log = log
    }

    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}

    func networkIndicatorTasksDidChange(_ events: [NetworkActivityTaskEvent]) {
        let log = log
        intervals.apply(
            events,
            begin: { event in
                let id = OSSignpostID(log: log)
                os_signpost(.begin, log: log, name: "network task", signpostID: id, "%{public}s", event.description)
                return id
            },
            end: { id, ending in
                os_signpost(.end, log: log, name: "network task", signpostID: id, "%{public}s", ending.rawValue)
            }
        )
    }
}
#endif
