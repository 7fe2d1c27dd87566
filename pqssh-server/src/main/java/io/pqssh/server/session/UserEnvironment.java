package io.pqssh.server.session;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.server.login.Account;
import io.pqssh.server.login.AccessLists;

/**
 * sshd's {@code PermitUserEnvironment}: {@code yes} or a pattern list of names lets the authorized key's
 * {@code environment="NAME=value"} options and {@code ~/.ssh/environment} set variables of the session. The file is
 * read as the user (through setpriv, as sshd reads it after dropping privileges), so root never opens a file the
 * user points it at, and it is parsed as sshd's {@code read_environment_file}: {@code NAME=value} lines, leading
 * blanks skipped, {@code #} comments and blank lines ignored, a line without {@code =} skipped, at most 1000 lines.
 * The variables join the session's environment map, which reaches only the user's own process (the trampoline
 * imports it after the uid change): LD_PRELOAD and the like never reach setpriv or anything else that runs as root.
 * Immutable.
 */
public final class UserEnvironment {
    /** The server's setting (an SshServer attribute); absent: PermitUserEnvironment no. */
    public static final AttributeKey<UserEnvironment> KEY = new AttributeKey<>();

    private static final Logger LOG = LoggerFactory.getLogger(UserEnvironment.class);
    /** sshd's limit: more lines end the session ("Too many lines in environment file"). */
    static final int MAX_LINES = 1000;
    /** sshd reads lines of at most 4 KiB; a file larger than 1000 of them cannot be sshd's either. */
    private static final int MAX_BYTES = MAX_LINES * 4096;

    private final String patterns;

    private UserEnvironment(String patterns) {
        this.patterns = patterns;
    }

    /** sshd's values, case-sensitive as sshd compares them: {@code no} (null), {@code yes}, or a pattern list. */
    public static UserEnvironment parse(String value) {
        String v = value.strip();
        if (v.equals("no")) {
            return null;
        }
        return new UserEnvironment(v.equals("yes") ? null : v);
    }

    /** What {@code sshd -T} prints for it. */
    public static String sshdT(UserEnvironment e) {
        return e == null ? "no" : e.patterns == null ? "yes" : e.patterns;
    }

    /** Whether {@code name} may be set (sshd's match_pattern_list: a matching {@code !pattern} vetoes). */
    boolean allows(String name) {
        if (patterns == null) {
            return true;
        }
        boolean hit = false;
        for (String p : patterns.split(",")) {
            boolean negated = p.startsWith("!");
            if (AccessLists.wildcard(name, negated ? p.substring(1) : p, false)) {
                if (negated) {
                    return false;
                }
                hit = true;
            }
        }
        return hit;
    }

