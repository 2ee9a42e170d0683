import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// ShowingProgress.md: what a progress reading says (the fraction, the units done and in all,
/// `hasIndeterminateWork`) never depends on whether anyone read in between. Two managers are
/// driven by the same seeded random steps, each with progress objects of its own; one is read
/// after every step, the other only every `checkpointInterval` steps, and the two readings
/// must agree there (`estimatedTimeRemaining`, a pace since the batch began, is left out).
///
/// The steps stay inside what the documentation promises (test mistakes otherwise):
/// - a `Progress` only moves forward (its units grow; once complete or cancelled it is left
///   alone) and is changed only while its task is open: a part leaves "on a reading taken after
///   it was seen to end" (Batch.swift, "The rules"), so a change after its end may count or not;
/// - a caller's token is always begun with a progress: "a token begun again without progress
///   after its part ended can bring that part back, if nothing listed the parts in between"
///   (ShowingProgress.md, "Edge cases").
///
/// Left out of the generator: two changes the manager learns of only when it reads
/// (ShowingProgress.md, "Edge cases"):
/// 1. A total becoming known while no batch runs: a batch that emptied unread (its last running
///    task ended, or its progress was cancelled) takes in the part whose size became known,
///    with the ended parts' units, instead of a new batch beginning at its own fraction.
/// 2. A group's start and a finish with no reading between them: a complete part that left
///    while its operation was open keeps measuring an operation after that one ended
///    (`hasIndeterminateWork` stays `false`).
@MainActor
@Suite("A reading never depends on earlier readings")
struct ReadIndependenceTests {
    static let seeds: ClosedRange<UInt64> = 1...200
    static let stepsPerSeed = 60
    static let checkpointInterval = 5

    @Test func readingAfterEveryStepOrOnlyAtCheckpointsAgrees() {
        var differences = 0
        for seed in Self.seeds {
            var generator = SeededGenerator(seed: seed)
            let eager = ReadWorld()  // read after every step
            let lazy = ReadWorld()  // read at checkpoints only
            var steps: [ReadStep] = []
            for index in 1...Self.stepsPerSeed {
                let step = ReadStep.random(using: &generator, in: eager)
                steps.append(step)
                eager.apply(step)
                lazy.apply(step)
                let eagerReading = eager.manager.progressSnapshot()
                eager.lastReading = eagerReading
                guard index % Self.checkpointInterval == 0 || index == Self.stepsPerSeed else { continue }
                let lazyReading = lazy.manager.progressSnapshot()
                eager.groupStartedUnread = false
                eager.groupEndedUnread = false
                let counts = (eager.manager.activeTaskCount, lazy.manager.activeTaskCount)
                guard !eagerReading.agrees(with: lazyReading) || counts.0 != counts.1 else { continue }
                differences += 1
                Issue.record(
                    """
                    seed \(seed), after step \(index): read after every step \(eagerReading.readingDescription), \
                    read at checkpoints \(lazyReading.readingDescription) (open tasks \(counts.0), \(counts.1))
                    steps:
                    \(steps.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n"))
                    """
                )
                break
            }
        }
        #expect(differences == 0, "\(differences) of \(Self.seeds.count) seeds read differently")
    }
}

// MARK: - The generator

/// The model-based tests' seeded generator (SplitMix64), with the draws the steps need.
extension SeededGenerator {
    /// A number in `0..<bound`, from this generator alone (no `SystemRandomNumberGenerator`).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }
}

/// One step, naming progresses (`p<n>`) and opaque tokens (`o<n>`) by the ids the generator gave
/// them; a step whose objects are gone or whose task is not open does nothing, in both worlds.
enum ReadStep: CustomStringConvertible {
    /// A new progress of `total` units (0: unknown yet), `completed` done.
    struct NewProgress {
        let id: Int
        let total: Int64
        let completed: Int64
    }

