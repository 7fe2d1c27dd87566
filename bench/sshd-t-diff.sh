#!/usr/bin/env bash
# `pqssh server -T` against OpenSSH's `sshd -T` on one sshd_config: which keywords only one of them prints, and
# which both print with different values (multi-valued keywords such as hostkey or listenaddress compared as sets).
# docs/server-config.md records the diff for Debian 12's stock file.
#
#   bench/sshd-t-diff.sh [FILE] [--launcher PATH]
#
# FILE: default Debian 12's stock /etc/ssh/sshd_config as shipped (pqssh-cli's test resource debian-12-default).
# Both read the same file with the same temporary Ed25519 host key (sshd: -h, pqssh: -o HostKey=), so neither
# needs the machine's host keys or root. Exit 0 when both ran; the diff is the report, not a failure.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
file="$here/pqssh-cli/src/test/resources/sshd_config/debian-12-default"
launcher="$here/pqssh"
while [ $# -gt 0 ]; do
  case "$1" in
    --launcher) launcher="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) file="$1"; shift ;;
  esac
done
sshd=/usr/sbin/sshd
[ -x "$sshd" ] || { echo "MISSING $sshd (apt-get install openssh-server)" >&2; exit 2; }
[ -r "$file" ] || { echo "cannot read $file" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
ssh-keygen -q -t ed25519 -N '' -C sshd-t-diff -f "$tmp/host_key"
# sshd -T refuses to run without its privilege separation directory
if [ ! -d /run/sshd ] && [ "$(id -u)" = 0 ]; then mkdir -p /run/sshd && chmod 0755 /run/sshd; fi
"$sshd" -T -f "$file" -h "$tmp/host_key" > "$tmp/sshd.out"
"$launcher" server -T -f "$file" -o HostKey="$tmp/host_key" > "$tmp/pqssh.out" 2> "$tmp/pqssh.err"
keys() { cut -d' ' -f1 "$1" | sort -u; }
values() { grep -E "^$1( |\$)" "$2" | sort; }
keys "$tmp/sshd.out" > "$tmp/sshd.keys"
keys "$tmp/pqssh.out" > "$tmp/pqssh.keys"
echo "# sshd -T vs pqssh server -T: $file"
echo "$("$sshd" -V 2>&1 | head -1) / pqssh $("$launcher" --version 2>/dev/null | head -1)"
echo
echo "## printed by sshd -T only ($(comm -23 "$tmp/sshd.keys" "$tmp/pqssh.keys" | wc -l))"
comm -23 "$tmp/sshd.keys" "$tmp/pqssh.keys" | tr '\n' ' '; echo
echo
echo "## printed by pqssh server -T only ($(comm -13 "$tmp/sshd.keys" "$tmp/pqssh.keys" | wc -l))"
comm -13 "$tmp/sshd.keys" "$tmp/pqssh.keys" | tr '\n' ' '; echo
echo
same=0
differ=()
while read -r k; do
  if [ "$(values "$k" "$tmp/sshd.out")" = "$(values "$k" "$tmp/pqssh.out")" ]; then
    same=$((same + 1))
  else
    differ+=("$k")
  fi
done < <(comm -12 "$tmp/sshd.keys" "$tmp/pqssh.keys")
echo "## printed by both: $same agree, ${#differ[@]} differ"
for k in "${differ[@]}"; do
  echo "- $k"
  echo "    sshd:  $(values "$k" "$tmp/sshd.out" | cut -d' ' -f2- | tr '\n' ' ')"
  echo "    pqssh: $(values "$k" "$tmp/pqssh.out" | cut -d' ' -f2- | tr '\n' ' ')"
done
if [ -s "$tmp/pqssh.err" ]; then
  echo
  echo "## pqssh server -T's warnings"
  cat "$tmp/pqssh.err"
fi
