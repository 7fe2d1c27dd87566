package io.pqssh.mina.server.session;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The session process's wait status, which Java hides: {@code Process.exitValue()} is 128+N both for a process
 * killed by signal N and for one that called {@code exit(128+N)}, and sshd answers the first with
 * {@code exit-signal}, the second with {@code exit-status}. The session's command therefore runs under a small
 * Perl parent (perl-base is Essential on Debian): it forks, execs the command in the child (so the command's PID,
 * stdio and environment are as without it), passes on every catchable signal it gets, and after {@code waitpid}
 * writes the raw status ({@code $?}) to a file this class made (0600, owned by the server's user: the wrapper
 * runs before {@code setpriv} changes user), then exits with the usual 0..255 value. Without Perl the command runs
 * unwrapped and a signal death is reported as exit status 128+N (documented).
 */
final class WaitStatus {
    static final String PERL = "/usr/bin/perl";
    // with a terminal the command shares the wrapper's process group, so the keyboard's signals (and SIGWINCH)
    // reach it from the line discipline; the wrapper ignores those instead of passing them on a second time
    private static final String SCRIPT = String.join("\n",
            "my $tty = shift; my $f = shift; my $pid;",
            "my @pass = $tty ? qw(HUP TERM USR1 USR2 ALRM CONT) : qw(HUP INT QUIT TERM USR1 USR2 ALRM CONT TSTP WINCH);",
            "my @quiet = $tty ? qw(INT QUIT TSTP TTIN TTOU WINCH) : ();",
            "for my $s (@pass) { $SIG{$s} = sub { kill($_[0], $pid) if $pid; }; }",
            "for my $s (@quiet) { $SIG{$s} = 'IGNORE'; }",
            "$pid = fork(); exit 127 unless defined $pid;",
            "if ($pid == 0) { $SIG{$_} = 'DEFAULT' for (@pass, @quiet);",
            "  exec { $ARGV[0] } @ARGV; print STDERR \"$ARGV[0]: $!\\n\"; exit 127; }",
            "my $r; do { $r = waitpid($pid, 0); } until ($r == $pid || ($r == -1 && !$!{EINTR}));",
            "my $st = $?;",
            "if (open(my $h, '>', $f)) { print $h $st; close($h); }",
            "exit(($st & 127) ? 128 + ($st & 127) : ($st >> 8));");

    private final Path file;

    private WaitStatus(Path file) {
        this.file = file;
    }

    /** A status file for one session, or empty when the host has no Perl (then nothing is wrapped). */
    static Optional<WaitStatus> create() {
        if (!Files.isExecutable(Path.of(PERL))) {
            return Optional.empty();
        }
        try {
            return Optional.of(new WaitStatus(Files.createTempFile("pqssh-wait-", ".status")));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** {@code argv} run under the wrapper, without a terminal. */
    List<String> wrap(List<String> argv) {
        return wrap(argv, false);
    }

    /** {@code argv} run under the wrapper; {@code terminal}: it runs in a pty as the session leader. */
    List<String> wrap(List<String> argv, boolean terminal) {
        List<String> out = new ArrayList<>(List.of(PERL, "-e", SCRIPT, "--", terminal ? "1" : "0", file.toString()));
        out.addAll(argv);
        return out;
    }

    /**
     * The signal that ended the command (its number, with the core-dump flag), or empty when it exited (or the
     * status is unknown). Removes the file.
     */
    Optional<Death> read() {
        try {
            String s = Files.readString(file, StandardCharsets.US_ASCII).strip();
            if (s.isEmpty()) {
                return Optional.empty();
            }
            int status = Integer.parseInt(s);
            int signal = status & 0x7f;
            return signal == 0 || signal == 0x7f ? Optional.empty()
                    : Optional.of(new Death(signal, (status & 0x80) != 0));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        } finally {
            discard();
        }
    }

    void discard() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // a leftover empty file in the temporary directory
        }
    }

    /** A death by signal. */
    record Death(int signal, boolean coreDumped) {
        /** sshd's sig2name(): RFC 4254 §6.10's names, {@code SIG@openssh.com} for any other. */
        String name() {
            switch (signal) {
                case 1: return "HUP";
                case 2: return "INT";
                case 3: return "QUIT";
                case 4: return "ILL";
                case 6: return "ABRT";
                case 8: return "FPE";
                case 9: return "KILL";
                case 10: return "USR1";
                case 11: return "SEGV";
                case 12: return "USR2";
                case 13: return "PIPE";
                case 14: return "ALRM";
                case 15: return "TERM";
                default: return "SIG@openssh.com";
            }
        }
    }
}
