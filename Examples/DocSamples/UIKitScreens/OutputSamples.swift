#if canImport(UIKit)
import NetworkIndicator
import NetworkIndicatorUI
import UIKit

// docs:begin uikit-closure
@MainActor
final class BannerController {
    private let banner: UIView
    private var networkActivity: NetworkIndicatorObservation?  // the calls last as long as it

    init(banner: UIView) {
        self.banner = banner
        networkActivity = NetworkIndicatorManager.shared.observeVisibility { isVisible in
            banner.isHidden = !isVisible
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
