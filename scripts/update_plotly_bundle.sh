#!/usr/bin/env bash
# Replaces the HTML pages' plotly.js (pytest_trust/report/assets) with npm's plotly.js-cartesian-dist-min at VERSION,
# the plotly.js version the installed plotly package writes figures for; then set VERSION and SHA256 in
# pytest_trust/report/plotly_bundle.py to what this prints. Usage: scripts/update_plotly_bundle.sh 4.1.1
set -euo pipefail
version="${1:?usage: $0 VERSION (plotly.js, e.g. 4.1.1)}"
assets="$(cd "$(dirname "$0")/.." && pwd)/pytest_trust/report/assets"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "plotly.js-cartesian-dist-min@$version" >/dev/null && tar xzf ./*.tgz)
cp "$work/package/plotly-cartesian.min.js" "$assets/plotly-cartesian.min.js"
cp "$work/package/LICENSE" "$assets/plotly-LICENSE"
echo "VERSION = \"$version\""
echo "SHA256 = \"$(sha256sum "$assets/plotly-cartesian.min.js" | cut -d' ' -f1)\""
