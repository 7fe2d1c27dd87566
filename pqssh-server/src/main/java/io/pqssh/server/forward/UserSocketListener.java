package io.pqssh.server.forward;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.apache.sshd.common.session.Session;

import io.pqssh.common.forward.LocalForwardListener;
import io.pqssh.server.login.Account;

/**
 * A {@code streamlocal-forward@openssh.com} listener for another account, when the server runs as root: as sshd,
 * the socket is created by a process running as the user (in its own session without a controlling terminal, as
 * sshd's session processes: {@code setsid}, {@code setpriv} to the account, then a small Perl
 * listener: umask from StreamLocalBindMask, unlink first with StreamLocalBindUnlink, bind, listen), so the user's
 * own rights decide where it may be created and it belongs to the user from its first moment, with its final mode:
 * root never creates, links or changes anything in a directory the user controls. Each connection to it is relayed
 * by a child of that process to the server over a socket in a root-owned directory ({@code /tmp/pqssh-sl-*}), bound
 * by the server while the directory is 0700, given mode 0600 and the user's uid, and only then the directory 0711:
 * before that only root can reach it, after it only the user and root; a connection there is the user's own, as one
 * to the forwarded path.
 * Closing (cancel, end of the connection) closes the helper's stdin, on which it removes the socket it created
 * (if it is still the same file) and exits.
 */
final class UserSocketListener implements Closeable {
    static final String SETPRIV = "/usr/bin/setpriv";
    /** util-linux setsid: the helper, which the user may ptrace, must not keep the server's controlling terminal. */
    static final String SETSID = "/usr/bin/setsid";
    static final String PERL = "/usr/bin/perl";
    private static final long START_SECONDS = 20;

    /** args: path, umask (octal), unlink (1/0), relay socket. */
    private static final String SCRIPT = String.join("\n",
            "use strict; use Socket; use POSIX ();",
            "my ($path, $mask, $unlink, $relay) = @ARGV;",
            "umask(oct($mask));",
            "unlink($path) if $unlink eq '1';",
            "socket(my $l, AF_UNIX, SOCK_STREAM, 0) or die \"socket: $!\\n\";",
            "bind($l, pack_sockaddr_un($path)) or do { print STDERR \"$!\\n\"; exit 2 };",
            "listen($l, 128) or do { print STDERR \"$!\\n\"; unlink($path); exit 2 };",
            "my @st = stat($path);",
            "$SIG{CHLD} = 'IGNORE'; $| = 1; print \"ok\\n\";",
            "while (1) {",
            "  my $rin = ''; vec($rin, fileno($l), 1) = 1; vec($rin, fileno(STDIN), 1) = 1;",
            "  my $rout; next if select($rout = $rin, undef, undef, undef) <= 0;",
            "  if (vec($rout, fileno(STDIN), 1)) { my $b; last if !sysread(STDIN, $b, 1); }",
            "  if (vec($rout, fileno($l), 1)) {",
            "    accept(my $c, $l) or next;",
            "    my $pid = fork();",
            "    if (defined $pid && $pid == 0) { close($l); relay($c); POSIX::_exit(0); }",
            "    close($c);",
            "  }",
            "}",
            "my @now = stat($path);",
            "unlink($path) if @now && $now[0] == $st[0] && $now[1] == $st[1];",
            "exit 0;",
            "sub relay {",
            "  my $c = shift;",
            "  socket(my $r, AF_UNIX, SOCK_STREAM, 0) or return;",
            "  connect($r, pack_sockaddr_un($relay)) or return;",
            "  my %to = (fileno($c) => $r, fileno($r) => $c);",
            "  my %from = (fileno($c) => $c, fileno($r) => $r);",
            "  while (%from) {",
            "    my $rin = ''; vec($rin, $_, 1) = 1 for keys %from;",
            "    my $rout; next if select($rout = $rin, undef, undef, undef) <= 0;",
            "    for my $fd (keys %from) {",
            "      next unless vec($rout, $fd, 1);",
            "      my $buf; my $got = sysread($from{$fd}, $buf, 65536);",
            "      if (!$got) { shutdown($to{$fd}, 1); delete $from{$fd}; next; }",
            "      for (my $off = 0; $off < $got;) {",
            "        my $w = syswrite($to{$fd}, $buf, $got - $off, $off); return unless defined $w; $off += $w;",
            "      }",
            "    }",
            "  }",
            "}");

