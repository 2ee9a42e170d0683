import Testing

@testable import NetworkIndicatorUI

@Suite("Overlay announcements")
struct OverlayAnnouncementTests {
    @Test(arguments: [(false, false), (false, true), (true, false)])
    func nothingIsPostedUnseenOrWithoutVoiceOver(isSeen: Bool, isVoiceOverRunning: Bool) {
        #expect(!OverlayAnnouncement.shouldPost(isSeen: isSeen, isVoiceOverRunning: isVoiceOverRunning))
    }

    @Test func aSeenOverlayWithVoiceOverRunningPosts() {
        #expect(OverlayAnnouncement.shouldPost(isSeen: true, isVoiceOverRunning: true))
    }
}
