import Foundation
import Logging
import NetworkIndicator
import NetworkIndicatorLogging
import NetworkIndicatorTesting
import Testing

/// A `LogHandler` that keeps every entry in memory. `@unchecked Sendable`: both fields are read
/// and written under `lock` only (`Mutex` would need macOS 15).
final class InMemoryLogHandler: LogHandler, @unchecked Sendable {
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let lock = NSLock()
    private var entries: [Entry] = []
    private var level = Logger.Level.trace

    var all: [Entry] { lock.withLock { entries } }

    var logLevel: Logger.Level {
        get { lock.withLock { level } }
        set { lock.withLock { level = newValue } }
    }

    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        let flat = (event.metadata ?? [:]).mapValues { "\($0)" }
        let entry = Entry(level: event.level, message: "\(event.message)", metadata: flat)
        lock.withLock { entries.append(entry) }
    }
}

@MainActor
@Suite("swift-log integration")
struct NetworkIndicatorLoggingTests {
    private let handler = InMemoryLogHandler()
    private var logger: Logger {
        let handler = handler
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .trace
        return logger
    }

    @Test func eachTaskBeginAndEndIsLoggedAtTraceWithItsMetadata() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let app = NetworkIndicatorManager(scheduler: scheduler)
        let feed = NetworkIndicatorManager(parent: app, label: "Feed")
        let output = NetworkActivityLogOutput(logger: logger)
        app.addOutput(output)
        var token: NetworkActivityToken? = feed.beganNetworkTask(label: "feed page 2")
        scheduler.runPendingWork()
        scheduler.advance(by: 1.5)
        token = nil
        scheduler.runPendingWork()
        _ = token

        let tasks = handler.all.filter { $0.metadata["task.label"] != nil }
        #expect(tasks.map(\.level) == [.trace, .trace])
        #expect(
            tasks.map(\.message).first?.hasPrefix(
                "began opaque token feed page 2 at NetworkIndicatorLoggingTests.swift:"
            ) == true
        )
        let began = tasks[0].metadata
        #expect(began["task.kind"] == "opaqueToken")
        #expect(began["task.scope"] == "Feed")
        #expect(began["task.call_site"]?.hasPrefix("NetworkIndicatorLoggingTests.swift:") == true)
        let ended = tasks[1].metadata
        #expect(ended["task.ending"] == "released")
        #expect(ended["task.duration"] == "1.5")
        #expect(ended["task.id"] == began["task.id"])
        #expect(handler.all.contains { $0.message == "network activity indicator shown" })
    }

    @Test func aStuckTaskIsLoggedAtWarningAndMisuseAtError() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let app = NetworkIndicatorManager(
            scheduler: scheduler,
            diagnosticsHandler: logger.networkIndicatorDiagnosticsHandler
        )
        app.settings.staleTaskThreshold = 10
        let feed = NetworkIndicatorManager(parent: app, label: "Feed")
        let page = feed.beganNetworkTask(label: "feed page 2")
        scheduler.runPendingWork()
        scheduler.advance(by: 11)
        scheduler.runPendingWork()
        app.popNetworkActivity()

        let stale = handler.all.first { $0.level == .warning }
        #expect(stale?.metadata["task.label"] == "feed page 2")
        #expect(stale?.metadata["task.scope"] == "Feed")
        #expect(stale?.metadata["task.kind"] == "opaqueToken")
        #expect(stale?.message.contains("an opaque token still held keeps it open") == true)
        #expect(handler.all.contains { $0.level == .error }, "a pop without a push: \(handler.all.map(\.message))")
        _ = page
    }

    @Test func aLoggerAboveTraceLogsNoTask() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let app = NetworkIndicatorManager(scheduler: scheduler)
        var quiet = logger
        quiet.logLevel = .info
        let output = NetworkActivityLogOutput(logger: quiet)
        app.addOutput(output)
        app.pushNetworkActivity()
        scheduler.runPendingWork()
        #expect(handler.all.isEmpty)
    }
}
