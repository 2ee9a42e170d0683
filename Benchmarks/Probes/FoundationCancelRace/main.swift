// Not a benchmark: a probe of swift-corelibs-foundation, run by hand, which measured why the
// package's async URLSession helpers leave a cancelled load's transfer alone on Linux
// (URLSessionTaskProgressDelegate.swift, `helpersCancelTheirTasks`). See README.md, "Probes".
//
//     python3 -m http.server 18765 --bind 127.0.0.1 &     # any server that answers at once
//     swift run -c release FoundationCancelRace async 300 http://127.0.0.1:18765/
//
// Each round starts one load of the URL and, from a global queue after a random 0 to 1.5 ms,
// cancels it as the mode says; the round waits for the load to end (at most 10 s):
//
// - `async`: Foundation's async `data(from:)` in a task, the task cancelled (what the helpers did);
// - `handler`: a completion-handler data task, `URLSessionTask.cancel()` called on it;
// - `abandon`: a completion-handler data task whose caller is resumed and whose task is left alone.
//
// It prints how the rounds ended, `HUNG at round N` and exits 2 when a load never ends, or
// crashes inside Foundation.
import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let arguments = CommandLine.arguments
guard arguments.count == 4, ["async", "handler", "abandon"].contains(arguments[1]),
    let rounds = Int(arguments[2]), let url = URL(string: arguments[3])
else {
    print("usage: FoundationCancelRace async|handler|abandon ROUNDS URL")
    exit(1)
}
let mode = arguments[1]
let session = URLSession(configuration: .ephemeral)

/// A count kept from several threads.
final class Count: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}

/// One waiter, resumed once, by the load's end or by the cancel, whichever comes first.
final class Waiter: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?
    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }
    func resume() {
        let continuation = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            defer { self.continuation = nil }
            return self.continuation
        }
        continuation?.resume()
    }
}

let completed = Count()
let failed = Count()

func oneRound() async {
    let delay = UInt32.random(in: 0...1500)
    if mode == "async" {
        let load = Task.detached { _ = try? await session.data(from: url) }
        DispatchQueue.global().async {
            usleep(delay)
            load.cancel()
        }
        await load.value
        return
    }
    await withCheckedContinuation { continuation in
        let waiter = Waiter(continuation)
        let task = session.dataTask(with: url) { _, _, error in
            if error == nil { completed.add() } else { failed.add() }
            waiter.resume()
        }
        task.resume()
        DispatchQueue.global().async {
            usleep(delay)
            if mode == "handler" { task.cancel() } else { waiter.resume() }
        }
    }
}

let start = Date()
for round in 0..<rounds {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await oneRound()
        done.signal()
    }
    if done.wait(timeout: .now() + 10) == .timedOut {
        print("HUNG at round \(round)")
        exit(2)
    }
}
let seconds = Date().timeIntervalSince(start)
print("\(mode): \(rounds) rounds in \(Int(seconds)) s; transfers completed \(completed.value), failed \(failed.value)")
