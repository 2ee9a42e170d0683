// libFuzzer entry point: decodes the fuzz bytes into an operation sequence and runs it through
// the same reference-model checker as the model-based test (Tests/.../Reliability/ModelChecking/).
// Built by .ci/fuzz.sh together with the library's sources into one module.

/// First byte: the delays (bits 2m and 2m + 1: manager m's start and completion delays); then
/// two bytes per operation (kind, argument; the argument's two high bits pick the manager of
/// the tree: see ``ModelOperation``).
@_cdecl("LLVMFuzzerTestOneInput")
public func networkIndicatorFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: min(size, 1 + 2 * 400)))
    MainActor.assumeIsolated {
        let checker = ModelChecker(delayBits: bytes[0])
        var index = 1
        while index + 1 < bytes.count {
            let operation = ModelOperation(kind: bytes[index], argument: bytes[index + 1])
            if let failure = checker.apply(operation) {
                fatalError("model disagreement: \(failure)")
            }
            index += 2
        }
        if let failure = checker.apply(.settle) {
            fatalError("model disagreement: \(failure)")
        }
    }
    return 0
}
