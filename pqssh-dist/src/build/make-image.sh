#!/usr/bin/env bash
# Builds the pqssh distribution (docs/releasing.md) from pqssh-cli's runtime class path:
#   make-image.sh VERSION URL TARGET_DIR
# TARGET_DIR/deps holds the jars (maven-dependency-plugin), TARGET_DIR/classes the DistDocs generator. Makes
#   TARGET_DIR/image/pqssh-VERSION/  bin/pqssh, lib/*.jar, lib/pqssh.aot, libexec/pqssh-pam-session, runtime/ (jlink),
#                                    share/{man,...}
#   TARGET_DIR/pqssh-VERSION-linux-x64.tar.gz and TARGET_DIR/pqssh_DEBVERSION_amd64.deb
# The runtime is jlink'd from the JDK that runs the build ($JAVA_HOME, 25 or later).
set -euo pipefail
version="$1" url="$2" target="$3"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jdk="${JAVA_HOME:?JAVA_HOME must name the JDK 25 the runtime is made from}"
name="pqssh-$version"
img="$target/image/$name"
log="$target/image.log"
: > "$log"
step() { printf 'pqssh-dist: %s\n' "$*"; }
took() { printf 'pqssh-dist:   %ss\n' "$(( $(date +%s) - t0 ))"; }

rm -rf "$target/image" && mkdir -p "$img/bin" "$img/lib"

