import Benchmark
import NetworkIndicator

let benchmarks: @Sendable () -> Void = {
    Benchmark("smoke") { benchmark in
        blackHole(1)
    }
}
