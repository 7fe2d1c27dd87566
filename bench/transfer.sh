#!/usr/bin/env bash
# Bulk transfer as users run it: whole client processes (`pqssh scp`, `pqssh sftp -b`, `pqssh ssh host 'cat > f'`)
# against OpenSSH's scp/sftp/ssh, against a loopback sshd and a loopback `pqssh server`, both started here with their
# own host key and config on free ports. Runs are alternated (OpenSSH then pqssh, the order flipped every repeat)
# so both clients see the same load; the machine's load average is printed before and after. docs/results.
#
# Per row: median MB/s (file size / whole-process wall time, start-up included), median client CPU seconds
# (user+sys of the client process tree, /usr/bin/time), median server CPU seconds per run (the listener's
# utime+stime+cutime+cstime from /proc, so sshd's reaped per-connection children count), and the cipher the
# client reported negotiating (one `ssh -v` probe per client/server/cipher).
#
# Options: -s MB (size, default 256), -n RUNS (repeats, default 3),
#   -c CIPHERS (comma list, default chacha20-poly1305@openssh.com,aes128-gcm@openssh.com,aes256-gcm@openssh.com,aes128-ctr;
#   aes*-ctr uses hmac-sha2-256-etm@openssh.com), -S SERVERS (sshd,pqssh), -m MODES (comma list of
#   scp-up,scp-down,sftp-up,sftp-down,cat-up,cat-down; default all), -d DIR (where files go, default /dev/shm),
#   --client-opts "JVM flags" (PQSSH_JAVA_OPTS for the pqssh client), --server-opts "JVM flags" (for pqssh server),
#   --client LAUNCHER (the pqssh launcher the client runs, default ./pqssh: e.g. a copy of an older ./pqssh in this
#   directory, to compare launcher flags before/after on the same build; the server always runs ./pqssh),
#   --baseline LAUNCHER (a second pqssh client, e.g. another worktree's or a copied build's ./pqssh, run in the same
#   alternation: OpenSSH, baseline, pqssh, order rotated every repeat; the table gains its MB/s and CPU columns and
#   pqssh/baseline ratios, an A/B of two builds under the same load), --baseline-opts "JVM flags" (its
#   PQSSH_JAVA_OPTS; with --baseline ./pqssh, an A/B of a flag or a system property on one build).
#   --clients LIST (which clients run, comma list of openssh,pqssh; default both: `--clients openssh` measures the
#   servers with OpenSSH's client only), --server-baseline LAUNCHER (a second pqssh server, e.g. a copied build's
#   ./pqssh, started beside the other two as server `pqssh-base`: -S sshd,pqssh-base,pqssh gives an A/B of two
#   server builds under the same load), --server-baseline-opts "JVM flags" (its PQSSH_JAVA_OPTS; with
#   --server-baseline ./pqssh, an A/B of a flag on one build), --sshd-sftp PATH (sshd's sftp subsystem, default
#   internal-sftp; /usr/lib/openssh/sftp-server relays through pipes as pqssh's server does).
#   The servers' order rotates every repeat too. A second table gives each server's CPU per run and per GB moved.
# Everything it starts is stopped by PID on exit; the work directory is removed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
size=256
runs=3
ciphers="chacha20-poly1305@openssh.com,aes128-gcm@openssh.com,aes256-gcm@openssh.com,aes128-ctr"
servers="sshd,pqssh"
modes="scp-up,scp-down,sftp-up,sftp-down,cat-up,cat-down"
dir=/dev/shm
client_opts=""
server_opts=""
client_launcher=""
baseline=""
baseline_opts=""
client_list="openssh,pqssh"
server_baseline=""
server_baseline_opts=""
sshd_sftp="internal-sftp"
usage() {
  echo "usage: $0 [-s MB] [-n RUNS] [-c CIPHERS] [-S sshd,pqssh] [-m MODES] [-d DIR] [--client-opts F] [--server-opts F] [--client LAUNCHER] [--baseline LAUNCHER] [--baseline-opts F] [--clients openssh,pqssh] [--server-baseline LAUNCHER] [--server-baseline-opts F] [--sshd-sftp PATH]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    -s) size="$2"; shift 2 ;;
    -n) runs="$2"; shift 2 ;;
    -c) ciphers="$2"; shift 2 ;;
    -S) servers="$2"; shift 2 ;;
    -m) modes="$2"; shift 2 ;;
    -d) dir="$2"; shift 2 ;;
    --client-opts) client_opts="$2"; shift 2 ;;
    --server-opts) server_opts="$2"; shift 2 ;;
    --client) client_launcher="$2"; shift 2 ;;
    --baseline) baseline="$2"; shift 2 ;;
    --baseline-opts) baseline_opts="$2"; shift 2 ;;
    --clients) client_list="$2"; shift 2 ;;
    --server-baseline) server_baseline="$2"; shift 2 ;;
    --server-baseline-opts) server_baseline_opts="$2"; shift 2 ;;
    --sshd-sftp) sshd_sftp="$2"; shift 2 ;;
    *) usage ;;
  esac
