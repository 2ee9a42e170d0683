#if canImport(AppKit)
import AppKit
import NetworkIndicator
import NetworkIndicatorUI

// docs:begin appkit-overlay
final class FeedViewController: NSViewController {
    private var networkActivity: NetworkActivityOverlayOutput?  // the manager holds it weakly

    override func viewDidLoad() {
        super.viewDidLoad()
        let output = NetworkActivityOverlayOutput(hostView: view, title: "Loading feed")
        NetworkIndicatorManager.shared.addOutput(output)
        networkActivity = output
    }
}
// docs:end
#endif
