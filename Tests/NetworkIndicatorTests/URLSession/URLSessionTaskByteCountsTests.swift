import Testing

@testable import NetworkIndicator

/// How byte counts read as progress where the task's own `progress` does not advance (Linux):
/// injected counts, no network.
@Suite("URLSession task byte counts")
struct URLSessionTaskByteCountsTests {
    private typealias Counts = URLSessionTaskProgress.ByteCounts
    private typealias Reading = URLSessionTaskProgress.Reading

    @Test func receivedBytesAgainstTheExpectedLengthAreTheUnits() {
        let counts = Counts(isUpload: false, isCompleted: false, received: 300, expectedToReceive: 1_000)
        #expect(counts.reading == Reading(total: 1_000, completed: 300))
    }

    @Test func aOneByteBodyHasAKnownLength() {
        let counts = Counts(isUpload: false, isCompleted: true, received: 1, expectedToReceive: 1)
        #expect(counts.reading == Reading(total: 1, completed: 1))
    }

    @Test func unknownLengthIsIndeterminate() {
        let counts = Counts(isUpload: false, isCompleted: false, received: 300, expectedToReceive: -1)
        #expect(counts.reading.total <= 0)
    }

    @Test func knownLengthWithNothingCountedYetIsIndeterminate() {
        let counts = Counts(isUpload: false, isCompleted: false, received: 0, expectedToReceive: 1_000)
        #expect(counts.reading.total <= 0)
    }

    @Test func completedTaskIsDoneWhateverWasCounted() {
        let counts = Counts(isUpload: false, isCompleted: true, received: 0, expectedToReceive: 1_000)
        #expect(counts.reading == Reading(total: 1_000, completed: 1_000))
    }

    /// Every byte of one direction counted, and the task runs on (an upload awaiting its
    /// response; a download's last bytes in, its completion not yet): not done until it is.
    @Test(arguments: [true, false])
    func aRunningTaskWithEveryByteCountedIsNotDone(isUpload: Bool) {
        let counts =
            isUpload
            ? Counts(isUpload: true, isCompleted: false, sent: 8_000, expectedToSend: 8_000)
            : Counts(isUpload: false, isCompleted: false, received: 8_000, expectedToReceive: 8_000)
        #expect(counts.reading.total == 8_000)
        #expect(counts.reading.completed < 8_000)
    }

    /// A completed answer that has no body by HTTP's rules (to a HEAD; a 204; a 304) carries the
    /// length a body would have, or none: it neither adds nor dilutes.
    @Test func aCompletedAnswerWithoutABodyIsIndeterminate() {
        let counts = Counts(isUpload: false, isCompleted: true, expectedToReceive: 100_000, hasNoBody: true)
        #expect(counts.reading.total <= 0)
    }

    @Test func completedTaskWithUnknownLengthStaysIndeterminate() {
        let counts = Counts(isUpload: false, isCompleted: true, received: 500, expectedToReceive: -1)
        #expect(counts.reading.total <= 0)
    }

    @Test func uploadCountsSentBytes() {
        let counts = Counts(
            isUpload: true,
            isCompleted: false,
            received: 10,
            expectedToReceive: 20,
            sent: 4_000,
            expectedToSend: 8_000
        )
        #expect(counts.reading == Reading(total: 8_000, completed: 4_000))
    }

    /// An upload task whose expected length is known but which has sent nothing yet, as
    /// `init(_:)` reads it (only its sending direction).
    /// A download whose expected length was never set, as `init(_:)` reads a download (only its
    /// receiving direction), the expected count left at its default.
    @Test func downloadWithNoExpectedLengthIsIndeterminate() {
        let counts = Counts(isUpload: false, isCompleted: false, received: 300)
        #expect(counts.reading.total <= 0)
    }

    @Test func uploadWithNothingSentYetIsIndeterminate() {
        let counts = Counts(isUpload: true, isCompleted: false, expectedToSend: 8_000)
        #expect(counts.reading.total <= 0)
    }

    /// Clamped short of the expected length, as every count of a task still running is.
    @Test func countedBytesBeyondTheExpectedLengthAreClamped() {
        let counts = Counts(isUpload: false, isCompleted: false, received: 1_500, expectedToReceive: 1_000)
        #expect(counts.reading == Reading(total: 1_000, completed: 999))
    }

    /// The progress of an async helper's load before Foundation hands it its task (Apple
    /// platforms, through `urlSession(_:didCreateTask:)`): unknown, neither failed nor paused,
    /// so that a manager reading it in between keeps the load in its batch.
    @Test func progressWithNoTaskYetReadsUnknownNeitherFailedNorPaused() {
        let reading = URLSessionTaskProgress(task: nil).reading
        #expect(reading.total <= 0)
        #expect(!reading.isCancelled)
        #expect(!reading.isPaused)
    }
}
