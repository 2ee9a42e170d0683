#!/usr/bin/env bash
# Mutation testing of every source file that this machine compiles, run by hand (not in CI: it
# takes long on two cores).
#
#   bash .ci/mutants.sh [N] [seed] [options]     N mutants that compile (default 60), seed (default 1)
#   bash .ci/mutants.sh 105 2                    the run whose table is .ci/mutants/reports/package.md
#   bash .ci/mutants.sh 10 7 --list              only print the first 10 mutants of seed 7's draw
#   bash .ci/mutants.sh 15 3 --files 'Sources/NetworkIndicator/Scheduling/*.swift'   a narrower run
#   bash .ci/mutants.sh 30 5 --files 'Sources/NetworkIndicator/Progress/*.swift' --tests 'Progress|Batch'
#                                                only the tests `swift test --filter` matches: faster,
#                                                never kinder (what only other tests kill survives)
#   bash .ci/mutants.sh --help                   every option
#
# universalmutator (pip; installed here if missing) makes every mutant of each source file
# (`Sources/**/*.swift`, every target: the core, the schedulers and the clock, the outputs,
# snapshots and diagnostics, the URLSession and AsyncSequence helpers, Internal/, and the parts of
# NetworkIndicatorUI that build without UIKit or SwiftUI; --files GLOB, repeatable, for fewer).
# Code inside an `#if` branch that the compiler here does not take (asked of swiftc, as for a
# debug build) is never mutated, and a file with no such code is left out, so on Linux the
# Apple-only files drop out by themselves and a new file or target is picked up. A
# seeded draw takes them round-robin over the files (each file its share). Each mutant is written
# into one scratch copy of the package (under $TMPDIR or /tmp, synced from the work tree at the
# start; its build folder is reused, so each build is incremental), built with `swift build --build-tests`, and tested with
# `swift test` under a timeout (8 times the unmutated run's time, 120 to 300 s; --timeout or
# MUTANTS_TIMEOUT to choose; a timeout counts as killed); then the file is restored. A mutant that
# does not compile is skipped, not counted, and the next one is drawn. Before that, the mutated
# target is built once without debug information: a mutant whose object files and module are
# byte for byte those of the original (given the same number of lines) is reported as equivalent
# and not counted (trivial compiler equivalence; --no-same-code to skip). A killed mutant's first
# failing test is run again alone (and if it then passes, the whole suite again) so that a flaky
# test does not count as a kill. The unmutated copy must build and pass first.
#
# The markdown table goes to stdout and to .ci/mutants/reports/package.md (option --report or env
# MUTANTS_REPORT); its last line is `score: K/M killed (P%)`, M being the mutants that compiled
# and are not listed as equivalent in .ci/mutants/equivalent.txt (--equivalent, MUTANTS_EQUIVALENT).
# Progress goes to stderr; per-mutant logs to the scratch folder's logs/ (MUTANTS_SCRATCH).
# Mutants of imports, lone attributes and comments are never drawn; regexes in
# .ci/mutants/ignored-lines.txt (one a line, if the file exists) exclude more original lines.
set -euo pipefail
cd "$(dirname "$0")/.."

python=$(command -v python3 || command -v python || true)
[ -n "$python" ] || {
    echo "mutants: python3 is needed (universalmutator is a Python tool)" >&2
    exit 1
}

# `pip install --user` puts the `mutate` command here.
user_bin=$("$python" -c 'import site, os; print(os.path.join(site.getuserbase(), "bin"))' 2>/dev/null || true)
[ -z "$user_bin" ] || export PATH="$PATH:$user_bin"

if ! command -v mutate >/dev/null 2>&1; then
    echo "mutants: installing universalmutator with pip" >&2
    "$python" -m pip install --quiet --user universalmutator >&2 ||
        "$python" -m pip install --quiet universalmutator >&2 || {
        echo "mutants: could not install universalmutator; install it (pip install universalmutator)" \
            "so that the \`mutate\` command is on PATH, then run this again" >&2
        exit 1
    }
    hash -r
    command -v mutate >/dev/null 2>&1 || {
        echo "mutants: universalmutator is installed but \`mutate\` is not on PATH" >&2
        exit 1
    }
fi

exec "$python" .ci/mutants/mutants.py --repo "$PWD" "$@"