    case beginOpaque(id: Int, NewProgress?)
    case releaseOpaque(id: Int)
    case finishOpaque(id: Int)
    case beginToken(Int, NewProgress)
    case beginTokenAgain(Int, progress: Int)
    case finishToken(Int)
    case groupStarted(NewProgress?)
    case groupFinished
    case advance(progress: Int, to: Int64)
    case complete(progress: Int)
    case cancel(progress: Int)
    case pause(progress: Int)
    case resume(progress: Int)
    case sizeBecomesKnown(progress: Int, total: Int64)
    case cancelNetworkTasks
    case resetNetworkActivity

    var description: String {
        func new(_ p: NewProgress) -> String { "p\(p.id) = progress(\(p.completed), of: \(p.total))" }
        switch self {
        case .beginOpaque(let id, let p?): return "\(new(p)); o\(id) = manager.beganNetworkTask(progress: p\(p.id))"
        case .beginOpaque(let id, nil): return "o\(id) = manager.beganNetworkTask()"
        case .releaseOpaque(let id): return "o\(id) = nil"
        case .finishOpaque(let id): return "manager.finishedNetworkTask(forToken: o\(id))"
        case .beginToken(let t, let p):
            return "\(new(p)); manager.beganNetworkTask(withToken: t\(t), progress: p\(p.id))"
        case .beginTokenAgain(let t, let p): return "manager.beganNetworkTask(withToken: t\(t), progress: p\(p))"
        case .finishToken(let t): return "manager.finishedNetworkTask(forToken: t\(t))"
        case .groupStarted(let p?): return "\(new(p)); group.operationStarted(progress: p\(p.id))"
        case .groupStarted(nil): return "group.operationStarted()"
        case .groupFinished: return "group.operationFinished()"
        case .advance(let p, let to): return "p\(p).completedUnitCount = \(to)"
        case .complete(let p): return "p\(p).completedUnitCount = p\(p).totalUnitCount"
        case .cancel(let p): return "p\(p).cancel()"
        case .pause(let p): return "p\(p).pause()"
        case .resume(let p): return "p\(p).resume()"
        case .sizeBecomesKnown(let p, let total): return "p\(p).totalUnitCount = \(total)"
        case .cancelNetworkTasks: return "manager.cancelNetworkTasks()"
        case .resetNetworkActivity: return "manager.resetNetworkActivity()"
        }
    }

    /// A step that fits `world` now.
    @MainActor
    static func random(using g: inout SeededGenerator, in world: ReadWorld) -> ReadStep {
        func newProgress() -> NewProgress {
            let total: Int64 = g.chance(10) ? 0 : Int64(10 * (1 + g.below(100)))
            let completed: Int64 = total > 0 && g.chance(30) ? Int64(g.below(Int(total / 2))) : 0
            return NewProgress(id: world.nextID(), total: total, completed: completed)
        }
        while true {
            switch g.below(100) {
            case 0..<14:
                return .beginOpaque(id: world.nextID(), g.chance(80) ? newProgress() : nil)
            case 14..<20:
                let held = world.heldOpaque
                guard !held.isEmpty else { continue }
                return .releaseOpaque(id: g.pick(held))
            case 20..<23:
                let open = world.openOpaque
                guard !open.isEmpty else { continue }
                return .finishOpaque(id: g.pick(open))
            case 23..<31:
                return .beginToken(g.below(ReadWorld.tokenCount), newProgress())
            case 31..<36:
                let token = g.below(ReadWorld.tokenCount)
                let own = world.progresses(beganWith: token)
                guard !own.isEmpty else { continue }
                return .beginTokenAgain(token, progress: g.pick(own))
            case 36..<44:
                let open = (0..<ReadWorld.tokenCount).filter { world.tokenOpen[$0] > 0 }
                guard !open.isEmpty else { continue }
                return .finishToken(g.pick(open))
            case 44..<54:
                return .groupStarted(g.chance(70) ? newProgress() : nil)
            case 54..<62:
                // Left out (limit 2): a finish after a start, with no reading of the world read
                // at checkpoints in between.
                guard world.group.activeOperationCount > 0, !world.groupStartedUnread else { continue }
                return .groupFinished
            case 62..<97:
                let live = world.liveProgresses
                guard !live.isEmpty else { continue }
                let id = g.pick(live)
                let progress = world.progresses[id]!
                let total = progress.totalUnitCount
                switch g.below(100) {
                case 0..<45 where total > 0:
                    let left = Int(total - progress.completedUnitCount)
                    return .advance(progress: id, to: progress.completedUnitCount + Int64(1 + g.below(left)))
                case 45..<65 where total > 0: return .complete(progress: id)
                case 65..<75: return .cancel(progress: id)
                case 75..<85: return progress.isPaused ? .resume(progress: id) : .pause(progress: id)
                // Left out: a total becoming known while no batch runs (limit 1).
                case 85..<100 where total <= 0 && world.lastReading?.fractionCompleted != nil:
                    return .sizeBecomesKnown(progress: id, total: Int64(10 * (1 + g.below(100))))
                default: continue
                }
            case 97..<99:
                return .cancelNetworkTasks
            default:
                return .resetNetworkActivity
            }
        }
    }
}

