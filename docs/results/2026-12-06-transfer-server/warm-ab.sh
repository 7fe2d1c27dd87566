#!/usr/bin/env bash
# usage: warm-ab.sh N CIPHERS MODES "A opts" "B opts": two pqssh servers of one build (PQSSH_LAUNCHER, default this tree's ./pqssh) with JVM flags A and B, one warm-up each, then N OpenSSH downloads (256 MiB) per cipher and mode alternated A/B; the servers' CPU per transfer (median, runs) and MB/s
set -euo pipefail
n="$1"; ciphers="$2"; modes="$3"; aopts="$4"; bopts="$5"
launcher="${PQSSH_LAUNCHER:-$(cd "$(dirname "$0")/../../.." && pwd)/pqssh}"
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
work=$(mktemp -d /dev/shm/dlab.XXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
ssh-keygen -q -t ed25519 -N '' -C bench -f "$work/id"; ssh-keygen -q -t ed25519 -N '' -f "$work/host"
cp "$work/id.pub" "$work/ak"; chmod 644 "$work/ak"
head -c $((256*1024*1024)) /dev/urandom > "$work/src"
declare -A port pid
for s in A B; do
  port[$s]=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  o="$aopts"; [ $s = B ] && o="$bopts"
  PQSSH_JAVA_OPTS="$o" "$launcher" server -D -p "${port[$s]}" -o ListenAddress=127.0.0.1 -o HostKey="$work/host" \
    -o AuthorizedKeysFile="$work/ak" -o AuthorizedKEMKeysFile=none -o StrictModes=no >"$work/srv$s.log" 2>&1 &
  pid[$s]=$!; pids+=($!)
done
for s in A B; do for _ in $(seq 1 600); do (exec 3<>/dev/tcp/127.0.0.1/${port[$s]}) 2>/dev/null && break; sleep 0.1; done; done
common=(-q -F /dev/null -i "$work/id" -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o BatchMode=yes)
get() { # server cipher mode -> prints "cpu_s wall_s"
  local s=$1 c=$2 m=$3; rm -f "$work/got"
  local c0 t0 c1 t1
  c0=$(awk '{print $14+$15+$16+$17}' /proc/${pid[$s]}/stat); t0=$(date +%s.%N)
  if [ "$m" = sftp-down ]; then echo "get $work/src $work/got" > "$work/b"; sftp "${common[@]}" -o Ciphers=$c -P ${port[$s]} -b "$work/b" root@127.0.0.1 >/dev/null
  else scp "${common[@]}" -o Ciphers=$c -P ${port[$s]} root@127.0.0.1:$work/src "$work/got"; fi
  t1=$(date +%s.%N); sleep 0.3
  c1=$(awk '{print $14+$15+$16+$17}' /proc/${pid[$s]}/stat)
  [ "$(stat -c %s "$work/got")" = $((256*1024*1024)) ] || { echo "short file" >&2; exit 1; }
  echo "$(echo "($c1-$c0)/100" | bc -l | cut -c1-5) $(echo "$t1-$t0" | bc -l | cut -c1-5)"
}
echo "# A: '$aopts'  B: '$bopts'  load $(cut -d' ' -f1-3 /proc/loadavg)  $(date -u +%H:%M)"
for c in ${ciphers//,/ }; do for m in ${modes//,/ }; do get A $c $m >/dev/null; get B $c $m >/dev/null; done; done  # warm-up
for c in ${ciphers//,/ }; do for m in ${modes//,/ }; do
  ra=(); rb=()
  for i in $(seq 1 $n); do
    if [ $((i % 2)) = 1 ]; then ra+=("$(get A $c $m)"); rb+=("$(get B $c $m)"); else rb+=("$(get B $c $m)"); ra+=("$(get A $c $m)"); fi
  done
  python3 - "$c" "$m" "${ra[@]}" -- "${rb[@]}" <<'PY'
import sys, statistics as st
c, m = sys.argv[1], sys.argv[2]; rest = sys.argv[3:]; k = rest.index('--'); a = rest[:k]; b = rest[k+1:]
ca = [float(x.split()[0]) for x in a]; cb = [float(x.split()[0]) for x in b]
wa = [256*1.048576/float(x.split()[1]) for x in a]; wb = [256*1.048576/float(x.split()[1]) for x in b]
print(f"| {m} | {c} | {st.median(ca):.2f} ({'/'.join(f'{x:.2f}' for x in ca)}) | {st.median(cb):.2f} ({'/'.join(f'{x:.2f}' for x in cb)}) | {st.median(cb)/st.median(ca):.2f} | {st.median(wa):.0f} | {st.median(wb):.0f} |")
PY
done; done
echo "# load at end $(cut -d' ' -f1-3 /proc/loadavg)  $(date -u +%H:%M)"
