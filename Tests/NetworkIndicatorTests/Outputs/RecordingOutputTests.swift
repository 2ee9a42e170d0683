import NetworkIndicator
import NetworkIndicatorTesting
import Testing

/// The testing product's recording output, which the other tests lean on.
@MainActor
@Suite("Recording output")
struct RecordingOutputTests {
    @Test func isVisibleIsTheLastVisibilityToldAndFalseBeforeAny() {
        let output = RecordingNetworkIndicatorOutput()
        #expect(!output.isVisible)
        output.networkIndicatorVisibilityDidChange(true)
        #expect(output.isVisible)
        output.networkIndicatorVisibilityDidChange(false)
        #expect(!output.isVisible)
        #expect(output.visibilityChanges == [true, false])
    }
}
