#!/usr/bin/env bash
# The distribution as a user takes it (mvn verify runs this after the package phase; docs/releasing.md):
#   dist-test.sh TARGET_DIR VERSION
# 1. the tarball, unpacked in a temporary directory, run with no JAVA_HOME and a PATH holding no JDK: --version,
#    keygen -t mlkem768, and a loopback pqssh ssh (ML-KEM key, publickey-kem) to its own pqssh server, the start-up
#    cache in use (-XX:AOTMode=on makes the JVM fail if it cannot use it);
# 2. the man pages (groff warnings are errors), the bash completion, the systemd unit (systemd-analyze);
# 3. the .deb: its fields and file list, dpkg -x, and a real dpkg install and removal into a temporary root
#    (dpkg --root: this machine's own package database is not touched) that must leave nothing behind.
# Needs (and fails without): tar, dpkg, dpkg-deb, groff, ssh-keygen; the login test logs in as the invoking user.
set -euo pipefail
target="$1" version="$2"
name="pqssh-$version"
tarball="$target/$name-linux-x64.tar.gz"
deb=("$target"/pqssh_*_amd64.deb)
work="$(mktemp -d /tmp/pqssh-dist-test.XXXXXX)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "dist-test: FAILED: $*" >&2; exit 1; }
ok() { echo "dist-test: ok: $*"; }
for t in tar dpkg dpkg-deb groff; do command -v "$t" >/dev/null || fail "needs $t (apt-get install $t)"; done
[ -f "$tarball" ] || fail "no $tarball"
[ "${#deb[@]}" = 1 ] && [ -f "${deb[0]}" ] || fail "not exactly one .deb in $target"
chmod 755 "$work"

# --- 0. the launcher's per-command JVM flags are ./pqssh's (the block from "bulk_ssh() {" to "esac")
flags() { sed -n '/^bulk_ssh() {$/,/^esac$/p' "$1"; }
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)"
[ -n "$(flags "$repo/pqssh")" ] || fail "no per-command flag block in $repo/pqssh"
tar -xzOf "$tarball" "$name/bin/pqssh" > "$work/launcher"
diff <(flags "$repo/pqssh") <(flags "$work/launcher") \
  || fail "bin/pqssh's per-command JVM flags differ from ./pqssh's (copy the block into src/main/dist/pqssh)"
ok "bin/pqssh has ./pqssh's per-command JVM flags"

# --- 1. the tarball on a machine without a JDK (as far as this process can tell)
tar -C "$work" -xzf "$tarball"
home="$work/$name"
pq="$home/bin/pqssh"
# a PATH of a few tools and no java: the launcher must not need one
mkdir "$work/path"
for t in bash sh env readlink dirname cat true; do ln -s "$(command -v "$t")" "$work/path/$t"; done
mkdir -m 700 "$work/home"
clean_env=(env -i HOME="$work/home" PATH="$work/path" LANG=C.UTF-8 USER="$(id -un)" LOGNAME="$(id -un)")
run() { "${clean_env[@]}" "$@"; }
run bash -c 'command -v java' >/dev/null 2>&1 && fail "the test PATH has a java"

out="$(run "$pq" --version)" || fail "bin/pqssh --version"
[ "$out" = "pqssh ${version%-SNAPSHOT}" ] || fail "bin/pqssh --version printed '$out'"
ok "--version: $out"
out="$(run env PQSSH_JAVA_OPTS=-XX:AOTMode=on "$pq" --version 2>&1)" \
  || fail "the start-up cache is not usable from the unpacked tarball (-XX:AOTMode=on): $out"
ok "AOT cache usable after unpacking elsewhere"

# the PAM session helper (UsePAM yes as root) where the server looks for it, runnable (libpam resolved), refusing
# to run when not started by the server
helper="$home/libexec/pqssh-pam-session"
[ -x "$helper" ] && [ "$(stat -c %a "$helper")" = 755 ] || fail "no executable $helper (mode 755)"
out="$("$helper" 2>&1)" && fail "$helper without arguments succeeded"
grep -q 'started by the pqssh server only' <<<"$out" || fail "$helper without arguments: $out"
ok "libexec/pqssh-pam-session present and runnable"

