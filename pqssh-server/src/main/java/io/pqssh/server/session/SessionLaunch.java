package io.pqssh.server.session;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.pqssh.server.login.Account;

/**
 * How sshd starts a session's process, as a command line, environment and working directory: the user's login shell
 * runs the command ({@code shell -c command}) or, with no command, runs as a login shell (argv[0] {@code -bash});
 * the environment is sshd's (USER, LOGNAME, HOME, SHELL, PATH, MAIL, SSH_CLIENT, SSH_CONNECTION, and TERM/SSH_TTY
 * with a pty), nothing from the server's own environment; the client's {@code env} requests that {@code AcceptEnv}
 * let through come first, so sshd's own variables win over them (as sshd's {@code do_setup_env}); the working
 * directory is the home directory ({@code /} when it is missing).
 * <p>
 * {@link #spawnArgv} is what the server actually executes: when the server runs as root and the account is another
 * user, util-linux {@code setpriv --reuid --regid --init-groups} (real and effective uid and gid, the supplementary
 * groups of {@code initgroups(3)}; capabilities go with the change from uid 0), then, already as the user, a short
 * {@code /bin/bash} trampoline ({@link #TRAMPOLINE}) that changes to the working directory, imports the session's
 * environment from descriptor 3 ({@link #environmentPayload}, NUL-separated), closes it and executes {@link #argv}. Nothing that runs before the uid change sees more than {@link #SPAWN_ENV}: the client's
 * variables ({@code LD_PRELOAD}, {@code LANG}, ...) reach only the user's own process, as with sshd, and they never
 * appear in a command line that other users can read in {@code /proc}.
 */
public final class SessionLaunch {
    /** Debian sshd's compiled-in default PATH for users ({@code --with-default-path}). */
    public static final String USER_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/games";
    /** Debian sshd's PATH for root ({@code --with-superuser-path}). */
    public static final String ROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    static final String SETPRIV = "/usr/bin/setpriv";
    /** coreutils chroot(8): chroot(2), then (with --userspec) setgroups, setgid, setuid, then exec inside. */
    static final String CHROOT = "/usr/sbin/chroot";
    static final String BASH = "/bin/bash";
    /** The whole environment of setpriv and the trampoline (fixed: no client input before the uid change). */
    static final List<String> SPAWN_ENV = List.of("PATH=/usr/bin:/bin");
    /**
     * Runs as the user (bash, started with {@link #SPAWN_ENV} only). $1: the working directory (sshd's message when
     * it cannot go there); then the user's argv. The environment is imported with {@code export}, never through a
     * command line (other users read those in /proc, and only the owner reads /proc/PID/environ): stderr is closed
     * meanwhile, since an unknown LANG or LC_ALL makes bash warn when it is set, and a name bash cannot export (not
     * an identifier, or one of bash's read-only variables, or REPLY, which the loop uses) is left out. After the
     * import only positional parameters are used, so nothing the client sent changes what is executed. bash adds
     * SHLVL=0 to the environment of what it executes, which a user's bash turns into 1 as under sshd.
     */
    static final String TRAMPOLINE = String.join("\n",
            "if ! cd -- \"$1\" 2>/dev/null; then",
            "  e=$(cd -- \"$1\" 2>&1); printf 'Could not chdir to home directory %s: %s\\n' \"$1\" \"${e##*: }\" >&2; cd /",
            "fi",
            "shift; unset OLDPWD SHLVL e; export -n PWD",
            "exec 4>&2 2>/dev/null",
            "while read -r -d ''; do",
            "  case ${REPLY%%=*} in REPLY|SHELLOPTS|BASHOPTS|BASH_VERSINFO|EUID|PPID|UID) ;; *) export -- \"$REPLY\";; esac",
            "done <&3",
            "exec 3<&- 2>&4 4>&-",
            "exec -- \"$@\"");

    private final List<String> argv;
    private final Map<String, String> env;
    private final Path directory;
    private final Account account;
    private final boolean switchUid;
    private final Path chroot;

