#if canImport(UIKit)
// docs:begin uikit-imports
import NetworkIndicator
import NetworkIndicatorUI
import UIKit
// docs:end

// docs:begin uikit-overlay-scope
final class TimelineViewController: UITableViewController {
    // The screen's own scope: its overlay shows the timeline's loads, not the whole app's;
    // they count in `.shared` too. Begin the screen's work here: `networkActivity.track(…)`.
    let networkActivity = NetworkIndicatorManager(parent: .shared, label: "Timeline")
    private var overlay: NetworkActivityOverlayOutput?  // the manager holds it weakly

    override func viewDidLoad() {
        super.viewDidLoad()
        let output = NetworkActivityOverlayOutput(hostView: tableView)
        networkActivity.addOutput(output)
        overlay = output
    }

    override func viewDidLayoutSubviews() {
        super.viewDidLayoutSubviews()
        overlay?.updatePlacement()  // a scroll view's insets: bars, the keyboard
    }
}
// docs:end

// docs:begin uikit-overlay-plain
final class ShareViewController: UIViewController {
    let networkActivity = NetworkIndicatorManager(parent: .shared, label: "Share")
    private var overlay: NetworkActivityOverlayOutput?

    override func viewDidLoad() {
        super.viewDidLoad()
        // A plain view: constraints to its safe area keep the overlay centred, no call needed.
        // While it uploads, touches on the card do not reach the form beneath the card.
        let output = NetworkActivityOverlayOutput(
            hostView: view,
            // NSLocalizedString: Xcode extracts the key into the String Catalog. From iOS 16,
            // `title: LocalizedStringResource("Uploading")` is extracted as well.
            title: NSLocalizedString("Uploading", comment: "Overlay title while a photo uploads"),
            settings: NetworkActivityOverlaySettings(interaction: .blocksCard)
        )
        networkActivity.addOutput(output)
        overlay = output  // the manager holds it weakly
    }
}
// docs:end

// docs:begin uikit-overlay-progress
final class DownloadViewController: UIViewController {
    private let downloads = NetworkIndicatorManager(parent: .shared, label: "Downloads")
    private let session = URLSession.shared  // or your own, with its delegate
    private var networkActivity: NetworkActivityOverlayOutput?

    override func viewDidLoad() {
        super.viewDidLoad()
        // A bar and "40%" while the downloads' sizes are known, the spinner otherwise.
        // NSLocalizedString, so that Xcode extracts the title into the String Catalog.
        let title = NSLocalizedString("Downloading", comment: "Overlay title while files download")
        let output = NetworkActivityOverlayOutput(hostView: view, title: title)
        downloads.addOutput(output)
        networkActivity = output  // the manager holds it weakly
    }

    func download(_ url: URL) {
        let task = session.downloadTask(with: url)
        // Counted until it completes, its bytes in the bar; a failed load leaves the batch.
        downloads.track(task, label: "Download")
        task.resume()
    }
}
// docs:end
#endif