done
[[ "$size" =~ ^[0-9]+$ ]] && [ "$size" -gt 0 ] || { echo "-s takes a size in MB, got '$size'" >&2; exit 2; }
[[ "$runs" =~ ^[0-9]+$ ]] && [ "$runs" -gt 0 ] || { echo "-n takes a count, got '$runs'" >&2; exit 2; }
for b in /usr/bin/ssh /usr/bin/scp /usr/bin/sftp /usr/sbin/sshd /usr/bin/ssh-keygen /usr/bin/time python3; do
  command -v "$b" >/dev/null || { echo "needs $b (apt-get install openssh-client openssh-server time python3)" >&2; exit 1; }
done
pqssh="$here/pqssh"
client_pqssh="${client_launcher:-$pqssh}"
[ -x "$client_pqssh" ] || { echo "--client: $client_pqssh is not an executable launcher" >&2; exit 2; }
if [ -n "$baseline" ]; then
  baseline="$(cd "$(dirname "$baseline")" && pwd)/$(basename "$baseline")"
  [ -x "$baseline" ] || { echo "--baseline: $baseline is not an executable launcher" >&2; exit 2; }
fi
if [ -n "$server_baseline" ]; then
  server_baseline="$(cd "$(dirname "$server_baseline")" && pwd)/$(basename "$server_baseline")"
  [ -x "$server_baseline" ] || { echo "--server-baseline: $server_baseline is not an executable launcher" >&2; exit 2; }
fi
clients=()
IFS=, read -r -a CL <<<"$client_list"
for cl in "${CL[@]}"; do
  case "$cl" in
    openssh) clients+=(openssh) ;;
    pqssh) [ -n "$baseline" ] && clients+=(base); clients+=(pqssh) ;;
    *) echo "--clients takes openssh and/or pqssh, got '$cl'" >&2; exit 2 ;;
  esac
done
[ ${#clients[@]} -gt 0 ] || usage
has_client() { local c; for c in "${clients[@]}"; do [ "$c" = "$1" ] && return 0; done; return 1; }
IFS=, read -r -a S <<<"$servers"
for s in "${S[@]}"; do
  case "$s" in
    sshd|pqssh) ;;
    pqssh-base) [ -n "$server_baseline" ] || { echo "-S pqssh-base needs --server-baseline LAUNCHER" >&2; exit 2; } ;;
    *) echo "-S takes sshd, pqssh and pqssh-base, got '$s'" >&2; exit 2 ;;
  esac
done
me="$(id -un)"
work="$(mktemp -d "$dir/pqssh-transfer.XXXXXX")"
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

"$pqssh" --version >/dev/null  # builds and prepares the start-up cache now, not inside a measured run
[ "$client_pqssh" = "$pqssh" ] || "$client_pqssh" --version >/dev/null
[ -z "$baseline" ] || "$baseline" --version >/dev/null
[ -z "$server_baseline" ] || "$server_baseline" --version >/dev/null
ssh-keygen -q -t ed25519 -N '' -C bench -f "$work/id_ed25519"
ssh-keygen -q -t ed25519 -N '' -f "$work/host_ed25519"
cp "$work/id_ed25519.pub" "$work/authorized_keys"
chmod 644 "$work/authorized_keys"
mkdir -p /run/sshd 2>/dev/null || true
head -c "$((size * 1024 * 1024))" /dev/urandom > "$work/src"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 1 600); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listens on 127.0.0.1:$1" >&2; exit 1
}
declare -A port pid
port[sshd]=$(free_port)
cat > "$work/sshd_config" <<CONF
Port ${port[sshd]}
ListenAddress 127.0.0.1
HostKey $work/host_ed25519
AuthorizedKeysFile $work/authorized_keys
PidFile $work/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Ciphers +aes128-ctr,aes256-ctr
Subsystem sftp $sshd_sftp
CONF
/usr/sbin/sshd -D -e -f "$work/sshd_config" 2>"$work/sshd.log" &
pid[sshd]=$!; pids+=($!)
port[pqssh]=$(free_port)
PQSSH_JAVA_OPTS="$server_opts" "$pqssh" server -D -p "${port[pqssh]}" -o ListenAddress=127.0.0.1 \
  -o HostKey="$work/host_ed25519" -o AuthorizedKeysFile="$work/authorized_keys" -o AuthorizedKEMKeysFile=none \
  -o StrictModes=no >"$work/pqssh-server.log" 2>&1 &
