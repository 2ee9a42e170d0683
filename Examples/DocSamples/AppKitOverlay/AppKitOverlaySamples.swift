#if canImport(AppKit) && !canImport(UIKit)
import AppKit
import NetworkIndicator
import NetworkIndicatorUI

// docs:begin appkit-overlay
final class FeedViewController: NSViewController {
    private var networkActivity: NetworkActivityOverlayOutput?

    override func viewDidLoad() {
        super.viewDidLoad()
        let output = NetworkActivityOverlayOutput(hostView: view, title: "Loading feed")
        NetworkIndicatorManager.shared.addOutput(output)
        networkActivity = output  // the manager holds outputs weakly
    }
}
// docs:end

// docs:begin appkit-owner-bound
final class StatusViewController: NSViewController {
    private let statusField = NSTextField(labelWithString: "")

    override func viewDidLoad() {
        super.viewDidLoad()
        view.addSubview(statusField)
        NetworkIndicatorManager.shared.observeActiveTaskCount(owner: self) { controller, count in
            controller.statusField.stringValue = count > 0 ? "Loading \(count)…" : "Up to date"
        }
    }
}
// docs:end
#endif
