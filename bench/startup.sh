#!/usr/bin/env bash
# Whole-process wall time of `pqssh ssh HOST true` vs OpenSSH's `ssh HOST true`, against a pqssh server and
# against Debian's sshd, on loopback and (--link, root) over the lab's emulated 67 ms link. docs/startup.md.
#
#   bench/startup.sh [-n RUNS] [--link] [--rtt MS] [--no-aot-baseline] [--login-as root|fresh|NAME]
#                    [--launcher PATH] [--compare PATH]
#
# --launcher PATH: the pqssh launcher measured and used for the servers (default: the checkout's ./pqssh), e.g. the
# distribution's bin/pqssh (pqssh-dist/target/image/pqssh-VERSION/bin/pqssh or /usr/bin/pqssh);
# --compare PATH: a second launcher whose `pqssh ssh` rows are measured beside the first one's, interleaved.
#
# Prints one Markdown table per network: median, mean, min, max in seconds per client/server/key pair. The rows
# are measured interleaved (round r runs every row once, in the same order), so a change of machine load
# during a run shifts all rows alike instead of one. The login account: as root the default is `fresh`, a
# throw-away user made with useradd -m (Debian's skeleton dotfiles) and removed at the end, so the remote `true`
# costs what it costs a normal account rather than whatever the invoking account's shell start-up files run;
# `--login-as root` keeps the invoking account (anyone else always logs in as themselves).
# Everything it starts (servers, the link, the user) is stopped or removed on exit, processes by PID.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=10
link=0
rtt=67
baseline=1
login_as=""
launcher=""
compare=""
while [ $# -gt 0 ]; do
  case "$1" in
    --login-as) login_as="$2"; shift 2 ;;
    -n) runs="$2"; shift 2 ;;
    --link) link=1; shift ;;
    --rtt) rtt="$2"; shift 2 ;;
    --no-aot-baseline) baseline=0; shift ;;
    --launcher) launcher="$2"; shift 2 ;;
    --compare) compare="$2"; shift 2 ;;
    *) echo "usage: $0 [-n RUNS] [--link] [--rtt MS] [--no-aot-baseline] [--login-as root|fresh|NAME]" \
         "[--launcher PATH] [--compare PATH]" >&2; exit 2 ;;
  esac
done
for b in /usr/bin/ssh /usr/sbin/sshd /usr/bin/ssh-keygen; do
  [ -x "$b" ] || { echo "needs $b (apt-get install openssh-client openssh-server)" >&2; exit 1; }
done
pqssh="$(readlink -f "${launcher:-$here/pqssh}")"
[ -x "$pqssh" ] || { echo "no launcher at $pqssh" >&2; exit 2; }
if [ -n "$compare" ]; then
  compare="$(readlink -f "$compare")"
  [ -x "$compare" ] || { echo "no launcher at $compare" >&2; exit 2; }
fi
work="$(mktemp -d /tmp/pqssh-bench.XXXXXX)"
chmod 755 "$work"
pids=()
made_user=""
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ -n "$made_user" ]; then userdel -r "$made_user" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
me="$(id -un)"
if [ "$(id -u)" = 0 ]; then
  case "${login_as:-fresh}" in
    fresh)
      made_user="pqbench$$"
      useradd -m -s /bin/bash "$made_user"
      usermod -p '*' "$made_user"  # no password, but not locked ("!"): sshd and pqssh refuse locked accounts
      me="$made_user" ;;
    root) ;;
    *) id "$login_as" >/dev/null || { echo "no such user: $login_as" >&2; exit 2; }; me="$login_as" ;;
  esac
fi

# the launcher builds the jar and prepares its start-up cache now, not inside the first measured run
"$pqssh" --version >/dev/null
if [ -n "$compare" ]; then "$compare" --version >/dev/null; fi