pid[pqssh]=$!; pids+=($!)
wait_port "${port[sshd]}"; wait_port "${port[pqssh]}"
if [ -n "$server_baseline" ]; then
  port[pqssh-base]=$(free_port)
  PQSSH_JAVA_OPTS="$server_baseline_opts" "$server_baseline" server -D -p "${port[pqssh-base]}" \
    -o ListenAddress=127.0.0.1 -o HostKey="$work/host_ed25519" -o AuthorizedKeysFile="$work/authorized_keys" \
    -o AuthorizedKEMKeysFile=none -o StrictModes=no >"$work/pqssh-base-server.log" 2>&1 &
  pid[pqssh-base]=$!; pids+=($!)
  wait_port "${port[pqssh-base]}"
fi

# options both clients take: own key, own known_hosts, no user config
common=(-F /dev/null -i "$work/id_ed25519" -o UserKnownHostsFile="$work/known_hosts"
  -o StrictHostKeyChecking=accept-new -o BatchMode=yes)
algs() { # cipher -> -o options
  case "$1" in
    *-ctr) echo "-o Ciphers=$1 -o MACs=hmac-sha2-256-etm@openssh.com" ;;
    *) echo "-o Ciphers=$1" ;;
  esac
}
server_cpu() { # listener's own and reaped children's CPU, in clock ticks
  awk '{ print $14 + $15 + $16 + $17 }' "/proc/$1/stat"
}
settle() { # until the listener has no live per-connection child (sshd), at most 3 s
  for _ in $(seq 1 30); do
    [ -z "$(pgrep -P "$1" 2>/dev/null)" ] && return 0
    sleep 0.1
  done
}

# $1 client (openssh|pqssh|base) $2 server $3 mode $4 cipher -> the command line in the array cmd
build_cmd() {
  local client="$1" server="$2" mode="$3" cipher="$4" p="${port[$2]}" host="$me@127.0.0.1"
  local -a a
  read -r -a a <<<"$(algs "$cipher")"
  local scp=(/usr/bin/scp) sftp=(/usr/bin/sftp) ssh=(/usr/bin/ssh)
  if [ "$client" = pqssh ]; then scp=("$client_pqssh" scp); sftp=("$client_pqssh" sftp); ssh=("$client_pqssh" ssh); fi
  if [ "$client" = base ]; then scp=("$baseline" scp); sftp=("$baseline" sftp); ssh=("$baseline" ssh); fi
  rm -f "$work/dst" "$work/got"
  case "$mode" in
    scp-up) cmd=("${scp[@]}" -q "${common[@]}" "${a[@]}" -P "$p" "$work/src" "$host:$work/dst"); out="$work/dst" ;;
    scp-down) cmd=("${scp[@]}" -q "${common[@]}" "${a[@]}" -P "$p" "$host:$work/src" "$work/got"); out="$work/got" ;;
    sftp-up) echo "put $work/src $work/dst" > "$work/batch"
      cmd=("${sftp[@]}" -q "${common[@]}" "${a[@]}" -P "$p" -b "$work/batch" "$host"); out="$work/dst" ;;
    sftp-down) echo "get $work/src $work/got" > "$work/batch"
      cmd=("${sftp[@]}" -q "${common[@]}" "${a[@]}" -P "$p" -b "$work/batch" "$host"); out="$work/got" ;;
    cat-up) cmd=("${ssh[@]}" "${common[@]}" "${a[@]}" -p "$p" "$host" "cat > $work/dst"); out="$work/dst" ;;
    cat-down) cmd=("${ssh[@]}" "${common[@]}" "${a[@]}" -p "$p" "$host" "cat $work/src"); out="$work/got" ;;
    *) echo "unknown mode $mode" >&2; exit 2 ;;
  esac
}

