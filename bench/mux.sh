#!/usr/bin/env bash
# Connection sharing: whole-process wall time of a `true` through a master (`ssh -S`, `pqssh ssh -S`; masters of
# OpenSSH's ssh and of pqssh ssh) against fresh logins of both clients, all against Debian's sshd on loopback.
# docs/client.md ("Connection sharing") records the numbers.
#
#   bench/mux.sh [-n RUNS] [--launcher PATH]
#
# --launcher PATH: the pqssh launcher measured (default: the checkout's ./pqssh).
# Prints one Markdown table: median, mean, min, max in seconds per row. Rows are measured interleaved (round r runs
# every row once, in the same order), so a change of machine load shifts all rows alike. Logs in as the invoking
# user with a throw-away key. Everything it starts (sshd, both masters) is stopped on exit, by PID or by -O exit.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=10
launcher=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs="$2"; shift 2 ;;
    --launcher) launcher="$2"; shift 2 ;;
    *) echo "usage: $0 [-n RUNS] [--launcher PATH]" >&2; exit 2 ;;
  esac
done
for b in /usr/bin/ssh /usr/sbin/sshd /usr/bin/ssh-keygen; do
  [ -x "$b" ] || { echo "needs $b (apt-get install openssh-client openssh-server)" >&2; exit 1; }
done
pqssh="$(readlink -f "${launcher:-$here/pqssh}")"
[ -x "$pqssh" ] || { echo "no launcher at $pqssh" >&2; exit 2; }
work="$(mktemp -d /tmp/pqssh-mux-bench.XXXXXX)"
sshd_pid=""
common=()
cleanup() {
  if [ ${#common[@]} -gt 0 ]; then
    /usr/bin/ssh -S "$work/openssh.ctl" -O exit x >/dev/null 2>&1 || true
    /usr/bin/ssh -S "$work/pqssh.ctl" -O exit x >/dev/null 2>&1 || true
  fi
  if [ -n "$sshd_pid" ]; then kill "$sshd_pid" 2>/dev/null || true; wait "$sshd_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

ssh-keygen -q -t ed25519 -N '' -f "$work/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$work/id"
cp "$work/id.pub" "$work/authorized_keys"
mkdir -p /run/sshd 2>/dev/null || true
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$work/sshd_config" <<EOF
ListenAddress 127.0.0.1
HostKey $work/host_key
AuthorizedKeysFile $work/authorized_keys
StrictModes no
UsePAM no
PidFile none
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
EOF
/usr/sbin/sshd -D -e -f "$work/sshd_config" -p "$port" 2>"$work/sshd.log" &
sshd_pid=$!
for _ in $(seq 100); do grep -q "Server listening" "$work/sshd.log" 2>/dev/null && break; sleep 0.1; done
user="$(id -un)"
common=(-F none -p "$port" -i "$work/id" -o "UserKnownHostsFile=$work/known_hosts"
  -o StrictHostKeyChecking=accept-new -o BatchMode=yes)
dest="$user@127.0.0.1"

# the first login records the host key and warms the pqssh launcher (its start-up cache is made once per build)
"$pqssh" ssh "${common[@]}" "$dest" true
/usr/bin/ssh "${common[@]}" -M -S "$work/openssh.ctl" -fN "$dest"
"$pqssh" ssh "${common[@]}" -M -S "$work/pqssh.ctl" -fN "$dest" >"$work/pqssh-master.log" 2>&1
/usr/bin/ssh -S "$work/openssh.ctl" -O check x 2>/dev/null
/usr/bin/ssh -S "$work/pqssh.ctl" -O check x 2>/dev/null

rows=("ssh, fresh login" "pqssh ssh, fresh login"
  "ssh -S, OpenSSH master" "pqssh ssh -S, OpenSSH master"
  "ssh -S, pqssh master" "pqssh ssh -S, pqssh master")
run_row() {
  case "$1" in
    0) /usr/bin/ssh "${common[@]}" "$dest" true ;;
    1) "$pqssh" ssh "${common[@]}" "$dest" true ;;
    2) /usr/bin/ssh -S "$work/openssh.ctl" "$dest" true ;;
    3) "$pqssh" ssh "${common[@]}" -S "$work/openssh.ctl" "$dest" true ;;
    4) /usr/bin/ssh -S "$work/pqssh.ctl" "$dest" true ;;
    5) "$pqssh" ssh "${common[@]}" -S "$work/pqssh.ctl" "$dest" true ;;
  esac
}
for r in $(seq "$runs"); do
  for i in "${!rows[@]}"; do
    s=$(date +%s.%N)
    run_row "$i" </dev/null
    e=$(date +%s.%N)
    echo "$i $(echo "$e - $s" | bc)" >>"$work/times"
  done
done
logins=$(grep -c "Accepted publickey" "$work/sshd.log" || true)

echo "| $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $runs runs, sshd on loopback | median | mean | min | max |"
echo "|---|---|---|---|---|"
for i in "${!rows[@]}"; do
  awk -v i="$i" '$1 == i { print $2 }' "$work/times" | sort -n | awk -v name="${rows[$i]}" '
    { v[NR] = $1; sum += $1 }
    END {
      med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "| %s | %.3f | %.3f | %.3f | %.3f |\n", name, med, sum / NR, v[1], v[NR]
    }'
done
echo
echo "sshd logins: $logins (fresh rows: $((2 * runs)), plus 1 warm-up and 2 masters)"
