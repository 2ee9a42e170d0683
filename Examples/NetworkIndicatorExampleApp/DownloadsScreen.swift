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

/// The UIKit screen: loads its rows in the scope it was given, and shows them with a
/// `NetworkActivityOverlayOutput` over the table.
///
/// A pull to refresh already has the refresh control's spinner, so it counts in a sibling of
/// the manager the overlay follows: both are children of the scope, so the scope and the
/// app-wide indicator count every load, and the overlay draws no second spinner for a refresh.
final class DownloadsViewController: UITableViewController {
    /// The loads the screen starts itself (on appearing): the overlay shows them.
    private let loads: NetworkIndicatorManager
    /// The pulls to refresh: the refresh control shows them.
    private let refreshes: NetworkIndicatorManager
    /// Kept here: the manager holds its outputs weakly.
    private var overlay: NetworkActivityOverlayOutput?
    private var files: [String] = []
    private var loading: Task<Void, Never>?
    /// Counts the loads started, so that a load a newer one replaced knows it.
    private var loadCount = 0

    init(networkActivity: NetworkIndicatorManager) {
        loads = NetworkIndicatorManager(parent: networkActivity, label: "loads")
        refreshes = NetworkIndicatorManager(parent: networkActivity, label: "refreshes")
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
            primaryAction: UIAction { [weak self] _ in
                guard let self else { return }
                self.reload(in: self.refreshes)
            }
        )
        // A `LocalizedStringResource`, which Xcode extracts into the String Catalog.
        let overlay = NetworkActivityOverlayOutput(hostView: tableView, title: LocalizedStringResource("Loading files"))
        loads.addOutput(overlay)
        self.overlay = overlay
    }

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        reload(in: loads)  // on every appearance: viewDidDisappear cancels a load still running
    }

    override func viewDidLayoutSubviews() {
        super.viewDidLayoutSubviews()
        overlay?.updatePlacement()  // a table view: follow its insets (bars, the keyboard)
    }

    override func viewDidDisappear(_ animated: Bool) {
        super.viewDidDisappear(animated)
        loading?.cancel()  // the task ends in the managers at once
    }

    private func reload(in manager: NetworkIndicatorManager) {
        loading?.cancel()
        loadCount += 1
        let load = loadCount
        loading = Task { [manager] in
            let files = await manager.withNetworkActivity(label: "files") {
                try? await SimulatedAPI.files()
            }
            // Replaced by a newer load (a pull to refresh during the first load): the refresh
            // control and the rows are the newer load's to end and fill.
            guard load == self.loadCount else { return }
            // Otherwise this load is over, whatever happened: the refresh control stops.
            self.refreshControl?.endRefreshing()
            // Cancelled (the screen went away): keep the rows.
            guard !Task.isCancelled else { return }
            if let files { self.files = files }
            self.tableView.reloadData()
            // Rows shown: the next load draws the light indicator at the top, not the card.
            self.overlay?.hasContent = !self.files.isEmpty
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
