// `NetworkIndicatorProfile ratios [iterations]`: the library beside the reference
// implementations (BenchmarkSupport, `Shared/References.swift`) in one process, one table.
//
// Every case runs `iterations` operations (one begin+finish pair, push+pop, begin+release or, for
// (g), one object's life) per run; runs are interleaved round-robin (case 1, case 2, ..., case 1,
// ...) so that a burst of load from elsewhere on the machine hurts all cases alike, and each case
// keeps its fastest of `ratioRuns` runs. Fixtures are built before any timing; one untimed warm-up
// run of each case comes first (it also gives each long-lived token its weak-reference side table).
//
// The managers are `NetworkIndicatorManager()`: the production main-queue scheduler. This tool
// never returns to the main queue, so the hops the library asks for are queued and never run
// (the first stays pending and later calls ride on it): the numbers are the calling thread's
// cost alone, with no concurrent main-queue work contending for the manager's lock.
import BenchmarkSupport
import Dispatch
import Foundation
import NetworkIndicator

let ratioRuns = 5
let ratioOtherLiveTokens = 10_000

/// The production scheduler, wrapped: a manager reads the coarse clock (`CoarseClock`) only
/// when its scheduler is `MainQueueScheduler` itself, so this one reads the precise `now` at
/// begins and finishes, as for any scheduler of the caller's (the clock A/B).
private struct PreciseClockMainQueueScheduler: NetworkIndicatorScheduler {
    let base = MainQueueScheduler()
    var now: TimeInterval { base.now }
    func enqueue(_ work: @escaping @MainActor @Sendable () -> Void) { base.enqueue(work) }
    func schedule(
        after delay: TimeInterval,
        repeating interval: TimeInterval?,
        leeway: TimeInterval,
        _ work: @escaping @MainActor @Sendable () -> Void
    ) -> any NetworkIndicatorTimer {
        base.schedule(after: delay, repeating: interval, leeway: leeway, work)
    }
}

/// One row: `run(n)` performs n operations.
private struct RatioCase {
    let name: String
    let run: (Int) -> Void
}