// MARK: - One manager and what the steps made for it

/// A manager with its own objects: the same steps give each world equal but separate ones.
@MainActor
final class ReadWorld {
    static let tokenCount = 3

    let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
    let group: NetworkActivityGroup
    let tokens = (0..<ReadWorld.tokenCount).map { _ in Token() }
    private(set) var progresses: [Int: Progress] = [:]
    private var ids = 0

    /// Opaque tokens still held, and whether their task is open, with their progress.
    private var opaque: [Int: NetworkActivityToken] = [:]
    private var opaqueIsOpen: [Int: Bool] = [:]
    private var opaqueProgress: [Int: Int] = [:]
    /// Each caller's token's open tasks, the progresses of its open tasks, and all it began with.
    private(set) var tokenOpen = [Int](repeating: 0, count: ReadWorld.tokenCount)
    private var tokenLive = [Set<Int>](repeating: [], count: ReadWorld.tokenCount)
    private var tokenAll = [[Int]](repeating: [], count: ReadWorld.tokenCount)
    /// The progresses of the group's operations since it last had none open.
    private var groupLive: Set<Int> = []
    /// Whether the group started an operation, or ended some (a finish, a cancel, a reset),
    /// since the world read at checkpoints last read.
    var groupStartedUnread = false
    var groupEndedUnread = false
    /// The reading taken after the last step, in the world read after every step.
    var lastReading: NetworkProgressSnapshot?

    init() {
        group = NetworkActivityGroup(manager: manager, label: "group")
    }

    func nextID() -> Int {
        ids += 1
        return ids
    }

    var heldOpaque: [Int] { opaque.keys.sorted() }
    var openOpaque: [Int] { opaque.keys.filter { opaqueIsOpen[$0] == true }.sorted() }
    func progresses(beganWith token: Int) -> [Int] { tokenAll[token] }

    /// The progresses whose task is open, not complete and not cancelled: those a step may change.
    var liveProgresses: [Int] {
        var live = Set(groupLive)
        for (id, progress) in opaqueProgress where opaqueIsOpen[id] == true { live.insert(progress) }
        for token in 0..<Self.tokenCount where tokenOpen[token] > 0 { live.formUnion(tokenLive[token]) }
        return live.filter { id in
            let progress = progresses[id]!
            return !progress.isCancelled
                && !(progress.totalUnitCount > 0 && progress.completedUnitCount >= progress.totalUnitCount)
        }.sorted()
    }

    private func make(_ new: ReadStep.NewProgress) -> Progress {
        let made = progress(new.completed, of: new.total)
        progresses[new.id] = made
        ids = max(ids, new.id)
        return made
    }

