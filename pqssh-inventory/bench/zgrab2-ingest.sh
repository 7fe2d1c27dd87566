#!/usr/bin/env bash
# Ingest benchmark (not a CI test): generates N synthetic ZGrab2 ssh records (gzip) and classifies them with
# `pqssh scan --zgrab2 FILE --jsonl OUT -q` under -Xmx256m, printing wall time, records/s and peak RSS.
# Usage: pqssh-inventory/bench/zgrab2-ingest.sh [N ...]    (default: 1000000 5000000)
# Needs about 0.1 GB of gzip input and 1.3 GB of JSON Lines output per million records in $BENCH_DIR (/tmp).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
dir="${BENCH_DIR:-/tmp}/pqssh-zgrab2-bench.$$"
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
"$root/pqssh" --version >/dev/null   # builds the CLI when needed
for n in "${@:-1000000 5000000}"; do
  for count in $n; do
    in="$dir/zgrab2-$count.json.gz"
    "$JAVA_HOME/bin/java" "$here/Zgrab2Generate.java" "$count" "$in"
    start=$(date +%s.%N)
    PQSSH_JAVA_OPTS="-Xmx256m" /usr/bin/time -f '%M' -o "$dir/rss" \
      "$root/pqssh" scan --zgrab2 "$in" --jsonl "$dir/out.jsonl" -q --progress never 2>"$dir/err" || true
    end=$(date +%s.%N)
    lines=$(wc -l <"$dir/out.jsonl")
    secs=$(echo "$end - $start" | bc -l)
    printf '%s records (%s MB gzip): %s results, %.1f s, %.0f records/s, peak RSS %s MB, heap -Xmx256m; %s\n' \
      "$count" "$(( $(stat -c %s "$in") / 1000000 ))" "$lines" "$secs" "$(echo "$count / $secs" | bc -l)" \
      "$(( $(cat "$dir/rss") / 1024 ))" "$(tail -1 "$dir/err")"
    rm -f "$in" "$dir/out.jsonl"
  done
done