@MainActor
func runRatios(iterations: Int) {
    // Fixtures.
    let counter = ReferenceLockedCounter()
    let floor = WeakReferenceFloor()
    let floorToken = Token()
    let dictionary = ObviousWeakDictionary()
    let dictionaryToken = Token()
    let wrapperDictionary = WrapperWeakDictionary()
    let wrapperDictionaryToken = Token()
    let identifierSet = AlamofireStyleIDSet()
    let explicitManager = NetworkIndicatorManager()
    let explicitToken = Token()
    let opaqueManager = NetworkIndicatorManager()
    let pushPopManager = NetworkIndicatorManager()
    let crowdedManager = NetworkIndicatorManager()
    let crowdedToken = Token()
    let otherTokens = (0..<ratioOtherLiveTokens).map { _ in Token() }  // kept alive to the end
    for other in otherTokens { crowdedManager.beganNetworkTask(withToken: other) }
    let emptyManager = NetworkIndicatorManager()
    let emptyToken = Token()
    // Scopes: a task begun in a child counts in every ancestor.
    let scopeRoot = NetworkIndicatorManager()
    let depthOne = NetworkIndicatorManager(parent: scopeRoot, label: "screen")
    let depthTwo = NetworkIndicatorManager(parent: depthOne, label: "section")
    let scopeToken = Token()
    // A/B: the clock read at each begin and finish, the coarse reading (`CoarseClock`, used with
    // `MainQueueScheduler`) against the precise one (the scheduler's `now`, as for any other).
    let coarseClockManager = NetworkIndicatorManager()
    let preciseClockManager = NetworkIndicatorManager(scheduler: PreciseClockMainQueueScheduler())
    let clockToken = Token()

    let cases: [RatioCase] = [
        RatioCase(name: "(a) locked counter push+pop") { n in
            for _ in 0..<n {
                counter.push()
                counter.pop()
            }
            blackHoleInt(counter.count)
        },
        RatioCase(name: "(c) weak-reference floor (counter + weak store/load/clear)") { n in
            for _ in 0..<n {
                floor.begin(floorToken)
                floor.finish(floorToken)
            }
            blackHoleInt(floor.count)
        },
        RatioCase(name: "(d) obvious weak dictionary begin+finish") { n in
            for _ in 0..<n {
                dictionary.begin(dictionaryToken)
                dictionary.finish(dictionaryToken)
            }
            blackHoleInt(dictionary.trackedTokenCount)
        },
        RatioCase(name: "(e) Alamofire-style UUID set begin+finish") { n in
            for _ in 0..<n {
                let identifier = identifierSet.begin()
                identifierSet.finish(identifier)
            }
            blackHoleInt(identifierSet.count)
        },
        RatioCase(name: "library explicit begin+finish, same token") { n in
            for _ in 0..<n {
                explicitManager.beganNetworkTask(withToken: explicitToken)
                explicitManager.finishedNetworkTask(forToken: explicitToken)
            }
            blackHoleInt(explicitManager.activeTaskCount)
        },
        RatioCase(name: "library opaque begin+release") { n in
            for _ in 0..<n {
                _ = opaqueManager.beganNetworkTask()  // released at once: its deinit finishes it
            }
            blackHoleInt(opaqueManager.activeTaskCount)
        },
        RatioCase(name: "library push+pop") { n in
            for _ in 0..<n {
                pushPopManager.pushNetworkActivity()
                pushPopManager.popNetworkActivity()
            }
            blackHoleInt(pushPopManager.activeTaskCount)
        },
        RatioCase(name: "library explicit begin+finish, 10 000 other live tokens") { n in
            for _ in 0..<n {
                crowdedManager.beganNetworkTask(withToken: crowdedToken)
                crowdedManager.finishedNetworkTask(forToken: crowdedToken)
            }
            blackHoleInt(crowdedManager.activeTaskCount)
        },
        RatioCase(name: "library explicit begin+finish, empty manager") { n in
            for _ in 0..<n {
                emptyManager.beganNetworkTask(withToken: emptyToken)
                emptyManager.finishedNetworkTask(forToken: emptyToken)
            }
            blackHoleInt(emptyManager.activeTaskCount)
        },
        RatioCase(name: "library explicit begin+finish, child at depth 1") { n in
            for _ in 0..<n {
                depthOne.beganNetworkTask(withToken: scopeToken)
                depthOne.finishedNetworkTask(forToken: scopeToken)
            }
            blackHoleInt(scopeRoot.activeTaskCount)
        },
        RatioCase(name: "library explicit begin+finish, child at depth 2") { n in
            for _ in 0..<n {
                depthTwo.beganNetworkTask(withToken: scopeToken)
                depthTwo.finishedNetworkTask(forToken: scopeToken)
            }
            blackHoleInt(scopeRoot.activeTaskCount)
        },
        RatioCase(name: "A/B clock: explicit begin+finish, coarse clock (MainQueueScheduler)") { n in
            for _ in 0..<n {
                coarseClockManager.beganNetworkTask(withToken: clockToken)
                coarseClockManager.finishedNetworkTask(forToken: clockToken)
            }
            blackHoleInt(coarseClockManager.activeTaskCount)
        },
        RatioCase(name: "A/B clock: explicit begin+finish, precise now (any other scheduler)") { n in
            for _ in 0..<n {
                preciseClockManager.beganNetworkTask(withToken: clockToken)
                preciseClockManager.finishedNetworkTask(forToken: clockToken)
            }
            blackHoleInt(preciseClockManager.activeTaskCount)
        },
        RatioCase(name: "(f) obvious dictionary of WeakWrapper objects begin+finish") { n in
            for _ in 0..<n {
                wrapperDictionary.begin(wrapperDictionaryToken)
                wrapperDictionary.finish(wrapperDictionaryToken)
            }
            blackHoleInt(wrapperDictionary.trackedTokenCount)
        },
        // What an opaque begin+release pays that the rows with one reused token do not: one
        // object's life (allocated, its last reference released, freed). Not a design: a bound.
        RatioCase(name: "(g) one token object made and released") { n in
            for _ in 0..<n {
                blackHoleObject(Token())
            }
        },
    ]
    // Row indices used for the ratios and the checks.
    let weakFloor = 1
    let obvious = 2
    let explicit = 4
    let opaque = 5
    let crowded = 7
    let empty = 8
    let depth1 = 9
    let depth2 = 10
    let coarseClockRow = 11
    let preciseClockRow = 12
    let wrapperDictionaryRow = 13
    let objectLifeRow = 14

    // Warm-up, then the timed runs, round-robin.
    for ratioCase in cases { ratioCase.run(min(iterations, 10_000)) }
    var best = [UInt64](repeating: .max, count: cases.count)
    for _ in 0..<ratioRuns {
        for (index, ratioCase) in cases.enumerated() {
            let start = DispatchTime.now().uptimeNanoseconds
            ratioCase.run(iterations)
            let elapsed = DispatchTime.now().uptimeNanoseconds - start
            best[index] = min(best[index], elapsed)
        }
    }
    let perPair = best.map { Double($0) / Double(iterations) }

    // Sanity: every fixture must be back where it started.
    let expected: [(String, Int, Int)] = [
        ("counter", counter.count, 0),
        ("obvious weak dictionary", dictionary.trackedTokenCount, 0),
        ("dictionary of wrappers", wrapperDictionary.trackedTokenCount, 0),
        ("Alamofire-style set", identifierSet.count, 0),
        ("explicit manager", explicitManager.activeTaskCount, 0),
        ("opaque manager", opaqueManager.activeTaskCount, 0),
        ("push+pop manager", pushPopManager.activeTaskCount, 0),
        ("10k manager", crowdedManager.activeTaskCount, ratioOtherLiveTokens),
        ("empty manager", emptyManager.activeTaskCount, 0),
        ("scope root", scopeRoot.activeTaskCount, 0),
    ]
    for (name, actual, wanted) in expected where actual != wanted {
        print("WARNING: \(name) ends with \(actual) active, expected \(wanted)")
    }

    print(
        "ratios: best of \(ratioRuns) runs × \(iterations) iterations (runs interleaved), ns per pair; "
            + "managers on the main-queue scheduler, main queue never drained"
    )
    print("")
    let nameWidth = cases.map(\.name.count).max()!
    print("| \("Case".padding(toLength: nameWidth, withPad: " ", startingAt: 0)) | ns/pair | ÷ obvious |")
    print("| \(String(repeating: "-", count: nameWidth)) | ------: | --------: |")
    for (index, ratioCase) in cases.enumerated() {
        let name = ratioCase.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
        let ns = String(format: "%7.1f", perPair[index])
        let ratio = String(format: "%8.2f×", perPair[index] / perPair[obvious])
        print("| \(name) | \(ns) | \(ratio) |")
    }
    print("")

    func check(_ label: String, _ value: Double, _ limit: Double) {
        let verdict = value <= limit ? "met" : "NOT met"
        print("target: \(label) ≤ \(String(format: "%.1f", limit))×: \(String(format: "%.2f", value))× — \(verdict)")
    }
    // The targets of issue 26 (Benchmarks/README.md, "Ratios").
    check("explicit begin+finish vs obvious weak dictionary", perPair[explicit] / perPair[obvious], 0.5)
    check("opaque begin+release vs obvious weak dictionary", perPair[opaque] / perPair[obvious], 0.4)
    check("explicit with 10 000 other live tokens vs empty manager", perPair[crowded] / perPair[empty], 1.5)
    check("a depth-1 scope pair vs a root pair", perPair[depth1] / perPair[empty], 1.2)
    check(
        "second extra level (depth 2 − depth 1) vs one root begin+finish",
        (perPair[depth2] - perPair[depth1]) / perPair[empty],
        1
    )
    print(
        "explicit begin+finish ÷ weak-reference floor: \(String(format: "%.2f", perPair[explicit] / perPair[weakFloor]))×"
    )

    print("")
    // The A/B pairs, interleaved finely: `abRounds` rounds, each timing the library's explicit
    // begin+finish, the safe form and the other form on a tenth of `iterations` (a few
    // milliseconds), in an order that rotates every round; each keeps its fastest round, and the
    // gain is (safe − other) ÷ explicit begin+finish (for the sweep: ÷ the safe sweep). The
    // machine's load only ever adds time, and short interleaved rounds give each form many
    // chances to run undisturbed beside the other.
    let abRounds = 21
    let chunk = max(ratioOtherLiveTokens, iterations / 10)
    func nanosecondsPerOperation(_ index: Int) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        cases[index].run(chunk)
        return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(chunk)
    }
    func compare(_ construct: String, safe: Int, unsafe: Int, ofSafe: Bool = false) {
        var fastest: [Int: Double] = [:]
        for round in 0..<abRounds {
            for index in (0..<3).map({ [explicit, safe, unsafe][($0 + round) % 3] }) {
                fastest[index] = min(fastest[index] ?? .infinity, nanosecondsPerOperation(index))
            }
        }
        let gain = (fastest[safe]! - fastest[unsafe]!) / fastest[ofSafe ? safe : explicit]! * 100
        let verdict = gain >= 10 ? "pays (≥ 10 %)" : "does not pay (< 10 %)"
        print(
            "A/B: \(construct): safe \(String(format: "%.1f", fastest[safe]!)) ns, unsafe "
                + "\(String(format: "%.1f", fastest[unsafe]!)) ns, gain \(String(format: "%.1f", gain)) % "
                + "of \(ofSafe ? "the safe form" : "an explicit begin+finish") "
                + "(\(String(format: "%.1f", fastest[explicit]!)) ns; best of \(abRounds) interleaved rounds) — \(verdict)"
        )
    }
    // The targets again, interleaved as finely as the A/B pairs (the floor, obvious, explicit,
    // opaque, an empty root, a depth-1 child, 10 000 live, (f) and (g); best of `abRounds` rounds
    // each).
    var fastestTarget: [Int: Double] = [:]
    let targetRows = [
        weakFloor, obvious, explicit, opaque, empty, depth1, crowded, wrapperDictionaryRow, objectLifeRow,
    ]
    for round in 0..<abRounds {
        for offset in targetRows.indices {
            let index = targetRows[(offset + round) % targetRows.count]
            fastestTarget[index] = min(fastestTarget[index] ?? .infinity, nanosecondsPerOperation(index))
        }
    }
    print(
        "interleaved ns: floor \(String(format: "%.1f", fastestTarget[weakFloor]!)), obvious "
            + "\(String(format: "%.1f", fastestTarget[obvious]!)), explicit \(String(format: "%.1f", fastestTarget[explicit]!)), "
            + "opaque \(String(format: "%.1f", fastestTarget[opaque]!)), root \(String(format: "%.1f", fastestTarget[empty]!)), "
            + "depth-1 \(String(format: "%.1f", fastestTarget[depth1]!)), 10k live \(String(format: "%.1f", fastestTarget[crowded]!)), "
            + "(f) wrapper dictionary \(String(format: "%.1f", fastestTarget[wrapperDictionaryRow]!))"
    )
    check(
        "explicit begin+finish vs obvious weak dictionary (interleaved rounds)",
        fastestTarget[explicit]! / fastestTarget[obvious]!,
        0.5
    )
    check(
        "opaque begin+release vs obvious weak dictionary (interleaved rounds)",
        fastestTarget[opaque]! / fastestTarget[obvious]!,
        0.4
    )
    check(
        "a depth-1 scope pair vs a root pair (interleaved rounds)",
        fastestTarget[depth1]! / fastestTarget[empty]!,
        1.2
    )
    check(
        "explicit with 10 000 other live tokens vs empty manager (interleaved rounds)",
        fastestTarget[crowded]! / fastestTarget[empty]!,
        1.5
    )
    // The same two targets against the second yardstick, (f), for comparison only.
    print(
        "against (f), the dictionary of WeakWrapper objects (interleaved rounds): explicit "
            + "\(String(format: "%.2f", fastestTarget[explicit]! / fastestTarget[wrapperDictionaryRow]!))×, opaque "
            + "\(String(format: "%.2f", fastestTarget[opaque]! / fastestTarget[wrapperDictionaryRow]!))×, "
            + "obvious (d) \(String(format: "%.2f", fastestTarget[obvious]! / fastestTarget[wrapperDictionaryRow]!))×"
    )
    print(
        "explicit begin+finish ÷ weak-reference floor (interleaved rounds): "
            + "\(String(format: "%.2f", fastestTarget[explicit]! / fastestTarget[weakFloor]!))×"
    )
    // The opaque pair apart from the token object's own life, which (d) does not pay per pair.
    print(
        "opaque begin+release less one object's life (g), ÷ obvious (interleaved rounds): "
            + "\(String(format: "%.1f", fastestTarget[opaque]! - fastestTarget[objectLifeRow]!)) ns, "
            + "\(String(format: "%.2f", (fastestTarget[opaque]! - fastestTarget[objectLifeRow]!) / fastestTarget[obvious]!))×; "
            + "(g) alone \(String(format: "%.1f", fastestTarget[objectLifeRow]!)) ns"
    )
    print("")
    compare("coarse clock vs precise clock (now)", safe: preciseClockRow, unsafe: coarseClockRow)

    withExtendedLifetime(otherTokens) {}
}
