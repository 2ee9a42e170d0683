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
    /// 4 500 runs, or `NETWORKINDICATOR_MODEL_RUNS` if it is a whole number above 0 (anything
    /// else runs 4 500). The run is one thread and the critical path of every `swift test`:
    /// CI's sanitizer runs take 500 (`.ci/run` says why that is enough).
    static let sequenceCount =
        ProcessInfo.processInfo.environment["NETWORKINDICATOR_MODEL_RUNS"].flatMap { Int($0) }.flatMap {
            $0 > 0 ? $0 : nil
        } ?? 4_500
    static let stepCount = 200

    /// The delays (bits 2m and 2m + 1: manager m's start and completion delays) and the steps.
    private static func operations(seed: UInt64) -> (delayBits: UInt8, [ModelOperation]) {
        var generator = SeededGenerator(seed: seed)
        let delayBits = UInt8.random(in: 0...255, using: &generator)
        let operations = (0..<stepCount).map { _ in
            ModelOperation(
                kind: UInt8.random(in: 0...15, using: &generator),
                argument: .random(in: 0...255, using: &generator)
            )
        }
        return (delayBits, operations)
    }

    /// Runs `operations` on a fresh checker; returns the failing step's index and message.
    private static func run(delayBits: UInt8, _ operations: some Sequence<ModelOperation>) -> (Int, String)? {
        let checker = ModelChecker(delayBits: delayBits)
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
            let (delayBits, operations) = Self.operations(seed: seed)
            guard let (index, message) = Self.run(delayBits: delayBits, operations) else { continue }
            // Shrink to the shortest failing prefix (ending with a settle) for the report.
            let shortest =
                (1...min(index == Int.max ? operations.count : index + 1, operations.count)).first { length in
                    Self.run(delayBits: delayBits, operations.prefix(length)) != nil
                } ?? operations.count
            Issue.record(
                """
                seed \(seed) (delay bits \(String(delayBits, radix: 2))) failed: \(message)
                shortest failing prefix (\(shortest) steps, then settle): \(operations.prefix(shortest).map(\.description).joined(separator: ", "))
                """
            )
            return
        }
    }

    @Test func checkerCatchesAWrongModel() {
        // The checker must be able to fail: a pop the model does not know about is caught.
        let checker = ModelChecker(startDelay: 0, completionDelay: 0)
        #expect(checker.apply(.push(manager: 0)) == nil)
        #expect(checker.apply(.push(manager: 0)) == nil)
        #expect(checker.apply(.pop(manager: 0)) == nil)
        let failure = checker.applyBehindTheModelsBack { $0.popNetworkActivity() }
        #expect(failure != nil)
    }

    @Test func checkerCatchesAWrongModelDeepInTheTree() {
        // A push in the grandchild that the model does not know about.
        let checker = ModelChecker(startDelay: 0, completionDelay: 0)
        #expect(checker.apply(.push(manager: 3)) == nil)
        let failure = checker.applyBehindTheModelsBack(in: 3) { $0.pushNetworkActivity() }
        #expect(failure?.contains("m3 has 2 own tasks") == true, "\(failure ?? "nil")")
    }

    @Test func checkerCatchesAChildKeptAliveBehindItsBack() {
        // A released child that something else keeps alive still counts its push in the root.
        let checker = ModelChecker(startDelay: 0, completionDelay: 0)
        #expect(checker.apply(.push(manager: 2)) == nil)
        do {
            let child = checker.managerForTesting(2)
            #expect(checker.apply(.releaseChild(manager: 2)) != nil)
            withExtendedLifetime(child) {}
        }
        #expect(checker.managerForTesting.activeTaskCount == 0, "once it is gone, its push ends in the root")
    }

    @Test func releasingAChildKeptAliveByItsTokensAndGroupsAgreesWithTheModel() {
        // Every kind of task in a child and its grandchild, then the child (and so the
        // grandchild) released: the opaque tokens and groups keep each alive until dropped.
        let checker = ModelChecker(delayBits: 0b1101_1011)
        let steps: [ModelOperation] = [
            .beginOpaque(manager: 3, slot: 0), .push(manager: 3), .beginToken(manager: 3, slot: 1),
            .groupStart(manager: 3, slot: 2), .beginToken(manager: 1, slot: 1), .groupStart(manager: 1, slot: 0),
            .beginOpaque(manager: 1, slot: 3), .finishOpaque(manager: 1, slot: 3), .push(manager: 1),
            .push(manager: 2), .push(manager: 0), .settle, .releaseChild(manager: 1), .settle,
            .push(manager: 3), .pop(manager: 2), .pop(manager: 0), .settle, .releaseChild(manager: 3), .settle,
        ]
        for step in steps {
            #expect(checker.apply(step) == nil, "\(step)")
        }
        #expect(checker.managerForTesting.activeTaskCount == 0)
    }
}

extension ModelChecker {
    /// Changes manager `index` without telling the model, then checks: for testing the checker.
    func applyBehindTheModelsBack(in index: Int = 0, _ change: (NetworkIndicatorManager) -> Void) -> String? {
        change(managerForTesting(index))
        return apply(.advance(milliseconds: 0))
    }
}