    /**
     * The variables for a session of {@code account}: the key's {@code environment=} entries, then the file's lines
     * (a later one wins), each name allowed by the setting.
     *
     * @param switchUid whether the server runs as another uid than the account (then the file is read through
     *                  setpriv as the account)
     * @param chroot    the session's ChrootDirectory (checked), or null: sshd's do_child reads the file after
     *                  do_setusercontext has changed the root and the uid, so {@code HOME/.ssh/environment} is the
     *                  path inside the chroot (OpenSSH 9.2, measured), read here by bash (which every chrooted
     *                  session needs) started inside it as the account
     * @throws IOException when the file has more than {@value #MAX_LINES} lines (sshd ends the session too)
     */
    public Map<String, String> collect(List<String> keyOptions, Account account, boolean switchUid, Path chroot)
            throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String e : keyOptions) {
            int eq = e.indexOf('=');
            if (eq > 0 && allows(e.substring(0, eq))) {
                out.put(e.substring(0, eq), e.substring(eq + 1));
            }
        }
        Path file = account.home().resolve(".ssh/environment");
        byte[] text = chroot != null ? readInChroot(file, account, switchUid, chroot)
                : switchUid ? readAsUser(file, account) : readOwn(file);
        if (text != null) {
            parse(new String(text, StandardCharsets.UTF_8), file, out);
        }
        return out;
    }

    /** sshd's read_environment_file on the file's text, into {@code env}. */
    void parse(String text, Path file, Map<String, String> env) throws IOException {
        String[] lines = text.split("\n", -1);
        int count = text.endsWith("\n") ? lines.length - 1 : lines.length;
        if (count > MAX_LINES) {
            throw new IOException("Too many lines in environment file " + file);
        }
        for (int i = 0; i < count; i++) {
            String line = lines[i];
            int start = 0;
            while (start < line.length() && (line.charAt(start) == ' ' || line.charAt(start) == '\t')) {
                start++;
            }
            line = line.substring(start);
            if (line.isEmpty() || line.charAt(0) == '#') {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq < 0) {
                LOG.debug("Bad line {} in {}", i + 1, file);
                continue;
            }
            String name = line.substring(0, eq);
            if (allows(name)) {
                env.put(name, line.substring(eq + 1));
            }
        }
    }

    /** The server runs as the account: an ordinary bounded read; no file is no variables. */
    private static byte[] readOwn(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            return null; // a FIFO would block the session's thread
        }
        try (InputStream in = Files.newInputStream(file)) {
            return bounded(in, file);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("Too many lines")) {
                throw e;
            }
            LOG.debug("{}: {}", file, e.toString());
            return null;
        }
    }

    /**
     * Reads {@code file} with the account's uid, gid and groups ({@code setpriv ... cat}), with the fixed spawn
     * environment; a file the account cannot read (or that is missing) gives null, as sshd's failed fopen.
     */
    private static byte[] readAsUser(Path file, Account account) throws IOException {
        return readThrough(List.of("/bin/cat", "--", file.toString()), file, account, true);
    }

    /**
     * Reads {@code file}, a path inside {@code chroot}, from inside it as the account ({@code chroot --userspec},
     * as a chrooted session starts): symbolic links resolve inside the chroot as in sshd, and the account's rights
     * decide. bash's builtins copy it, since nothing but bash (the session trampoline) can be counted on there.
     */
    private static byte[] readInChroot(Path file, Account account, boolean switchUid, Path chroot)
            throws IOException {
        List<String> argv = new java.util.ArrayList<>(SessionLaunch.intoChroot(chroot, account, switchUid));
        argv.addAll(List.of(SessionLaunch.BASH, "-c", COPY_WITH_BUILTINS, "pqssh-environment", file.toString()));
        return readThrough(argv, file, account, false);
    }

    /** bash copying the file $1 to stdout, line by line (a last line without newline gets one). */
    private static final String COPY_WITH_BUILTINS = "exec <\"$1\" || exit 1\n"
            + "while IFS= read -r l || [ -n \"$l\" ]; do printf '%s\\n' \"$l\"; done";

    /** {@code argv}'s output with the fixed spawn environment, bounded; a non-zero exit (no file) gives null. */
    private static byte[] readThrough(List<String> argv, Path file, Account account, boolean switchUid)
            throws IOException {
        java.util.Map<String, String> env = new java.util.LinkedHashMap<>();
        for (String kv : SessionLaunch.SPAWN_ENV) {
            env.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        }
        try {
            UserCommand.Result r = UserCommand.run(argv, account, switchUid, env, MAX_BYTES,
                    java.time.Duration.ofSeconds(10));
            return r.status() == 0 ? r.out() : null;
        } catch (UserCommand.OutputTooLong e) {
            throw new IOException("Too many lines in environment file " + file);
        }
    }

    private static byte[] bounded(InputStream in, Path file) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        for (int n; (n = in.read(buf)) >= 0;) {
            b.write(buf, 0, n);
            if (b.size() > MAX_BYTES) {
                throw new IOException("Too many lines in environment file " + file);
            }
        }
        return b.toByteArray();
    }
}