    func apply(_ step: ReadStep) {
        switch step {
        case .beginOpaque(let id, let new):
            ids = max(ids, id)
            if let new {
                opaque[id] = manager.beganNetworkTask(progress: make(new))
                opaqueProgress[id] = new.id
            } else {
                opaque[id] = manager.beganNetworkTask()
            }
            opaqueIsOpen[id] = true
        case .releaseOpaque(let id):
            opaque[id] = nil
            opaqueIsOpen[id] = false
        case .finishOpaque(let id):
            guard let token = opaque[id], opaqueIsOpen[id] == true else { return }
            manager.finishedNetworkTask(forToken: token)
            opaqueIsOpen[id] = false
        case .beginToken(let t, let new):
            manager.beganNetworkTask(withToken: tokens[t], progress: make(new))
            began(token: t, progress: new.id)
        case .beginTokenAgain(let t, let id):
            guard let progress = progresses[id], tokenAll[t].contains(id) else { return }
            manager.beganNetworkTask(withToken: tokens[t], progress: progress)
            began(token: t, progress: id)
        case .finishToken(let t):
            guard tokenOpen[t] > 0 else { return }
            manager.finishedNetworkTask(forToken: tokens[t])
            tokenOpen[t] -= 1
            if tokenOpen[t] == 0 {
                tokenLive[t] = []
            }
        case .groupStarted(let new?):
            group.operationStarted(progress: make(new))
            groupLive.insert(new.id)
            groupStartedUnread = true
        case .groupStarted(nil):
            group.operationStarted()
            groupStartedUnread = true
        case .groupFinished:
            guard group.activeOperationCount > 0 else { return }
            group.operationFinished()
            groupEndedUnread = true
        case .advance(let id, let to):
            guard liveProgresses.contains(id) else { return }
            progresses[id]!.completedUnitCount = to
        case .complete(let id):
            guard liveProgresses.contains(id) else { return }
            progresses[id]!.completedUnitCount = progresses[id]!.totalUnitCount
        case .cancel(let id):
            guard liveProgresses.contains(id) else { return }
            progresses[id]!.cancel()
        case .pause(let id):
            guard liveProgresses.contains(id) else { return }
            progresses[id]!.pause()
        case .resume(let id):
            guard liveProgresses.contains(id) else { return }
            progresses[id]!.resume()
        case .sizeBecomesKnown(let id, let total):
            guard liveProgresses.contains(id), progresses[id]!.totalUnitCount <= 0 else { return }
            progresses[id]!.totalUnitCount = total
        case .cancelNetworkTasks:
            // Ends the group's operations; opaque tokens and plain caller tokens stay counted.
            manager.cancelNetworkTasks()
            groupEndedUnread = true
        case .resetNetworkActivity:
            manager.resetNetworkActivity()
            groupEndedUnread = true
            for id in opaqueIsOpen.keys { opaqueIsOpen[id] = false }
            tokenOpen = tokenOpen.map { _ in 0 }
            tokenLive = tokenLive.map { _ in [] }
        }
        if group.activeOperationCount == 0 { groupLive = [] }
    }

    private func began(token t: Int, progress id: Int) {
        tokenOpen[t] += 1
        tokenLive[t].insert(id)
        if !tokenAll[t].contains(id) { tokenAll[t].append(id) }
    }
}

extension NetworkProgressSnapshot {
    /// The same reading, `estimatedTimeRemaining` aside; the fraction to rounding, since the
    /// two managers may sum the same parts in another order.
    func agrees(with other: NetworkProgressSnapshot) -> Bool {
        let fractions =
            switch (fractionCompleted, other.fractionCompleted) {
            case (nil, nil): true
            case (let a?, let b?): abs(a - b) < 1e-9
            default: false
            }
        return fractions && completedUnitCount == other.completedUnitCount
            && totalUnitCount == other.totalUnitCount && hasIndeterminateWork == other.hasIndeterminateWork
    }

    var readingDescription: String {
        let fraction = fractionCompleted.map { String(format: "%.4f", $0) } ?? "nil"
        return "(fraction \(fraction), \(completedUnitCount)/\(totalUnitCount), indeterminate \(hasIndeterminateWork))"
    }
}
