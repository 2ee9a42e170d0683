#if canImport(UIKit)
import NetworkIndicator
import NetworkIndicatorUI
import UIKit

// docs:begin uikit-owner-bound
final class InboxViewController: UITableViewController {
    private let loadingLabel = UILabel()

    override func viewDidLoad() {
        super.viewDidLoad()
        navigationItem.titleView = loadingLabel
        // Nothing to store: each call lasts as long as this controller, which it is handed.
        NetworkIndicatorManager.shared.observeVisibility(owner: self) { controller, isVisible in
            let updating = NSLocalizedString("Updating…", comment: "Navigation title while loading")
            controller.loadingLabel.text = isVisible ? updating : nil
        }
    }
}
// docs:end

// docs:begin uikit-overlay-settings
final class CatalogViewController: UIViewController {
    let networkActivity = NetworkIndicatorManager(parent: .shared, label: "Catalog")
    private var overlay: NetworkActivityOverlayOutput?

    override func viewDidLoad() {
        super.viewDidLoad()
        let output = NetworkActivityOverlayOutput(
            hostView: view,
            title: NSLocalizedString("Loading catalog", comment: "Overlay title while the catalog loads"),
            settings: NetworkActivityOverlaySettings(showDelay: 0.3, interaction: .blocksCard)
        )
        networkActivity.addOutput(output)
        overlay = output  // the manager holds outputs weakly
    }
}
// docs:end
#endif
