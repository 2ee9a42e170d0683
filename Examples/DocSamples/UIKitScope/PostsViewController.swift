#if canImport(UIKit)
import Foundation
import NetworkIndicator
import NetworkIndicatorUI
import UIKit

let postsURL = URL(string: "https://example.com/posts.json")!

// docs:begin uikit-cancel
final class PostsViewController: UITableViewController {
    private let networkActivity = NetworkIndicatorManager(parent: .shared, label: "Posts")
    private var posts = Data()

    override func viewDidLoad() {
        super.viewDidLoad()
        // "Still loading…" under the title once a load has taken 8 s; gone when it ends.
        networkActivity.observeSlowNetworkActivity(after: 8, owner: self) { controller, isSlow in
            controller.navigationItem.prompt =
                isSlow ? NSLocalizedString("Still loading…", comment: "Slow load prompt") : nil
        }
    }

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        Task {
            // Throws URLError(.cancelled) at once if the screen goes away first.
            guard let (data, _) = try? await URLSession.shared.data(from: postsURL, tracking: networkActivity)
            else { return }
            posts = data
            tableView.reloadData()
        }
    }

    override func viewDidDisappear(_ animated: Bool) {
        super.viewDidDisappear(animated)
        networkActivity.cancelNetworkTasks()  // this screen's loads, and only this screen's
    }
}
// docs:end

// docs:begin uikit-has-content
final class CommentsViewController: UITableViewController {
    private let networkActivity = NetworkIndicatorManager(parent: .shared, label: "Comments")
    private var overlay: NetworkActivityOverlayOutput?
    private var comments: [String] = [] {
        didSet { overlay?.hasContent = !comments.isEmpty }  // a light indicator over loaded rows
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        let overlay = NetworkActivityOverlayOutput(hostView: tableView)
        networkActivity.addOutput(overlay)
        self.overlay = overlay  // the manager holds outputs weakly
    }
}
// docs:end
#endif
