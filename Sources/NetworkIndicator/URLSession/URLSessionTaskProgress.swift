import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `Progress` the manager reads for a `URLSessionTask`: each read samples the task, so the
/// task never reports to the manager and the manager never observes it.
///
/// Where it reads from:
///
/// - Apple platforms: the task's own `progress` (iOS 11+, macOS 10.13+), which Foundation
///   advances with the bytes received (or sent, for an upload).
/// - Linux: swift-corelibs-foundation leaves the task's `progress` at 0 of unknown until the
///   task completes, so the byte counts are read instead; see ``ByteCounts/reading``.
///
/// The task is held weakly, so that a tracked task released before it completes still dies and
/// ends at the sweep (the task's own `progress` may keep its task alive through its cancellation
/// handler, and the manager keeps a tracked progress until its task ends); one that its session
/// holds unresumed lives on (``NetworkIndicatorManager/track(_:label:file:line:)``). So the task's final
/// state is recorded as it completes, whoever keeps the task: by the first reading that finds it
/// completed, or by ``recordEnd(of:)``, which whatever ends the task in the manager calls first.
/// A task gone without either (deallocated before it completed) never finished: it reads failed.
/// The task can be attached after the fact (``attach(_:)``), for the async helpers that learn of
/// their task only once URLSession has made it.
///
/// The roll-up reads it through ``SelfReadingProgress/reading``, from the counts kept under its
/// lock: a task that failed or was cancelled reads cancelled (it leaves its batch), and a
/// suspended one paused (it keeps its bytes until it resumes).
///
/// `@unchecked Sendable`, restated from `Progress`: the only state this subclass adds sits in a
/// ``LockedState``.
final class URLSessionTaskProgress: Progress, SelfReadingProgress, @unchecked Sendable {
    private struct Source {
        weak var task: URLSessionTask?
        /// Whether a task was attached: one that reads `nil` since has gone.
        var hasTask = false
        /// The last reading; once ``isFinal``, the only one.
        var last = Reading(total: -1, completed: 0)
        /// Whether ``last`` is the task's final reading, never to change.
        var isFinal = false
        /// Whether a cancel of the manager is about to cancel the task (``cancelIsComing()``).
        var isBeingCancelled = false
    }

    /// Units as the task reports them: a total that is not positive is unknown.
    struct Reading: Equatable {
        var total: Int64
        var completed: Int64
        var isFailed = false
        var isSuspended = false
        /// Whether the task had completed: the reading is its last. Read only on a fresh
        /// reading, to decide whether it is final; a final reading is never read for it.
        var isCompleted = false
    }

    private let source = LockedState(Source())

    /// A progress reading `task`, or nothing yet (unknown total) until ``attach(_:)``.
    init(task: URLSessionTask?) {
        super.init(parent: nil, userInfo: nil)
        if let task { attach(task) }
    }

    /// Reads `task` from now on.
    func attach(_ task: URLSessionTask) {
        source.withLock { source in
            guard !source.isFinal else { return }
            source.task = task
            source.hasTask = true
        }
    }

    /// Records `task`'s final reading, before the task ends in the manager: failed unless the
    /// task completed without an error (one let go before it completed never will). Call it
    /// while holding `task`, outside every lock of Foundation's (not from a key-value
    /// observation's callout).
    func recordEnd(of task: URLSessionTask) {
        var reading = Self.reading(of: task)
        if !reading.isCompleted { reading.isFailed = true }
        source.withLock { source in
            guard !source.isFinal else { return }
            source.last = reading
            source.isFinal = true
            source.task = nil
        }
    }

    /// The load that ran the task returned its result: the task completed without an error,
    /// whether or not it is still there to read. Call it before the load's task ends in the
    /// manager; a reading already final stays as it is.
    func recordCompletion() {
        // The task, if still there, is read outside the lock, as in `sample()`.
        let reading = source.withLock { $0.task }.map(Self.reading(of:))
        source.withLock { source in
            guard !source.isFinal else { return }
            var final = reading ?? source.last
            final.isFailed = false
            final.isSuspended = false
            source.last = final
            source.isFinal = true
            source.task = nil
        }
    }

    /// A cancel of the manager is about to end the task there and then cancel it: until the task
    /// completes, it reads failed. Its part then leaves its batch even when read between that end
    /// and the task's `cancel()`, which may come after other work's cancel (a group's handler
    /// that reads the progress, say), instead of counting as done.
    func cancelIsComing() {
        source.withLock { $0.isBeingCancelled = true }
    }

    override var totalUnitCount: Int64 {
        get { sample().total }
        set { super.totalUnitCount = newValue }
    }

    override var completedUnitCount: Int64 {
        get { sample().completed }
        set { super.completedUnitCount = newValue }
    }

    var reading: ProgressReading {
        let sample = sample()
        return ProgressReading(
            total: Double(sample.total),
            completed: Double(sample.completed),
            isCancelled: sample.isFailed,
            isPaused: sample.isSuspended
        )
    }

