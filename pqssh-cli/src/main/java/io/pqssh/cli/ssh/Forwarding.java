package io.pqssh.cli.ssh;

import java.util.List;

import org.apache.sshd.client.session.ClientSession;

import io.pqssh.cli.config.ClientConfig;
import io.pqssh.cli.config.ConfigException;
import io.pqssh.cli.config.ForwardSpec;

/**
 * Where port forwarding ({@code -L/-R/-D}, {@code LocalForward/RemoteForward/DynamicForward}) and agent forwarding
 * ({@code -A}, {@code ForwardAgent}) plug into {@code pqssh ssh}: {@link #checkSupported} runs before connecting,
 * {@link #start} after authentication. Until they are carried out, asking for them is an error rather than being
 * ignored. A session whose host key changed under {@code StrictHostKeyChecking no} gets no forwarding
 * ({@link HostKeyCheck#HOST_KEY_CHANGED}), as in OpenSSH.
 */
public final class Forwarding {
    private Forwarding() {
    }

    public static void checkSupported(ClientConfig config) throws ConfigException {
        List<ForwardSpec> f = config.forwards();
        if (!f.isEmpty()) {
            throw new ConfigException("port forwarding (" + f.get(0).kind().name().toLowerCase(java.util.Locale.ROOT)
                    + "): not implemented yet in pqssh ssh");
        }
        String agent = config.string("ForwardAgent").orElse("no");
        if (!agent.equalsIgnoreCase("no") && !agent.equalsIgnoreCase("false")) {
            throw new ConfigException("ForwardAgent " + agent + ": agent forwarding is not implemented yet in"
                    + " pqssh ssh");
        }
    }

    public static void start(ClientSession session, ClientConfig config, ClientLog log) throws ConfigException {
        if (Boolean.TRUE.equals(session.getAttribute(HostKeyCheck.HOST_KEY_CHANGED))) {
            log.debug1("host key changed: no forwarding on this connection");
        }
    }
}
