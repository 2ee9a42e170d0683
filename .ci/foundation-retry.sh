# Shared by .ci/run and .ci/coverage.sh (sourced).
#
# Runs a test command once more, and only once, if it failed on swift-corelibs-foundation's own
# trap "Trying to access a behaviour for a task that in not in the registry"
# (FoundationNetworking/TaskRegistry.swift): URLSessionTask.cancel() racing the task's own end
# inside Foundation on Linux, which the cancel tests provoke on purpose about once in a few
# dozen runs under load. Any other failure fails at once; the retry is announced in the log.
with_foundation_retry() {
    local log=$1
    shift
    if "$@" 2>&1 | tee "$log"; then return 0; fi
    if grep -q 'FoundationNetworking/TaskRegistry.swift.*not in the registry' "$log"; then
        echo "!! swift-corelibs-foundation's TaskRegistry trap (a Foundation race, not a test failure): running once more"
        "$@" 2>&1 | tee "$log"
        return "${PIPESTATUS[0]}"
    fi
    return 1
}
