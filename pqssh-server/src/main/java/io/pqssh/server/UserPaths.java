package io.pqssh.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Optional;

import io.pqssh.common.text.PercentExpand;

/**
 * Expands sshd path tokens for a login user: {@code %u} user, {@code %h} home directory, {@code %%} a percent sign;
 * a relative result is taken relative to the home directory, as sshd does for {@code AuthorizedKeysFile}.
 */
public final class UserPaths {
    private UserPaths() {
    }

    public static Optional<Path> resolve(String pattern, String user) {
        return resolve(pattern, user, null);
    }

    /** As {@link #resolve(String, String)} with the home directory already looked up ({@code null}: look it up). */
    static Optional<Path> resolve(String pattern, String user, Optional<Path> knownHome) {
        if (!user.matches("[A-Za-z0-9._][A-Za-z0-9._-]*")) {
            return Optional.empty(); // never build paths from user names with slashes or dots-only tricks
        }
        Optional<Path> home = knownHome != null ? knownHome : home(user);
        boolean[] homeMissing = {false};
        String expanded;
        try {
            expanded = PercentExpand.expand(pattern, t -> switch (t) {
                case 'u' -> user;
                case 'h' -> {
                    homeMissing[0] |= home.isEmpty();
                    yield home.map(Path::toString).orElse("");
                }
                default -> null;
            });
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + " in " + pattern, e);
        }
        if (homeMissing[0]) {
            return Optional.empty();
        }
        Path p = Path.of(expanded);
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

    /**
     * sshd's {@code StrictModes} check of an authorized file: the reason to refuse it, or empty when it may be used.
     * The file and every directory above it up to the user's home (up to {@code /} for a file outside the home)
     * must be owned by the login user or root and not be group or world writable (a root-owned sticky directory
     * such as {@code /tmp} excepted); those checks apply to the
     * resolved path, so to whatever a symlink points at. A file named inside the home must also resolve to a file
     * inside it: no symlink may lead out of the home.
     */
    public static Optional<String> strictModesRefusal(Path file, String user, Optional<Path> home) throws IOException {
        Path real = file.toRealPath();
        Path realHome = null;
        if (home.isPresent()) {
            Path h = home.get().toAbsolutePath().normalize();
            if (Files.isDirectory(h)) {
                realHome = h.toRealPath();
                if (file.toAbsolutePath().normalize().startsWith(h) && !real.startsWith(realHome)) {
                    return Optional.of("symlink leads out of the home directory " + h + " (to " + real + ")");
                }
            }
        }
        if (!Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.of("not a regular file");
        }
        Optional<String> bad = badOwnerOrMode(real, user, "file");
        if (bad.isPresent()) {
            return bad;
        }
        for (Path dir = real.getParent(); dir != null; dir = dir.getParent()) {
            bad = badOwnerOrMode(dir, user, "directory");
            if (bad.isPresent()) {
                return bad;
            }
            if (dir.equals(realHome)) {
                break; // sshd stops at the home directory, after checking it
            }
        }
        return Optional.empty();
    }

    /**
     * A root-owned directory with the sticky bit (like {@code /tmp}, mode 1777): only an entry's owner (or root) may
     * rename or remove it there, and the entry itself is checked, so it cannot be swapped by another user. sshd
     * refuses such a parent; pqssh accepts it (a deliberate difference, documented in docs/server-config.md).
     */
    private static boolean rootOwnedSticky(Path p, int uid, PosixFileAttributes a) throws IOException {
        return uid == 0 && a.isDirectory()
                && (((Number) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS)).intValue() & 01000) != 0;
    }

    private static Optional<String> badOwnerOrMode(Path p, String user, String what) throws IOException {
        PosixFileAttributeView view = Files.getFileAttributeView(p, PosixFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS);
        if (view == null) {
            return Optional.empty(); // no POSIX owner and modes on this file system
        }
        PosixFileAttributes a = view.readAttributes();
        int uid = ((Number) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)).intValue();
        String owner = a.owner().getName();
        if (uid != 0 && !owner.equals(user)) {
            return Optional.of("bad ownership for " + what + " " + p + ": owned by " + owner + ", not " + user
                    + " or root");
        }
        if ((a.permissions().contains(PosixFilePermission.GROUP_WRITE)
                || a.permissions().contains(PosixFilePermission.OTHERS_WRITE)) && !rootOwnedSticky(p, uid, a)) {
            return Optional.of("bad modes for " + what + " " + p + ": "
                    + java.nio.file.attribute.PosixFilePermissions.toString(a.permissions())
                    + " is group or world writable");
        }
        return Optional.empty();
    }
}
