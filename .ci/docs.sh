#!/usr/bin/env bash
# Builds the NetworkIndicator documentation with the toolchain's own tools (no plug-ins, no
# network) and fails on any DocC warning. Run from the repository root: bash .ci/docs.sh
#
# 1. `swift build` emits the module's symbol graphs (public API only, with extension blocks for
#    the members and conformances the package adds to Foundation types).
# 2. `docc convert` builds the catalog against them with --warnings-as-errors.
#
# Everything goes to .build-docs/ (git-ignored), never to the default .build/ folder.
#   DOCS_OUTPUT=path  where to write the .doccarchive (default .build-docs/NetworkIndicator.doccarchive)
set -euo pipefail
cd "$(dirname "$0")/.."

module=NetworkIndicator
catalog="Sources/$module/$module.docc"
scratch="$PWD/.build-docs"
graphs="$scratch/symbol-graphs"
output="${DOCS_OUTPUT:-$scratch/$module.doccarchive}"
[[ "$output" == *.doccarchive ]] || { echo "docs.sh: DOCS_OUTPUT must end in .doccarchive" >&2; exit 1; }
log="$scratch/docc.log"

if ! docc=$(command -v docc); then
    docc="$(dirname "$(command -v swift)")/docc"
fi
[[ -x "$docc" ]] || { echo "docs.sh: no docc next to $(command -v swift)" >&2; exit 1; }

printf '==> symbol graphs (%s)\n' "$graphs"
# The compiler writes the graphs only when it emits the module, and an up-to-date build emits
# nothing: drop the old graphs and the module file so that this build always writes fresh ones.
rm -rf "$graphs"
mkdir -p "$graphs"
bin=$(swift build --scratch-path "$scratch" --show-bin-path)
rm -f "$bin/Modules/$module.swiftmodule" "$bin/$module.swiftmodule"
swift build --scratch-path "$scratch" --target "$module" \
    -Xswiftc -emit-symbol-graph \
    -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public \
    -Xswiftc -emit-extension-block-symbols
[[ -s "$graphs/$module.symbols.json" ]] || {
    echo "docs.sh: the build wrote no $graphs/$module.symbols.json" >&2
    exit 1
}

printf '==> docc convert (%s)\n' "$output"
rm -rf "$output"
mkdir -p "$(dirname "$output")"
status=0
"$docc" convert "$catalog" \
    --additional-symbol-graph-dir "$graphs" \
    --output-path "$output" \
    --fallback-display-name "$module" \
    --fallback-bundle-identifier "org.networkindicator.$module" \
    --fallback-default-module-kind "Swift Package" \
    --warnings-as-errors \
    >"$log" 2>&1 || status=$?
cat "$log"

# --warnings-as-errors already fails the command; count as well, so that a warning can never
# slip through (a DocC version that ignores the flag, a diagnostic printed as a plain line).
warnings=$(grep -cE '(warning|error):' "$log" || true)
if [[ $status -ne 0 || $warnings -ne 0 ]]; then
    echo "docs.sh: FAILED: docc exited with $status and reported $warnings problem(s) (warnings count as errors; source paths are relative to $catalog)" >&2
    exit 1
fi
pages=$(find "$output/data/documentation" -name '*.json' | wc -l)
echo "docs.sh: OK: $pages documentation pages, 0 warnings, archive at ${output#"$PWD/"}"
