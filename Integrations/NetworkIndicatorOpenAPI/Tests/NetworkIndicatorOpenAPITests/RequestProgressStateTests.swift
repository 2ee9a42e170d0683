import Testing

@testable import NetworkIndicatorOpenAPI

/// The units of one request's progress, without lock or middleware: the fraction never falls
/// and stays below 1 until the request ends, whatever the order and size of the reports.
@Suite struct RequestProgressStateTests {
    private typealias Units = RequestProgressState.Units

    private static func fraction(_ units: Units?) -> Double? {
        units.map { Double($0.completed) / Double($0.total) }
    }

    @Test func responseBytesReportOnlyWhatAdvancesAndStayBelowTheTotal() {
        var state = RequestProgressState(uploadLength: nil)
        _ = state.responseArrived(expectedLength: 12)
        let reports = [4, 9, 6, 9, 12].map { state.received(upTo: $0)?.completed }
        #expect(reports == [4, 9, nil, nil, 11], "the last byte read is not the end of the body")
    }

    @Test func responseBytesAfterTheEndAreNotReported() {
        var state = RequestProgressState(uploadLength: nil)
        _ = state.responseArrived(expectedLength: 12)
        _ = state.end(reachedEnd: false)
        #expect(state.received(upTo: 5) == nil)
    }

    @Test func responseOfUnknownLengthWithoutAnUploadStaysIndeterminate() {
        var state = RequestProgressState(uploadLength: nil)
        #expect(state.responseArrived(expectedLength: nil) == nil)
        #expect(state.received(upTo: 5) == nil)
        #expect(state.units.total == -1)
    }

    /// A response that has no body is a known length of 0: the request weighs its upload alone,
    /// all sent, and its end is no failure.
    @Test func responseWithoutABodyWeighsTheUploadAlone() {
        var state = RequestProgressState(uploadLength: 2_000)
        _ = state.sent(upTo: 2_000)
        #expect(state.responseArrived(expectedLength: 0) == Units(total: 2_000, completed: 1_999))
        #expect(state.received(upTo: 5) == nil)
        #expect(state.sent(upTo: 1_000) == nil, "a late read of the request body moves nothing")
        #expect(state.end(reachedEnd: true) == false)
    }

    @Test func responseWithoutABodyAndNoUploadStaysIndeterminate() {
        var state = RequestProgressState(uploadLength: nil)
        #expect(state.responseArrived(expectedLength: 0) == nil)
        #expect(state.units.total == -1)
    }

    @Test func emptyUploadIsNoUploadAtAll() {
        let state = RequestProgressState(uploadLength: 0)
        #expect(state.units == Units(total: -1, completed: 0), "indeterminate until the response")
    }

    @Test func smallUploadReservesAtLeastTheMinimumForTheResponse() {
        let state = RequestProgressState(uploadLength: 10)
        #expect(state.units == Units(total: 10 + RequestProgressState.minimumResponseReserve, completed: 0))
    }

    @Test func largeUploadCountsForHalfTheRequestUntilTheResponse() {
        var state = RequestProgressState(uploadLength: 100_000)
        #expect(Self.fraction(state.sent(upTo: 100_000)) == 0.5)
    }

    @Test func uploadReportsOnlyWhatAdvancesAndNothingAfterTheResponse() {
        var state = RequestProgressState(uploadLength: 100_000)
        let reports = [40_000, 10_000, 100_000, 200_000].map { state.sent(upTo: $0)?.completed }
        _ = state.responseArrived(expectedLength: 10)
        #expect(reports == [40_000, nil, 100_000, nil])
        #expect(state.sent(upTo: 100_000) == nil)
    }

    @Test func responseStartsWhereTheUploadLeftOffWhenItsShareIsSmaller() {
        var state = RequestProgressState(uploadLength: 100_000)
        _ = state.sent(upTo: 100_000)
        let arrived = state.responseArrived(expectedLength: 900_000)
        #expect(arrived == Units(total: 1_000_000, completed: 500_000), "0.5 as shown, not 100 000 of 1 000 000")
        #expect(state.received(upTo: 450_000) == Units(total: 1_000_000, completed: 750_000))
    }