ssh-keygen -q -t ed25519 -N '' -C bench -f "$work/id_ed25519"
"$pqssh" keygen -q -t mlkem768 -N '' -C bench -f "$work/id_mlkem768" >/dev/null
ssh-keygen -q -t ed25519 -N '' -f "$work/host_ed25519"
cat "$work/id_ed25519.pub" "$work/id_mlkem768.pub" > "$work/authorized_keys"
chmod 644 "$work/authorized_keys"  # sshd reads it as the login user
mkdir -p /run/sshd 2>/dev/null || true

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { # host port
  for _ in $(seq 1 600); do
    if (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listens on $1:$2" >&2; exit 1
}

# $1 = prefix command (empty or "ip netns exec NS"), $2 = listen address
start_servers() {
  local pre="$1" addr="$2"
  sshd_port=$(free_port); pq_port=$(free_port)
  cat > "$work/sshd_config" <<CONF
Port $sshd_port
ListenAddress $addr
HostKey $work/host_ed25519
AuthorizedKeysFile $work/authorized_keys
PidFile $work/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
CONF
  $pre /usr/sbin/sshd -D -e -f "$work/sshd_config" 2>"$work/sshd.log" &
  pids+=($!)
  $pre "$pqssh" server -D -p "$pq_port" -o ListenAddress="$addr" -o HostKey="$work/host_ed25519" \
    -o AuthorizedKeysFile="$work/authorized_keys" -o AuthorizedKEMKeysFile=none -o StrictModes=no \
    >"$work/pqssh-server.log" 2>&1 &
  pids+=($!)
  $pre bash -c "$(declare -f wait_port); wait_port $addr $sshd_port; wait_port $addr $pq_port"
}

# one timed run: prints seconds
time_one() {
  local t0 t1
  t0=$(date +%s%N)
  "$@" >/dev/null 2>>"$work/client.err" </dev/null || { echo "FAILED: $*" >&2; tail -5 "$work/client.err" >&2; exit 1; }
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }'
}

stats() { # reads numbers, prints "median | mean | min | max"
  sort -g | awk '{ v[NR] = $1; s += $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.3f | %.3f | %.3f | %.3f", m, s / NR, v[1], v[NR] }'
}

# rows to measure: labels and commands (one string each, words quoted with printf %q)
labels=(); cmds=()
row() { # $1 label, rest: command
  labels+=("$1"); shift
  cmds+=("$(printf '%q ' "$@")")
}

# runs every row once as a warm-up (known_hosts, KEX cache, page cache), then `runs` interleaved rounds
measure_rows() { # $1 prefix for the clients
  local pre="$1" i r
  for i in "${!cmds[@]}"; do
    $pre bash -c "${cmds[$i]}" >/dev/null 2>>"$work/client.err" </dev/null || true
    : > "$work/times.$i"
  done
  for r in $(seq 1 "$runs"); do
    for i in "${!cmds[@]}"; do
      $pre bash -c "$(declare -f time_one); work=$work; time_one ${cmds[$i]}" >> "$work/times.$i"
    done
  done
  for i in "${!cmds[@]}"; do
    echo "| ${labels[$i]} | $(stats < "$work/times.$i") |"
  done
  echo
  echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  labels=(); cmds=()
}

