#!/usr/bin/env bash
# User enumeration by timing against `pqssh server` (docs/security.md, "Unknown user names"): the time to a
# USERAUTH_FAILURE for a real account with a wrong key/password vs made-up names, per method, through
# `pqssh lab auth-timing` (medians, p10-p90, Mann-Whitney U).
#
#   bench/auth-timing.sh [-n SAMPLES] [--methods publickey,publickey-kem,password,keyboard-interactive]
#
# As root the real account is a throw-away user (useradd -m, removed on exit) with an authorized_keys holding
# another key and a PasswordFile line with another password; otherwise it is the invoking user (the server then
# runs as that user, and other names are refused, which takes the same decoy path as unknown ones).
# The server and the user are stopped/removed on exit, the server by PID.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n=200
methods="publickey,publickey-kem,password,keyboard-interactive"
while [ $# -gt 0 ]; do
  case "$1" in
    -n) n="$2"; shift 2 ;;
    --methods) methods="$2"; shift 2 ;;
    *) echo "usage: $0 [-n SAMPLES] [--methods LIST]" >&2; exit 2 ;;
  esac
done
pqssh="$here/pqssh"
work="$(mktemp -d /tmp/pqssh-authtiming.XXXXXX)"
server=""
made_user=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  if [ -n "$made_user" ]; then userdel -r "$made_user" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
user="$(id -un)"
if [ "$(id -u)" = 0 ]; then
  made_user="pqtime$$"
  useradd -m -s /bin/bash "$made_user"
  usermod -p '*' "$made_user"
  user="$made_user"
  home="$(getent passwd "$user" | cut -d: -f6)"
  install -d -m 700 -o "$user" "$home/.ssh"
  ssh-keygen -q -t ed25519 -N '' -C other -f "$work/other"
  install -m 600 -o "$user" "$work/other.pub" "$home/.ssh/authorized_keys"
fi
# the launcher prepares its start-up cache now (it would read the password below from stdin)
"$pqssh" --version >/dev/null </dev/null
printf 'other-password\n' | "$pqssh" passwd "$user" > "$work/passwords" \
  || { echo "pqssh passwd failed" >&2; exit 1; }
ssh-keygen -q -t ed25519 -N '' -f "$work/host"
"$pqssh" server -D -p 0 --port-file "$work/port" -o HostKey="$work/host" -o PasswordAuthentication=yes \
  -o KbdInteractiveAuthentication=yes -o PasswordFile="$work/passwords" -o MaxStartups=100 \
  >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 600); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "server did not start:" >&2; cat "$work/server.log" >&2; exit 1; }
"$pqssh" lab auth-timing --port "$(cat "$work/port")" --user "$user" -n "$n" --methods "$methods"