run "$pq" keygen -q -t mlkem768 -N '' -C dist-test -f "$work/id_mlkem768" || fail "keygen -t mlkem768"
grep -q '^mlkem768 ' "$work/id_mlkem768.pub" || grep -q 'mlkem768' "$work/id_mlkem768.pub" \
  || fail "keygen wrote $(cat "$work/id_mlkem768.pub")"
[ "$(stat -c %a "$work/id_mlkem768")" = 600 ] || fail "private key mode $(stat -c %a "$work/id_mlkem768")"
ok "keygen -t mlkem768: $(cut -c1-40 "$work/id_mlkem768.pub")..."
run "$pq" keygen -q -t ed25519 -N '' -f "$work/host_ed25519" || fail "keygen -t ed25519"
cp "$work/id_mlkem768.pub" "$work/authorized_keys"

# not through run(): $! must be the process that becomes java (env, then the launcher, exec each other)
"${clean_env[@]}" "$pq" server -D -p 0 --port-file "$work/port" -o ListenAddress=127.0.0.1 -o HostKey="$work/host_ed25519" \
  -o AuthorizedKeysFile="$work/authorized_keys" -o AuthorizedKEMKeysFile=none -o StrictModes=no \
  >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 600); do
  [ -f "$work/port" ] && [ -n "$(cat "$work/port")" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; fail "bin/pqssh server exited"; }
  sleep 0.1
done
port="$(tr -d '\n' < "$work/port")"
[ -n "$port" ] || fail "bin/pqssh server did not listen within 60 s"
# the server process is the bundled runtime's java (the launcher exec'd it)
exe="$(readlink -f "/proc/$server_pid/exe")"
[ "$exe" = "$(readlink -f "$home/runtime/bin/java")" ] || fail "server runs $exe, not the bundled runtime"
ok "bin/pqssh server on 127.0.0.1:$port, process image $exe"
out="$(run "$pq" ssh -F none -p "$port" -i "$work/id_mlkem768" -o StrictHostKeyChecking=accept-new \
  -o UserKnownHostsFile="$work/known_hosts" -o BatchMode=yes "$(id -un)@127.0.0.1" 'echo dist-login-$((6*7))' \
  </dev/null 2>"$work/ssh.err")" || { cat "$work/ssh.err" "$work/server.log" >&2; fail "bin/pqssh ssh"; }
[ "$out" = dist-login-42 ] || fail "remote command printed '$out'"
grep -q 'publickey-kem\|mlkem' "$work/server.log" || { cat "$work/server.log" >&2; fail "server log names no KEM login"; }
ok "bin/pqssh ssh (ML-KEM key) -> bin/pqssh server: $out"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""

# --- 2. man pages, completion, unit
for page in man1/pqssh.1 man1/pqssh-ssh.1 man1/pqssh-keygen.1 man1/pqssh-scp.1 man1/pqssh-sftp.1 \
    man1/pqssh-agent.1 man8/pqssh-server.8; do
  f="$home/share/man/$page"
  [ -f "$f" ] || fail "no man page $page"
  warn="$(groff -man -Tutf8 -ww -z "$f" 2>&1)"
  [ -z "$warn" ] || fail "groff warns on $page: $warn"
done
groff -man -Tutf8 "$home/share/man/man1/pqssh-keygen.1" 2>/dev/null | grep -q -- '-t' || fail "pqssh-keygen(1) lacks -t"
groff -man -Tutf8 "$home/share/man/man8/pqssh-server.8" 2>/dev/null | grep -q 'HostKey' || fail "pqssh-server(8) lacks HostKey"
ok "7 man pages, no groff warnings"
out="$(bash -c "source '$home/share/bash-completion/completions/pqssh' && complete -p pqssh")" \
  || fail "the bash completion does not load"