# one run; appends "MBps cpu_s server_cpu_s" to $work/res.<key>
run_one() {
  local client="$1" server="$2" mode="$3" cipher="$4" key="$1.$2.$3.$4"
  build_cmd "$client" "$server" "$mode" "$cipher"
  local in=/dev/null stdout=/dev/null
  [ "$mode" = cat-up ] && in="$work/src"
  [ "$mode" = cat-down ] && stdout="$work/got"
  local s0 s1
  s0=$(server_cpu "${pid[$server]}")
  local opts="$client_opts"
  [ "$client" = base ] && opts="$baseline_opts"
  if ! PQSSH_JAVA_OPTS="$opts" /usr/bin/time -f "%e %U %S" -o "$work/time" "${cmd[@]}" \
      <"$in" >"$stdout" 2>"$work/client.err"; then
    echo "FAILED: ${cmd[*]}" >&2; tail -5 "$work/client.err" >&2; exit 1
  fi
  settle "${pid[$server]}"
  s1=$(server_cpu "${pid[$server]}")
  local got
  got=$(stat -c %s "$out" 2>/dev/null || echo 0)
  [ "$got" = "$((size * 1024 * 1024))" ] || { echo "FAILED: $key wrote $got bytes" >&2; exit 1; }
  local tck; tck=$(getconf CLK_TCK)
  awk -v sz="$size" -v t="$(tail -1 "$work/time")" -v s0="$s0" -v s1="$s1" -v hz="$tck" \
    'BEGIN { split(t, f, " "); printf "%.1f %.2f %.2f\n", sz * 1.048576 / f[1], f[2] + f[3], (s1 - s0) / hz }' \
    >> "$work/res.$key"
}

probe_cipher() { # what the client says it negotiated (client->server)
  local client="$1" server="$2" cipher="$3"
  local -a a
  read -r -a a <<<"$(algs "$cipher")"
  local ssh=(/usr/bin/ssh); [ "$client" = pqssh ] && ssh=("$client_pqssh" ssh); [ "$client" = base ] && ssh=("$baseline" ssh)
  "${ssh[@]}" -v "${common[@]}" "${a[@]}" -p "${port[$server]}" "$me@127.0.0.1" true </dev/null 2>&1 \
    | sed -n 's/.*kex: client->server cipher: \([^ ]*\) MAC: \([^ ]*\).*/\1 \2/p' | head -1
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

IFS=, read -r -a C <<<"$ciphers"
IFS=, read -r -a M <<<"$modes"
declare -A negotiated
for s in "${S[@]}"; do
  for c in "${C[@]}"; do
    for cl in "${clients[@]}"; do
      negotiated[$cl.$s.$c]="$(probe_cipher "$cl" "$s" "$c")"
      [ -n "${negotiated[$cl.$s.$c]}" ] || { echo "FAILED: $cl could not negotiate $c with $s" >&2; exit 1; }
    done
  done
done

load0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "# pqssh bulk transfer, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, ${size} MiB, $runs alternated runs," \
  "$(/usr/bin/ssh -V 2>&1 | cut -d, -f1), load average at start $load0"
echo "# client JVM opts: '${client_opts:-launcher defaults}', server JVM opts: '${server_opts:-launcher defaults}'," \
  "client launcher: ${client_pqssh#"$here"/}, clients: ${clients[*]}, sshd sftp subsystem: $sshd_sftp"
[ -z "$server_baseline" ] || echo "# baseline server (pqssh-base): $server_baseline, its JVM opts: '${server_baseline_opts:-launcher defaults}'"
[ -z "$baseline" ] || echo "# baseline client: $baseline, its JVM opts: '${baseline_opts:-launcher defaults}'"
for r in $(seq 1 "$runs"); do
  for c in "${C[@]}"; do
    ns=${#S[@]}
    for j in $(seq 0 $((ns - 1))); do
      s="${S[$(((j + r) % ns))]}"  # the servers' order rotates every repeat as well
      for m in "${M[@]}"; do
        # the clients' order rotates (two clients: flips) every repeat, so none always runs first
        n=${#clients[@]}
        for i in $(seq 0 $((n - 1))); do
          run_one "${clients[$(((i + r) % n))]}" "$s" "$m" "$c"
        done
      done
    done
  done
done
srvname() { case "$1" in sshd) echo "OpenSSH sshd" ;; pqssh) echo "pqssh server" ;; *) echo "pqssh server (baseline)" ;; esac; }
if has_client base && has_client openssh; then
  echo
  echo "| mode | cipher (negotiated, pqssh) | server | OpenSSH MB/s | baseline MB/s | pqssh MB/s | pqssh/baseline | OpenSSH CPU s | baseline CPU s | pqssh CPU s | pqssh/baseline CPU |"
  echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  for m in "${M[@]}"; do
    for c in "${C[@]}"; do
      for s in "${S[@]}"; do
        o="$work/res.openssh.$s.$m.$c" b="$work/res.base.$s.$m.$c" p="$work/res.pqssh.$s.$m.$c"
        awk -v m="$m" -v c="${negotiated[pqssh.$s.$c]}" -v srv="$(srvname "$s")" \
          -v om="$(cut -d' ' -f1 "$o" | median)" -v bm="$(cut -d' ' -f1 "$b" | median)" -v pm="$(cut -d' ' -f1 "$p" | median)" \
          -v oc="$(cut -d' ' -f2 "$o" | median)" -v bc="$(cut -d' ' -f2 "$b" | median)" -v pc="$(cut -d' ' -f2 "$p" | median)" \
          -v bl="$(cut -d' ' -f2 "$b" | tr '\n' '/' | sed 's:/$::')" -v pl="$(cut -d' ' -f2 "$p" | tr '\n' '/' | sed 's:/$::')" \
          'BEGIN { printf "| %s | %s | %s | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f (%s) | %.2f (%s) | %.2f |\n",
            m, c, srv, om, bm, pm, pm / bm, oc, bc, bl, pc, pl, pc / bc }'
      done
    done
  done
