package io.pqssh.server.login;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A system account as {@code getpwnam(3)} returns it: the identity a session runs as.
 *
 * @param name  login name
 * @param uid   user id
 * @param gid   primary group id
 * @param home  home directory (working directory of every session)
 * @param shell login shell; {@code /bin/sh} when the passwd field is empty, as sshd does
 */
public record Account(String name, int uid, int gid, Path home, String shell) {
    public Account {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(shell, "shell");
        if (shell.isEmpty()) {
            shell = "/bin/sh";
        }
    }

    /** One {@code /etc/passwd} line ({@code name:pw:uid:gid:gecos:home:shell}); empty when malformed. */
    public static java.util.Optional<Account> fromPasswdLine(String line) {
        String[] f = line.strip().split(":", -1);
        if (f.length != 7 || f[0].isEmpty()) {
            return java.util.Optional.empty();
        }
        try {
            return java.util.Optional.of(new Account(f[0], Integer.parseInt(f[2]), Integer.parseInt(f[3]),
                    Path.of(f[5].isEmpty() ? "/" : f[5]), f[6]));
        } catch (NumberFormatException | java.nio.file.InvalidPathException e) {
            return java.util.Optional.empty();
        }
    }
}
