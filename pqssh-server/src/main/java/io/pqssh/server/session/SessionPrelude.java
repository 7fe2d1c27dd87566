package io.pqssh.server.session;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.sshd.common.AttributeRepository.AttributeKey;

/**
 * What sshd does in the session's process before the user's shell runs the command: {@code PrintMotd} (the motd
 * file on an interactive login, unless {@code ~/.hushlogin} exists, as sshd's {@code do_motd} and
 * {@code check_quietlogin}) and {@code PermitUserRC} ({@code ~/.ssh/rc} run by the user's shell as
 * {@code /bin/sh ~/.ssh/rc}, stdin empty, for exec and shell sessions but not subsystems, as sshd's
 * {@code do_rc_files}; else {@code /etc/ssh/sshrc} when it exists; with X11 forwarding the rc file reads the
 * protocol and cookie on stdin, and without one xauth adds them). All run as the user, in the session's process
 * (its stdout is the channel, or the pty), which then execs the command, keeping its PID. Immutable.
 *
 * @param motd        the motd file to print on an interactive login, or null for {@code PrintMotd no}
 * @param permitUserRc {@code PermitUserRC}
 * @param systemRc     whether {@code /etc/ssh/sshrc} runs when no user rc does (sshd: always)
 */
public record SessionPrelude(Path motd, boolean permitUserRc, boolean systemRc) {
    /** sshd's defaults: PrintMotd yes (/etc/motd), PermitUserRC yes. */
    public static final SessionPrelude SSHD_DEFAULTS = new SessionPrelude(Path.of("/etc/motd"), true, true);
    /** Nothing before the command (embedding). */
    public static final SessionPrelude NONE = new SessionPrelude(null, false, false);
    /** Where the server keeps it ({@code SshServer} attribute). */
    public static final AttributeKey<SessionPrelude> KEY = new AttributeKey<>();
    static final String SYSTEM_RC = "/etc/ssh/sshrc";

    /** The session's environment variable that carries the X11 cookie to the prelude, which removes it. */
    static final String X11_COOKIE_ENV = "PQSSH_X11_COOKIE";

    /*
     * $1 motd file or "", $2 user rc 1/0, $3 system rc 1/0, $4 xauth program, $5 the display name for xauth and
     * $6 the protocol (both "" without X11 forwarding), then the command. The cookie comes in the environment (a
     * command line is readable by every user) and leaves it before anything else runs; printf is sh's builtin, so
     * it reaches rc's or xauth's stdin only, as sshd's do_rc_files writes it.
     */
    private static final String SCRIPT = String.join("\n",
            "m=$1; r=$2; s=$3; xa=$4; xd=$5; xp=$6; shift 6",
            "xc=$" + X11_COOKIE_ENV + "; unset " + X11_COOKIE_ENV,
            "x() { if [ -n \"$xd\" ]; then printf '%s %s\\n' \"$xp\" \"$xc\"; fi; }",
            "if [ -n \"$m\" ] && [ ! -e \"$HOME/.hushlogin\" ] && [ -r \"$m\" ]; then cat -- \"$m\"; fi",
            "if [ \"$r\" = 1 ] && [ -f \"$HOME/.ssh/rc\" ]; then x | \"$SHELL\" -c '/bin/sh \"$HOME/.ssh/rc\"'",
            "elif [ \"$s\" = 1 ] && [ -f " + SYSTEM_RC + " ]; then x | \"$SHELL\" -c '/bin/sh " + SYSTEM_RC + "'",
            "elif [ -n \"$xd\" ]; then",
            "  printf 'remove %s\\nadd %s %s %s\\n' \"$xd\" \"$xd\" \"$xp\" \"$xc\" | \"$xa\" -q -",
            "fi",
            "unset xc",
            "exec \"$@\"");

    /** What the session's xauth step adds: the display name, protocol and xauth program (the cookie is separate). */
    public record X11Auth(String xauth, String authDisplay, String protocol) {
    }

    /**
     * {@code argv} (the user's shell and its command, after any setpriv prefix) preceded by the prelude, or
     * {@code argv} itself when nothing is to run.
     *
     * @param interactive a login shell (no command): the motd is printed
     * @param subsystem   a subsystem: no rc file
     */
    List<String> wrap(List<String> argv, boolean interactive, boolean subsystem) {
        return wrap(argv, interactive, subsystem, null);
    }

    /**
     * As above; with {@code x11} (X11 forwarding granted) the rc file gets the protocol and cookie on its stdin, or,
     * when none runs, xauth adds them as sshd does ({@code xauth -q -}: remove, then add). A subsystem runs no rc
     * file but still gets its xauth entry.
     */
    List<String> wrap(List<String> argv, boolean interactive, boolean subsystem, X11Auth x11) {
        boolean printMotd = interactive && motd != null;
        boolean rc = !subsystem && (permitUserRc || systemRc);
        if (!printMotd && !rc && x11 == null) {
            return argv;
        }
        List<String> out = new ArrayList<>(List.of("/bin/sh", "-c", SCRIPT, "sh", printMotd ? motd.toString() : "",
                rc && permitUserRc ? "1" : "0", rc && systemRc ? "1" : "0", x11 == null ? "" : x11.xauth(),
                x11 == null ? "" : x11.authDisplay(), x11 == null ? "" : x11.protocol()));
        out.addAll(argv);
        return out;
    }
}
