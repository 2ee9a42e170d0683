// A call with a concrete class, as an app's call site writes it. .ci/run emits its SIL and checks
// that both calls take the generic forms of the pair, `<A>`, which pass the object as it is, and
// not the `@_disfavoredOverload` `AnyObject` forms, whose conversion costs the caller a retain and
// a release (Benchmarks/README.md, "The token passed as it is"). Never run.
import NetworkIndicator

final class Request {}

func callsTheGenericForms(_ manager: NetworkIndicatorManager, _ request: Request) {
    manager.beganNetworkTask(withToken: request)
    manager.finishedNetworkTask(forToken: request)
}
