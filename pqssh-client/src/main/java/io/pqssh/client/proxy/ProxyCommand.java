package io.pqssh.client.proxy;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.pqssh.client.config.ConfigException;

/**
 * {@code ProxyCommand}: the command, its tokens already expanded, run as ssh runs it — {@code exec COMMAND} through the
 * user's shell ({@code $SHELL}, else {@code /bin/sh}) with {@code -c}, so that the shell is replaced by the command and
 * the process ssh kills is the command itself. Its stdin and stdout carry the SSH connection; its stderr is the
 * user's. When the SSH session ends the command gets SIGHUP (as ssh sends), then SIGKILL if it is still there 3 s
 * later.
 */
public final class ProxyCommand {
    private final String command;
    private final String shell;

    private ProxyCommand(String command, String shell) {
        this.command = command;
        this.shell = shell;
    }

    /** {@code command} already expanded; the shell from {@code env}'s SHELL, as ssh's {@code _PATH_BSHELL} fallback. */
    public static ProxyCommand of(String command, Map<String, String> env) {
        String s = env.get("SHELL");
        return new ProxyCommand(command, s == null || s.isEmpty() ? "/bin/sh" : s);
    }

    public String command() {
        return command;
    }

    /** The argument vector: {@code SHELL -c "exec COMMAND"}. */
    List<String> argv() {
        return List.of(shell, "-c", "exec " + command);
    }

    /** Starts the command with pipes on stdin and stdout, stderr inherited. */
    Process start() throws IOException {
        return new ProcessBuilder(argv()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** SIGHUP now (ssh's signal for its proxy), SIGKILL after {@code graceMillis} if the command ignores it. */
    static void hangUp(Process p, long graceMillis) {
        if (!p.isAlive()) {
            return;
        }
        if (!Signals.kill(p.pid(), Signals.SIGHUP)) {
            p.destroy();
        }
        p.onExit().orTimeout(graceMillis, TimeUnit.MILLISECONDS).exceptionally(t -> {
            p.destroyForcibly();
            return p;
        });
    }

    /**
     * OpenSSH's check of the destination before any {@code %h} reaches a shell (CVE-2023-51385; ssh.c's
     * {@code valid_hostname}): a leading {@code -}, shell metacharacters, blanks and control characters are refused.
     */
    public static void checkHostName(String host) throws ConfigException {
        if (host.startsWith("-")) {
            throw new ConfigException("hostname contains invalid characters");
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if ("'`\"$\\;&<>|(){}".indexOf(c) >= 0 || Character.isWhitespace(c) || Character.isISOControl(c)) {
                throw new ConfigException("hostname contains invalid characters");
            }
        }
    }

    /**
     * The same check for a user name given on the command line ({@code -l}, {@code user@}; ssh.c's {@code valid_ruser}):
     * a leading {@code -}, shell metacharacters, a blank followed by {@code -}, a trailing backslash.
     */
    public static void checkUserName(String user) throws ConfigException {
        if (user.startsWith("-")) {
            throw new ConfigException("remote username contains invalid characters");
        }
        for (int i = 0; i < user.length(); i++) {
            char c = user.charAt(i);
            boolean last = i + 1 == user.length();
            if ("'`\";&<>|(){}".indexOf(c) >= 0 || (Character.isWhitespace(c) && !last && user.charAt(i + 1) == '-')
                    || (c == '\\' && last)) {
                throw new ConfigException("remote username contains invalid characters");
            }
        }
    }

    @Override
    public String toString() {
        return command;
    }
}