fi
if has_client openssh && has_client pqssh; then
echo
echo "| mode | cipher (negotiated, pqssh) | server | OpenSSH MB/s | pqssh MB/s | ratio | OpenSSH CPU s | pqssh CPU s | CPU ratio | server CPU s (OpenSSH / pqssh client) |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for m in "${M[@]}"; do
  for c in "${C[@]}"; do
    for s in "${S[@]}"; do
      o="$work/res.openssh.$s.$m.$c" p="$work/res.pqssh.$s.$m.$c"
      om=$(cut -d' ' -f1 "$o" | median); pm=$(cut -d' ' -f1 "$p" | median)
      oc=$(cut -d' ' -f2 "$o" | median); pc=$(cut -d' ' -f2 "$p" | median)
      os=$(cut -d' ' -f3 "$o" | median); ps=$(cut -d' ' -f3 "$p" | median)
      awk -v m="$m" -v c="${negotiated[pqssh.$s.$c]}" -v s="$s" -v om="$om" -v pm="$pm" -v oc="$oc" -v pc="$pc" \
        -v os="$os" -v ps="$ps" -v srv="$(srvname "$s")" \
        'BEGIN { printf "| %s | %s | %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f / %.2f |\n",
          m, c, srv, om, pm, pm / om, oc, pc, pc / oc, os, ps }'
    done
  done
done
fi
# the servers' side: per client, MB/s and the server's CPU (its process and reaped children) per run and per GiB
echo
echo "| mode | cipher (negotiated) | client | server | MB/s (runs) | vs sshd | server CPU s (runs) | server CPU s/GiB | vs sshd |"
echo "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"
for m in "${M[@]}"; do
  for c in "${C[@]}"; do
    for cl in "${clients[@]}"; do
      for s in "${S[@]}"; do
        f="$work/res.$cl.$s.$m.$c" ref="$work/res.$cl.sshd.$m.$c"
        mb=$(cut -d' ' -f1 "$f" | median); sc=$(cut -d' ' -f3 "$f" | median)
        rmb=""; rsc=""
        if [ -f "$ref" ]; then rmb=$(cut -d' ' -f1 "$ref" | median); rsc=$(cut -d' ' -f3 "$ref" | median); fi
        awk -v m="$m" -v c="${negotiated[$cl.$s.$c]}" -v cl="$([ "$cl" = openssh ] && echo OpenSSH || echo "$cl")" \
          -v srv="$(srvname "$s")" -v mb="$mb" -v sc="$sc" -v rmb="$rmb" -v rsc="$rsc" -v gib="$(awk -v s="$size" 'BEGIN { print s / 1024 }')" \
          -v ml="$(cut -d' ' -f1 "$f" | tr '\n' '/' | sed 's:/$::')" -v sl="$(cut -d' ' -f3 "$f" | tr '\n' '/' | sed 's:/$::')" \
          'BEGIN { r1 = "-"; r2 = "-"; if (rmb > 0) r1 = sprintf("%.2f", mb / rmb); if (rsc > 0) r2 = sprintf("%.2f", sc / rsc)
            printf "| %s | %s | %s | %s | %.0f (%s) | %s | %.2f (%s) | %.2f | %s |\n", m, c, cl, srv, mb, ml, r1, sc, sl, sc / gib, r2 }'
      done
    done
  done
done
echo
echo "# load average at end $(cut -d' ' -f1-3 /proc/loadavg); OpenSSH negotiated:"
for k in "${!negotiated[@]}"; do
  case "$k" in openssh.*) echo "#   ${k#openssh.}: ${negotiated[$k]}" ;; esac
done | sort