# pqssh-cli's jar first (it names the main class), then its runtime dependencies in a fixed (sorted) order:
# the AOT cache is only used with the class path it was recorded with
cli=("$target"/deps/pqssh-cli-*.jar)
[ "${#cli[@]}" = 1 ] && [ -f "${cli[0]}" ] || { echo "pqssh-dist: no single pqssh-cli jar in $target/deps" >&2; exit 1; }
mapfile -t rest < <(ls "$target"/deps/*.jar | grep -v '/pqssh-cli-[^/]*\.jar$' | LC_ALL=C sort)
jars=("${cli[0]}" "${rest[@]}")

step "class path: ${#jars[@]} jars, Bouncy Castle's without their signatures (the AOT cache skips signed jars)"
"$jdk/bin/java" -cp "$(IFS=:; echo "${jars[*]}")" 'io.pqssh.cli.startup.StartupTraining$Copy' "$img/lib" \
  "${jars[@]}" > /dev/null

t0=$(date +%s)
# what the class path needs (jdeps) plus what it reaches only by reflection or service loading:
# jdk.crypto.ec is empty on 25 but keeps old provider lists working; jdk.charsets for non-UTF-8 terminals;
# jdk.localedata is left out (messages and dates are English)
mods="$("$jdk/bin/jdeps" --print-module-deps --ignore-missing-deps --multi-release 25 -q \
  --class-path "$img/lib/*" "$img"/lib/*.jar)"
mods="$mods,jdk.charsets,jdk.zipfs"
step "runtime (jlink): $mods"
"$jdk/bin/jlink" --add-modules "$mods" --strip-debug --no-header-files --no-man-pages --compress zip-6 \
  --output "$img/runtime" >>"$log" 2>&1 || { cat "$log" >&2; exit 1; }
took

# the PAM session helper (C, built by pqssh-server; docs/security.md "Issue 20 §2: PAM"): the server finds it at
# libexec/ beside lib/
helper="$src/../../pqssh-server/target/native/pqssh-pam-session"
[ -x "$helper" ] || { echo "pqssh-dist: $helper is missing (pqssh-server's build makes it)" >&2; exit 1; }
mkdir -p "$img/libexec"
install -m 755 "$helper" "$img/libexec/pqssh-pam-session"

cp "$src/main/dist/pqssh" "$img/bin/pqssh"
classpath=""
for j in "${jars[@]}"; do classpath="$classpath\${home}/lib/$(basename "$j"):"; done
sed -i "s|@CLASSPATH@|${classpath%:}|" "$img/bin/pqssh"
chmod 755 "$img/bin/pqssh"
# JIT directives of bulk client commands (C2 for the crypto only), read by bin/pqssh
cp "$src/main/dist/bulk-jit.json" "$img/lib/bulk-jit.json"

step "man pages and completions (io.pqssh.dist.DistDocs)"
gen="$target/generated-docs"
rm -rf "$gen"
"$img/runtime/bin/java" --enable-native-access=ALL-UNNAMED -cp "$target/classes:$(cd "$img/lib" && printf "$img/lib/%s:" *.jar)" \
  io.pqssh.dist.DistDocs "$gen" "$version"
mkdir -p "$img/share/man" "$img/share/bash-completion/completions" "$img/share/zsh/site-functions" \
  "$img/share/systemd"
cp -r "$gen/man/man1" "$gen/man/man8" "$img/share/man/"
cp "$gen/bash-completion/pqssh" "$img/share/bash-completion/completions/pqssh"
cp "$gen/zsh/_pqssh" "$img/share/zsh/site-functions/_pqssh"
cp "$src/main/dist/pqssh-server.service" "$img/share/systemd/"
cp "$src/../../LICENSE" "$img/LICENSE"

# the start-up cache, recorded now with the bundled runtime and the final class path (docs/startup.md: a real
# loopback server in a child JVM and real logins); a build whose recording fails fails
t0=$(date +%s)
step "start-up cache (AOT, training logins on loopback; ~30-60 s)"
if ! "$img/runtime/bin/java" --enable-native-access=ALL-UNNAMED -XX:AOTCacheOutput="$img/lib/pqssh.aot" \
    -XX:+UnlockDiagnosticVMOptions -XX:-AOTRecordTraining -cp "$(sed -n 's/^cp="\(.*\)"$/\1/p' "$img/bin/pqssh" \
    | sed "s|\${home}|$img|g")" io.pqssh.cli.startup.StartupTraining >>"$log" 2>&1 \
    || [ ! -s "$img/lib/pqssh.aot" ]; then
  echo "pqssh-dist: recording the start-up cache failed:" >&2; cat "$log" >&2; exit 1
fi
if grep -q 'failed step' "$log"; then cat "$log" >&2; echo "pqssh-dist: the training had failures" >&2; exit 1; fi
took

# the tarball: owner root, files as built (their times are part of what the AOT cache checks)
step "tarball"
tarball="$target/$name-linux-x64.tar.gz"
tar -C "$target/image" --owner=0 --group=0 --numeric-owner -czf "$tarball" "$name"

# the .deb from the same image: /usr/lib/pqssh holds it, /usr/bin/pqssh links to its launcher
step ".deb"
deb="$target/deb"
rm -rf "$deb" && mkdir -p "$deb/DEBIAN" "$deb/usr/lib/pqssh" "$deb/usr/bin" "$deb/usr/share/man/man1" \
  "$deb/usr/share/man/man8" "$deb/usr/share/bash-completion/completions" "$deb/usr/share/zsh/vendor-completions" \
  "$deb/usr/lib/systemd/system" "$deb/usr/share/doc/pqssh"
cp -a "$img/bin" "$img/lib" "$img/libexec" "$img/runtime" "$deb/usr/lib/pqssh/"
ln -s ../lib/pqssh/bin/pqssh "$deb/usr/bin/pqssh"
for f in "$img"/share/man/man1/* "$img"/share/man/man8/*; do
  sec="${f##*.}"; gzip -9n < "$f" > "$deb/usr/share/man/man$sec/$(basename "$f").gz"
done
cp "$img/share/bash-completion/completions/pqssh" "$deb/usr/share/bash-completion/completions/"
cp "$img/share/zsh/site-functions/_pqssh" "$deb/usr/share/zsh/vendor-completions/"
cp "$img/share/systemd/pqssh-server.service" "$deb/usr/lib/systemd/system/"
{ echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
  echo "Upstream-Name: pqssh"; echo "Source: $url"; echo
  echo "Files: *"; echo "License: Apache-2.0"
  echo " On Debian systems the full text is in /usr/share/common-licenses/Apache-2.0."
  echo " The bundled Java runtime (usr/lib/pqssh/runtime) is OpenJDK: GPL-2.0 with the Classpath Exception,"
  echo " see usr/lib/pqssh/runtime/legal/."; } > "$deb/usr/share/doc/pqssh/copyright"
# Debian's version order: 0.1.0~SNAPSHOT sorts before 0.1.0
debversion="${version/-/\~}"
size=$(du -sk --exclude=DEBIAN "$deb" | cut -f1)
sed -e "s|@DEBVERSION@|$debversion|" -e "s|@URL@|$url|" -e "s|@SIZE@|$size|" "$src/main/deb/control" \
  > "$deb/DEBIAN/control"
install -m 755 "$src/main/deb/prerm" "$deb/DEBIAN/prerm"
rm -f "$target"/pqssh_*.deb
dpkg-deb --root-owner-group -Zgzip --build "$deb" "$target/pqssh_${debversion}_amd64.deb" >>"$log"
step "$(du -h "$tarball" | cut -f1) $(basename "$tarball"), $(du -h "$target"/pqssh_*.deb | cut -f1) $(basename "$target"/pqssh_*.deb)"
