package io.pqssh.server.daemon;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.pqssh.server.log.OneLinePrintStream;

/**
 * {@code pqssh server} without {@code -D}: sshd's daemon(3) for a JVM, which cannot fork. The launched process
 * starts a copy of its own command line in a new session (the copy calls setsid first), with stdin on /dev/null and
 * stdout/stderr on pipes. The copy loads its configuration, listens, writes its PidFile, then says so on stdout
 * ({@link #READY}), points its stdio at /dev/null and logs to syslog or the {@code -E} file from then on. It runs
 * in {@code /}, as sshd after daemon(3). The launched process copies the copy's stderr to its own until then and exits 0 on the ready line, or with the
 * copy's exit status when it ends first (a bad configuration, a busy port: reported on the terminal, as sshd does
 * for what it checks before daemon(3)).
 */
public final class Detach {
    /** Set in the copy's environment: it is the daemon and must not detach again. */
    public static final String CHILD_ENV = "PQSSH_SERVER_DETACHED";
    /** pqssh's own: the syslog socket (tests; a syslogd elsewhere). */
    public static final String SYSLOG_SOCKET_ENV = "PQSSH_SYSLOG_SOCKET";
    static final String READY = "pqssh-server-ready";
    private static final long START_TIMEOUT_SECONDS = 300;

    private Detach() {
    }

    public static boolean isDaemon() {
        return System.getenv(CHILD_ENV) != null;
    }

    /** The command line of the copy: this JVM's own, which must be running {@code io.pqssh.cli.Main server}. */
    static List<String> copyCommand(String javaCommand, List<String> arguments) throws IOException {
        int main = arguments.indexOf("io.pqssh.cli.Main");
        if (main < 0 || main + 1 >= arguments.size() || !arguments.get(main + 1).equals("server")) {
            throw new IOException("cannot find 'io.pqssh.cli.Main server' in this process's command line to start"
                    + " the daemon; run with -D");
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(javaCommand);
        if (arguments.stream().noneMatch(a -> a.startsWith("--enable-native-access"))) {
            cmd.add("--enable-native-access=ALL-UNNAMED"); // setsid and dup2 go through FFM
        }
        for (int i = 0; i < main; i++) {
            String a = arguments.get(i);
            boolean classPath = i > 0 && List.of("-cp", "-classpath", "--class-path").contains(arguments.get(i - 1));
            cmd.add(classPath ? absoluteClassPath(a) : a);
        }
        // the daemon runs in / (sshd's daemon(3) chdir), so it holds no directory busy; relative paths in -f, -E
        // and the configuration still resolve against the directory it was started from (the JDK resolves a
        // relative Path against user.dir)
        cmd.add("-Duser.dir=" + System.getProperty("user.dir"));
        cmd.addAll(arguments.subList(main, arguments.size()));
        return cmd;
    }

    /** The JVM resolves class path entries against its working directory, which for the daemon is {@code /}. */
    private static String absoluteClassPath(String classPath) {
        List<String> out = new ArrayList<>();
        for (String e : classPath.split(File.pathSeparator, -1)) {
            out.add(e.isEmpty() ? e : Path.of(e).toAbsolutePath().toString());
        }
        return String.join(File.pathSeparator, out);
    }

    /** In the launched process: starts the daemon and waits for it; returns this process's exit status. */
    public static int launch(PrintStream err) {
        // /proc/self/cmdline: the JDK's ProcessHandle gives no arguments for a command line longer than a page
        java.util.Optional<List<String>> self = io.pqssh.common.process.OwnCommandLine.get();
        List<String> cmd;
        try {
            if (self.isEmpty()) {
                throw new IOException("cannot read this process's command line to start the daemon; run with -D");
            }
            cmd = copyCommand(self.get().get(0), self.get().subList(1, self.get().size()));
        } catch (IOException e) {
            err.println("pqssh server: " + e.getMessage());
            return 1;
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(new File("/"))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().put(CHILD_ENV, "1");
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            err.println("pqssh server: cannot start the daemon: " + e.getMessage());
            return 1;
        }
        Thread copy = Thread.ofPlatform().daemon().name("pqssh-daemon-stderr").start(() -> copy(p.getErrorStream(), err));
        boolean ready = false;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            Thread watchdog = Thread.ofPlatform().daemon().name("pqssh-daemon-watchdog").start(() -> {
                try {
                    if (!p.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                        err.println("pqssh server: the daemon did not start within " + START_TIMEOUT_SECONDS
                                + " s; stopping it (pid " + p.pid() + ")");
                        p.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            for (String l; (l = out.readLine()) != null;) {
                if (l.equals(READY)) {
                    ready = true;
                    break;
                }
            }
            watchdog.interrupt();
        } catch (IOException e) {
            err.println("pqssh server: lost the daemon's output: " + e.getMessage());
        }
        try {
            if (ready) {
                // the daemon points its stderr at /dev/null right after the ready line: what it said before is copied
                copy.join(5_000);
                return 0;
            }
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                err.println("pqssh server: the daemon closed its output without starting; stopping it (pid "
                        + p.pid() + ")");
                p.destroyForcibly();
                return 1;
            }
            copy.join(5_000);
            return p.exitValue() == 0 ? 1 : p.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    private static void copy(InputStream in, PrintStream err) {
        byte[] b = new byte[8192];
        try (in) {
            for (int n; (n = in.read(b)) > 0;) {
                err.write(b, 0, n);
                err.flush();
            }
        } catch (IOException e) {
            // the daemon is gone or detached: nothing more to copy
        }
    }

    /** In the daemon, first thing: its own session, so no terminal signal or hangup reaches it. */
    public static void newSession() throws IOException {
        Libc.setsid();
    }

    /**
     * In the daemon, once listening with its PidFile written: releases the launched process, then points stdio at
     * /dev/null and {@code System.err} (where every log line goes) at {@code log}.
     */
    public static void ready(PrintStream log) throws IOException {
        System.out.println(READY);
        System.out.flush();
        System.err.flush();
        Libc.stdioToDevNull();
        System.setErr(OneLinePrintStream.wrap(log));
    }

    /**
     * sshd's {@code -E}: append to FILE (created 0600), in the daemon and in the foreground alike, in sshd's format
     * ({@link SshdLogFile}).
     */
    public static PrintStream logFile(Path file) throws IOException {
        if (!Files.exists(file)) {
            try {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // another writer made it: append to theirs
            }
        }
        OutputStream o = Files.newOutputStream(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        return new PrintStream(new SshdLogFile(o), true, StandardCharsets.UTF_8);
    }

    /** The syslog destination: {@code /dev/log} unless {@value #SYSLOG_SOCKET_ENV} names another socket. */
    public static Path syslogSocket() {
        String s = System.getenv(SYSLOG_SOCKET_ENV);
        return s != null && !s.isEmpty() ? Path.of(s) : Syslog.DEFAULT_SOCKET;
    }

    public static PrintStream syslog(Path socket) {
        return new PrintStream(new Syslog(socket, "pqssh-server", ProcessHandle.current().pid()), true,
                StandardCharsets.UTF_8);
    }
}
