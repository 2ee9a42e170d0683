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
        networkActivity.minimumVisibleDuration = 0.5
        let overlay = NetworkActivityOverlayOutput(hostView: tableView)
        networkActivity.addOutput(overlay)
        self.overlay = overlay  // the manager holds it weakly
    }

    override func viewDidLayoutSubviews() {
        super.viewDidLayoutSubviews()
        overlay?.updatePlacement()
    }
}
// docs:end
#endif
