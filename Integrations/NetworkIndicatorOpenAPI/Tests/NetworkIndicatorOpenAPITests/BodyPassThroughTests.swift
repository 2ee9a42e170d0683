import Foundation
import NetworkIndicator
import NetworkIndicatorOpenAPI
import OpenAPIRuntime
import Testing

/// The body the middleware hands on is the transport's, unchanged: bytes, length and iteration
/// behaviour; and many requests at once each end exactly once.
@Suite struct BodyPassThroughTests {
    /// The three shapes of body a transport hands back.
    enum Shape: CaseIterable, Sendable {
        case bufferedKnownLength
        case streamedUnknownLength
        case streamedKnownLength

        func makeBody(chunks: [String]) -> HTTPBody {
            let bytes = chunks.joined().utf8.count
            switch self {
            case .bufferedKnownLength:
                return HTTPBody(chunks.joined())
            case .streamedUnknownLength, .streamedKnownLength:
                let stream = AsyncThrowingStream<HTTPBody.ByteChunk, any Error> { continuation in
                    for chunk in chunks { continuation.yield(ArraySlice(chunk.utf8)) }
                    continuation.finish()
                }
                return HTTPBody(stream, length: self == .streamedUnknownLength ? .unknown : .known(Int64(bytes)))
            }
        }
    }

    @Test(arguments: Shape.allCases)
    func bodyKeepsItsBytesLengthAndIterationBehavior(_ shape: Shape) async throws {
        let harness = MiddlewareHarness()
        let chunks = ["first ", "second ", "third"]
        let original = shape.makeBody(chunks: chunks)
        let body = try #require(try await harness.respond(with: shape.makeBody(chunks: chunks)))
        var received: [String] = []
        for try await chunk in body { received.append(String(decoding: chunk, as: UTF8.self)) }
        #expect(body.length == original.length)
        #expect(body.iterationBehavior == original.iterationBehavior)
        #expect(received.joined() == chunks.joined())
        #expect(received.count == (shape == .bufferedKnownLength ? 1 : chunks.count))
    }

    @Test func multipleIterationBodyReadsAgainAfterItsTaskEnded() async throws {
        let harness = MiddlewareHarness()
        let body = try #require(try await harness.respond(with: HTTPBody("again")))
        let first = try await String(collecting: body, upTo: 100)
        let second = try await String(collecting: body, upTo: 100)
        #expect(first == "again")
        #expect(second == "again")
        #expect(harness.count == 0)
        #expect(harness.diagnostics.isEmpty)
    }

    @Test func concurrentRequestsEachEndExactlyOnce() async throws {
        let harness = MiddlewareHarness()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let body = try await harness.respond(with: HTTPBody("request \(index)"))
                    switch index % 3 {
                    case 0: _ = try await String(collecting: try #require(body), upTo: 100)
                    case 1: withExtendedLifetime(body) {}
                    default:
                        var iterator = try #require(body).makeAsyncIterator()
                        _ = try await iterator.next()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(harness.count == 0)
        #expect(harness.diagnostics.isEmpty)
    }
}
