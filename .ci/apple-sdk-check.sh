#!/usr/bin/env bash
# Type-checks the Apple side of the package against Apple's real iOS and macOS SDKs, on Linux:
# the library targets, the documentation samples (Examples/DocSamples) and the example app
# (Examples/NetworkIndicatorExampleApp). Nothing is linked or run. See CONTRIBUTING.md, "Apple
# platforms", for how to get the SDKs.
#
#   bash .ci/apple-sdk-check.sh
#
# APPLE_SDKS     the folder with iPhoneOS17.0.sdk and macOS14.0.sdk (default /tmp/apple-sdks)
# APPLE_TYPECHECK the checker (default: ../shared/tools/apple-sdk/apple-typecheck.sh beside the
#                repository, the workplace's tool)
# Without the SDKs (or the checker), prints one `apple-sdk-check: skipped (…)` line and exits 0.
#
# What is checked where, and why:
# - the library targets: iOS 13.0 (the package's floor), 15.0 and 17.0; macOS 10.15 and 14.0;
# - UIKit samples: iOS 13.0, 15.0, 17.0 (on macOS they compile out, behind canImport(UIKit));
# - AppKit samples: macOS 10.15 (the package's floor) and 14.0;
# - SwiftUI samples: iOS 15.0 and 17.0, macOS 14.0 (the scope, task and overlay modifiers need
#   iOS 15; the Observation samples say @available(iOS 17, macOS 14, *));
# - the SwiftUI app sample and the example app: iOS 17.0 (their deployment target; the app
#   sample on macOS 14.0 too). tvOS, watchOS and visionOS: no SDK, not checked.
# - owner-bound UIKit samples: iOS 13.0, 15.0, 17.0; AppKit overlay samples: macOS 10.15 and
#   14.0; refreshable SwiftUI samples: iOS 15.0 and 17.0, macOS 14.0.
set -uo pipefail
cd "$(dirname "$0")/.."

# The iOS symbol graph of NetworkIndicatorUI (written below) is this run's or none: docs.sh must
# never build the UI reference from a graph of older sources.
rm -rf .build-docs/symbol-graphs/NetworkIndicatorUI-ios

sdks=${APPLE_SDKS:-/tmp/apple-sdks}
tool=${APPLE_TYPECHECK:-$PWD/../shared/tools/apple-sdk/apple-typecheck.sh}
for sdk in iPhoneOS17.0.sdk macOS14.0.sdk; do
    if [ ! -d "$sdks/$sdk" ]; then
        echo "apple-sdk-check: skipped (no Apple SDK at $sdks/$sdk; see CONTRIBUTING.md)"
        exit 0
    fi
done
if [ ! -f "$tool" ]; then
    echo "apple-sdk-check: skipped (no checker at $tool; set APPLE_TYPECHECK)"
    exit 0
fi
export APPLE_SDKS=$sdks

started=$SECONDS
failed=0
clean=0
total=0
check() {  # $1 = what, then the checker's arguments
    local what=$1 output k n
    shift
    echo "--- $what"
    output=$(bash "$tool" "$@" 2>/dev/null) || failed=1
    printf '%s\n' "$output"
    # The checker's last line: `apple-typecheck: K/N checks clean`; summed for the summary.
    k=$(grep -oE '[0-9]+/[0-9]+ checks clean' <<< "$output" | tail -1 | cut -d/ -f1)
    n=$(grep -oE '[0-9]+/[0-9]+ checks clean' <<< "$output" | tail -1 | cut -d/ -f2 | cut -d' ' -f1)
    clean=$((clean + ${k:-0}))
    total=$((total + ${n:-1}))
}
samples=Examples/DocSamples
check "library targets" ios13.0 ios15.0 ios17.0 macos10.15 macos14.0
check "UIKit documentation samples" --extra "$samples/UIKitScreens" --extra "$samples/UIKitScope" \
    --extra "$samples/UIKitAppDelegate" ios13.0 ios15.0 ios17.0
check "SwiftUI documentation samples" --extra "$samples/SwiftUIViews" ios15.0 ios17.0 macos14.0
check "SwiftUI app sample" --extra "$samples/SwiftUIApp" ios17.0 macos14.0
check "example app" --extra Examples/NetworkIndicatorExampleApp ios17.0
check "UIKit owner-bound samples" --extra "$samples/UIKitOwnerBound" ios13.0 ios15.0 ios17.0
check "AppKit overlay samples" --extra "$samples/AppKitOverlay" macos10.15 macos14.0
check "SwiftUI refreshable samples" --extra "$samples/SwiftUIRefreshable" ios15.0 ios17.0 macos14.0

# The symbol graph of NetworkIndicatorUI as compiled for iOS, for its documentation (.ci/docs.sh
# builds the catalog from it when it is there: pages for the overlays, which Linux compiles
# out). The checker takes a target's unsafe flags from the manifest, so a scratch copy of the
# package whose NetworkIndicatorUI target asks for a symbol graph is checked once more for
# iOS 17.0 (seconds, warm); the package's own manifest stays as it ships.
graphs=$PWD/.build-docs/symbol-graphs/NetworkIndicatorUI-ios
copy=$(mktemp -d "${TMPDIR:-/tmp}/ni-ui-graph.XXXXXX")
trap 'rm -rf "$copy"' EXIT
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
    # Tracked files and new ones not ignored: the sources as they are, committed or not.
    git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf -
else  # a copy of the sources that is not a clone
    tar cf - --exclude='./.build*' .
fi | tar xf - -C "$copy"
rm -rf "$graphs" && mkdir -p "$graphs"
python3 - "$copy/Package.swift" "$graphs" <<'PY'
import re, sys
path, graphs = sys.argv[1:3]
text = open(path).read()
flags = ('.unsafeFlags(["-emit-symbol-graph", "-emit-symbol-graph-dir", "%s", '
         '"-symbol-graph-minimum-access-level", "public", "-emit-extension-block-symbols"])' % graphs)
ui = re.search(r'\.target\(\s*name: "NetworkIndicatorUI",.*?swiftSettings: swiftSettings', text, re.S)
assert ui, "no NetworkIndicatorUI target with swiftSettings in Package.swift"
text = text[:ui.end()] + " + [" + flags + "]" + text[ui.end():]
open(path, "w").write(text)
PY
check "NetworkIndicatorUI's symbol graph for the docs (iOS 17.0)" --project "$copy" ios17.0
rm -rf "$copy"
if [ ! -s "$graphs/NetworkIndicatorUI.symbols.json" ]; then
    echo "apple-sdk-check: the iOS check wrote no $graphs/NetworkIndicatorUI.symbols.json"
    failed=1
fi

if [ "$failed" = 0 ]; then
    echo "apple-sdk-check: passed in $((SECONDS - started)) s, $clean/$total checks clean"
else
    echo "apple-sdk-check: FAILED (errors or warnings above) after $((SECONDS - started)) s, $clean/$total checks clean"
fi
exit "$failed"
