# Shared by .ci/run and .ci/coverage.sh (sourced).
#
# swift-corelibs-foundation on Linux has a trap of its own, "Trying to access a behaviour for a
# task that in not in the registry" (FoundationNetworking/TaskRegistry.swift): URLSessionTask.cancel()
# racing the task's own end inside Foundation. The cancel tests, which cancel real loads, reach it
# now and then under load. It is Foundation's race, not a failure of ours, so a run that hit it is
# run again, at most twice; any other failure fails at once. Every rerun is announced (on stderr).
#
# Two guards keep a crash from costing the whole CI budget:
# - The Swift runtime's backtracer is off. After that trap it once looped on "failed to suspend
#   thread … while processing a crash" until CI's 90 minutes ran out; without it the process exits at
#   once (the runtime still prints the fatal error and a short stack).
# - Each run has a time limit (TEST_RUN_LIMIT seconds, 1500 by default: a sanitizer run's tests
#   take under two minutes here, with the model-based test at 500 sequences). Past it, `swift test`
#   gets SIGINT, as from Ctrl-C: it interrupts the test binary, which it runs in a process group
#   of its own, and kills it 30 s later if need be (SIGTERM would end `swift test` alone and
#   leave the binary running). `timeout` kills what is left 45 s later. A run stopped so counts as failed, or as the trap above when its log
#   shows that trap. `--foreground` keeps a terminal's Ctrl-C reaching `swift test`.
# The messages go to stderr (coverage.sh sends stdout to /dev/null), and a run's log is kept as
# LOG.runN before the next run writes LOG.
export SWIFT_BACKTRACE=enable=no

# with_foundation_retry LOG COMMAND…: runs COMMAND, its output shown and written to LOG.
with_foundation_retry() {
    local log=$1
    shift
    local limit=${TEST_RUN_LIMIT:-1500} run status
    for run in 1 2 3; do
        rm -f "$log.status"
        {
            status=0
            timeout --foreground --signal=INT --kill-after=45 "$limit" "$@" 2>&1 || status=$?
            echo "$status" >"$log.status"
        } | tee "$log"
        status=$(cat "$log.status")
        if [[ $status == 0 ]]; then return 0; fi
        if [[ $status == 124 ]]; then echo "!! stopped after the limit of $limit s" >&2; fi
        if [[ $status == 137 ]]; then echo "!! killed (the limit's last resort, or another SIGKILL)" >&2; fi
        if ! grep -q 'FoundationNetworking/TaskRegistry.swift.*not in the registry' "$log"; then
            return "$status"
        fi
        echo "!! swift-corelibs-foundation's TaskRegistry trap (a Foundation race, not a test failure)" >&2
        cp "$log" "$log.run$run"
        if [[ $run != 3 ]]; then echo "!! running again (run $((run + 1)) of 3; this run's log: $log.run$run)" >&2; fi
    done
    return "$status"
}
