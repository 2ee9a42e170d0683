import NetworkIndicator
import NetworkIndicatorUI
import SwiftUI

/// A screen whose work is an `AsyncSequence`: the event stream counts as one task in the
/// screen's scope ("Live") from its first element's request until it ends or the view goes away.
/// A stream that shows its events as they come is not a load to cover with a card: the screen
/// shows a small spinner in its toolbar while it listens.
@MainActor
struct LiveEventsView: View {
    var body: some View {
        EventList()
            .navigationTitle("Live events")
            .networkActivityScope("Live")
    }
}

/// Inside the scope, so that the environment's manager is the "Live" child.
@MainActor
private struct EventList: View {
    @Environment(\.networkIndicator) private var networkIndicator
    @State private var events: [SimulatedAPI.Event] = []
    @State private var run = 0
    @State private var isListening = false

    var body: some View {
        List {
            Section {
                Button("Listen again") { run += 1 }
            }
            Section("Events") {
                ForEach(events) { Text($0.text) }
            }
        }
        .toolbar {
            if isListening { ProgressView().accessibilityLabel("Listening") }
        }
        .task(id: run) {
            events = []
            isListening = true
            let current = run
            defer { if run == current { isListening = false } }  // not when a newer run replaced it
            do {
                let tracked = SimulatedAPI.events().trackingNetworkActivity(in: networkIndicator, label: "events")
                for try await event in tracked {
                    events.append(event)
                }
            } catch {
                // Cancelled: the view went away or the user listens again.
            }
        }
    }
}
