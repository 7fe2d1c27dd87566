package io.pqssh.mina.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Expands sshd path tokens for a login user: {@code %u} user, {@code %h} home directory, {@code %%} a percent sign;
 * a relative result is taken relative to the home directory, as sshd does for {@code AuthorizedKeysFile}.
 */
public final class UserPaths {
    private UserPaths() {
    }

    public static Optional<Path> resolve(String pattern, String user) {
        if (!user.matches("[A-Za-z0-9._][A-Za-z0-9._-]*")) {
            return Optional.empty(); // never build paths from user names with slashes or dots-only tricks
        }
        Optional<Path> home = home(user);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '%' && i + 1 < pattern.length()) {
                char t = pattern.charAt(++i);
                switch (t) {
                    case 'u' -> b.append(user);
                    case 'h' -> {
                        if (home.isEmpty()) {
                            return Optional.empty();
                        }
                        b.append(home.get());
                    }
                    case '%' -> b.append('%');
                    default -> throw new IllegalArgumentException("unknown token %" + t + " in " + pattern);
                }
            } else {
                b.append(c);
            }
        }
        Path p = Path.of(b.toString());
        if (!p.isAbsolute()) {
            if (home.isEmpty()) {
                return Optional.empty();
            }
            p = home.get().resolve(p);
        }
        return Optional.of(p);
    }

    /** Home directory from /etc/passwd; the JVM's own user.home for the user running the server. */
    public static Optional<Path> home(String user) {
        if (user.equals(System.getProperty("user.name"))) {
            return Optional.of(Path.of(System.getProperty("user.home")));
        }
        try {
            for (String line : Files.readAllLines(Path.of("/etc/passwd"))) {
                String[] f = line.split(":");
                if (f.length >= 6 && f[0].equals(user)) {
                    return Optional.of(Path.of(f[5]));
                }
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }
}
