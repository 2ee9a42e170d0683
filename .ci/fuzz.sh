#!/usr/bin/env bash
# Builds the libFuzzer target (the library's sources, the test doubles, the model checker
# (Tests/.../Reliability/ModelChecking/) and Fuzz/FuzzEntry.swift,
# one module, with AddressSanitizer) and runs it for a fixed time on the committed seed corpus.
#   bash .ci/fuzz.sh [seconds]      default 30
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
out=.build-fuzz
mkdir -p "$out/work-corpus"

# The test doubles of NetworkIndicatorTesting join the same module, so their import of the
# library goes.
mkdir -p "$out/testing"
for file in Sources/NetworkIndicatorTesting/*.swift; do
    grep -v '^public import NetworkIndicator$' "$file" >"$out/testing/$(basename "$file")"
done

# shellcheck disable=SC2046
swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 -g \
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault \
    -enable-upcoming-feature MemberImportVisibility \
    -D NETWORK_INDICATOR_FUZZ -module-name NetworkIndicatorFuzz -package-name NetworkIndicator \
    $(find Sources/NetworkIndicator -name '*.swift' | sort) \
    "$out"/testing/*.swift \
    Tests/NetworkIndicatorTests/Reliability/ModelChecking/*.swift \
    Fuzz/FuzzEntry.swift \
    -o "$out/fuzzer"

# New inputs go to the scratch corpus; the committed one is only read.
# No quarantine: freed token memory must be reusable, or address reuse is never exercised.
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-quarantine_size_mb=0}" "$out/fuzzer" -max_total_time="$seconds" -seed=1 -max_len=801 -timeout=10 \
    -print_final_stats=1 "$out/work-corpus" Fuzz/Corpus
