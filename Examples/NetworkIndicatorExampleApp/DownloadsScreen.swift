import NetworkIndicator
import NetworkIndicatorUI
import SwiftUI
import UIKit

/// A UIKit screen inside the SwiftUI app: a `UITableViewController` with the UIKit overlay,
/// counting in the scope the SwiftUI side gives it ("Downloads").
@MainActor
struct DownloadsScreen: View {
    var body: some View {
        DownloadsTable()
            .ignoresSafeArea()
            .navigationTitle("Downloads")
            .networkActivityScope("Downloads")
    }
}

/// Hosts the table controller and hands it the environment's manager.
@MainActor
private struct DownloadsTable: UIViewControllerRepresentable {
    @Environment(\.networkIndicator) private var networkIndicator

    func makeUIViewController(context: Context) -> DownloadsViewController {
        DownloadsViewController(networkActivity: networkIndicator)
    }

    func updateUIViewController(_ controller: DownloadsViewController, context: Context) {}
}

/// The UIKit screen: loads its rows in the manager it was given, and shows that manager's
/// indicator with a `NetworkActivityOverlayOutput` over the table.
final class DownloadsViewController: UITableViewController {
    private let networkActivity: NetworkIndicatorManager
    /// Kept here: the manager holds its outputs weakly.
    private var overlay: NetworkActivityOverlayOutput?
    private var files: [String] = []
    private var loading: Task<Void, Never>?

    init(networkActivity: NetworkIndicatorManager) {
        self.networkActivity = networkActivity
        super.init(style: .insetGrouped)
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) {
        fatalError("built in code")
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        tableView.register(UITableViewCell.self, forCellReuseIdentifier: "file")
        refreshControl = UIRefreshControl(
            frame: .zero,
            primaryAction: UIAction { [weak self] _ in self?.reload() }
        )
        let overlay = NetworkActivityOverlayOutput(hostView: tableView, title: "Loading files")
        networkActivity.addOutput(overlay)
        self.overlay = overlay
    }

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        reload()  // on every appearance: viewDidDisappear cancels a load still running
    }

    override func viewDidLayoutSubviews() {
        super.viewDidLayoutSubviews()
        overlay?.updatePlacement()  // a table view: follow its insets (bars, the keyboard)
    }

    override func viewDidDisappear(_ animated: Bool) {
        super.viewDidDisappear(animated)
        loading?.cancel()  // the task ends in the managers at once
    }

    private func reload() {
        loading?.cancel()
        loading = Task { [networkActivity] in
            let files = await networkActivity.withNetworkActivity(label: "files") {
                try? await SimulatedAPI.files()
            }
            // Cancelled (the screen went away, or a newer load replaced this one): keep the rows;
            // the next load ends the refresh.
            guard !Task.isCancelled else { return }
            if let files { self.files = files }
            self.tableView.reloadData()
            self.refreshControl?.endRefreshing()
        }
    }

    override func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int {
        files.count
    }

    override func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "file", for: indexPath)
        var content = cell.defaultContentConfiguration()
        content.text = files[indexPath.row]
        content.image = UIImage(systemName: "doc")
        cell.contentConfiguration = content
        return cell
    }
}