    private final LocalForwardListener relayListener;
    private final Process helper;
    private final Path dir;

    private UserSocketListener(LocalForwardListener relayListener, Process helper, Path dir) {
        this.relayListener = relayListener;
        this.helper = helper;
        this.dir = dir;
    }

    static boolean available() {
        return Files.isExecutable(Path.of(SETPRIV)) && Files.isExecutable(Path.of(SETSID))
                && Files.isExecutable(Path.of(PERL));
    }

    static UserSocketListener start(Session session, Account account, String path, int mask, boolean unlink,
            LocalForwardListener.Opening opening, Consumer<String> warn) throws IOException {
        // root's alone until the relay socket has its final owner and mode, whatever the umask
        Path dir = Files.createTempDirectory("pqssh-sl-", PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        Path relay = dir.resolve("relay");
        ServerSocketChannel s = null;
        Process helper = null;
        try {
            s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            s.bind(UnixDomainSocketAddress.of(relay));
            // root's until here (and mode 0600 from now on): only then the user's
            Files.setPosixFilePermissions(relay, PosixFilePermissions.fromString("rw-------"));
            Files.setAttribute(relay, "unix:uid", account.uid(), LinkOption.NOFOLLOW_LINKS);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
            // a child of the JVM is no process group leader, so setsid(1) calls setsid() in place, without forking
            ProcessBuilder pb = new ProcessBuilder(List.of(SETSID, SETPRIV, "--reuid=" + account.uid(),
                    "--regid=" + account.gid(), "--init-groups", "--", PERL, "-e", SCRIPT, "--", path,
                    Integer.toOctalString(mask), unlink ? "1" : "0", relay.toString()))
                    .directory(new java.io.File("/"));
            pb.environment().clear();
            pb.environment().put("PATH", "/usr/bin:/bin");
            helper = pb.start();
            String first = firstLine(helper);
            if (!"ok".equals(first)) {
                if (!helper.waitFor(5, TimeUnit.SECONDS)) {
                    helper.destroyForcibly();
                }
                String err = new String(helper.getErrorStream().readNBytes(4096), StandardCharsets.UTF_8).strip();
                throw new IOException("unix_listener: cannot bind to path " + path + ": "
                        + (err.isEmpty() ? "helper ended" : err));
            }
            LocalForwardListener l = LocalForwardListener.bound(session, s, relay, opening, warn);
            UserSocketListener u = new UserSocketListener(l, helper, dir);
            session.addCloseFutureListener(f -> u.close());
            return u;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (IOException | RuntimeException e) {
            if (helper != null) {
                helper.destroyForcibly();
            }
            if (s != null) {
                s.close();
            }
            Files.deleteIfExists(relay);
            Files.deleteIfExists(dir);
            throw e;
        }
    }

    /** The helper's first stdout line, or null when it ends (or says nothing within the start time). */
    private static String firstLine(Process p) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                return r.readLine();
            } catch (IOException e) {
                return null;
            }
        });
        try {
            return line.get(START_SECONDS, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public synchronized void close() {
        relayListener.close();
        try {
            helper.getOutputStream().close(); // the helper removes its socket and exits
            if (!helper.waitFor(5, TimeUnit.SECONDS)) {
                helper.destroyForcibly();
            }
        } catch (IOException e) {
            helper.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            helper.destroyForcibly();
        }
        try {
            Files.deleteIfExists(dir.resolve("relay"));
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // removed already
        }
    }
}
