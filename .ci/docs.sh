#!/usr/bin/env bash
# Builds the documentation of NetworkIndicator and NetworkIndicatorUI with the toolchain's own
# tools (no plug-ins, no network) and fails on any DocC warning. Run from the repository root:
# bash .ci/docs.sh
#
# 1. `swift build` emits the module's symbol graphs (public API only, with extension blocks for
#    the members and conformances the package adds to Foundation types).
# 2. `docc convert` builds the catalog against them with --warnings-as-errors.
# NetworkIndicatorUI is built instead from its iOS symbol graph when .ci/apple-sdk-check.sh has
# just written one (.build-docs/symbol-graphs/NetworkIndicatorUI-ios; that script removes it
# first, so it is never of older sources): pages for the overlays that Linux compiles out.
#
# Everything goes to .build-docs/ (git-ignored), never to the default .build/ folder.
#   DOCS_OUTPUT=path  where to write NetworkIndicator's .doccarchive (default
#                     .build-docs/NetworkIndicator.doccarchive); NetworkIndicatorUI's goes to
#                     .build-docs/NetworkIndicatorUI.doccarchive
set -euo pipefail
cd "$(dirname "$0")/.."

scratch="$PWD/.build-docs"
if ! docc=$(command -v docc); then
    docc="$(dirname "$(command -v swift)")/docc"
fi
[[ -x "$docc" ]] || { echo "docs.sh: no docc next to $(command -v swift)" >&2; exit 1; }

# Builds the catalog of one module against its own symbol graphs, failing on any warning.
#   $1  the module (its catalog is Sources/$1/$1.docc)
#   $2  the .doccarchive to write
#   $3  optional: a folder of the module's symbol graphs made elsewhere, used if it holds one
build_catalog() {
    local module=$1 output=$2 prebuilt=${3:-}
    local catalog="Sources/$module/$module.docc"
    local graphs="$scratch/symbol-graphs/$module"
    local log="$scratch/docc-$module.log"
    [[ "$output" == *.doccarchive ]] || { echo "docs.sh: DOCS_OUTPUT must end in .doccarchive" >&2; exit 1; }

    if [[ -n "$prebuilt" && -s "$prebuilt/$module.symbols.json" ]]; then
        printf '==> symbol graphs of %s: %s (compiled for iOS by .ci/apple-sdk-check.sh)\n' "$module" "$prebuilt"
        graphs=$prebuilt
    else
        printf '==> symbol graphs of %s (%s)\n' "$module" "$graphs"
        # The compiler writes the graphs only when it emits the module, and an up-to-date build
        # emits nothing: drop the old graphs and the module file so that this build writes fresh
        # ones. The build emits its dependencies' graphs too; only the module's own are kept (a
        # catalog documents one module).
        local all="$scratch/symbol-graphs/all-$module"
        rm -rf "$graphs" "$all"
        mkdir -p "$graphs" "$all"
        local bin
        bin=$(swift build --scratch-path "$scratch" --show-bin-path)
        rm -f "$bin/Modules/$module.swiftmodule" "$bin/$module.swiftmodule"
        swift build --scratch-path "$scratch" --target "$module" \
            -Xswiftc -emit-symbol-graph \
            -Xswiftc -emit-symbol-graph-dir -Xswiftc "$all" \
            -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public \
            -Xswiftc -emit-extension-block-symbols
        cp "$all/$module".symbols.json "$graphs/" 2>/dev/null || true
        cp "$all/$module"@*.symbols.json "$graphs/" 2>/dev/null || true
        [[ -s "$graphs/$module.symbols.json" ]] || {
            echo "docs.sh: the build wrote no $graphs/$module.symbols.json" >&2
            exit 1
        }
    fi

    printf '==> docc convert (%s)\n' "$output"
    rm -rf "$output"
    mkdir -p "$(dirname "$output")"
    local status=0
    "$docc" convert "$catalog" \
        --additional-symbol-graph-dir "$graphs" \
        --output-path "$output" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.networkindicator.$module" \
        --fallback-default-module-kind "Swift Package" \
        --warnings-as-errors \
        >"$log" 2>&1 || status=$?
    cat "$log"

    # --warnings-as-errors already fails the command; count as well, so that a warning can
    # never slip through (a DocC version that ignores the flag, a diagnostic printed as a plain
    # line).
    local warnings
    warnings=$(grep -cE '(warning|error):' "$log" || true)
    if [[ $status -ne 0 || $warnings -ne 0 ]]; then
        echo "docs.sh: FAILED: docc exited with $status and reported $warnings problem(s) for $module (warnings count as errors; source paths are relative to $catalog)" >&2
        exit 1
    fi
    local pages
    pages=$(find "$output/data/documentation" -name '*.json' | wc -l)
    echo "docs.sh: OK: $module: $pages documentation pages, 0 warnings, archive at ${output#"$PWD/"}"
}

build_catalog NetworkIndicator "${DOCS_OUTPUT:-$scratch/NetworkIndicator.doccarchive}"
# NetworkIndicatorUI: from its iOS symbol graph when the Apple SDK check wrote one (pages for the
# overlays, the SwiftUI modifiers and the UIKit outputs); otherwise from what builds on Linux,
# where its UIKit, AppKit and SwiftUI code is compiled out.
build_catalog NetworkIndicatorUI "$scratch/NetworkIndicatorUI.doccarchive" \
    "$scratch/symbol-graphs/NetworkIndicatorUI-ios"
