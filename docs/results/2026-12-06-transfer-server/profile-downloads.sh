#!/usr/bin/env bash
# usage: profile-downloads.sh LAUNCHER NAME [server JVM opts]: one pqssh server, OpenSSH sftp+scp downloads (256 MiB) warmed up, then a JFR CPU-time recording per cipher into $JFR_DIR (default /tmp)/NAME-CIPHER.jfr and the server CPU of those two transfers
set -euo pipefail
launcher="$1"; name="$2"; sopts="${3:-}"
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
work=$(mktemp -d /dev/shm/dlprof.XXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
ssh-keygen -q -t ed25519 -N '' -C bench -f "$work/id"; ssh-keygen -q -t ed25519 -N '' -f "$work/host"
cp "$work/id.pub" "$work/ak"; chmod 644 "$work/ak"
head -c $((256*1024*1024)) /dev/urandom > "$work/src"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PQSSH_JAVA_OPTS="$sopts" "$launcher" server -D -p "$port" -o ListenAddress=127.0.0.1 -o HostKey="$work/host" \
  -o AuthorizedKeysFile="$work/ak" -o AuthorizedKEMKeysFile=none -o StrictModes=no >"$work/srv.log" 2>&1 &
spid=$!; pids+=($spid)
for _ in $(seq 1 600); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
common=(-q -F /dev/null -i "$work/id" -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o BatchMode=yes)
get() { # cipher mode
  rm -f "$work/got"
  if [ "$2" = sftp ]; then echo "get $work/src $work/got" > "$work/b"; sftp "${common[@]}" -o Ciphers=$1 -P $port -b "$work/b" root@127.0.0.1 >/dev/null
  else scp "${common[@]}" -o Ciphers=$1 -P $port root@127.0.0.1:$work/src "$work/got"; fi
  cmp -s "$work/src" "$work/got" || { echo "MISMATCH" >&2; exit 1; }
}
for c in aes128-gcm@openssh.com chacha20-poly1305@openssh.com; do get $c sftp; get $c scp; done  # warm-up
sleep 2
for c in aes128-gcm@openssh.com chacha20-poly1305@openssh.com; do
  jcmd $spid JFR.start name=p settings=profile 'jdk.CPUTimeSample#enabled=true' 'jdk.CPUTimeSample#throttle=2ms' filename=${JFR_DIR:-/tmp}/$name-$c.jfr >/dev/null
  s0=$(awk '{print $14+$15+$16+$17}' /proc/$spid/stat); t0=$(date +%s.%N)
  get $c sftp; get $c scp
  t1=$(date +%s.%N); s1=$(awk '{print $14+$15+$16+$17}' /proc/$spid/stat)
  jcmd $spid JFR.stop name=p >/dev/null
  echo "$name $c: 2x256MiB (sftp+scp get) wall $(echo "$t1-$t0"|bc) s, server CPU $(echo "($s1-$s0)/100"|bc -l|cut -c1-5) s, load $(cut -d' ' -f1 /proc/loadavg)"
done
