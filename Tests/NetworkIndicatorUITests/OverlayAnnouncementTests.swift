import Testing

@testable import NetworkIndicatorUI

@Suite("Overlay announcements")
struct OverlayAnnouncementTests {
    @Test(arguments: [(false, false), (false, true), (true, false)])
    func nothingIsPostedOutsideAWindowOrWithoutVoiceOver(isInWindow: Bool, isVoiceOverRunning: Bool) {
        #expect(!OverlayAnnouncement.shouldPost(isInWindow: isInWindow, isVoiceOverRunning: isVoiceOverRunning))
    }

    @Test func anOverlayInAWindowWithVoiceOverRunningPosts() {
        #expect(OverlayAnnouncement.shouldPost(isInWindow: true, isVoiceOverRunning: true))
    }
}
