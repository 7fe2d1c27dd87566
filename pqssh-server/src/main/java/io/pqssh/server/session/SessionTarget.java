package io.pqssh.server.session;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.sshd.server.Environment;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.session.ServerSession;

import io.pqssh.server.login.Account;
import io.pqssh.server.login.AdmittingUserAuthFactory;
import io.pqssh.server.login.KeyRestrictions;
import io.pqssh.server.login.LoginPolicy;
import io.pqssh.server.login.ProcessIdentity;

/** The account a channel's process runs as, and whether starting it means switching uid. */
record SessionTarget(Account account, boolean switchUid) {
    static SessionTarget of(ChannelSession channel) throws IOException {
        ServerSession s = channel.getServerSession();
        LoginPolicy policy = AdmittingUserAuthFactory.policy(s);
        Account account = AdmittingUserAuthFactory.account(s)
                .orElseThrow(() -> new IOException("no account for user " + s.getUsername()));
        boolean switchUid = policy != null && policy.switchesUsers()
                && account.uid() != ProcessIdentity.current().uid();
        if (switchUid && !SessionLaunch.canSwitchUsers()) {
            throw new IOException(SessionLaunch.SETPRIV + " (util-linux) is missing: cannot run a session as "
                    + account.name());
        }
        return new SessionTarget(account, switchUid);
    }

    /** The launch for {@code command} (null: login shell) with the channel's forced-command variable, plus more. */
    SessionLaunch launch(ChannelSession channel, Environment env, String command, Map<String, String> more)
            throws IOException {
        return launch(channel, env, command, more, false);
    }

    /** As above; a subsystem runs no rc file. */
    SessionLaunch launch(ChannelSession channel, Environment env, String command, Map<String, String> more,
            boolean subsystem) throws IOException {
        return launch(channel, env, command, more, subsystem, null);
    }

    /**
     * As above; {@code direct} (not null: internal-sftp) is run as it is, without the user's shell. With the
     * connection's ChrootDirectory the launch happens inside it, after sshd's ownership checks: a failed check
     * fails the session with sshd's message (logged).
     */
    SessionLaunch launch(ChannelSession channel, Environment env, String command, Map<String, String> more,
            boolean subsystem, java.util.List<String> direct) throws IOException {
        ServerSession s = channel.getServerSession();
        io.pqssh.server.ServerConfig config = io.pqssh.server.ConnectionConfig.of(s).orElse(null);
        boolean adminForced = config != null && config.forceCommand != null;
        Map<String, String> extra = new LinkedHashMap<>(more);
        String original = env.getEnv().get(PqsshChannelSession.ORIGINAL_COMMAND);
        if (original != null && (adminForced || KeyRestrictions.of(s).forcedCommand().isPresent())) {
            extra.put(PqsshChannelSession.ORIGINAL_COMMAND, original);
        }
        // set by MINA when the client asked for agent forwarding and the ForwardingFilter allowed it
        String agent = env.getEnv().get(org.apache.sshd.agent.SshAgent.SSH_AUTHSOCKET_ENV_NAME);
        if (agent != null) {
            extra.put(org.apache.sshd.agent.SshAgent.SSH_AUTHSOCKET_ENV_NAME, agent);
        }
        Map<String, String> accepted = channel instanceof PqsshChannelSession p ? p.acceptedEnvironment() : Map.of();
        java.util.Optional<io.pqssh.server.x11.X11Forward> x11 = channel instanceof PqsshChannelSession p
                ? p.x11() : java.util.Optional.empty();
        x11.ifPresent(x -> {
            extra.put("DISPLAY", x.display());
            extra.put(SessionPrelude.X11_COOKIE_ENV, x.cookie());
        });
        SessionPrelude prelude = s.getFactoryManager().getAttribute(SessionPrelude.KEY);
        if (prelude != null && prelude.permitUserRc() && (adminForced || !KeyRestrictions.of(s).userRcAllowed())) {
            // a key with no-user-rc (or restrict), or ForceCommand (the user's rc could run anything before the
            // forced command): sshd then runs /etc/ssh/sshrc only
            prelude = new SessionPrelude(prelude.motd(), false, prelude.systemRc());
        }
        java.nio.file.Path chroot = null;
        if (config != null && config.chrootDirectory != null) {
            try {
                chroot = Chroot.check(Chroot.expand(config.chrootDirectory, account));
            } catch (IOException e) {
                throw chrootFailed(e);
            }
        }
        UserEnvironment permitted = s.getFactoryManager().getAttribute(UserEnvironment.KEY);
        Map<String, String> userEnv = permitted == null ? Map.of()
                : permitted.collect(KeyRestrictions.of(s).environment(), account, switchUid, chroot);
        SessionLaunch launch = SessionLaunch.of(account, switchUid, command, s.getClientAddress(),
                s.getIoSession().getLocalAddress(), accepted, userEnv, extra);
        if (config != null) {
            launch = launch.withAdminEnvironment(config.setEnv);
        }
        if (direct != null && (chroot != null || direct.get(0).equals(UserSessions.JAILED_SFTP))) {
            // sshd serves internal-sftp in-process, so its chroot needs nothing inside; pqssh's jail needs nothing
            // either, and serves where no OpenSSH sftp-server is installed
            launch = launch.servedByJail(chroot, direct.subList(1, direct.size()));
        } else if (direct != null) {
            launch = launch.direct(direct);
        }
        if (chroot != null && !launch.jailed()) {
            try {
                launch = launch.inChroot(chroot);
            } catch (IOException e) {
                throw chrootFailed(e);
            }
        }
        if (prelude != null && direct == null) {
            SessionPrelude.X11Auth auth = x11.map(x -> new SessionPrelude.X11Auth(x.xauth().toString(),
                    x.authDisplay(), x.protocol())).orElse(null);
            launch = launch.withPrelude(prelude, command == null, subsystem, auth);
        }
        return withPamSession(s, launch);
    }

    /**
     * {@code UsePAM yes} with the server running as root: the session runs inside PAM's session stack
     * ({@code pqssh-pam-session}, service and PAM_RHOST as the connection's account checks).
     */
    private static SessionLaunch withPamSession(ServerSession s, SessionLaunch launch) {
        LoginPolicy policy = AdmittingUserAuthFactory.policy(s);
        java.util.Optional<io.pqssh.server.login.PamLogins> pam = policy == null ? java.util.Optional.empty()
                : policy.pam();
        if (pam.isEmpty() || pam.get().sessionHelper().isEmpty()) {
            return launch;
        }
        String rhost = s.getClientAddress() instanceof java.net.InetSocketAddress a && a.getAddress() != null
                ? a.getAddress().getHostAddress() : "";
        return launch.withPam(new SessionLaunch.PamStack(pam.get().sessionHelper().get(), pam.get().service(), rhost,
                ""));
    }

    /** sshd: fatal in the session's child; the session fails, the log says why. */
    private IOException chrootFailed(IOException e) {
        CHROOT_LOG.error("fatal: {} (user {})", e.getMessage(), account.name());
        return e;
    }

    private static final org.slf4j.Logger CHROOT_LOG = org.slf4j.LoggerFactory.getLogger("io.pqssh.sshd");
}