    /// The task's units now, or its final reading once it has one. A task gone without a final
    /// reading never completed: its last reading, failed. The task is read outside the lock:
    /// Foundation takes locks of its own to answer.
    private func sample() -> Reading {
        let (task, known) = source.withLock { ($0.task, $0) }
        guard !known.isFinal, let task else {
            var last = known.last
            if !known.isFinal && known.hasTask { last.isFailed = true }
            return last
        }
        var reading = Self.reading(of: task)
        if known.isBeingCancelled && !reading.isCompleted { reading.isFailed = true }
        source.withLock { source in
            guard !source.isFinal else { return }
            source.last = reading
            source.isFinal = reading.isCompleted
        }
        return reading
    }

    private static func reading(of task: URLSessionTask) -> Reading {
        #if canImport(ObjectiveC)
        let progress = task.progress
        var reading = Reading(total: progress.totalUnitCount, completed: progress.completedUnitCount)
        // Not done before it completes (an upload that sent everything awaits its response),
        // and of unknown size if its answer has no body (its headers' length never comes).
        if task.state != .completed, reading.total > 0 {
            reading.completed = min(reading.completed, reading.total - 1)
        } else if task.state == .completed, ByteCounts.hasNoBody(task) {
            reading = Reading(total: -1, completed: 1)
        }
        #else
        var reading = ByteCounts(task).reading
        #endif
        let state = task.state
        reading.isCompleted = state == .completed
        // A cancel may not have completed the task yet: it will not be done.
        reading.isFailed = state == .canceling || (reading.isCompleted && task.error != nil)
        reading.isSuspended = state == .suspended
        return reading
    }
}

extension URLSessionTaskProgress {
    /// The byte counts of a task, as swift-corelibs-foundation reports them, and what they mean
    /// as progress (Linux).
    ///
    /// Measured with Swift 6.3 on Linux against a loopback server: the download tasks of a
    /// session with a delegate count their bytes as they arrive (`countOfBytesReceived`, and
    /// their `progress`), and its upload tasks as they go (`countOfBytesSent`, which reaches the
    /// whole body while the response is still awaited); a transfer with a completion handler, a
    /// transfer on a session without a delegate, and a data task count nothing until they
    /// complete (the expected counts are set once the headers are known). So those are indeterminate (they neither add
    /// nor dilute) until they complete, when they count as done. Should Foundation start counting
    /// them, they become determinate with no change here.
    struct ByteCounts: Equatable {
        var isUpload: Bool
        var isCompleted: Bool
        /// Whether the task completed with an answer that has no body by HTTP's rules (to a
        /// HEAD, or a 1xx, 204 or 304), whatever length its headers give.
        var hasNoBody: Bool
        var received: Int64
        var expectedToReceive: Int64
        var sent: Int64
        var expectedToSend: Int64

        init(
            isUpload: Bool,
            isCompleted: Bool,
            received: Int64 = 0,
            expectedToReceive: Int64 = -1,
            sent: Int64 = 0,
            expectedToSend: Int64 = -1,
            hasNoBody: Bool = false
        ) {
            self.isUpload = isUpload
            self.isCompleted = isCompleted
            self.hasNoBody = hasNoBody
            self.received = received
            self.expectedToReceive = expectedToReceive
            self.sent = sent
            self.expectedToSend = expectedToSend
        }

        /// Reads the counts of `task`'s direction only: each read takes a lock of Foundation's.
        init(_ task: URLSessionTask) {
            let isUpload = task is URLSessionUploadTask
            let isCompleted = task.state == .completed
            if isUpload {
                self.init(
                    isUpload: true,
                    isCompleted: isCompleted,
                    sent: task.countOfBytesSent,
                    expectedToSend: task.countOfBytesExpectedToSend
                )
            } else {
                self.init(
                    isUpload: false,
                    isCompleted: isCompleted,
                    received: task.countOfBytesReceived,
                    expectedToReceive: task.countOfBytesExpectedToReceive,
                    hasNoBody: isCompleted && Self.hasNoBody(task)
                )
            }
        }

        /// The task's direction (sent for an upload, received otherwise) as units: unknown until
        /// the expected count is known and some bytes have been counted, and for an answer
        /// without a body; all done once the task completed; the counted bytes in between, short
        /// of the expected count until it completes (an upload that sent everything still awaits
        /// its response).
        var reading: Reading {
            let (done, expected) = isUpload ? (sent, expectedToSend) : (received, expectedToReceive)
            guard expected > 0, !hasNoBody else { return Reading(total: -1, completed: isCompleted ? 1 : 0) }
            if isCompleted { return Reading(total: expected, completed: expected) }
            guard done > 0 else { return Reading(total: -1, completed: 0) }
            return Reading(total: expected, completed: min(done, expected - 1))
        }

        /// Whether `task`'s answer has no body by HTTP's rules: to a HEAD, or a 1xx, 204 or 304.
        static func hasNoBody(_ task: URLSessionTask) -> Bool {
            if task.originalRequest?.httpMethod?.uppercased() == "HEAD" { return true }
            guard let status = (task.response as? HTTPURLResponse)?.statusCode else { return false }
            return (100..<200).contains(status) || status == 204 || status == 304
        }
    }
}