bench_network() { # $1 title, $2 prefix for clients, $3 server address, $4 prefix for servers
  local title="$1" cpre="$2" addr="$3" spre="$4"
  start_servers "$spre" "$addr"
  local kh="$work/known_hosts"; : > "$kh"
  local sshopts=(-o UserKnownHostsFile="$kh" -o StrictHostKeyChecking=accept-new -o BatchMode=yes
    -o LogLevel=ERROR -o IdentitiesOnly=yes -o ControlMaster=no -o ControlPath=none)
  echo
  echo "### $title ($runs runs each, load average $(cut -d' ' -f1-3 /proc/loadavg))"
  echo
  echo "| client → server | median s | mean s | min s | max s |"
  echo "|---|---:|---:|---:|---:|"
  row "OpenSSH ssh → sshd" /usr/bin/ssh "${sshopts[@]}" -i "$work/id_ed25519" -p "$sshd_port" "$me@$addr" true
  row "OpenSSH ssh → pqssh server" /usr/bin/ssh "${sshopts[@]}" -i "$work/id_ed25519" -p "$pq_port" "$me@$addr" true
  row "pqssh ssh → sshd" "$pqssh" ssh -o UserKnownHostsFile="$kh" -o StrictHostKeyChecking=accept-new \
    -i "$work/id_ed25519" -p "$sshd_port" "$me@$addr" true
  row "pqssh ssh → pqssh server" "$pqssh" ssh -o UserKnownHostsFile="$kh" -o StrictHostKeyChecking=accept-new \
    -i "$work/id_ed25519" -p "$pq_port" "$me@$addr" true
  row "pqssh ssh (ML-KEM key, publickey-kem) → pqssh server" "$pqssh" ssh -o UserKnownHostsFile="$kh" \
    -o StrictHostKeyChecking=accept-new -i "$work/id_mlkem768" -p "$pq_port" "$me@$addr" true
  if [ -n "$compare" ]; then
    row "pqssh ssh [$compare] → sshd" "$compare" ssh -o UserKnownHostsFile="$kh" \
      -o StrictHostKeyChecking=accept-new -i "$work/id_ed25519" -p "$sshd_port" "$me@$addr" true
    row "pqssh ssh [$compare] → pqssh server" "$compare" ssh -o UserKnownHostsFile="$kh" \
      -o StrictHostKeyChecking=accept-new -i "$work/id_ed25519" -p "$pq_port" "$me@$addr" true
    row "pqssh ssh [$compare] (ML-KEM key) → pqssh server" "$compare" ssh -o UserKnownHostsFile="$kh" \
      -o StrictHostKeyChecking=accept-new -i "$work/id_mlkem768" -p "$pq_port" "$me@$addr" true
  fi
  if [ "$baseline" = 1 ]; then
    # the launcher before the start-up work, minus its source scan: plain class path, signed jars, JVM defaults
    row "pqssh ssh → pqssh server, before (no AOT cache, signed jars, C2 + G1)" \
      "${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java" --enable-native-access=ALL-UNNAMED \
      -cp "$here/pqssh-cli/target/pqssh-cli-0.1.0-SNAPSHOT.jar:$here/pqssh-cli/target/lib/*" io.pqssh.cli.Main ssh \
      -o UserKnownHostsFile="$kh" -o StrictHostKeyChecking=accept-new -i "$work/id_ed25519" -p "$pq_port" "$me@$addr" true
  fi
  measure_rows "$cpre"
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}

echo "# pqssh start-up benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(/usr/bin/ssh -V 2>&1), login as $me"
echo "launcher: $pqssh${compare:+, compared with $compare}"
bench_network "loopback" "" 127.0.0.1 ""

if [ "$link" = 1 ]; then
  [ "$(id -u)" = 0 ] || { echo "--link needs root (network namespaces)" >&2; exit 1; }
  "$pqssh" lab link --rtt "$rtt" > "$work/link.out" 2>&1 &
  link_pid=$!
  pids+=($link_pid)
  for _ in $(seq 1 600); do grep -q 'Ctrl-C stops the link' "$work/link.out" && break; sleep 0.1; done
  nsa=$(sed -n 's/^side A (server) .* in namespace \(.*\):$/\1/p' "$work/link.out")
  nsb=$(sed -n 's/^side B (client) .* in namespace \(.*\):$/\1/p' "$work/link.out")
  [ -n "$nsa" ] && [ -n "$nsb" ] || { echo "the link did not come up:" >&2; cat "$work/link.out" >&2; exit 1; }
  saved=("${pids[@]}")
  pids=()
  bench_network "emulated link, RTT $rtt ms (pqssh lab link)" "ip netns exec $nsb" 10.77.0.1 "ip netns exec $nsa"
  pids=("${saved[@]}")
fi
