// `NetworkIndicatorProfile sequence [elements]`: what `trackingNetworkActivity(in:)` adds per
// element of an async sequence: the same iteration with and without it, best of 5 runs each.
import BenchmarkSupport
import Dispatch
import NetworkIndicator

/// An async sequence of `count` integers that never suspends: the iteration cost alone.
struct CountingSequence: AsyncSequence, Sendable {
    let count: Int

    func makeAsyncIterator() -> Iterator { Iterator(remaining: count) }

    struct Iterator: AsyncIteratorProtocol {
        var remaining: Int
        mutating func next() async -> Int? {
            guard remaining > 0 else { return nil }
            remaining -= 1
            return remaining
        }
    }
}

@MainActor
func runSequenceOverhead(elements: Int) {
    let manager = NetworkIndicatorManager()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        var plain = UInt64.max
        var tracked = UInt64.max
        for _ in 0..<5 {
            var start = DispatchTime.now().uptimeNanoseconds
            for await value in CountingSequence(count: elements) { blackHoleInt(value) }
            plain = min(plain, DispatchTime.now().uptimeNanoseconds - start)
            start = DispatchTime.now().uptimeNanoseconds
            for await value in CountingSequence(count: elements).trackingNetworkActivity(in: manager) {
                blackHoleInt(value)
            }
            tracked = min(tracked, DispatchTime.now().uptimeNanoseconds - start)
        }
        let perElement = { (nanoseconds: UInt64) in Double(nanoseconds) / Double(elements) }
        print("sequence: \(elements) elements, best of 5, ns per element")
        print("  plain:   \(String(format: "%.1f", perElement(plain)))")
        print("  tracked: \(String(format: "%.1f", perElement(tracked)))")
        print("  overhead per element: \(String(format: "%.1f", perElement(tracked) - perElement(plain)))")
        done.signal()
    }
    done.wait()
}
