#!/usr/bin/env bash
# Runs the tests with coverage and fails if less than MIN (default 90; CI passes 98.5) percent
# of the lines in Sources/NetworkIndicator are covered.   bash .ci/coverage.sh [min-percent]
set -euo pipefail
cd "$(dirname "$0")/.."
min="${1:-90}"
scratch=.build-coverage

mkdir -p "$scratch"
source .ci/foundation-retry.sh
with_foundation_retry "$scratch/coverage-test.log" \
    swift test --enable-code-coverage --scratch-path "$scratch" >/dev/null || {
    tail -50 "$scratch/coverage-test.log"
    exit 1
}
bin_dir=$(swift build --scratch-path "$scratch" --show-bin-path)
binary="$bin_dir/NetworkIndicatorPackageTests.xctest"
[ -f "$binary" ] || binary=$(find "$bin_dir" -maxdepth 1 -name 'NetworkIndicatorPackageTests*' -type f | head -1)
profdata="$bin_dir/codecov/default.profdata"
# The toolchain's own llvm-cov: a system one may not read this compiler's profile format.
llvm_cov="$(dirname "$(readlink -f "$(command -v swift)")")/llvm-cov"

"$llvm_cov" report "$binary" -instr-profile "$profdata" Sources/NetworkIndicator
percent=$("$llvm_cov" report "$binary" -instr-profile "$profdata" Sources/NetworkIndicator |
    awk '/^TOTAL/ { gsub("%", "", $10); print $10 }')
echo "line coverage of Sources/NetworkIndicator: $percent% (minimum $min%)"
awk -v p="$percent" -v m="$min" 'BEGIN { exit !(p + 0 >= m + 0) }' || {
    echo "coverage below $min%"
    exit 1
}
