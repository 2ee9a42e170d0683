import Foundation
import HTTPTypes
import NetworkIndicator
import NetworkIndicatorTesting
import OpenAPIRuntime
import Testing

@testable import NetworkIndicatorOpenAPI

/// A request that keeps the indicator on past the manager's stale-task threshold reports itself,
/// and its report says what the app can do about it: the middleware's group is its own, so
/// "call operationFinished()" alone would be advice nobody can follow.
@MainActor
@Suite struct StuckRequestReportTests {
    /// A download that stalls halfway, read by a loop that waits for its next bytes.
    @Test(.timeLimit(.minutes(1)))
    func aStalledDownloadSaysHowItsRequestEnds() async throws {
        let harness = MiddlewareHarness()
        harness.manager.settings.staleTaskThreshold = 5
        let manual = ManualBody()
        let body = try #require(try await harness.respond(with: manual.body))
        let reader = Task { try await String(collecting: body, upTo: 1_000) }
        manual.send("half")
        await manual.readRequested()
        await manual.readRequested()  // waits for the rest
        harness.scheduler.advance(by: 6)
        let report = try #require(harness.diagnostics.first)
        #expect(report.label == "getThing")
        #expect(report.description.contains("a NetworkActivityMiddleware request is one"))
        #expect(report.description.contains("its response body is read to the end or let go"))
        manual.continuation.finish()
        _ = try await reader.value
        #expect(harness.count == 0)
    }
}
