#!/usr/bin/env bash
# Embedded store choice (not a CI test): SQLite vs DuckDB through JDBC on the store's row shape.
# Usage: pqssh-inventory/bench/store-bench.sh [N]   (default 500000 records)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
dir="${BENCH_DIR:-/tmp}/pqssh-store-bench.$$"
mkdir -p "$dir/lib"
trap 'rm -rf "$dir"' EXIT
for a in org.xerial:sqlite-jdbc:3.54.1.0 org.duckdb:duckdb_jdbc:2.0.0.1; do
  mvn -B -q dependency:copy -Dartifact="$a" -DoutputDirectory="$dir/lib" >/dev/null
done
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$dir/lib/*" "$here/StoreBench.java" "${1:-500000}" "$dir" | cat
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
