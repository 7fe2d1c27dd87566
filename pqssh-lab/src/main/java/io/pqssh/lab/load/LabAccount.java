package io.pqssh.lab.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A system account the lab creates for its logins and removes afterwards ({@code pqssh lab load --create-user}):
 * {@code useradd -m -s /bin/bash}, so its home and shell start-up files are Debian's {@code /etc/skel} ones (whose
 * {@code ~/.bashrc} returns at once for a non-interactive shell), not the lab user's own (root's {@code ~/.bashrc} on
 * the lab machine runs {@code pyenv init}, ~0.6 s of CPU per login). The password field becomes {@code *}: no
 * password can log in, and sshd without PAM does not call the account locked as it does {@code useradd}'s {@code !}.
 * Needs root. {@link #close()} runs {@code userdel -r}.
 */
public final class LabAccount implements AutoCloseable {
    public static final String DEFAULT_NAME = "pqsshlab";

    private final String name;
    private final Path home;

    private LabAccount(String name, Path home) {
        this.name = name;
        this.home = home;
    }

    public String name() {
        return name;
    }

    public Path home() {
        return home;
    }

    /** Creates {@code name}; refuses an account that already exists (the lab removes only what it made). */
    public static LabAccount create(String name) throws IOException {
        if (!name.matches("[a-z_][a-z0-9_-]{0,30}")) {
            throw new IllegalArgumentException("account name '" + name + "': lower-case letters, digits, _ and -");
        }
        if (exists(name)) {
            throw new IllegalArgumentException("account '" + name + "' already exists: the lab creates (and then"
                    + " removes) its own login account; use --user " + name + " without --create-user to log in as it");
        }
        run(List.of("/usr/sbin/useradd", "-m", "-s", "/bin/bash", name));
        LabAccount a = new LabAccount(name, Path.of(output(List.of("getent", "passwd", name)).split(":")[5]));
        try {
            run(List.of("/usr/sbin/usermod", "-p", "*", name));
        } catch (IOException | RuntimeException e) {
            a.close();
            throw e;
        }
        return a;
    }

    /** Whether {@code getent passwd name} finds the account. */
    public static boolean exists(String name) {
        try {
            Process p = new ProcessBuilder("getent", "passwd", name).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** {@code userdel -r} (after the servers are stopped: userdel refuses an account with running processes). */
    @Override
    public void close() {
        IOException last = null;
        for (int attempt = 0; attempt < 20; attempt++) {
            try {
                run(List.of("/usr/sbin/userdel", "-r", name));
                return;
            } catch (IOException e) {
                last = e;
                if (!exists(name)) {
                    return;
                }
                try {
                    Thread.sleep(250);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        System.err.println("pqssh lab: could not remove the account " + name + ": " + (last == null ? "interrupted"
                : last.getMessage()));
    }

    private static void run(List<String> cmd) throws IOException {
        List<String> c = new ArrayList<>(cmd);
        Process p = new ProcessBuilder(c).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + " hangs");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + out.strip());
        }
    }

    private static String output(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        try {
            p.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (out.isEmpty()) {
            throw new IOException(String.join(" ", cmd) + " printed nothing");
        }
        return out;
    }

    static boolean isRoot() {
        try {
            return Files.readString(Path.of("/proc/self/status")).lines().filter(l -> l.startsWith("Uid:"))
                    .anyMatch(l -> l.split("\\s+")[2].equals("0"));
        } catch (IOException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }
}
