// Shared by the model-based test and the libFuzzer target (Fuzz/), which compiles the files of
// this folder into the library's own module with -D NETWORK_INDICATOR_FUZZ (.ci/fuzz.sh).

/// One step of a randomized run, on a tree of four managers: m0 (the root), its children m1
/// and m2, and m3, a child of m1. Weak token objects are shared by all managers (one object may
/// have tasks in several); opaque tokens, groups and pushes belong to one manager.
enum ModelOperation: Equatable, CustomStringConvertible {
    case beginToken(manager: Int, slot: Int)
    case finishToken(manager: Int, slot: Int)
    /// Drops the token object: its tasks in every manager end at that manager's next sweep.
    case releaseToken(slot: Int)
    case beginOpaque(manager: Int, slot: Int)
    case finishOpaque(manager: Int, slot: Int)
    case releaseOpaque(manager: Int, slot: Int)
    case push(manager: Int)
    case pop(manager: Int)
    /// `resetNetworkActivity()` on one manager: its subtree ends everything.
    case reset(manager: Int)
    /// Releases child manager `manager` (m1 with m3 under it, m2 or m3) and puts a fresh one in
    /// its place: its opaque tokens and groups (which keep it alive) are dropped after it.
    case releaseChild(manager: Int)
    case groupStart(manager: Int, slot: Int)
    case groupFinish(manager: Int, slot: Int)
    case groupCancel(manager: Int, slot: Int)
    case groupRelease(manager: Int, slot: Int)
    /// Advance the clock by one sweep interval: every dead token is gone afterwards.
    case sweep
    /// Advance the clock by `milliseconds`.
    case advance(milliseconds: Int)
    /// Sweep, then wait out every delay: visibility must match the count, for every manager.
    case settle

    static let tokenSlots = 6
    static let opaqueSlots = 4
    static let groupSlots = 3
    /// Each manager's parent (`nil` for the root): m1 and m2 under m0, m3 under m1.
    static let parents: [Int?] = [nil, 0, 0, 1]
    static var managerCount: Int { parents.count }

    /// Decodes one operation from two bytes (a kind and an argument). The argument's two high
    /// bits pick the manager, its six low bits the slot; bytes from before the tree decode to
    /// the same operations on a manager, the root for arguments below 64.
    init(kind: UInt8, argument: UInt8) {
        let manager = Int(argument >> 6)
        let slot = Int(argument & 63)
        switch kind % 16 {
        case 0: self = .beginToken(manager: manager, slot: slot % Self.tokenSlots)
        case 1: self = .finishToken(manager: manager, slot: slot % Self.tokenSlots)
        case 2: self = .releaseToken(slot: slot % Self.tokenSlots)
        case 3: self = .beginOpaque(manager: manager, slot: slot % Self.opaqueSlots)
        case 4: self = .finishOpaque(manager: manager, slot: slot % Self.opaqueSlots)
        case 5: self = .releaseOpaque(manager: manager, slot: slot % Self.opaqueSlots)
        case 6: self = .push(manager: manager)
        case 7: self = .pop(manager: manager)
        case 8:
            switch slot % 8 {
            case 0: self = .reset(manager: manager)
            case 1: self = .releaseChild(manager: 1 + manager % 3)
            default: self = .push(manager: manager)
            }
        case 9: self = .groupStart(manager: manager, slot: slot % Self.groupSlots)
        case 10: self = .groupFinish(manager: manager, slot: slot % Self.groupSlots)
        case 11: self = .groupCancel(manager: manager, slot: slot % Self.groupSlots)
        case 12: self = .groupRelease(manager: manager, slot: slot % Self.groupSlots)
        case 13: self = .sweep
        case 14: self = .advance(milliseconds: Int(argument) * 5)
        default: self = .settle
        }
    }

    var description: String {
        switch self {
        case .beginToken(let manager, let slot): "beginToken(m\(manager), \(slot))"
        case .finishToken(let manager, let slot): "finishToken(m\(manager), \(slot))"
        case .releaseToken(let slot): "releaseToken(\(slot))"
        case .beginOpaque(let manager, let slot): "beginOpaque(m\(manager), \(slot))"
        case .finishOpaque(let manager, let slot): "finishOpaque(m\(manager), \(slot))"
        case .releaseOpaque(let manager, let slot): "releaseOpaque(m\(manager), \(slot))"
        case .push(let manager): "push(m\(manager))"
        case .pop(let manager): "pop(m\(manager))"
        case .reset(let manager): "reset(m\(manager))"
        case .releaseChild(let manager): "releaseChild(m\(manager))"
        case .groupStart(let manager, let slot): "groupStart(m\(manager), \(slot))"
        case .groupFinish(let manager, let slot): "groupFinish(m\(manager), \(slot))"
        case .groupCancel(let manager, let slot): "groupCancel(m\(manager), \(slot))"
        case .groupRelease(let manager, let slot): "groupRelease(m\(manager), \(slot))"
        case .sweep: "sweep"
        case .advance(let milliseconds): "advance(\(milliseconds) ms)"
        case .settle: "settle"
        }
    }
}
