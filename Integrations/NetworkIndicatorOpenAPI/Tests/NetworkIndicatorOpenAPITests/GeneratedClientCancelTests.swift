import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import OpenAPIRuntime
import OpenAPIURLSession
import Testing

@testable import NetworkIndicatorOpenAPI

/// A screen's `cancelNetworkTasks()` stops a generated client's call over `URLSessionTransport`,
/// against a real server on 127.0.0.1.
///
/// Serialized, and the only suite of this package that cancels real loads:
/// swift-corelibs-foundation can crash when loads are cancelled concurrently (see the root
/// package's `RealLoadSuites`).
@Suite(.serialized) struct GeneratedClientCancelTests {
    private let server: LoopbackAPIServer
    private let app: NetworkIndicatorManager
    private let screen: NetworkIndicatorManager
    private let client: Client

    init() throws {
        server = try LoopbackAPIServer()
        app = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        screen = NetworkIndicatorManager(parent: app, label: "screen")
        client = Client(
            serverURL: server.baseURL,
            transport: URLSessionTransport(),
            middlewares: [NetworkActivityMiddleware()]
        )
    }

    /// Waits (at most 10 s) until `manager` counts a task.
    private func waitUntilCounted(in manager: NetworkIndicatorManager) async throws {
        let deadline = Date().addingTimeInterval(10)
        while manager.activeTaskCount == 0, Date() < deadline {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }

    @Test func screensCancelMakesAHeldCallThrowCancellationError() async throws {
        let (client, screen) = (client, screen)
        let call = Task {
            try await NetworkIndicatorManager.$current.withValue(screen) {
                try await client.getGreeting(query: .init(name: "held")).ok.body.json.message
            }
        }
        try await waitUntilCounted(in: screen)
        screen.cancelNetworkTasks()
        do {
            // Without the cancel, the server answers after `LoopbackAPIServer.holdSeconds` and the
            // call returns its greeting.
            let message = try await call.value
            Issue.record("the call returned \(message)")
        } catch let error as ClientError {
            #expect(error.underlyingError is CancellationError, "\(error)")
        }
        #expect(screen.activeTaskCount == 0)
        #expect(app.activeTaskCount == 0)
    }

    @Test func callAfterTheCancelLoadsAsUsual() async throws {
        let (client, screen) = (client, screen)
        screen.cancelNetworkTasks()
        let message = try await NetworkIndicatorManager.$current.withValue(screen) {
            try await client.getGreeting(query: .init(name: "again")).ok.body.json.message
        }
        #expect(message == "Hello, again")
        #expect(screen.activeTaskCount == 0)
    }
}
