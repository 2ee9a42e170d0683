import Foundation
import Testing

@testable import NetworkIndicator

/// The manager never extends a token's life, whatever was called with it.
@MainActor
@Suite("Token lifetime")
struct TokenLifetimeTests {
    enum Call: String, CaseIterable {
        case begin, beginTwice, beginWithLabel, finish, unknownFinish, snapshot, sweep, reset, settle, completionToken
    }

    @Test(arguments: Call.allCases)
    func tokenDiesWhenTheCallerLetsGo(after call: Call) {
        let harness = Harness(completionDelay: 0.2)
        var token: AnyObject? = call == .completionToken ? CompletableToken() : Token()
        let weakToken = WeakReference(token)
        let manager = harness.manager
        switch call {
        case .begin: manager.beganNetworkTask(withToken: token!)
        case .beginTwice:
            manager.beganNetworkTask(withToken: token!)
            manager.beganNetworkTask(withToken: token!)
        case .beginWithLabel: manager.beganNetworkTask(withToken: token!, label: "labelled")
        case .finish:
            manager.beganNetworkTask(withToken: token!)
            manager.finishedNetworkTask(forToken: token!)
        case .unknownFinish: manager.finishedNetworkTask(forToken: token!)
        case .snapshot:
            manager.beganNetworkTask(withToken: token!)
            _ = manager.activitySnapshot()
        case .sweep:
            manager.beganNetworkTask(withToken: token!)
            harness.advance(by: 1)
        case .reset:
            manager.beganNetworkTask(withToken: token!)
            manager.resetNetworkActivity()
        case .settle:
            manager.beganNetworkTask(withToken: token!)
            harness.advance(by: 5)
        case .completionToken:
            manager.beganNetworkTask(withToken: token!)
            harness.advance(by: 3)
        }
        harness.settle()
        token = nil
        #expect(weakToken.object == nil, "\(call.rawValue) kept the token alive")
        harness.advance(by: 2)
        #expect(manager.activeTaskCount == 0)
    }
}
