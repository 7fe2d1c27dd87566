package io.pqssh.mina.server.login;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Accounts from the system's name service through {@code getent(1)}, so NSS sources (LDAP, sssd) count as they do
 * for sshd's {@code getpwnam(3)}; {@code /etc/passwd} and {@code /etc/shadow} are read directly when getent is
 * missing.
 */
public final class SystemAccounts implements AccountSource {
    public static final SystemAccounts INSTANCE = new SystemAccounts();
    private static final String GETENT = "/usr/bin/getent";

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
        if (new java.io.File(GETENT).canExecute()) {
            try {
                Process p = new ProcessBuilder(GETENT, database, name).redirectErrorStream(false)
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
        try {
            return firstLineFor(java.nio.file.Files.readAllLines(java.nio.file.Path.of(file)), name);
        } catch (IOException e) {
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
