package io.pqssh.mina.server.session;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.pqssh.mina.server.login.Account;

/**
 * How sshd starts a session's process, as a command line, environment and working directory: the user's login shell
 * runs the command ({@code shell -c command}) or, with no command, runs as a login shell (argv[0] {@code -bash});
 * the environment is sshd's (USER, LOGNAME, HOME, SHELL, PATH, MAIL, SSH_CLIENT, SSH_CONNECTION, and TERM/SSH_TTY
 * with a pty), nothing from the server's own environment; the client's {@code env} requests that {@code AcceptEnv}
 * let through come first, so sshd's own variables win over them (as sshd's {@code do_setup_env}); the working directory is the home directory ({@code /} when it is missing). When
 * the server runs as root and the account is another user, the process starts through util-linux
 * {@code setpriv --reuid --regid --init-groups}, which sets the real and effective uid and gid and the supplementary
 * groups ({@code initgroups(3)}) before it executes the shell; capabilities go with the change from uid 0.
 */
public final class SessionLaunch {
    /** Debian sshd's compiled-in default PATH for users ({@code --with-default-path}). */
    public static final String USER_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/games";
    /** Debian sshd's PATH for root ({@code --with-superuser-path}). */
    public static final String ROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    static final String SETPRIV = "/usr/bin/setpriv";
    static final String BASH = "/bin/bash";

    private final List<String> argv;
    private final Map<String, String> env;
    private final Path directory;

    private SessionLaunch(List<String> argv, Map<String, String> env, Path directory) {
        this.argv = List.copyOf(argv);
        this.env = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(env));
        this.directory = directory;
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
        Objects.requireNonNull(account, "account");
        Map<String, String> env = new LinkedHashMap<>(clientEnv);
        env.put("USER", account.name());
        env.put("LOGNAME", account.name());
        env.put("HOME", account.home().toString());
        env.put("SHELL", account.shell());
        env.put("PATH", account.uid() == 0 ? ROOT_PATH : USER_PATH);
        env.put("MAIL", "/var/mail/" + account.name());
        if (client instanceof InetSocketAddress c && local instanceof InetSocketAddress l && c.getAddress() != null
                && l.getAddress() != null) {
            String ca = c.getAddress().getHostAddress();
            env.put("SSH_CLIENT", ca + " " + c.getPort() + " " + l.getPort());
            env.put("SSH_CONNECTION", ca + " " + c.getPort() + " " + l.getAddress().getHostAddress() + " "
                    + l.getPort());
        }
        env.putAll(extraEnv);
        List<String> argv = new ArrayList<>();
        if (switchUid) {
            argv.addAll(List.of(SETPRIV, "--reuid=" + account.uid(), "--regid=" + account.gid(), "--init-groups",
                    "--"));
        }
        String shell = account.shell();
        if (command != null) {
            argv.addAll(List.of(shell, "-c", command));
        } else if (Files.isExecutable(Path.of(BASH))) {
            // sshd runs an interactive shell with argv[0] "-" + its name, which makes any shell a login shell;
            // Java cannot choose argv[0], bash's "exec -a" can (bash is Essential on Debian)
            String name = Path.of(shell).getFileName().toString();
            argv.addAll(List.of(BASH, "-c", "exec -a \"$0\" \"$1\"", "-" + name, shell));
        } else {
            argv.addAll(List.of(shell, "-l"));
        }
        Path home = account.home();
        Path dir = Files.isDirectory(home) ? home : Path.of("/");
        return new SessionLaunch(argv, env, dir);
    }

    /** This launch with sshd's motd and rc steps run in the session's process before the shell ({@link SessionPrelude}). */
    SessionLaunch withPrelude(SessionPrelude prelude, boolean interactive, boolean subsystem) {
        int at = argv.get(0).equals(SETPRIV) ? argv.indexOf("--") + 1 : 0;
        List<String> shell = argv.subList(at, argv.size());
        List<String> wrapped = prelude.wrap(shell, interactive, subsystem);
        if (wrapped == shell) {
            return this;
        }
        List<String> out = new ArrayList<>(argv.subList(0, at));
        out.addAll(wrapped);
        return new SessionLaunch(out, env, directory);
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
