#if canImport(UIKit)
import NetworkIndicator
import NetworkIndicatorUI
import UIKit

// docs:begin uikit-scope
final class FeedViewController: UITableViewController {
    private let networkActivity = NetworkIndicatorManager(parent: .shared, label: "Feed")
    private var overlay: NetworkActivityOverlayOutput?

    override func viewDidLoad() {
        super.viewDidLoad()
        let overlay = NetworkActivityOverlayOutput(hostView: tableView)
        networkActivity.addOutput(overlay)
        self.overlay = overlay  // the manager holds outputs weakly
        // The empty state ("No posts yet") hides while the feed loads, whatever the app does.
        networkActivity.observeVisibility(owner: self) { controller, isLoading in
            controller.tableView.backgroundView?.isHidden = isLoading
        }
    }

    override func viewDidLayoutSubviews() {
        super.viewDidLayoutSubviews()
        overlay?.updatePlacement()
    }
}
// docs:end
#endif
