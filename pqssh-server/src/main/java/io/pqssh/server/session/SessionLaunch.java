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
     * SHLVL=0 to the environment of what it executes when none was imported, which a user's bash turns into 1 as
     * under sshd; its {@code exec} lowers an imported SHLVL (SetEnv, AcceptEnv, ~/.ssh/environment) by one, so that
     * is raised by one first and the program gets the value sshd would give it.
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
            "case ${SHLVL-} in ''|*[!0-9]*) ;; *) SHLVL=$((10#$SHLVL + 1));; esac",
            "exec -- \"$@\"");

    private final List<String> argv;
    /** The variables PAM's may override (the client's, then sshd's USER, HOME, PATH...). */
    private final Map<String, String> base;
    /** The variables that override PAM's (the user's environment, SSH_CLIENT, SSH_CONNECTION, TERM...). */
    private final Map<String, String> over;
    private final Map<String, String> env;
    private final Path directory;
    private final Account account;
    private final boolean switchUid;
    private final Path chroot;
    private final boolean loginShell;
    private final PamStack pam;
    /** Whether {@link #argv} is {@link io.pqssh.server.sftp.SftpJail}'s command line, run as it is (as root). */
    private final boolean jailed;

    /**
     * {@code UsePAM yes} as root: the session's process is started by {@code pqssh-pam-session} (docs/security.md),
     * which runs PAM's session stack around it.
     *
     * @param helper  the helper ({@link io.pqssh.server.login.PamSessionHelper})
     * @param service the PAM service ({@code sshd})
     * @param rhost   the client's address for {@code PAM_RHOST}, or "" when unknown
     * @param trailer text the helper prints after the modules' texts on an interactive login ("Last login ...")
     */
    record PamStack(Path helper, String service, String rhost, String trailer) {
        PamStack {
            Objects.requireNonNull(helper);
            Objects.requireNonNull(service);
            Objects.requireNonNull(rhost);
            Objects.requireNonNull(trailer);
        }
    }

    private SessionLaunch(List<String> argv, Map<String, String> base, Map<String, String> over, Path directory,
            Account account, boolean switchUid, Path chroot, boolean loginShell, PamStack pam, boolean jailed) {
        this.argv = List.copyOf(argv);
        this.base = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(base));
        this.over = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(over));
        Map<String, String> merged = new LinkedHashMap<>(base);
        merged.putAll(over);
        this.env = java.util.Collections.unmodifiableMap(merged);
        this.directory = directory;
        this.account = account;
        this.switchUid = switchUid;
        this.chroot = chroot;
        this.loginShell = loginShell;
        this.pam = pam;
        this.jailed = jailed;
    }

    private SessionLaunch with(List<String> newArgv, Path newDirectory, Path newChroot, PamStack newPam) {
        return new SessionLaunch(newArgv, base, over, newDirectory, account, switchUid, newChroot, loginShell, newPam,
                jailed);
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
            throw new MissingInChroot(root, missing);
        }
        // as sshd in a chroot: the home directory if it exists there, else / without a message
        Path home = account.home();
        Path dir = Files.isDirectory(root.resolve(home.toString().substring(1))) ? home : Path.of("/");
        return with(argv, dir, root, pam);
    }

    /** A chroot that lacks a program pqssh runs in it (sshd's in-process internal-sftp needs none of them). */
    static final class MissingInChroot extends IOException {
        private static final long serialVersionUID = 1L;
        private final String clientLine;

        MissingInChroot(Path root, List<String> missing) {
            super("ChrootDirectory " + root + ": missing inside it: " + String.join(", ", missing)
                    + " (pqssh runs every session, internal-sftp included, as programs inside the chroot)");
            this.clientLine = "internal-sftp: not served: pqssh runs sftp-server inside the ChrootDirectory, which"
                    + " lacks " + String.join(", ", missing);
        }

        /** What the client is told: the paths inside the chroot, not where it is on the server. */
        String clientLine() {
            return clientLine;
        }
    }

    /** This launch running {@code program} with {@code args} directly, without the user's shell (internal-sftp). */
    SessionLaunch direct(List<String> programAndArgs) {
        // not a login: no login messages, whatever the request had no command for
        return new SessionLaunch(programAndArgs, base, over, directory, account, switchUid, chroot, false, pam, jailed);
    }

    /**
     * This launch serving internal-sftp with {@code options} as sshd does, from a JVM of its own
     * ({@link io.pqssh.server.sftp.SftpJail}): started as root with a fixed environment, it changes root into
     * {@code root} (null: none) and to the account's ids itself, after loading its classes, so the chroot needs
     * nothing inside it. The session's environment is not sent: the server it runs has no use for it, and nothing of
     * the client's reaches a process while it is root. {@code LC_ALL=C.UTF-8} makes the JVM read and write file
     * names as UTF-8 (the JDK takes that from the locale only).
     */
    SessionLaunch servedByJail(Path root, List<String> options) {
        List<String> cmd = io.pqssh.server.sftp.SftpJail.command(root, switchUid ? account.uid() : null,
                account.gid(), account.name(), account.home().toString(), options);
        return new SessionLaunch(cmd, Map.of(), Map.of(), Path.of("/"), account, switchUid, root, false, pam, true);
    }

    /** Whether this launch is {@link #servedByJail}'s. */
    boolean jailed() {
        return jailed;
    }

    /**
     * sshd's {@code SetEnv} ({@code ServerConfig#setEnv}): the admin's variables override the client's, the user's,
     * PAM's and sshd's own (USER, HOME, PATH, TERM, DISPLAY, SSH_AUTH_SOCK...), but not the four sshd sets after
     * them, nor pqssh's own {@code PQSSH_*} ones (OpenSSH 9.2's sshd, measured: SetEnv SSH_CONNECTION=x and
     * SSH_TTY=x change nothing).
     */
    SessionLaunch withAdminEnvironment(Map<String, String> admin) {
        if (admin.isEmpty()) {
            return this;
        }
        Map<String, String> o = new LinkedHashMap<>(over);
        admin.forEach((name, value) -> {
            if (!ADMIN_CANNOT_SET.contains(name) && !name.startsWith("PQSSH_")) {
                o.put(name, value);
            }
        });
        return new SessionLaunch(argv, base, o, directory, account, switchUid, chroot, loginShell, pam, jailed);
    }

    private static final java.util.Set<String> ADMIN_CANNOT_SET = java.util.Set.of("SSH_CLIENT", "SSH_CONNECTION",
            "SSH_TTY", "SSH_ORIGINAL_COMMAND");

    /** This launch started through PAM's session stack ({@link PamStack}). */
    SessionLaunch withPam(PamStack stack) {
        return with(argv, directory, chroot, Objects.requireNonNull(stack));
    }

    /**
     * With PAM's session stack, this launch with {@code text} printed by the helper after the modules' texts (sshd's
     * loginmsg: "Last login" after pam_motd's); null without PAM (the caller prints it itself).
     */
    SessionLaunch withLoginTrailer(String text) {
        return pam == null ? null
                : with(argv, directory, chroot, new PamStack(pam.helper(), pam.service(), pam.rhost(), text));
    }

    /** The PAM session stack this launch runs in, or null. */
    PamStack pam() {
        return pam;
    }

    /** Whether this is an interactive login (no command): sshd shows the login messages only then. */
    boolean loginShell() {
        return loginShell;
    }

    Account account() {
        return account;
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
        // sshd's do_setup_env: PAM's variables come here (after these, before the rest), see pamPayload()
        Map<String, String> over = new LinkedHashMap<>(userEnv);
        if (client instanceof InetSocketAddress c && local instanceof InetSocketAddress l && c.getAddress() != null
                && l.getAddress() != null) {
            String ca = c.getAddress().getHostAddress();
            over.put("SSH_CLIENT", ca + " " + c.getPort() + " " + l.getPort());
            over.put("SSH_CONNECTION", ca + " " + c.getPort() + " " + l.getAddress().getHostAddress() + " "
                    + l.getPort());
        }
        over.putAll(extraEnv);
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
        return new SessionLaunch(argv, env, over, dir, account, switchUid, null, command == null, null, false);
    }

    /** This launch with sshd's motd and rc steps run in the session's process before the shell ({@link SessionPrelude}). */
    SessionLaunch withPrelude(SessionPrelude prelude, boolean interactive, boolean subsystem,
            SessionPrelude.X11Auth x11) {
        List<String> wrapped = prelude.wrap(argv, interactive, subsystem, x11);
        return wrapped == argv ? this : with(wrapped, directory, chroot, pam);
    }

    /**
     * What the server executes (as root when it is root): setpriv when switching users, the trampoline, then
     * {@link #argv}.
     *
     * @throws IOException when argv[0] is not an absolute path (bash would look it up in the client's PATH)
     */
    List<String> spawnArgv() throws IOException {
        if (jailed) {
            return argv;
        }
        if (!argv.get(0).startsWith("/")) {
            throw new IOException("cannot start " + argv.get(0) + ": a login shell must be an absolute path");
        }
        List<String> out = new ArrayList<>();
        if (chroot != null) {
            out.addAll(intoChroot(chroot, account, switchUid));
        } else if (switchUid) {
            out.addAll(List.of(SETPRIV, "--reuid=" + account.uid(), "--regid=" + account.gid(), "--init-groups",
                    "--"));
        }
        out.addAll(List.of(BASH, "-c", TRAMPOLINE, "pqssh-session", directory.toString()));
        out.addAll(argv);
        return out;
    }

    /**
     * The command line prefix that runs what follows it inside {@code root} as {@code account}: the root changes
     * first (chroot needs root), then the ids, so nothing runs as root inside the new root. {@code --userspec} with
     * numbers: coreutils takes the supplementary groups of the uid's account (getgrouplist, looked up before the
     * chroot), as setpriv's {@code --init-groups}.
     */
    static List<String> intoChroot(Path root, Account account, boolean switchUid) {
        List<String> out = new ArrayList<>(List.of(CHROOT));
        if (switchUid) {
            out.add("--userspec=" + account.uid() + ":" + account.gid());
        }
        out.addAll(List.of("--", root.toString()));
        return out;
    }

    /**
     * {@link #spawnArgv()}, started by {@code pqssh-pam-session} when this launch runs PAM's session stack: fixed
     * positions (service, user, PAM_RHOST, PAM_TTY, whether to show the login messages, {@code --}), so no value
     * is ever read as an option.
     *
     * @param tty the pty's path, or null without a pty (PAM_TTY {@code ssh}, as sshd)
     */
    List<String> spawnArgv(String tty) throws IOException {
        List<String> chain = spawnArgv();
        if (pam == null) {
            return chain;
        }
        // sshd's check_quietlogin: the messages of a login shell, unless ~/.hushlogin exists
        boolean show = loginShell && !Files.exists(account.home().resolve(".hushlogin"));
        List<String> out = new ArrayList<>(List.of(pam.helper().toString(), pam.service(), account.name(),
                pam.rhost(), tty == null ? "ssh" : tty, show ? "1" : "0", "--"));
        out.addAll(chain);
        return out;
    }

    /**
     * The environment for the trampoline's descriptor 3: NAME=VALUE entries, each ended by a NUL. An entry that
     * could not be one C string in envp (a NUL byte, an empty name or one with '=') is left out: it could
     * otherwise smuggle a second entry in.
     */
    byte[] environmentPayload() {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        entries(env, b);
        return b.toByteArray();
    }

    /**
     * The same for {@code pqssh-pam-session}'s descriptor 3: the variables PAM's may override, an empty entry, the
     * ones that override PAM's, an empty entry, then the login trailer. The helper hands the trampoline the first
     * part, then {@code pam_getenvlist()}, then the second part: the trampoline exports in order, so the later
     * wins, as in sshd's do_setup_env.
     */
    byte[] pamPayload() {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        entries(base, b);
        b.write(0);
        entries(over, b);
        b.write(0);
        if (pam != null) {
            b.writeBytes(pam.trailer().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        return b.toByteArray();
    }

    private static void entries(Map<String, String> vars, java.io.ByteArrayOutputStream b) {
        vars.forEach((k, v) -> {
            if (!k.isEmpty() && k.indexOf('=') < 0 && k.indexOf('\0') < 0 && v.indexOf('\0') < 0) {
                b.writeBytes((k + "=" + v).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                b.write(0);
            }
        });
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