    @Test func responseStartsFromTheUploadsBytesWhenTheirShareIsLarger() {
        var state = RequestProgressState(uploadLength: 10)
        let arrived = state.responseArrived(expectedLength: 30)
        #expect(arrived == Units(total: 40, completed: 10), "sent once the response is here")
        #expect(state.received(upTo: 15) == Units(total: 40, completed: 25))
    }

    @Test func responseOfUnknownLengthAfterAnUploadHoldsItsShare() {
        var state = RequestProgressState(uploadLength: 100_000)
        _ = state.sent(upTo: 50_000)
        let held = state.responseArrived(expectedLength: nil)
        #expect(held == Units(total: 200_000, completed: 100_000))
        #expect(state.received(upTo: 1_000_000) == nil)
    }

    /// Read to its end, a response of unknown length leaves the request weighing its upload and
    /// the bytes read, all done: never below what it showed, even for a 1-byte upload answered
    /// by an empty body.
    @Test(arguments: [(Int64(1), Int64(0)), (10, 2), (100_000, 5)])
    func responseOfUnknownLengthReadToItsEndWeighsTheBytesRead(upload: Int64, received: Int64) throws {
        var state = RequestProgressState(uploadLength: upload)
        _ = state.sent(upTo: upload)
        _ = state.responseArrived(expectedLength: nil)
        _ = state.received(upTo: received)
        let before = Double(state.units.completed) / Double(state.units.total)
        let units = state.readToTheEnd()
        let read = try #require(units)
        #expect(read == Units(total: upload + received, completed: upload + received))
        #expect(Double(read.completed) / Double(read.total) >= before)
    }

    @Test func fractionNeverFallsOverARandomRun() {
        var generator = SplitMix(seed: 44)
        for _ in 0..<500 {
            let upload = Int64.random(in: 0...300_000, using: &generator)
            var state = RequestProgressState(uploadLength: upload)
            var fractions: [Double] = []
            func record(_ units: Units?) {
                guard let units, units.total > 0 else { return }
                fractions.append(Double(units.completed) / Double(units.total))
            }
            for sent in stride(from: Int64(0), through: upload, by: Int(max(upload / 3, 1))) {
                record(state.sent(upTo: sent))
            }
            let expected = Bool.random(using: &generator) ? Int64.random(in: 1...1_000_000, using: &generator) : nil
            record(state.responseArrived(expectedLength: expected))
            for received in stride(from: 0, through: 1_100_000, by: 97_003) {
                record(state.received(upTo: Int64(received)))
            }
            if fractions != fractions.sorted() || fractions.contains(where: { $0 >= 1 }) {
                Issue.record("upload \(upload), response \(String(describing: expected)): \(fractions)")
                return
            }
        }
    }

    @Test func hugeLengthsSaturateInsteadOfTrapping() {
        var state = RequestProgressState(uploadLength: .max - 1)
        _ = state.sent(upTo: .max)
        _ = state.responseArrived(expectedLength: .max)
        _ = state.received(upTo: .max)
        let most = RequestProgressState.maximumLength
        #expect(state.units == Units(total: 2 * most, completed: 2 * most - 1))
    }

    @Test(arguments: [(true, false), (false, true)])
    func requestFailsUnlessItsBodyIsReadToTheEnd(reachedEnd: Bool, failed: Bool) {
        var state = RequestProgressState(uploadLength: nil)
        _ = state.responseArrived(expectedLength: 5)
        _ = state.received(upTo: 5)
        #expect(state.end(reachedEnd: reachedEnd) == failed)
        #expect(state.end(reachedEnd: reachedEnd) == nil, "once")
    }

    @Test func bodyThatEndsShortOfItsLengthFailed() {
        var state = RequestProgressState(uploadLength: nil)
        _ = state.responseArrived(expectedLength: 5)
        _ = state.received(upTo: 4)
        #expect(state.end(reachedEnd: true) == true)
    }

    @Test func requestThatEndsBeforeItsResponseFailedUnlessItHadNoBodyToRead() {
        var failed = RequestProgressState(uploadLength: 10)
        var answered = RequestProgressState(uploadLength: 10)
        var unknown = RequestProgressState(uploadLength: nil)
        _ = unknown.responseArrived(expectedLength: nil)
        #expect(failed.end(reachedEnd: false) == true)
        #expect(answered.end(reachedEnd: true) == false)
        #expect(unknown.end(reachedEnd: true) == false)
    }
}

/// A seeded generator, so that a failing run can be replayed.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
