// Calls of the public API as users' code writes them, type-checked by .ci/run in the Swift 5 and
// Swift 6 language modes against the built module: the package itself builds in Swift 6 mode
// only, so a form that only Swift 5 mode rejects (a class-bound protocol's existential passed to
// a generic `Object: AnyObject` parameter, which Swift 5 does not open) shows here and nowhere
// else. Never run; only type-checked.
import NetworkIndicator

protocol Loading: AnyObject {}
final class Request: Loading {}
final class Upload {}

func callers(_ manager: NetworkIndicatorManager, _ loading: any Loading, _ maybe: Request?, _ flag: Bool) {
    // A class-bound protocol's existential.
    manager.beganNetworkTask(withToken: loading, label: "load")
    manager.finishedNetworkTask(forToken: loading)
    // A concrete class, `AnyObject`, a force-unwrapped optional, mixed classes.
    let request = Request()
    let anything: AnyObject = request
    manager.beganNetworkTask(withToken: request)
    manager.beganNetworkTask(withToken: anything)
    manager.beganNetworkTask(withToken: maybe!)
    manager.beganNetworkTask(withToken: flag ? request : Upload())
    manager.beganNetworkTask(withToken: maybe ?? Upload())
    // The methods as function values, with and without a written type.
    let finish = manager.finishedNetworkTask(forToken:)
    let finishLoading: (any Loading) -> Void = manager.finishedNetworkTask(forToken:)
    finish(request)
    finishLoading(loading)
}
