package io.pqssh.server.login;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Accounts as sshd's {@code getpwnam(3)}/{@code getspnam(3)} see them. When {@code /etc/nsswitch.conf} consults
 * {@code files} first for the database (Debian's default), {@code /etc/passwd} and {@code /etc/shadow} are read
 * directly and an entry found there is the answer NSS would give; otherwise, and for names not in the files, the
 * name service answers through glibc's {@code getpwnam_r}/{@code getspnam_r} ({@link NameService}; {@code getent(1)}
 * when JNA cannot bind libc), so other sources (LDAP, sssd, systemd) count as they do for sshd. The files alone are
 * used when neither is there. Reading the files spares each login two process starts
 * (14 ms and 70 ms in one strace of a login on the loaded 2-core box; docs/startup.md).
 */
public final class SystemAccounts implements AccountSource {
    public static final SystemAccounts INSTANCE = new SystemAccounts();
    private static final String GETENT = "/usr/bin/getent";
    private static final String NSSWITCH = "/etc/nsswitch.conf";

    private SystemAccounts() {
    }

    @Override
    public Optional<Account> byName(String name) {
        if (!LoginPolicy.isPlausibleName(name)) {
            return Optional.empty();
        }
        return lookup("passwd", name, "/etc/passwd").flatMap(Account::fromPasswdLine)
                .filter(a -> a.name().equals(name));
    }

    @Override
    public Optional<String> shadowEntry(String name) {
        if (!LoginPolicy.isPlausibleName(name)) {
            return Optional.empty();
        }
        return lookup("shadow", name, "/etc/shadow");
    }

    private static Optional<String> lookup(String database, String name, String file) {
        boolean getent = new java.io.File(GETENT).canExecute();
        boolean nss = NameService.available();
        if (!(getent || nss) || filesFirst(database)) {
            Optional<String> local = fromFile(file, name);
            if (local.isPresent() || !(getent || nss)) {
                return local;
            }
        }
        if (nss) {
            try {
                // in this process, as sshd's getpwnam: a getent process per unknown name was a timing tell
                return NameService.lookup(database, name);
            } catch (IllegalStateException | LinkageError e) {
                // getent below, or nothing
            }
        }
        return getent ? fromGetent(database, name) : Optional.empty();
    }

    /** Whether the database's first NSS source is {@code files} (a missing nsswitch.conf or line means files). */
    static boolean filesFirst(String database) {
        List<String> lines;
        try {
            lines = java.nio.file.Files.readAllLines(java.nio.file.Path.of(NSSWITCH), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return true;
        }
        return filesFirst(lines, database);
    }

    static boolean filesFirst(List<String> nsswitch, String database) {
        for (String line : nsswitch) {
            String l = line.strip();
            int hash = l.indexOf('#');
            if (hash >= 0) {
                l = l.substring(0, hash).strip();
            }
            if (l.startsWith(database + ":")) {
                String[] sources = l.substring(database.length() + 1).strip().split("\\s+");
                return sources.length > 0 && sources[0].equals("files");
            }
        }
        return true;
    }

    private static Optional<String> fromFile(String file, String name) {
        try {
            return firstLineFor(java.nio.file.Files.readAllLines(java.nio.file.Path.of(file), StandardCharsets.UTF_8),
                    name);
        } catch (IOException | java.io.UncheckedIOException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> fromGetent(String database, String name) {
        try {
            // "--": a user name from the client such as "--service=x" must not be read as an option
            Process p = new ProcessBuilder(GETENT, database, "--", name).redirectErrorStream(false)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            p.getOutputStream().close();
            String out;
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8);
            }
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            // getent: 0 found, 2 not found; anything else (1, 3) is no answer either way
            return p.exitValue() == 0 ? firstLineFor(List.of(out.split("\n")), name) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static Optional<String> firstLineFor(List<String> lines, String name) {
        for (String l : lines) {
            if (l.startsWith(name + ":")) {
                return Optional.of(l.strip());
            }
        }
        return Optional.empty();
    }
}
