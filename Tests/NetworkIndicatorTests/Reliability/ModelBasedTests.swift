import Foundation
import Testing

@testable import NetworkIndicator

/// A small, fast, seedable generator (SplitMix64), so that every failure can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@MainActor
@Suite("Model-based randomized runs")
struct ModelBasedTests {
    static let sequenceCount = 10_000
    static let stepCount = 200

    private static func operations(seed: UInt64) -> (start: TimeInterval, completion: TimeInterval, [ModelOperation]) {
        var generator = SeededGenerator(seed: seed)
        let start = [0, 0.3][Int.random(in: 0..<2, using: &generator)]
        let completion = [0, 0.2][Int.random(in: 0..<2, using: &generator)]
        let operations = (0..<stepCount).map { _ in
            ModelOperation(
                kind: UInt8.random(in: 0...15, using: &generator),
                argument: .random(in: 0...255, using: &generator)
            )
        }
        return (start, completion, operations)
    }

    /// Runs `operations` on a fresh checker; returns the failing step's index and message.
    private static func run(
        start: TimeInterval,
        completion: TimeInterval,
        _ operations: some Sequence<ModelOperation>
    ) -> (Int, String)? {
        let checker = ModelChecker(startDelay: start, completionDelay: completion)
        for (index, operation) in operations.enumerated() {
            if let failure = checker.apply(operation) { return (index, failure) }
        }
        if let failure = checker.apply(.settle) { return (Int.max, failure) }
        return nil
    }

    @Test func managerAgreesWithTheReferenceModel() async {
        for seed in 0..<UInt64(Self.sequenceCount) {
            // Let the main queue breathe: other suites' real-timer tests need it.
            if seed % 50 == 0 { await Task.yield() }
            let (start, completion, operations) = Self.operations(seed: seed)
            guard let (index, message) = Self.run(start: start, completion: completion, operations) else { continue }
            // Shrink to the shortest failing prefix (ending with a settle) for the report.
            let shortest =
                (1...min(index == Int.max ? operations.count : index + 1, operations.count)).first { length in
                    Self.run(start: start, completion: completion, operations.prefix(length)) != nil
                } ?? operations.count
            Issue.record(
                """
                seed \(seed) (startDelay \(start), completionDelay \(completion)) failed: \(message)
                shortest failing prefix (\(shortest) steps, then settle): \(operations.prefix(shortest).map(\.description).joined(separator: ", "))
                """
            )
            return
        }
    }

    @Test func checkerCatchesAWrongModel() {
        // The checker must be able to fail: a pop the model does not know about is caught.
        let checker = ModelChecker(startDelay: 0, completionDelay: 0)
        #expect(checker.apply(.push) == nil)
        #expect(checker.apply(.push) == nil)
        #expect(checker.apply(.pop) == nil)
        let failure = checker.applyBehindTheModelsBack { $0.popNetworkActivity() }
        #expect(failure != nil)
    }
}

extension ModelChecker {
    /// Changes the manager without telling the model, then checks: for testing the checker.
    func applyBehindTheModelsBack(_ change: (NetworkIndicatorManager) -> Void) -> String? {
        change(managerForTesting)
        return apply(.advance(milliseconds: 0))
    }
}
