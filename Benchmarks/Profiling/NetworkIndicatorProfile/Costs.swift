// `NetworkIndicatorProfile costs`: times, in isolation, the operations a weak-token registry
// pays for, so that the README can put nanoseconds on each: conformance checks, clock readings,
// retains of objects with and without a side table, hashing, a dictionary entry that holds a
// weak reference and a label (`MirrorEntry`), and reading a weak reference out of a struct in an
// array through a borrow (which copies it) or in place (through `inout`).
import BenchmarkSupport
import Dispatch
import Foundation
import NetworkIndicator
import NetworkIndicatorTesting

struct MirrorEntry {
    enum Label {
        case text(String)
        case type(any AnyObject.Type)
    }

    weak var object: AnyObject?
    var count: Int
    let kind: UInt8
    let label: Label
    let startedAt: TimeInterval
    var isStaleReported = false

    var isDead: Bool { kind < 2 && object == nil }
}

/// A struct with one weak field, like the library's `WeakWrapper`.
struct WeakSlot {
    weak var object: AnyObject?

    mutating func loadInPlace() -> AnyObject? { object }
}

/// A trivially copyable entry: what the registry could keep if the label, the clock reading and
/// the weak reference lived elsewhere (or the fields were read in place).
struct TrivialEntry {
    var count: Int32
    var kind: UInt8
}

@inline(never)
func measure(_ name: String, _ iterations: Int, _ body: () -> Void) {
    // Warm up, then time.
    for _ in 0..<min(iterations, 10_000) { body() }
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<iterations { body() }
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    let padded = name.padding(toLength: 72, withPad: " ", startingAt: 0)
    print("\(padded) \(String(format: "%7.1f", Double(elapsed) / Double(iterations))) ns")
}

@inline(never)
func opaque<T>(_ value: T) -> T { value }

@MainActor
func runCosts(iterations: Int) {
    print(
        "MemoryLayout<MirrorEntry>: size \(MemoryLayout<MirrorEntry>.size), stride \(MemoryLayout<MirrorEntry>.stride)"
    )
    print("Dictionary<ObjectIdentifier, MirrorEntry> bucket: \(8 + MemoryLayout<MirrorEntry>.stride) bytes")

    let token: AnyObject = opaque(Token())
    let weaklyHeld: AnyObject = opaque(Token())
    weak var weakRef: AnyObject? = nil
    weakRef = weaklyHeld  // gives weaklyHeld a side table
    withExtendedLifetime(weakRef) {}

    measure("token is any NetworkActivityCompletionReporting (kind(of:))", iterations) {
        blackHoleBool(opaque(token) is any NetworkActivityCompletionReporting)
    }
    measure("token as? NetworkActivityToken (kind(of:))", iterations) {
        blackHoleBool((opaque(token) as? NetworkActivityToken) != nil)
    }
    measure("DispatchTime.now() (MainQueueScheduler.now, startedAt per begin)", iterations) {
        blackHoleInt(Int(DispatchTime.now().uptimeNanoseconds))
    }
    let manual = ManualNetworkIndicatorScheduler()
    measure("ManualNetworkIndicatorScheduler.now (locked)", iterations) {
        blackHoleInt(Int(manual.now))
    }
    measure("retain+release, object without side table", iterations) {
        blackHoleObject(opaque(token))
    }
    measure("retain+release, object with side table (weakly referenced)", iterations) {
        blackHoleObject(opaque(weaklyHeld))
    }
    measure("ObjectIdentifier hashValue (SipHash-1-3 via Hasher)", iterations) {
        blackHoleInt(ObjectIdentifier(opaque(token)).hashValue)
    }

    // The registry's begin + finishOne access pattern, on a mirror entry (no lock).
    var entries: [ObjectIdentifier: MirrorEntry] = [:]
    let key = ObjectIdentifier(weaklyHeld)
    measure("registry pattern, MirrorEntry: begin+finish (lookup, insert, reads, remove)", iterations) {
        if let index = entries.index(forKey: key), !entries.values[index].isDead {
            entries.values[index].count += 1
        } else {
            entries[key] = MirrorEntry(
                object: weaklyHeld,
                count: 1,
                kind: 0,
                label: .type(Token.self),
                startedAt: 0
            )
        }
        if let index = entries.index(forKey: key) {
            if entries.values[index].isDead { return }
            entries.values[index].count -= 1
            if entries.values[index].count == 0 {
                if entries.values[index].kind < 2 { blackHoleInt(1) }
                entries.remove(at: index)
            }
        }
    }
    entries[key] = MirrorEntry(object: weaklyHeld, count: 1, kind: 0, label: .type(Token.self), startedAt: 0)
    let index = entries.index(forKey: key)!
    measure("one MirrorEntry read through entries.values[index] (a copy)", iterations) {
        blackHoleInt(entries.values[index].count)
    }
    measure("one weak load (weak var -> strong, then release)", iterations) {
        blackHoleBool(weakRef == nil)
    }
    var wrappers = [WeakSlot(object: weaklyHeld)]
    measure("weak field of an array element, read through a borrow (copied first)", iterations) {
        blackHoleBool(wrappers.withUnsafeBufferPointer { $0[0].object == nil })
    }
    measure("weak field of an array element, read in place (mutating access)", iterations) {
        blackHoleBool(wrappers[0].loadInPlace() == nil)
    }
    var trivial: [ObjectIdentifier: TrivialEntry] = [:]
    measure("same begin+finish pattern, trivially copyable entry", iterations) {
        if let index = trivial.index(forKey: key) {
            trivial.values[index].count += 1
        } else {
            trivial[key] = TrivialEntry(count: 1, kind: 0)
        }
        if let index = trivial.index(forKey: key) {
            trivial.values[index].count -= 1
            if trivial.values[index].count == 0 { trivial.remove(at: index) }
        }
    }
    var counts: [ObjectIdentifier: Int] = [:]
    measure("begin+finish keeping the key (count 1 -> 0 -> 1, no insert/remove)", iterations) {
        counts[key, default: 0] += 1
        counts[key, default: 0] -= 1
    }
}

@inline(never) func blackHoleBool(_ value: Bool) { if value { print("", terminator: "") } }
@inline(never) func blackHoleInt(_ value: Int) { if value == -12345 { print(value) } }
let sentinel = ObjectIdentifier(Token.self)
@inline(never) func blackHoleObject(_ value: AnyObject) { if ObjectIdentifier(value) == sentinel { print("") } }
