// The registry's sources are compiled into this tool (symlinks); its token classifier names the
// library's public protocols, which those files do not import.
import NetworkIndicator

typealias NetworkActivityCompletionReporting = NetworkIndicator.NetworkActivityCompletionReporting
typealias NetworkActivityCancellable = NetworkIndicator.NetworkActivityCancellable