    private SessionLaunch(List<String> argv, Map<String, String> env, Path directory, Account account,
            boolean switchUid) {
        this(argv, env, directory, account, switchUid, null);
    }

    private SessionLaunch(List<String> argv, Map<String, String> env, Path directory, Account account,
            boolean switchUid, Path chroot) {
        this.argv = List.copyOf(argv);
        this.env = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(env));
        this.directory = directory;
        this.account = account;
        this.switchUid = switchUid;
        this.chroot = chroot;
    }

    /**
     * This launch inside {@code root} (checked by {@link Chroot#check}): the root changes before the uid does, the
     * working directory is the home directory as a path inside the new root ({@code /} when it is missing there,
     * silently as sshd), and every program the session runs (bash for the trampoline, the shell, the command,
     * sftp-server) and /dev/null must exist inside it: a session that lacks one fails with that said.
     */
    SessionLaunch inChroot(Path root) throws IOException {
        List<String> missing = new ArrayList<>();
        for (String need : List.of(BASH, "/dev/null", argv.get(0))) {
            Path p = root.resolve(need.substring(1));
            if (!Files.exists(p)) {
                missing.add(need);
            }
        }
        if (!missing.isEmpty()) {
            // sshd's in-process internal-sftp needs nothing inside the chroot; pqssh starts every session as a
            // process through bash, and OpenSSH's sftp-server opens /dev/null
            throw new IOException("ChrootDirectory " + root + ": missing inside it: " + String.join(", ", missing)
                    + " (pqssh runs every session, internal-sftp included, as programs inside the chroot)");
        }
        // as sshd in a chroot: the home directory if it exists there, else / without a message
        Path home = account.home();
        Path dir = Files.isDirectory(root.resolve(home.toString().substring(1))) ? home : Path.of("/");
        return new SessionLaunch(argv, env, dir, account, switchUid, root);
    }

    /** This launch running {@code program} with {@code args} directly, without the user's shell (internal-sftp). */
    SessionLaunch direct(List<String> programAndArgs) {
        return new SessionLaunch(programAndArgs, env, directory, account, switchUid, chroot);
    }

    public Path chroot() {
        return chroot;
    }

    /**
     * @param account   the account to run as
     * @param switchUid whether to change uid/gid/groups (the server runs as root and {@code account} is not)
     * @param command   the command for {@code shell -c}, or null for an interactive login shell
     * @param extraEnv  TERM, SSH_TTY, SSH_ORIGINAL_COMMAND and the like, set after the standard variables
     */
    public static SessionLaunch of(Account account, boolean switchUid, String command, SocketAddress client,
            SocketAddress local, Map<String, String> extraEnv) {
        return of(account, switchUid, command, client, local, Map.of(), extraEnv);
    }

    /** As above, with the client's accepted {@code env} variables ({@code AcceptEnv}) set first. */
    public static SessionLaunch of(Account account, boolean switchUid, String command, SocketAddress client,
            SocketAddress local, Map<String, String> clientEnv, Map<String, String> extraEnv) {
        return of(account, switchUid, command, client, local, clientEnv, Map.of(), extraEnv);
    }

    /**
     * As above, with {@code userEnv} ({@link UserEnvironment}: the key's environment= options and
     * ~/.ssh/environment) after sshd's USER, HOME, PATH..., which it may override as in sshd, and before SSH_CLIENT,
     * SSH_CONNECTION and {@code extraEnv}, which it may not.
     */
    public static SessionLaunch of(Account account, boolean switchUid, String command, SocketAddress client,
            SocketAddress local, Map<String, String> clientEnv, Map<String, String> userEnv,
            Map<String, String> extraEnv) {
        Objects.requireNonNull(account, "account");
        Map<String, String> env = new LinkedHashMap<>(clientEnv);
        env.put("USER", account.name());
        env.put("LOGNAME", account.name());
        env.put("HOME", account.home().toString());
        env.put("SHELL", account.shell());
        env.put("PATH", account.uid() == 0 ? ROOT_PATH : USER_PATH);
        env.put("MAIL", "/var/mail/" + account.name());
        env.putAll(userEnv);
        if (client instanceof InetSocketAddress c && local instanceof InetSocketAddress l && c.getAddress() != null
                && l.getAddress() != null) {
            String ca = c.getAddress().getHostAddress();
            env.put("SSH_CLIENT", ca + " " + c.getPort() + " " + l.getPort());
            env.put("SSH_CONNECTION", ca + " " + c.getPort() + " " + l.getAddress().getHostAddress() + " "
                    + l.getPort());
        }
        env.putAll(extraEnv);
        List<String> argv = new ArrayList<>();
        String shell = account.shell();
        if (command != null) {
            argv.addAll(List.of(shell, "-c", command));
        } else {
            // sshd runs an interactive shell with argv[0] "-" + its name, which makes any shell a login shell;
            // posix_spawn and sh's exec (the prelude) cannot choose argv[0], bash's "exec -a" can (bash is
            // Essential on Debian)
            String name = Path.of(shell).getFileName().toString();
            argv.addAll(List.of(BASH, "-c", "exec -a \"$0\" \"$1\"", "-" + name, shell));
        }
        Path home = account.home();
        Path dir = Files.isDirectory(home) ? home : Path.of("/");
        return new SessionLaunch(argv, env, dir, account, switchUid);
    }

    /** This launch with sshd's motd and rc steps run in the session's process before the shell ({@link SessionPrelude}). */
    SessionLaunch withPrelude(SessionPrelude prelude, boolean interactive, boolean subsystem) {
        List<String> wrapped = prelude.wrap(argv, interactive, subsystem);
        return wrapped == argv ? this : new SessionLaunch(wrapped, env, directory, account, switchUid, chroot);
    }

    /**
     * What the server executes (as root when it is root): setpriv when switching users, the trampoline, then
     * {@link #argv}.
     *
     * @throws IOException when argv[0] is not an absolute path (bash would look it up in the client's PATH)
     */
    List<String> spawnArgv() throws IOException {
        if (!argv.get(0).startsWith("/")) {
            throw new IOException("cannot start " + argv.get(0) + ": a login shell must be an absolute path");
        }
        List<String> out = new ArrayList<>();
        if (chroot != null) {
            // root changes first (chroot needs root), then the ids; nothing runs as root inside the new root.
            // --userspec with numbers: coreutils takes the supplementary groups of the uid's account
            // (getgrouplist, looked up before the chroot), as setpriv's --init-groups
            out.add(CHROOT);
            if (switchUid) {
                out.add("--userspec=" + account.uid() + ":" + account.gid());
            }
            out.addAll(List.of("--", chroot.toString()));
        } else if (switchUid) {
            out.addAll(List.of(SETPRIV, "--reuid=" + account.uid(), "--regid=" + account.gid(), "--init-groups",
                    "--"));
        }
        out.addAll(List.of(BASH, "-c", TRAMPOLINE, "pqssh-session", directory.toString()));
        out.addAll(argv);
        return out;
    }

    /**
     * The environment for the trampoline's descriptor 3: NAME=VALUE entries, each ended by a NUL. An entry that
     * could not be one C string in envp (a NUL byte, an empty name or one with '=') is left out: it could
     * otherwise smuggle a second entry in.
     */
    byte[] environmentPayload() {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        env.forEach((k, v) -> {
            if (!k.isEmpty() && k.indexOf('=') < 0 && k.indexOf('\0') < 0 && v.indexOf('\0') < 0) {
                b.writeBytes((k + "=" + v).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                b.write(0);
            }
        });
        return b.toByteArray();
    }

    /** Whether this host can switch users the way {@link #of} does. */
    public static boolean canSwitchUsers() {
        return Files.isExecutable(Path.of(SETPRIV));
    }

    public List<String> argv() {
        return argv;
    }

    public Map<String, String> env() {
        return env;
    }

    public Path directory() {
        return directory;
    }
}
