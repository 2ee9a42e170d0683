#!/usr/bin/env bash
# Regenerates the client the tests use from openapi.yaml, with swift-openapi-generator 1.14.3's
# command-line tool (the build plugin would add minutes to every cold CI build, so the output is
# committed instead). Run it after changing openapi.yaml or the config:
#
#     bash Integrations/NetworkIndicatorOpenAPI/OpenAPI/generate.sh
#
# It builds the generator from a clone in a temporary folder (nothing of the generator is
# committed), or uses the one named by GENERATOR=/path/to/swift-openapi-generator.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
output="$here/../Tests/NetworkIndicatorOpenAPITests/Generated"

if [[ -z "${GENERATOR:-}" ]]; then
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    git clone --quiet --depth 1 --branch 1.14.3 https://github.com/apple/swift-openapi-generator "$work/generator"
    swift build --package-path "$work/generator" --product swift-openapi-generator
    GENERATOR="$work/generator/.build/debug/swift-openapi-generator"
fi

"$GENERATOR" generate "$here/openapi.yaml" \
    --config "$here/openapi-generator-config.yaml" \
    --output-directory "$output"
echo "generated into $output:"
ls "$output"
