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
 * {@code do_rc_files}; else {@code /etc/ssh/sshrc} when it exists). Both run as the user, in the session's process
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

    private static final String SCRIPT = String.join("\n",
            "m=$1; r=$2; s=$3; shift 3",
            "if [ -n \"$m\" ] && [ ! -e \"$HOME/.hushlogin\" ] && [ -r \"$m\" ]; then cat -- \"$m\"; fi",
            "if [ \"$r\" = 1 ] && [ -f \"$HOME/.ssh/rc\" ]; then \"$SHELL\" -c '/bin/sh \"$HOME/.ssh/rc\"' </dev/null",
            "elif [ \"$s\" = 1 ] && [ -f " + SYSTEM_RC + " ]; then \"$SHELL\" -c '/bin/sh " + SYSTEM_RC + "' </dev/null; fi",
            "exec \"$@\"");

    /**
     * {@code argv} (the user's shell and its command, after any setpriv prefix) preceded by the prelude, or
     * {@code argv} itself when nothing is to run.
     *
     * @param interactive a login shell (no command): the motd is printed
     * @param subsystem   a subsystem: no rc file
     */
    List<String> wrap(List<String> argv, boolean interactive, boolean subsystem) {
        boolean printMotd = interactive && motd != null;
        boolean rc = !subsystem && (permitUserRc || systemRc);
        if (!printMotd && !rc) {
            return argv;
        }
        List<String> out = new ArrayList<>(List.of("/bin/sh", "-c", SCRIPT, "sh", printMotd ? motd.toString() : "",
                rc && permitUserRc ? "1" : "0", rc && systemRc ? "1" : "0"));
        out.addAll(argv);
        return out;
    }
}
