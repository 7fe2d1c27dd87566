package io.pqssh.server.login;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Where {@code pqssh-pam-session} (pqssh-server/src/main/c, docs/security.md "Issue 20 §2: PAM") is, and whether a
 * root server may run it. Looked up, in order: the system property {@value #PROPERTY} (the source-tree launcher
 * {@code ./pqssh} sets it); {@code native/} beside the jar or classes directory this class came from (a Maven build:
 * {@code target/native/}); {@code ../libexec/} of that jar's directory (the distribution: {@code lib/} and
 * {@code libexec/}). The server runs it as root, so it is refused unless it and its directory belong to root (or to
 * the server's own user) and nobody else may write them, as sshd's {@code safe_path} asks of what it runs as root.
 */
public final class PamSessionHelper {
    public static final String NAME = "pqssh-pam-session";
    public static final String PROPERTY = "pqssh.pamSessionHelper";

    private PamSessionHelper() {
    }

    /** The helper, checked; or an exception whose message says in one line what is missing or unsafe. */
    public static Path locate() throws IOException {
        List<Path> tried = candidates();
        for (Path p : tried) {
            if (Files.exists(p)) {
                return checked(p);
            }
        }
        throw new IOException("the PAM session helper " + NAME + " is missing (looked at " + tried
                + "; set -D" + PROPERTY + "=PATH)");
    }

    private static List<Path> candidates() {
        List<Path> out = new ArrayList<>();
        String set = System.getProperty(PROPERTY);
        if (set != null && !set.isBlank()) {
            out.add(Path.of(set));
            return out; // an explicit choice is never replaced by another file
        }
        try {
            Path here = Path.of(PamSessionHelper.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path dir = here.getParent();
            if (dir != null) {
                out.add(dir.resolve("native").resolve(NAME));
                out.add(dir.resolve("../libexec").resolve(NAME).normalize());
            }
        } catch (URISyntaxException | RuntimeException e) {
            // no code source (a custom class loader): only the property can name it
        }
        return out;
    }

    /** {@code p} when it is an executable regular file that only root (or this process's user) can change. */
    static Path checked(Path p) throws IOException {
        Path real = p.toRealPath();
        long self = ProcessIdentity.current().uid();
        for (Path q = real; q != null; q = q.getParent()) {
            PosixFileAttributes a = Files.readAttributes(q, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            int owner = (Integer) Files.getAttribute(q, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            Set<PosixFilePermission> perms = a.permissions();
            boolean othersWrite = perms.contains(PosixFilePermission.GROUP_WRITE)
                    || perms.contains(PosixFilePermission.OTHERS_WRITE);
            if ((owner != 0 && owner != self) || othersWrite) {
                throw new IOException("the PAM session helper " + real + " is unsafe to run as root: " + q
                        + " is owned by uid " + owner + " or writable by others");
            }
        }
        if (!Files.isRegularFile(real) || !Files.isExecutable(real)) {
            throw new IOException("the PAM session helper " + real + " is not an executable file");
        }
        return real;
    }
}