ok "bash completion: $out"
command -v zsh >/dev/null || fail "needs zsh to check the zsh completion (apt-get install zsh)"
zsh -n "$home/share/zsh/site-functions/_pqssh" || fail "_pqssh: zsh syntax"
ok "zsh completion parses"
grep -q '^ExecStart=/usr/bin/pqssh server -D' "$home/share/systemd/pqssh-server.service" || fail "unit ExecStart"
command -v systemd-analyze >/dev/null || fail "needs systemd-analyze to check the unit (apt-get install systemd)"
mkdir -p "$work/unit"
sed "s|/usr/bin/pqssh|$pq|" "$home/share/systemd/pqssh-server.service" > "$work/unit/pqssh-server.service"
out="$(systemd-analyze verify --man=no "$work/unit/pqssh-server.service" 2>&1)" || fail "systemd-analyze: $out"
ok "systemd unit verifies"

# --- 3. the .deb
deb="${deb[0]}"
dpkg-deb -f "$deb" Package Version Architecture | tr '\n' ' '; echo
[ "$(dpkg-deb -f "$deb" Package)" = pqssh ] || fail "Package field"
listing="$(dpkg-deb -c "$deb")"
for p in ./usr/bin/pqssh ./usr/lib/pqssh/bin/pqssh ./usr/lib/pqssh/lib/pqssh.aot ./usr/lib/pqssh/lib/bulk-jit.json \
    ./usr/lib/pqssh/runtime/bin/java ./usr/lib/pqssh/libexec/pqssh-pam-session \
    ./usr/share/man/man1/pqssh.1.gz ./usr/share/man/man1/pqssh-ssh.1.gz ./usr/share/man/man8/pqssh-server.8.gz \
    ./usr/share/bash-completion/completions/pqssh ./usr/share/zsh/vendor-completions/_pqssh \
    ./usr/lib/systemd/system/pqssh-server.service ./usr/share/doc/pqssh/copyright; do
  grep -q " $p\( -> .*\)\?$" <<<"$listing" || fail ".deb lacks $p"
done
grep -q ' ./usr/bin/pqssh -> ../lib/pqssh/bin/pqssh$' <<<"$listing" || fail "/usr/bin/pqssh is no link to the launcher"
mkdir "$work/x"
dpkg -x "$deb" "$work/x"
out="$(run env PQSSH_JAVA_OPTS=-XX:AOTMode=on "$work/x/usr/bin/pqssh" --version 2>&1)" \
  || fail "usr/bin/pqssh from dpkg -x (with its AOT cache): $out"
ok ".deb contents; dpkg -x then usr/bin/pqssh --version: $out"

# a real install and removal, into a root of its own
root="$work/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
: > "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-depends --force-script-chrootless --force-not-root -i "$deb" >"$work/dpkg.log" 2>&1 \
  || { cat "$work/dpkg.log" >&2; fail "dpkg -i"; }
[ -L "$root/usr/bin/pqssh" ] || fail "dpkg -i installed no /usr/bin/pqssh"
out="$(run env PQSSH_JAVA_OPTS=-XX:AOTMode=on "$root/usr/bin/pqssh" --version 2>&1)" || fail "installed pqssh: $out"
dpkg --root="$root" --force-script-chrootless --force-not-root -r pqssh >>"$work/dpkg.log" 2>&1 \
  || { cat "$work/dpkg.log" >&2; fail "dpkg -r"; }
left="$(cd "$root" && find . -mindepth 1 \( -path ./var/lib/dpkg -prune \) -o \( -type f -o -type l \) -print)"
[ -z "$left" ] || fail "dpkg -r left files: $left"
grep -q '^Status: deinstall ok config-files\|^Status: .*not-installed' "$root/var/lib/dpkg/status" \
  || ! grep -q '^Package: pqssh' "$root/var/lib/dpkg/status" || fail "pqssh still installed: $(cat "$root/var/lib/dpkg/status")"
ok "dpkg -i / -r into a temporary root: installed $out, removed with nothing left"
echo "dist-test: all passed ($(du -h "$tarball" | cut -f1) tarball, $(du -h "$deb" | cut -f1) .deb)"
