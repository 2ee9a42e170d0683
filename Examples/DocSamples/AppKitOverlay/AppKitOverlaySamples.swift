#if canImport(AppKit) && !canImport(UIKit)
import AppKit
import NetworkIndicator
import NetworkIndicatorUI

// docs:begin appkit-overlay
final class FeedViewController: NSViewController {
    // The feed's own scope: its loads count here, and in `.shared` for the app-wide indicator.
    let networkActivity = NetworkIndicatorManager(parent: .shared, label: "Feed")
    private var overlay: NetworkActivityOverlayOutput?

    override func viewDidLoad() {
        super.viewDidLoad()
        // NSLocalizedString: Xcode extracts the key into the String Catalog. From macOS 13,
        // `title: LocalizedStringResource("Loading feed")` is extracted as well.
        let title = NSLocalizedString("Loading feed", comment: "Overlay title while the feed loads")
        let output = NetworkActivityOverlayOutput(hostView: view, title: title)
        networkActivity.addOutput(output)
        overlay = output  // the manager holds outputs weakly
    }
}
// docs:end

// docs:begin appkit-has-content
final class TimelineViewController: NSViewController {
    let networkActivity = NetworkIndicatorManager(parent: .shared, label: "Timeline")
    private var overlay: NetworkActivityOverlayOutput?
    private var posts: [String] = [] {
        // Rows on screen: a light indicator at the top edge while they reload; none yet: the card.
        didSet { overlay?.hasContent = !posts.isEmpty }
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        let output = NetworkActivityOverlayOutput(hostView: view)
        networkActivity.addOutput(output)
        overlay = output
    }
}
// docs:end

// docs:begin appkit-owner-bound
final class StatusViewController: NSViewController {
    private let statusField = NSTextField(labelWithString: "")

    override func viewDidLoad() {
        super.viewDidLoad()
        view.addSubview(statusField)
        NetworkIndicatorManager.shared.observeVisibility(owner: self) { controller, isVisible in
            controller.statusField.stringValue = isVisible ? "Loading…" : "Up to date"
        }
    }
}
// docs:end
#endif
