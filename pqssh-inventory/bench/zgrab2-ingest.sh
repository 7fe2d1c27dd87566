#!/usr/bin/env bash
# Ingest benchmark (not a CI test): generates N synthetic ZGrab2 ssh records (gzip) and classifies them with
# `pqssh scan --zgrab2 FILE --jsonl OUT -q` under -Xmx256m, printing wall time, records/s and peak RSS.
# Usage: pqssh-inventory/bench/zgrab2-ingest.sh [N ...]    (default: 1000000 5000000)
#        SINK=store pqssh-inventory/bench/zgrab2-ingest.sh N  the store (SQLite file) is the only sink: --store FILE
#        SINK=cbom  pqssh-inventory/bench/zgrab2-ingest.sh N  the CycloneDX CBOM is the only sink: --cbom FILE
#        SINK=json|csv|html  the JSON, CSV or HTML report is the only sink (--json, --csv, --html FILE)
#        SINK="json cbom" RUNS=2 ...  each sink in turn, RUNS times each, on the same generated input
#        INPUT=FILE.gz  keep the generated input there (or reuse it if present); KEEP=PREFIX keeps each output;
#        CLI_DIR=DIR  the CLI jar and lib/ from DIR (default: this work tree's, built when missing)
#        BENCH_JAVA_OPTS  more JVM options (e.g. -XX:StartFlightRecording=filename=F.jfr)
# Needs about 0.1 GB of gzip input and 1.3 GB of JSON Lines output per million records in $BENCH_DIR (/tmp).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
dir="${BENCH_DIR:-/tmp}/pqssh-zgrab2-bench.$$"
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
# a private copy of the CLI, so that a rebuild of the work tree during a long run cannot change it;
# CLI_DIR=DIR takes the jar and lib/ from DIR instead (to compare two builds on the same input)
mkdir -p "$dir/cli"
if [ -n "${CLI_DIR:-}" ]; then
  cp -r "$CLI_DIR/pqssh-cli-0.1.0-SNAPSHOT.jar" "$CLI_DIR/lib" "$dir/cli/"
else
  "$root/pqssh" --version >/dev/null   # builds the CLI when needed
  cp -r "$root/pqssh-cli/target/pqssh-cli-0.1.0-SNAPSHOT.jar" "$root/pqssh-cli/target/lib" "$dir/cli/"
fi
cp="$dir/cli/pqssh-cli-0.1.0-SNAPSHOT.jar:$dir/cli/lib/*"
for n in "${@:-1000000 5000000}"; do
  for count in $n; do
    in="$dir/zgrab2-$count.json.gz"
    if [ -n "${INPUT:-}" ] && [ -f "$INPUT" ]; then cp "$INPUT" "$in"   # INPUT=FILE.gz: reuse a generated input
    else "$JAVA_HOME/bin/java" "$here/Zgrab2Generate.java" "$count" "$in"; fi
    if [ -n "${INPUT:-}" ] && [ ! -f "$INPUT" ]; then cp "$in" "$INPUT"; fi
    for sink in ${SINK:-jsonl}; do
    for run in $(seq "${RUNS:-1}"); do
    case "$sink" in
      store) rm -f "$dir/out.db"*; sinkopt="--store $dir/out.db"; outfile="$dir/out.db" ;;
      cbom) sinkopt="--cbom $dir/out.cdx.json"; outfile="$dir/out.cdx.json" ;;
      json) sinkopt="--json $dir/out.json"; outfile="$dir/out.json" ;;
      csv) sinkopt="--csv $dir/out.csv"; outfile="$dir/out.csv" ;;
      html) sinkopt="--html $dir/out.html"; outfile="$dir/out.html" ;;
      jsonl) sinkopt="--jsonl $dir/out.jsonl"; outfile="$dir/out.jsonl" ;;
      *) echo "unknown SINK $sink" >&2; exit 2 ;;
    esac
    load0="$(cut -d' ' -f1 /proc/loadavg)"
    start=$(date +%s.%N)
    /usr/bin/time -f '%M %U %S' -o "$dir/rss" "$JAVA_HOME/bin/java" -Xmx256m -Xlog:gc:file="$dir/gc.log" -cp "$cp" \
      ${BENCH_JAVA_OPTS:-} io.pqssh.cli.Main scan --zgrab2 "$in" $sinkopt -q --progress never 2>"$dir/err" || true
    end=$(date +%s.%N)
    case "$sink" in
      store) lines=$("$JAVA_HOME/bin/java" -cp "$cp" io.pqssh.cli.Main inventory trend --store "$dir/out.db" --json \
        | tail -1 | sed 's/.*"total":\([0-9]*\).*/\1/') ;;
      cbom) lines=$(grep -o '"name":"pqssh:ssh-targets","value":"[0-9]*"' "$outfile" | grep -o '[0-9]*"$' | tr -d '"') ;;
      json) lines=$(tail -c 200000 "$outfile" | grep -o '"total" : [0-9]*' | grep -o '[0-9]*$' || true) ;;
      csv) lines=$(( $(wc -l <"$outfile") - 1 )) ;;
      html) lines=$(grep -c '^<tr>' "$outfile" || true) ;;
      *) lines=$(wc -l <"$outfile") ;;
    esac
    secs=$(echo "$end - $start" | bc -l)
    read -r rss user sys <"$dir/rss"
    cpu=$(echo "$user + $sys" | bc -l)
    heap=$(grep -o '[0-9]*M->[0-9]*M' "$dir/gc.log" | sed 's/.*->//; s/M//' | sort -n | tail -1)
    printf '%s records (%s MB gzip, %s MB out: '"$sink"'): %s results; wall %.1f s = %.0f records/s;'\
' CPU %.1f s = %.0f records per CPU-second; peak RSS %s MB; largest heap after GC %s MB (-Xmx256m); load %s at start, %s at end; %s\n' \
      "$count" "$(( $(stat -c %s "$in") / 1000000 ))" "$(( $(stat -c %s "$outfile") / 1000000 ))" "$lines" \
      "$secs" "$(echo "$count / $secs" | bc -l)" "$cpu" "$(echo "$count / $cpu" | bc -l)" "$(( rss / 1024 ))" \
      "${heap:-?}" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(tail -1 "$dir/err")"
    if [ -n "${KEEP:-}" ]; then mv "$outfile" "$KEEP.$sink.$run"; fi
    rm -f "$dir/out.jsonl" "$dir/out.db"* "$dir/out.cdx.json" "$dir/out.json" "$dir/out.csv" "$dir/out.html"
    done
    done
    rm -f "$in"
  done
done
