import Benchmark
import NetworkIndicator
import Foundation

let benchmarks: @Sendable () -> Void = {
    Benchmark("empty wall+cpu+malloc", configuration: .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .mallocBytesCount], maxDuration: .seconds(1))) { benchmark in
        blackHole(1)
    }
    Benchmark("empty wall+malloc", configuration: .init(metrics: [.wallClock, .mallocCountTotal, .mallocBytesCount], maxDuration: .seconds(1))) { benchmark in
        blackHole(1)
    }
    Benchmark("mainactor", configuration: .init(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(1), maxIterations: 100)) { benchmark in
        let onMain = await MainActor.run { Thread.isMainThread }
        if !onMain { benchmark.error("not main") }
        blackHole(onMain)
    }
}
