#!/usr/bin/env bash
# Checks that an HTML report fits a 1280 px window (headless Chromium; apt-get install chromium): prints the page's
# scrollWidth and clientWidth at 1280 px and writes a screenshot next to the report. Not a CI test.
# Usage: pqssh-inventory/bench/html-width.sh REPORT.html
set -euo pipefail
report="$(realpath "$1")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sed 's#</body>#<script>document.title="scrollWidth="+document.documentElement.scrollWidth+" clientWidth="+document.documentElement.clientWidth;</script></body>#' \
  "$report" >"$tmp/measure.html"
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync
  --no-first-run --window-size=1280,1000)
timeout 60 chromium "${flags[@]}" --dump-dom "file://$tmp/measure.html" 2>/dev/null | grep -o '<title>[^<]*</title>'
timeout 60 chromium "${flags[@]}" --screenshot="${report%.html}-1280.png" "file://$report" 2>/dev/null
