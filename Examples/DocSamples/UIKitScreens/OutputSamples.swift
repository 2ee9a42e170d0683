#if canImport(UIKit)
import NetworkIndicator
import NetworkIndicatorUI
import UIKit

// docs:begin uikit-observe-owner
final class InboxViewController: UITableViewController {
    override func viewDidLoad() {
        super.viewDidLoad()
        // Nothing to store, no capture list: each call lasts as long as the controller, holds
        // it weakly and hands it to the closure.
        NetworkIndicatorManager.shared.observeVisibility(owner: self) { controller, isVisible in
            controller.navigationItem.prompt = isVisible ? NSLocalizedString("Syncing…", comment: "Sync prompt") : nil
        }
    }
}
// docs:end

// docs:begin uikit-custom-output
@MainActor
final class NavigationBarSpinner: NetworkIndicatorOutput {
    private let spinner = UIActivityIndicatorView(style: .medium)

    init(navigationItem: UINavigationItem) {
        spinner.hidesWhenStopped = true
        navigationItem.rightBarButtonItem = UIBarButtonItem(customView: spinner)
    }

    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        if isVisible {
            spinner.startAnimating()
        } else {
            spinner.stopAnimating()
        }
    }
}
// docs:end

// docs:begin uikit-remove-output
final class ProfileViewController: UIViewController {
    private var spinner: NavigationBarSpinner?

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        let spinner = NavigationBarSpinner(navigationItem: navigationItem)
        NetworkIndicatorManager.shared.addOutput(spinner)
        self.spinner = spinner  // the manager holds it weakly
    }

    override func viewDidDisappear(_ animated: Bool) {
        super.viewDidDisappear(animated)
        if let spinner { NetworkIndicatorManager.shared.removeOutput(spinner) }
        spinner = nil
    }
}
// docs:end

@available(iOSApplicationExtension, unavailable)
@MainActor
func attachStatusBarSpinner() {
    // docs:begin status-bar
    NetworkIndicatorManager.shared.addOutput(StatusBarNetworkIndicatorOutput.shared)
    // docs:end
}
#endif
